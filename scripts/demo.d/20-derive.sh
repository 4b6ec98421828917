#!/bin/sh
# td-derive on perf stat captures recorded here, then on real hardware
# captures from ../shared (the Top-down trees need hardware counters).
echo "== td-derive: perf stat -a -A -I 250 (software events, recorded here)"
"$BIN/td-derive" testdata/stat/local-kvm_swevents_csv_-a-A-I250.csv
skl=$SHARED/testdata/stat_text/intel-skylake-client_pre-ICL-TMA_TopdownL1-L2-L3_hashmap-benchmark_readme.snippet.txt
zen=$SHARED/testdata/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt
if [ -f "$skl" ]; then
	echo
	echo "== td-derive on ../shared: Skylake, perf stat -M TopdownL2 (Top-down tree, bottleneck path)"
	"$BIN/td-derive" -q "$skl" 2>/dev/null | sed -n '/^Top-down run3/,$p'
fi
if [ -f "$zen" ]; then
	echo
	echo "== td-derive on ../shared: AMD Zen 4, perf stat -M PipelineL2, Top-down only"
	"$BIN/td-derive" -q "$zen" 2>/dev/null | sed -n '/^Top-down run2/,/^$/p'
fi
tgl=$SHARED/testdata/stat_text/intel-tgl-ish_perf6.1_TopdownL1-drilldown_perfwiki.snippet.txt
if [ -f "$tgl" ]; then
	echo
	echo "== td-derive --metrics (perf 6.1's definitions for Tiger Lake): Level 4-5 nodes of perf stat -M tma_ports_utilization_group"
	"$BIN/td-derive" -q --metrics testdata/perf-list/GenuineIntel-6-8C-1.txt.gz "$tgl" 2>/dev/null | sed -n '/^Top-down run5/,/^$/p'
	echo "== td-explain: one of them, with its path"
	"$BIN/td-explain" tma_ports_utilized_3m
fi
exit 0
