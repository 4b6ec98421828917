#!/bin/sh
# td-branches on a real Westmere LBR capture from ../shared (branch stacks
# need hardware this VM lacks, so none are bundled).
w=$SHARED/testdata/brstack/intel-westmere-x5660_lbr.brstack.txt
if [ -f "$w" ]; then
	echo "== td-branches --top 5: Westmere LBR (perf script -F ip,brstack, from ../shared)"
	"$BIN/td-branches" --top 5 "$w"
fi
d=$SHARED/testdata/perfdata/intel-westmere-x5660_lbr_br_inst_exec_perf3.3.perf.data
if [ -f "$d" ]; then
	echo "== td-branches --by func --top 5: the same recording's perf.data, named as perf script -F ip,brstacksym names it"
	echo "   (its binaries are not here; no kernel build id was recorded, so perf and td-branches name kernel addresses from this machine's kallsyms)"
	"$BIN/td-branches" --by func --top 5 "$d"
else
	echo "== td-branches: ../shared absent; try: perf record -b -e cycles -- CMD; perf script -F ip,brstack | td-branches"
fi
exit 0
