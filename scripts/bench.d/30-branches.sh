#!/bin/sh
# td-branches: brstack text throughput (target 1 GB/s) against wc -l, and
# the end-to-end pipe perf script -F ip,brstack | td-branches against
# perf report -b on the same real perf.data, all in this run.
set -u
src=$SHARED/testdata/brstack/intel-westmere-x5660_lbr.brstack.txt
data=$SHARED/testdata/perfdata/intel-westmere-x5660_lbr_br_inst_exec_perf3.3.perf.data
if [ ! -f "$src" ]; then
	echo "== td-branches bench: ../shared absent (the real LBR captures live there); skipped"
	exit 0
fi
big=$BENCH_DIR/brstack-big.txt
if [ ! -s "$big" ]; then
	: >"$big.tmp"
	while [ "$(stat -c %s "$big.tmp")" -lt 200000000 ]; do cat "$src" >>"$big.tmp"; done   # whole captures, repeated
	mv "$big.tmp" "$big"
fi
size=$(stat -c %s "$big")
echo "== td-branches bench: $big ($(awk -v b="$size" 'BEGIN{printf "%.1f", b/1e6}') MB: a real Westmere LBR capture repeated)"
cat "$big" >/dev/null
t() { /usr/bin/time -f "%e %M" -o "$BENCH_DIR/br.time" "$@" >/dev/null 2>&1; read -r s k <"$BENCH_DIR/br.time"; }
t wc -l "$big"; wc_s=$s
t "$BIN/td-branches" "$big"; td_s=$s; td_k=$k
awk -v b="$size" -v w="$wc_s" -v d="$td_s" -v k="$td_k" 'BEGIN {
	printf "wc -l          %6.2f s %8.0f MB/s\n", w, (w > 0 ? b / w / 1e6 : 0)
	printf "td-branches    %6.2f s %8.0f MB/s  %.1f MiB max RSS  (target 1000 MB/s)\n", d, (d > 0 ? b / d / 1e6 : 0), k / 1024 }'
if command -v perf >/dev/null && [ -f "$data" ]; then
	t sh -c "perf script -i '$data' -F ip,brstack 2>/dev/null | '$BIN/td-branches'"; pipe_s=$s
	t sh -c "perf report -i '$data' -b --stdio --sort symbol_from,symbol_to,mispredict 2>/dev/null"; rep_s=$s
	awk -v p="$pipe_s" -v r="$rep_s" 'BEGIN {
		printf "perf script -F ip,brstack | td-branches   %6.2f s\n", p
		printf "perf report -b --sort symbol_from,...      %6.2f s   ratio %.2f\n", r, (p > 0 ? r / p : 0) }'
fi
exit 0
