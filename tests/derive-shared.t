#!/usr/bin/env bash
# td-derive over every perf stat capture, recorded here (testdata/) and in
# ../shared: each is read without a crash, and every metric perf itself
# printed is accounted for (perf_check in the JSON output): recomputed equal
# at perf's printed precision, one of perf's known errors listed below, or
# reported by name as not recomputable, with the reason. None is skipped
# silently: printed = checked + not recomputable.
. "$(dirname "$0")/lib.sh"
# perf's own errors, seen in these captures (the check reports them on stderr):
#  - hybrid: perf divided cpu_atom instructions/branch-misses by cpu_core cycles/branches
declare -A known=(
	[intel-hybrid-adl-class_default-a-sleep1_TopdownL1-core-atom_json_lkml-2023-kanliang.snippet.jsonl]=2
	[intel-hybrid-adl-class_default-a-sleep1_TopdownL1-core-atom_std_lkml-2023-kanliang.snippet.txt]=2
	[intel-hybrid-adl-class_default-a-sleep1_TopdownL1-core-atom_x,_lkml-2023-kanliang.snippet.csv]=2
)
files=("$TD_ROOT"/testdata/stat/* "$TD_ROOT"/testdata/diff/*_stat-*)
if have_shared; then
	files+=("$TD_SHARED"/testdata/stat*/* "$TD_SHARED"/testdata/stat_csv/*/*)
else
	skip "$TD_SHARED absent: only the captures recorded here are walked"
fi
total_printed=0 total_checked=0 total_agree=0 total_not=0 total_known=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	case $f in *PROVENANCE.md) continue ;; esac
	name=$(basename "$f")
	# perf's own metric definitions for the CPUs the file names say (testdata/perf-list)
	cpuid=
	case $name in
	intel-tgl-ish_*) cpuid=GenuineIntel-6-8C-1 ;;
	intel-icx-icelakex_*) cpuid=GenuineIntel-6-6A-6 ;;
	intel-spr_*) cpuid=GenuineIntel-6-8F-0 ;;
	intel-hybrid-adl-class_*) cpuid=GenuineIntel-6-97-2 ;;
	esac
	metrics=()
	[ -n "$cpuid" ] && metrics=(--metrics "$TD_ROOT/testdata/perf-list/$cpuid.txt.gz")
	run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" -q --json "${metrics[@]}" "$f"
	ok $(( RC > 2 )) "$name: read without a crash (exit $RC)"
	read -r printed checked agree notrec < <(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["perf_check"]
assert all(x["metric"] and x["why"] and x["count"] > 0 for x in c["not_recomputable"])
print(c["printed"], c["checked"], c["agree"], sum(x["count"] for x in c["not_recomputable"]))' "$T_TMP/out" 2>/dev/null || echo "x x x x")
	if [ "$printed" = x ]; then ok 1 "$name: JSON output parses"; continue; fi
	total_printed=$((total_printed + printed))
	total_checked=$((total_checked + checked))
	total_agree=$((total_agree + agree))
	total_not=$((total_not + notrec))
	total_known=$((total_known + ${known[$name]:-0}))
	[ "$printed" -gt 0 ] || continue
	ok $(( printed != checked + notrec )) "$name: all $printed perf-printed metrics accounted for ($checked compared, $notrec named as not recomputable)"
	[ "$checked" -gt 0 ] || continue
	ok $(( checked - agree != ${known[$name]:-0} )) "$name: $agree of $checked agree (${known[$name]:-0} known perf errors)"
done
diag "perf printed $total_printed metrics; td-derive recomputed $total_agree equal at perf's precision," \
	"$((total_checked - total_agree)) differ ($total_known known perf errors), $total_not reported by name as not recomputable;" \
	"silently skipped: $((total_printed - total_checked - total_not))"
ok $(( total_printed != total_checked + total_not )) "no metric perf printed is skipped silently"
ok $(( total_checked - total_agree != total_known )) "every disagreement is a known perf error"
if ! have_shared; then done_testing; exit; fi
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
