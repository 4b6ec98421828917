#!/usr/bin/env bash
# td-derive --metrics FILE / --cpuid ID: perf's own metric definitions for
# the capture's CPU give the Top-down nodes beyond tdkit's Level 1-3 formulas,
# placed by their metric groups, each printed node recomputed from its own
# group's copies and checked against perf's value. Captures: the Tiger Lake
# perf 6.1 drill-down (../shared), perf's listings of testdata/perf-list.
. "$(dirname "$0")/lib.sh"
TGL=$TD_ROOT/testdata/perf-list/GenuineIntel-6-8C-1.txt.gz

# bad --metrics files: said with the file's name, exit 2, the capture still read
cp "$(ls "$TD_ROOT"/testdata/stat/local-kvm_swevents_*.csv | head -1)" "$T_TMP/cap.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" --metrics "$T_TMP/none" "$T_TMP/cap.txt"
[ $RC -eq 2 ] && grep -q 'none' "$T_TMP/err"; ok $? "--metrics on a missing file: named, exit 2"
for kind in empty prose binary crlf truncated; do
	case $kind in
	empty) : >"$T_TMP/m" ;;
	prose) printf 'these are not\nperf list metrics\n' >"$T_TMP/m" ;;
	binary) printf 'Metric Groups:\n\0\1\2' >"$T_TMP/m" ;;
	crlf) gzip -dc "$TGL" | sed 's/$/\r/' >"$T_TMP/m" ;;
	truncated) gzip -dc "$TGL" | head -c 200000 >"$T_TMP/m" ;;
	esac
	run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" -q --metrics "$T_TMP/m" "$T_TMP/cap.txt"
	case $kind in
	crlf) [ $RC -eq 0 ] ;;                    # perf's listing with CR LF: read
	truncated) [ $RC -eq 2 ] && grep -q 'has no expression' "$T_TMP/err" ;;   # cut mid-metric: said
	*) [ $RC -eq 2 ] && grep -q 'td-derive: .*m' "$T_TMP/err" ;;
	esac
	ok $? "--metrics $kind file: exit $RC, no crash"
done
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" --cpuid 'x;rm -rf /' "$T_TMP/cap.txt"
grep -q "is not a cpuid" "$T_TMP/err"; ok $? "--cpuid with shell characters is refused, not run"

# a td-collect capture's header names the CPU: perf's table for it is taken
# without --metrics or --cpuid (from the installed perf, cached); without
# perf the tree and metrics are tdkit's own, quietly
ICX=$TD_ROOT/testdata/collect/collect-synthetic-icelake-x-header.csv
"$TD_BIN/td-derive" -q --csv --metrics "$TD_ROOT/testdata/perf-list/GenuineIntel-6-6A-6.txt.gz" "$ICX" >"$T_TMP/icx-m.csv"
while IFS=, read -r name value; do
	grep -q "^,all,,$name,$value," "$T_TMP/icx-m.csv"; ok $? "Ice Lake-X synthetic, perf's $name = $value (by hand)"
done <<'X'
ipbranch,5.000
ipmispredict,500.000
upi,0.800
X
PATH=/nonexistent run_tool "$T_TMP/icx-n.csv" "$T_TMP/err" "$TD_BIN/td-derive" -q --csv "$ICX"
[ $RC -eq 0 ] && [ ! -s "$T_TMP/err" ] && ! grep -q ',ipbranch,' "$T_TMP/icx-n.csv"
ok $? "header cpuid, no perf installed: tdkit's own metrics, nothing said, exit 0"
if command -v perf >/dev/null && PERF_CPUID=GenuineIntel-6-6A-6 perf list --details 2>/dev/null | grep -q '^  tma_'; then
	"$TD_BIN/td-derive" -q --csv "$ICX" >"$T_TMP/icx-a.csv"
	same "$T_TMP/icx-m.csv" "$T_TMP/icx-a.csv" "header cpuid GenuineIntel-6-6A-6: the installed perf's table, the same rows as --metrics"
	ls "$XDG_CACHE_HOME"/tdkit/perf-*-GenuineIntel-6-6A-6.metrics >/dev/null 2>&1
	ok $? "the header's table is cached per perf version and cpuid"
	"$TD_BIN/td-derive" -q --csv --metrics "$TD_ROOT/testdata/perf-list/GenuineIntel-6-55-4.txt.gz" "$ICX" >"$T_TMP/icx-s.csv"
	! grep -q ',upi,' "$T_TMP/icx-s.csv"; ok $? "--metrics FILE overrides the header's CPU (Skylake-X's UPI needs uops_retired.retire_slots)"
else
	skip "perf 6.1 with Ice Lake-X's table is not installed: the header's table not tried"
fi
if ! have_shared; then
	skip "$TD_SHARED absent: the Tiger Lake drill-down capture is there"
	done_testing
	exit
fi
F=$TD_SHARED/testdata/stat_text/intel-tgl-ish_perf6.1_TopdownL1-drilldown_perfwiki.snippet.txt
"$TD_BIN/td-derive" -q --csv --metrics "$TGL" "$F" >"$T_TMP/tgl.csv"
# run 5 is perf stat -M tma_ports_utilization_group: four Level 4 nodes, each
# in its own multiplexed group; run 4 is tma_core_bound_group
while IFS=, read -r run node value level; do
	grep -q "^,$run all,,$node,$value,%,.*,$level,perf" "$T_TMP/tgl.csv" ||
		grep -q "^,$run all,,$node,$value,%,.*,$level,intel-perf-metrics" "$T_TMP/tgl.csv"
	ok $? "Tiger Lake $run: $node $value % at Level $level, computed from perf's definition"
done <<'X'
run5,ports_utilized_0,16.645,4
run5,ports_utilized_1,12.472,4
run5,ports_utilized_2,12.490,4
run5,ports_utilized_3m,22.918,4
run4,ports_utilized_1,12.481,4
run4,ports_utilized_2,12.570,4
X
grep -q '^,run4 all,,ports_utilized_0,,%,n/a,.*not computable: needs resource_stalls.scoreboard' "$T_TMP/tgl.csv"
ok $? "run 4 lacks RESOURCE_STALLS.SCOREBOARD: ports_utilized_0 is not computable and says what it needs"
grep -q '^,run5 all,,mixing_vectors,,%,n/a,.*,5,.*needs uops_issued.vector_width_mismatch' "$T_TMP/tgl.csv"
ok $? "Level 5 under a computed Level 4 node: named with the event it needs"
# perf's other metrics (Info) are rows of their own where tdkit has no such metric
grep -q '^,run2 all,,ipmispredict,466.266,' "$T_TMP/tgl.csv"; ok $? "IpMispredict = INST_RETIRED.ANY / BR_MISP_RETIRED.ALL_BRANCHES: 466.266"
grep -q '^,run2 all,,ipbranch,4.539,' "$T_TMP/tgl.csv"; ok $? "IpBranch: 4.539"
[ "$(grep -c '^,run2 all,,ipc,' "$T_TMP/tgl.csv")" = 1 ]; ok $? "perf's IPC is tdkit's ipc: one row"
! grep -q 'kernel_utilization' "$T_TMP/tgl.csv"; ok $? "Kernel_Utilization (an event:k) is not computed from the whole count"
"$TD_BIN/td-derive" -q --json --metrics "$TGL" "$F" | python3 -c '
import json, sys
c = json.load(sys.stdin)["perf_check"]
assert c["checked"] == 32 and c["agree"] == 32, c
assert sum(x["count"] for x in c["not_recomputable"]) == 5, c' 2>"$T_TMP/err"
ok $? "perf_check: 32 of 37 printed metrics recomputed equal (28 without --metrics)"
"$TD_BIN/td-derive" -q --metrics "$TGL" --level 3 "$F" >"$T_TMP/l3.txt"
! grep -q '^ *ports_utilized_' "$T_TMP/l3.txt"; ok $? "--level 3 leaves the Level 4 nodes out"
# a capture of generic events tells no vendor: every vendor's command; the
# cpuid named with the listing tells it
G=$TD_SHARED/testdata/stat/x86-intel-8cpu_perf-stat-x,-I1000-summary_before-after-no-cvs-summary_lkml-2021-jinyao.snippet.csv
"$TD_BIN/td-derive" -q --csv "$G" | grep -q ',ipc,.*(Intel) / -M PipelineL1 (AMD)'; ok $? "generic events, no cpuid: each vendor's Top-down command"
"$TD_BIN/td-derive" -q --csv --metrics "$TGL" --cpuid GenuineIntel-6-8C-1 "$G" >"$T_TMP/g.csv"
grep -q ',ipc,.*,perf stat -M TopdownL1 -- CMD | td-derive,' "$T_TMP/g.csv" && ! grep -q 'PipelineL1' "$T_TMP/g.csv"
ok $? "--cpuid GenuineIntel-...: only Intel's command"
if command -v perf >/dev/null && PERF_CPUID=GenuineIntel-6-8C-1 perf list --details 2>/dev/null | grep -q '^  tma_'; then
	XDG_CACHE_HOME=$T_TMP/cache "$TD_BIN/td-derive" -q --csv --cpuid GenuineIntel-6-8C-1 "$F" >"$T_TMP/cpuid.csv"
	cmp -s "$T_TMP/cpuid.csv" "$T_TMP/tgl.csv"; ok $? "--cpuid runs the installed perf: the same rows as --metrics"
	ls "$T_TMP"/cache/tdkit/perf-*-GenuineIntel-6-8C-1.metrics >/dev/null 2>&1
	ok $? "--cpuid caches perf's listing under \$XDG_CACHE_HOME/tdkit, per perf version and cpuid"
	XDG_CACHE_HOME=$T_TMP/cache run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" --cpuid GenuineIntel-6-AA-4 "$F"
	grep -q 'has no metric table for this CPU' "$T_TMP/err"; ok $? "a CPU newer than the perf build: said, and the tree is tdkit's own"
else
	skip "perf 6.1 with Tiger Lake's table is not installed: --cpuid not tried"
fi
# AMD: perf 6.1 maps Zen 4 (AuthenticAMD-25-11) to its Zen 3 table (13
# metrics, no PipelineL1): evaluated the same way, perf's printed metrics
# all still recomputed (54 of 54)
Z=$TD_SHARED/testdata/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt
if command -v perf >/dev/null && PERF_CPUID=AuthenticAMD-25-11-0 perf list --details 2>/dev/null | grep -q '^  branch_misprediction_ratio'; then
	"$TD_BIN/td-derive" -q --csv --cpuid AuthenticAMD-25-11-0 "$Z" >"$T_TMP/zen.csv"
	grep -q '^,run1 all,,branch_misprediction_ratio,0.009,' "$T_TMP/zen.csv"
	ok $? "Zen 4 with perf's AMD table: branch_misprediction_ratio = d_ratio(ex_ret_brn_misp, ex_ret_brn) = 21592521 / 2342431105"
	"$TD_BIN/td-derive" -q --json --cpuid AuthenticAMD-25-11-0 "$Z" | python3 -c '
import json, sys
c = json.load(sys.stdin)["perf_check"]
assert c["printed"] == 54 and c["checked"] == 54 and c["agree"] == 54, c' 2>"$T_TMP/err"
	ok $? "Zen 4 with perf's AMD table: 54 of 54 perf-printed metrics recomputed equal"
else
	skip "perf 6.1 with AMD's Zen table is not installed"
fi
done_testing
