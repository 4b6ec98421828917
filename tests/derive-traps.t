#!/usr/bin/env bash
# The perf stat traps users of the peers hit (shared/spec/USER-REPORTS.md
# section 2.2), one test each, on real captures.
. "$(dirname "$0")/lib.sh"
DERIVE=$TD_BIN/td-derive
D=$TD_ROOT/testdata/stat
S=$TD_SHARED/testdata

# Locale: comma decimals split -x, fields and break -j JSON (apache/mesos#391, benchkit#68)
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters --csv "$D/local-kvm_swevents_deDE-locale_csv_-x,.csv"
grep -q '^,all,,task-clock,3.040000,' "$T_TMP/out" && grep -q 'LC_ALL=C' "$T_TMP/err"
ok $? "comma locale, -x,: 3,04 msec read as 3.04 and the user told to use LC_ALL=C"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters --csv "$D/local-kvm_swevents_deDE-locale_csv_-x;.csv"
grep -q '^,all,,task-clock,2.900000,' "$T_TMP/out"; ok $(( RC || $? )) "comma locale, -x';': 2,90 is a decimal, exit 0"
# A "# started on" line before JSON (benchkit#109)
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters --csv "$D/local-kvm_swevents_deDE-locale_json_-j.json"
ok $(( $(grep -c 'not a perf stat' "$T_TMP/err") )) "-j file with '# started on': no line rejected"
# Optional leading columns without a header (benchkit#27): -I with -A
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters --csv "$D/local-kvm_swevents_csv_-a-A-I250.csv"
grep -q '^0.250694149,CPU0,,task-clock,251.250000,' "$T_TMP/out"; ok $(( RC || $? )) "-I -A: time and CPU columns found without a header"
if have_shared; then
	# Rows repeat: one copy of an event per metric group (or per PMU, DCPerf#469)
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$S/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt"
	grep -q 'printed more than once in one interval and scope (e.g. cycles' "$T_TMP/err"
	ok $? "repeated ls_not_halted_cyc: averaged for ratios, named on stderr (not summed)"
	# Rows disappear or say <not counted> (PMU#463, intel/perfmon#299)
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --json "$S/stat_json/intel-hybrid_perf-stat-j_not-counted-atom_lkml-2024.snippet.jsonl"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["not_counted"] > 0' "$T_TMP/out"
	ok $(( RC || $? )) "hybrid <not counted> atom rows: counted as such, exit 0"
	# Multiplexing: the running share read from every layout (PMU#492: lost in 6.11 output)
	"$DERIVE" -q --csv "$S/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt" >"$T_TMP/out"
	grep -q ',run1 all,,ipc,0.945,,[a-z]*,[a-z]*,35.60,yes,' "$T_TMP/out"; ok $? "text (35.60%, 35.62%): IPC confidence 35.60, flagged low"
	"$DERIVE" -q --csv "$S/stat_csv/intel-perfmetrics-topdownl1_-a-M-x,-I1000_metric-threshold-col_lkml-2024.snippet.csv" >"$T_TMP/out"
	grep -q '^1.000103288,all,,retiring,10.194,%,,,100.00,no,' "$T_TMP/out"; ok $? "CSV: enabled 100.00 read from its column"
	# The new default output: metric-group header rows, tma_* only (FORMATS.md 1.3)
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$S/stat/intel-spr_default-a-sleep1_TopdownL1-L2-metricgroup_std_lkml-2023-kanliang.snippet.txt"
	grep -q ',all,,backend_bound,68.700,%,high,bottleneck,.*from perf$' "$T_TMP/out"; ok $? "SPR default output: the tree from perf's TopdownL1/L2 lines"
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$S/stat_csv/intel-perfmetrics-topdownl1_-a-M-x,-I1000_metric-threshold-col_lkml-2024.snippet.csv"
	ok $(( $(grep -c 'not a perf stat' "$T_TMP/err") )) "metric threshold column and metric-group rows: nothing rejected"
else
	for i in 1 2 3 4 5 6; do skip "../shared absent"; done
fi
done_testing
