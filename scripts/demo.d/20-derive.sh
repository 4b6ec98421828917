#!/bin/sh
# td-derive on perf stat captures recorded here, then on a real Zen 4 capture.
echo "== td-derive: perf stat -a -A -I 250 (software events, recorded here)"
"$BIN/td-derive" testdata/stat/local-kvm_swevents_csv_-a-A-I250.csv
zen=$SHARED/testdata/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt
if [ -f "$zen" ]; then
	echo
	echo "== td-derive on ../shared: AMD Zen 4, perf stat -ddd (text output, multiplexed)"
	"$BIN/td-derive" -q "$zen" | head -20
fi
exit 0
