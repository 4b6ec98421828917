#!/usr/bin/env bash
# td-derive over every real perf stat capture in ../shared: each is read
# without a crash, and every metric perf itself printed equals td-derive's
# value at perf's printed precision, except where perf is known wrong.
. "$(dirname "$0")/lib.sh"
if ! have_shared; then skip "$TD_SHARED absent"; done_testing; exit; fi
# perf's own errors, seen in these captures (the check reports them on stderr):
#  - hybrid: perf divided cpu_atom instructions/branch-misses by cpu_core cycles/branches
#  - -r 3 with shadow metrics: perf's metric is not the ratio of the printed means
declare -A known=(
	[intel-hybrid-adl-class_default-a-sleep1_TopdownL1-core-atom_json_lkml-2023-kanliang.snippet.jsonl]=2
	[intel-hybrid-adl-class_default-a-sleep1_TopdownL1-core-atom_std_lkml-2023-kanliang.snippet.txt]=2
	[intel-hybrid-adl-class_default-a-sleep1_TopdownL1-core-atom_x,_lkml-2023-kanliang.snippet.csv]=2
	[intel-icx-icelakex_perf-stat-r3-ddd-like_topdown-L1-raw+metrics_variance_lkml-2023-aarora.snippet.txt]=27
)
total_checked=0
total_agree=0
for f in "$TD_SHARED"/testdata/stat*/* "$TD_SHARED"/testdata/stat_csv/*/*; do
	[ -f "$f" ] || continue
	case $f in *PROVENANCE.md) continue ;; esac
	name=$(basename "$f")
	run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" -q --json "$f"
	ok $(( RC > 2 )) "$name: read without a crash (exit $RC)"
	read -r checked agree < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["perf_check"]["checked"], d["perf_check"]["agree"])' "$T_TMP/out" 2>/dev/null || echo "x x")
	if [ "$checked" = x ]; then ok 1 "$name: JSON output parses"; continue; fi
	total_checked=$((total_checked + checked))
	total_agree=$((total_agree + agree))
	[ "$checked" -gt 0 ] || continue
	ok $(( checked - agree != ${known[$name]:-0} )) "$name: $agree of $checked perf-printed metrics agree (${known[$name]:-0} known perf errors)"
done
diag "perf-printed metrics checked: $total_checked, agreeing: $total_agree"
# specific values TMA.md section 10 recomputed from these captures
f=$TD_SHARED/testdata/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt
"$TD_BIN/td-derive" -q --csv "$f" >"$T_TMP/zen4.csv"
grep -q '^,run1 all,,ipc,0.945,' "$T_TMP/zen4.csv"; ok $? "Zen 4 -ddd: IPC 0.945 (perf: 0.94)"
grep -q '^,run1 all,,ghz,5.467,GHz' "$T_TMP/zen4.csv"; ok $? "Zen 4 -ddd: 5.467 GHz"
grep -q '^,run1 all,,l1d_miss_rate,31.129,%' "$T_TMP/zen4.csv"; ok $? "Zen 4 -ddd: L1D miss 31.13 %"
f=$TD_SHARED/testdata/stat_text/intel-hybrid-deDE-locale_tiled-matmul_main.profile.txt
"$TD_BIN/td-derive" -q --csv "$f" >"$T_TMP/de.csv"
grep -q '^,all,cpu_core,ipc,2.219,' "$T_TMP/de.csv"; ok $? "de_DE text: cpu_core IPC 2.219 (perf: 2,22)"
grep -q '^,all,cpu_core,llc_miss_rate,69.617,%' "$T_TMP/de.csv"; ok $? "de_DE text: LLC miss 69.62 %"
grep -q '^,all,cpu_core,ghz,4.508,GHz' "$T_TMP/de.csv"; ok $? "de_DE text: 4.508 GHz"
done_testing
