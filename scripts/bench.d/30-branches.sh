#!/bin/sh
# td-branches: brstack text throughput (target 1 GB/s) against wc -l, on
# real captures repeated to 200 MB in $BENCH_DIR (made at bench time), and
# the end-to-end pipe perf script -F ip,brstack | td-branches against
# perf report -b on the same real perf.data, all in this run.
set -u
src=$SHARED/testdata/brstack/intel-westmere-x5660_lbr.brstack.txt
data=$SHARED/testdata/perfdata/intel-westmere-x5660_lbr_br_inst_exec_perf3.3.perf.data
if [ ! -f "$src" ]; then
	echo "== td-branches bench: ../shared absent (the real LBR captures live there); skipped"
	exit 0
fi
# big NAME SRC: SRC repeated (whole captures) to 200 MB in $BENCH_DIR, once
big() {
	out=$BENCH_DIR/$1
	if [ ! -s "$out" ]; then
		: >"$out.tmp"
		while [ "$(stat -c %s "$out.tmp")" -lt 200000000 ]; do cat "$2" >>"$out.tmp"; done
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}
t() { /usr/bin/time -f "%e %M" -o "$BENCH_DIR/br.time" "$@" >/dev/null 2>&1; read -r s k <"$BENCH_DIR/br.time"; }
# rate NAME FILE: td-branches on FILE against wc -l, both measured now
rate() {
	size=$(stat -c %s "$2")
	echo "== td-branches bench: $2 ($(awk -v b="$size" 'BEGIN{printf "%.1f", b/1e6}') MB: $1 repeated)"
	cat "$2" >/dev/null
	t wc -l "$2"; wc_s=$s
	t "$BIN/td-branches" "$2"; td_s=$s; td_k=$k
	awk -v b="$size" -v w="$wc_s" -v d="$td_s" -v k="$td_k" 'BEGIN {
		printf "wc -l          %6.2f s %8.0f MB/s\n", w, (w > 0 ? b / w / 1e6 : 0)
		printf "td-branches    %6.2f s %8.0f MB/s  %.1f MiB max RSS  (target 1000 MB/s)\n", d, (d > 0 ? b / d / 1e6 : 0), k / 1024 }'
}
rate "a real Westmere LBR capture (no cycles)" "$(big brstack-big.txt "$src")"
skx=$SHARED/testdata/brstack/intel-skx-8173M_lbr_cycles.brstack.txt
[ -f "$skx" ] && rate "a real Skylake-X LBR capture with CYCLES (exact medians)" "$(big brstack-cycles-big.txt "$skx")"
if command -v perf >/dev/null && [ -f "$data" ]; then
	t sh -c "perf script -i '$data' -F ip,brstack 2>/dev/null | '$BIN/td-branches'"; pipe_s=$s
	t sh -c "perf report -i '$data' -b --stdio --sort symbol_from,symbol_to,mispredict 2>/dev/null"; rep_s=$s
	t "$BIN/td-branches" "$data"; direct_s=$s
	awk -v p="$pipe_s" -v r="$rep_s" -v d="$direct_s" 'BEGIN {
		printf "perf script -F ip,brstack | td-branches   %6.2f s\n", p
		printf "perf report -b --sort symbol_from,...      %6.2f s   ratio %.2f\n", r, (p > 0 ? r / p : 0)
		printf "td-branches perf.data (no perf script)     %6.2f s   %.1fx the perf script pipe\n", d, (d > 0 ? p / d : 0) }'
fi
exit 0
