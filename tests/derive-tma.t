#!/usr/bin/env bash
# td-derive's Top-down trees on real captures: the values TMA.md section 10
# recomputed from raw counts, the per-PMU trees of hybrids, trees from the
# values perf printed, mismeasured nodes, and the presentation options.
. "$(dirname "$0")/lib.sh"
DERIVE=$TD_BIN/td-derive
if ! have_shared; then skip "$TD_SHARED absent: the Top-down captures are all in ../shared"; done_testing; exit; fi
S=$TD_SHARED/testdata

# node VALUE-PREFIX FILE GREP-PATTERN DESCRIPTION: a CSV row of the tree
node() {
	"$DERIVE" -q --csv "$1" >"$T_TMP/tma.csv" 2>/dev/null
	grep -Eq "$2" "$T_TMP/tma.csv"; ok $? "$3"
}
T=$S/stat_text/intel-tgl-ish_perf6.1_TopdownL1-drilldown_perfwiki.snippet.txt
node "$T" '^,run1 all,,backend_bound,44\.300,%,high,bottleneck,.*,1,intel-perf-metrics$' "TGL perf-metrics: Backend Bound 44.3% (perf: 44.3), the bottleneck"
node "$T" '^,run1 all,,retiring,25\.49' "TGL: Retiring 25.5%"
node "$T" '^,run3 all,,memory_bound,17\.45' "TGL backend group: Memory Bound 17.5% from the stall events"
node "$T" '^,run4 all,,ports_utilization,31\.19[0-9]*,%,,.*,3,intel-perf-metrics; share of cycles$' "TGL core group: Ports_Utilization 31.2% (perf: 31.2), Level 3, without the serializing term; not high under a core_bound that is n/a"
node "$T" '^,run4 all,,divider,0\.06' "TGL core group: Divider 0.1%"
node "$T" '^,run2 all,,backend_bound,45\.800,.*,from perf$' "TGL default output (no raw events): tree from perf's printed TopdownL1"
K=$S/stat_text/intel-skylake-client_pre-ICL-TMA_TopdownL1-L2-L3_hashmap-benchmark_readme.snippet.txt
node "$K" '^,run3 all,,memory_bound,48\.8[0-9]*,%,high,bottleneck,' "Skylake SMT per-thread: Memory Bound 48.8% (perf: 48.8)"
node "$K" '^,run2 all,,backend_bound,59\.9[0-9]*,%,high' "Skylake: Backend Bound 60.0%"
A=$S/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt
node "$A" '^,run2 all,,memory_bound,60\.3[0-9]*,%,,bottleneck,.*,amd-zen4$' "Zen 4 PipelineL2: backend_bound_memory 60.3% (group-local cycles)"
node "$A" '^,run4 all,,memory_bound,73\.8' "Zen 4 run 2: 73.8%"
R=$S/stat_text/arm-neoverse-n2_TopDownL1_branch_metrics_lkml-2022-jingzhang.snippet.txt
node "$R" '^,run1 all,,backend_bound,68\.7[5-9]' "Neoverse N2: backend_bound 68.8% with its own group's cpu_cycles"
node "$R" '^,run1 all,,frontend_bound,26\.7' "Neoverse N2: frontend_bound 26.7% (perf's - cpu_cycles term)"
H=$S/stat_text/intel-hybrid-ptl-lnl-adl_topdown_lkml-snippets.txt
node "$H" '^,run2 all,cpu_atom,backend_bound,38\.4[0-9]*,.*,intel-atom$' "ADL E-core tree (5 wide): Backend Bound 38.4%"
node "$H" '^,run2 all,cpu_core,bad_speculation,10\.4' "ADL P-core tree kept apart: Bad Speculation 10.4%"
"$DERIVE" -q --csv --cpu intel-atom:6 "$H" >"$T_TMP/w6.csv" 2>/dev/null
grep -Eq '^,run2 all,cpu_atom,retiring,10\.1' "$T_TMP/w6.csv"; ok $? "--cpu intel-atom:6 changes the E-core width (Retiring 12.2% -> 10.2%)"
C=$S/stat_csv/intel-clx-gold6230_old--topdown-x,-C0_per-core_perf4.15_pmu-tools-issue203.snippet.csv
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$C"
grep -q 'retiring .*151\.0%.*mismeasured (outside 0-100%)' "$T_TMP/out" && grep -q 'Level 1 sums to 180.9%' "$T_TMP/out"
ok $? "Cascade Lake --topdown 151% Retiring: mismeasured, and the Level 1 sum shown"
"$DERIVE" -q --csv "$C" | grep -q ',retiring,151.000,%,mismeasured,.*mismeasured: outside 0-100%'; ok $? "CSV carries the mismeasured reason"

run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --level 1 --csv "$K"
ok $(( $(grep -c ',2,intel-pre-icl$' "$T_TMP/out") )) "--level 1: no Level 2 rows"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$K"
grep -q '^    memory_bound .*<- bottleneck' "$T_TMP/out" && grep -q '^  backend_bound .*<- bottleneck' "$T_TMP/out"
ok $? "text: indented tree, bottleneck path marked at each level"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --explain "$K"
grep -q '^memory_bound (also: tma_memory_bound' "$T_TMP/out"; ok $? "--explain: the bottleneck nodes explained"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --markdown "$K"
grep -q '^- \*\*run3 all\*\*: backend_bound 60.2% -> memory_bound 48.8%: Back-end stalls.* Remediation: ' "$T_TMP/out"
ok $? "--markdown diagnosis: the bottleneck path in words (not down to a 1% store_bound)"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --markdown "$A"
grep -q '^### Top-down run2 all' "$T_TMP/out" && grep -q '^| \*\*memory_bound\*\* | 2 | 60.3% |' "$T_TMP/out"
ok $? "--markdown: a Top-down table per run"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --json "$H"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(r["tma_level"] == 1 and r["pmu"] == "cpu_atom" for r in d["metrics"])' "$T_TMP/out"
ok $? "--json: tree rows with tma_level, per PMU"
J=$S/stat/intel-x86-16cpu_perf-stat-a-j-I1000_metric-threshold_lkml-2024-irogers.snippet.jsonl
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" -q --svg "$T_TMP/j.svg" "$J"
python3 -c 'import sys, xml.dom.minidom as x; d = x.parse(sys.argv[1]); assert len(d.getElementsByTagName("polygon")) == 4' "$T_TMP/j.svg"
ok $? "--svg on a real -j -I capture (tree from perf's tma_*): valid SVG, 4 Level 1 layers"
# No real capture has several intervals of Top-down events or -A with them:
# these two inputs are synthetic, built here from the layout of real rows.
for t in 1 2 3; do
	r=$((100000 * t)); b=$((600000 - 100000 * t))
	printf '     %d.000000000,1000000,,slots,1000000,100.00,,
     %d.000000000,%d,,topdown-retiring,1000000,100.00,,
' "$t" "$t" "$r"
	printf '     %d.000000000,200000,,topdown-fe-bound,1000000,100.00,,
     %d.000000000,%d,,topdown-be-bound,1000000,100.00,,
' "$t" "$t" "$b"
	printf '     %d.000000000,200000,,topdown-bad-spec,1000000,100.00,,
' "$t"
done >"$T_TMP/synthetic-topdown-intervals.csv"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" -q --level 1 --svg "$T_TMP/s.svg" "$T_TMP/synthetic-topdown-intervals.csv"
grep -q 'worst: 1.000 s, retiring 10.0%' "$T_TMP/s.svg"; ok $? "--svg (synthetic 3 intervals): the worst interval marked"
for c in 0 1 2 3 4 5; do
	r=$((100000 + 50000 * c))
	printf 'CPU%d,1000000,,slots,1000000,100.00,,
CPU%d,%d,,topdown-retiring,1000000,100.00,,
' "$c" "$c" "$r"
	printf 'CPU%d,%d,,topdown-fe-bound,1000000,100.00,,
CPU%d,400000,,topdown-be-bound,1000000,100.00,,
' "$c" $((400000 - 50000 * c)) "$c"
	printf 'CPU%d,100000,,topdown-bad-spec,1000000,100.00,,
' "$c"
done >"$T_TMP/synthetic-topdown-A.csv"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" -q "$T_TMP/synthetic-topdown-A.csv"
grep -q '^Top-down Level 1 per scope' "$T_TMP/out" && grep -Eq '^CPU0 .* frontend_bound$' "$T_TMP/out" && grep -Eq '^CPU5 .* backend_bound$' "$T_TMP/out" && grep -q '^Top-down all:' "$T_TMP/out"
ok $? "-A (synthetic, 6 CPUs): Level 1 per scope grouped by dominant category, then the summed tree"
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-explain" --vendor arm bad_speculation
grep -q 'next (Arm): .*td-branches' "$T_TMP/out"; ok $? "td-explain: Arm's next command for bad speculation"
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-explain" no_such_node
ok $(( RC != 2 )) "td-explain: unknown node is exit 2"
done_testing
