#!/bin/sh
# td-info on a perf.data recorded for this project, and td-branches reading
# a branch-stack perf.data from ../shared without perf script.
echo "== td-info: a perf.data recorded here (cpu-clock -g, gzip and perl)"
"$BIN/td-info" testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.perf.data
w=$SHARED/testdata/perfdata/intel-westmere-x5660_lbr_br_inst_exec_perf3.3.perf.data
if [ -f "$w" ]; then
	echo
	echo "== td-branches --top 3 straight from a Westmere LBR perf.data (no perf script in the pipe)"
	"$BIN/td-branches" --top 3 "$w"
fi
exit 0
