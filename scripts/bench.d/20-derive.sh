#!/bin/sh
# td-derive throughput on a large real -I -A capture, against wc -l on the
# same file in the same run (target: 500 MB/s).
#
# BASE_BIN=DIR (a bin directory of another build, e.g. the commit a change
# started from): its td-derive is timed in turn with this one, on the same
# file, for CSV, JSON and text output, and the two are compared (CPU and
# wall, medians). Unset: this build alone, CSV output.
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
base=
if [ -n "${BASE_BIN:-}" ]; then
	if [ -x "$BASE_BIN/td-derive" ]; then
		base=$BASE_BIN/td-derive
	else
		echo "BASE_BIN=$BASE_BIN: no td-derive there; this build alone"
	fi
fi
# t CMD...: one timed run; s: wall seconds, c: CPU seconds (user + system), k: max RSS KiB
t() {
	/usr/bin/time -f "%e %U %S %M" -o "$BENCH_DIR/derive.time" "$@" >/dev/null 2>&1
	read -r s u y k <"$BENCH_DIR/derive.time"
	c=$(awk -v u="$u" -v y="$y" 'BEGIN { printf "%.2f", u + y }')
}
# five runs of each, taken in turn: on a shared host one run can be slowed
# by a neighbour, so the median is the figure and the best is shown beside it
wc_all='' td_all='' td_k=0 td_cpu='' base_all='' base_cpu='' base_k=0
for _ in 1 2 3 4 5; do
	t wc -l "$big"; wc_all="$wc_all $s"
	t "$BIN/td-derive" -q --csv "$big"; td_all="$td_all $s"; td_cpu="$td_cpu $c"; [ "$k" -gt "$td_k" ] && td_k=$k
	if [ -n "$base" ]; then
		t "$base" -q --csv "$big"; base_all="$base_all $s"; base_cpu="$base_cpu $c"
		[ "$k" -gt "$base_k" ] && base_k=$k
	fi
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
[ -n "$base" ] || exit 0

# compare FORMAT-NAME NEW-WALLS NEW-CPUS NEW-KIB BASE-WALLS BASE-CPUS BASE-KIB: the medians side by side
compare() {
	awk -v f="$1" -v nw="$2" -v nc="$3" -v nk="$4" -v bw="$5" -v bc="$6" -v bk="$7" '
	function median(list,   a, n, i, j, x) { n = split(list, a, " ")
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	function pct(new, old) { return old > 0 ? sprintf("%+.1f%%", 100 * (new / old - 1)) : "-" }
	BEGIN {
		printf "  %-5s  CPU %5.2f s vs %5.2f s (%s)   wall %5.2f s vs %5.2f s (%s)   RSS %.1f vs %.1f MiB\n", f,
			median(nc), median(bc), pct(median(nc), median(bc)), median(nw), median(bw), pct(median(nw), median(bw)),
			nk / 1024, bk / 1024 }'
}
echo "td-derive against BASE_BIN=$BASE_BIN (this build vs base: medians of 5 runs taken in turn; CPU = user + system)"
compare csv "$td_all" "$td_cpu" "$td_k" "$base_all" "$base_cpu" "$base_k"
for fmt in json text; do
	opt=--$fmt
	[ "$fmt" = text ] && opt=
	new_all='' new_cpu='' new_k=0 old_all='' old_cpu='' old_k=0
	for _ in 1 2 3 4 5; do
		# shellcheck disable=SC2086
		t "$BIN/td-derive" -q $opt "$big"; new_all="$new_all $s"; new_cpu="$new_cpu $c"; [ "$k" -gt "$new_k" ] && new_k=$k
		# shellcheck disable=SC2086
		t "$base" -q $opt "$big"; old_all="$old_all $s"; old_cpu="$old_cpu $c"; [ "$k" -gt "$old_k" ] && old_k=$k
	done
	compare "$fmt" "$new_all" "$new_cpu" "$new_k" "$old_all" "$old_cpu" "$old_k"
done
exit 0
