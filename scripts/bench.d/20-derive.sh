#!/bin/sh
# td-derive throughput on a large real -I -A capture, against wc -l on the
# same file in the same run (target: 500 MB/s).
set -u
big=$BENCH_DIR/derive-IA.csv
if [ ! -s "$big" ]; then
	# repeat the -a -A -I capture recorded here, shifting its timestamps so
	# every copy is a new interval (real rows, concatenated)
	src=testdata/stat/local-kvm_swevents_csv_-a-A-I250.csv
	awk -F, 'BEGIN { OFS = "," } /^ *[0-9]+\./ { rows[n++] = $0 }
		END { for (i = 0; bytes < 100000000; i++) for (r = 0; r < n; r++) {
			split(rows[r], f, ","); f[1] = sprintf("%16.9f", f[1] + i); line = f[1]
			for (k = 2; k in f; k++) line = line "," f[k]
			print line; bytes += length(line) + 1 } }' "$src" >"$big.tmp"
	mv "$big.tmp" "$big" 2>/dev/null
fi
size=$(stat -c %s "$big")
echo "== td-derive bench: $big ($(awk -v b="$size" 'BEGIN{printf "%.1f", b/1e6}') MB of perf stat -x, -a -A -I rows)"
cat "$big" >/dev/null
# five runs of each, taken in turn: on a shared host one run can be slowed
# by a neighbour, so the median is the figure and the best is shown beside it
t() { /usr/bin/time -f "%e %M" -o "$BENCH_DIR/derive.time" "$@" >/dev/null 2>&1; read -r s k <"$BENCH_DIR/derive.time"; }
wc_all= td_all= td_k=0
for run in 1 2 3 4 5; do
	t wc -l "$big"; wc_all="$wc_all $s"
	t "$BIN/td-derive" -q --csv "$big"; td_all="$td_all $s"; [ "$k" -gt "$td_k" ] && td_k=$k
done
awk -v b="$size" -v w="$wc_all" -v d="$td_all" -v k="$td_k" '
function sorted(list, a,   n, i, j, x) { n = split(list, a, " ")
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return n }
function rate(s) { return s > 0 ? b / s / 1e6 : 0 }
BEGIN {
	n = sorted(w, ws); sorted(d, ds); m = int((n + 1) / 2)
	printf "wc -l          %6.2f s %8.0f MB/s  (median of %d; best %.2f s)\n", ws[m], rate(ws[m]), n, ws[1]
	printf "td-derive      %6.2f s %8.0f MB/s  (median of %d; best %.2f s, %.0f MB/s)  %.1f MiB max RSS\n", ds[m], rate(ds[m]), n, ds[1], rate(ds[1]), k / 1024
	printf "ratio td-derive / wc -l = %.2f (medians; target 500 MB/s)\n", (ds[m] > 0 ? ws[m] / ds[m] : 0) }'
exit 0
