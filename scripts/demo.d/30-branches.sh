#!/bin/sh
# td-branches on a real Westmere LBR capture from ../shared (branch stacks
# need hardware this VM lacks, so none are bundled).
w=$SHARED/testdata/brstack/intel-westmere-x5660_lbr.brstack.txt
if [ -f "$w" ]; then
	echo "== td-branches --top 5: Westmere LBR (perf script -F ip,brstack, from ../shared)"
	"$BIN/td-branches" --top 5 "$w"
else
	echo "== td-branches: ../shared absent; try: perf record -b -e cycles -- CMD; perf script -F ip,brstack | td-branches"
fi
exit 0
