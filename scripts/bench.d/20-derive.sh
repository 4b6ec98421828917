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
t() { /usr/bin/time -f "%e %M" -o "$BENCH_DIR/derive.time" "$@" >/dev/null 2>&1; read -r s k <"$BENCH_DIR/derive.time"; }
t wc -l "$big"; wc_s=$s
t "$BIN/td-derive" -q --csv "$big"; td_s=$s; td_k=$k
awk -v b="$size" -v w="$wc_s" -v d="$td_s" -v k="$td_k" 'BEGIN {
	printf "wc -l          %6.2f s %8.0f MB/s\n", w, (w > 0 ? b / w / 1e6 : 0)
	printf "td-derive      %6.2f s %8.0f MB/s  %.1f MiB max RSS\n", d, (d > 0 ? b / d / 1e6 : 0), k / 1024
	printf "ratio td-derive / wc -l = %.2f (target 500 MB/s)\n", (d > 0 ? w / d : 0) }'
exit 0
