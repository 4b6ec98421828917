#!/usr/bin/env bash
# The Top-down tree keeps every node perf printed (deeper ones marked
# "from perf"), names what a node lacks instead of printing a smaller
# number, flags a parent smaller than its children, calls a node high only
# under a high parent; next steps fit the machine and the capture; one
# diagnosis per run.
. "$(dirname "$0")/lib.sh"
DERIVE=$TD_BIN/td-derive
if ! have_shared; then skip "$TD_SHARED absent: the Top-down captures are all in ../shared"; done_testing; exit; fi
S=$TD_SHARED/testdata
T=$S/stat_text/intel-tgl-ish_perf6.1_TopdownL1-drilldown_perfwiki.snippet.txt
H=$S/stat_text/intel-hybrid-ptl-lnl-adl_topdown_lkml-snippets.txt
X=$S/stat/intel-hybrid-adl-class_default-a-sleep1_TopdownL1-core-atom_x,_lkml-2023-kanliang.snippet.csv
K=$S/stat_text/intel-skylake-client_pre-ICL-TMA_TopdownL1-L2-L3_hashmap-benchmark_readme.snippet.txt
Z=$S/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt
N=$S/stat_text/arm-neoverse-n2_TopDownL1_branch_metrics_lkml-2022-jingzhang.snippet.txt
P=$S/stat/intel-spr_default-a-sleep1_TopdownL1-L2-metricgroup_std_lkml-2023-kanliang.snippet.txt
A=$S/stat/x86-4.09GHz-stalled-cycles-amd-likely_perf-stat-x,_continuation-row_and_-o-header_hs-opt-handbook.csv

# --- deeper nodes perf printed ------------------------------------------------
"$DERIVE" -q --csv "$T" >"$T_TMP/t.csv" 2>/dev/null
grep -q '^,run5 all,,ports_utilized_0,16\.600,%,.*,4,from perf$' "$T_TMP/t.csv" &&
	grep -q '^,run5 all,,ports_utilized_3m,22\.900,%,.*,4,from perf$' "$T_TMP/t.csv" &&
	grep -q '^,run6 all,,ports_utilized_0,19\.800,' "$T_TMP/t.csv"
ok $? "TGL tma_ports_utilization_group: tma_ports_utilized_0/1/2/3m kept at Level 4, from perf (CSV)"
"$DERIVE" -q "$H" >"$T_TMP/h.txt" 2>/dev/null
grep -A1 '^      store_bound  *0\.2%' "$T_TMP/h.txt" | grep -q '^        dtlb_store  *0\.6%.*from perf$'
ok $? "ADL P-core: perf's tma_dtlb_store 0.6% under the computed store_bound, marked from perf (text)"
"$DERIVE" -q --markdown "$H" | grep -q '^| dtlb_store | 4 | 0.6% | from perf |$'
ok $? "the same in markdown"
"$DERIVE" -q --json "$H" >"$T_TMP/h.json" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=[r for r in d["metrics"] if r["metric"]=="dtlb_store"]; assert r and r[0]["tma_level"]==4 and r[0]["note"]=="from perf" and abs(r[0]["value"]-0.6)<1e-9' "$T_TMP/h.json"
ok $? "the same in JSON"
"$DERIVE" -q --csv "$X" | grep -q '^,all,cpu_atom,backend_bound_aux,38\.600,%,,,,no,,,2,from perf$'
ok $? "ADL E-core tma_backend_bound_aux kept under backend_bound, outside the Level 1 sum"

# --- a missing input: not computable, never a smaller number ------------------
"$DERIVE" -q --csv "$K" >"$T_TMP/k.csv" 2>/dev/null
grep -q '^,run3 all,,ports_utilization,,%,n/a,.*not computable: needs .*arith.divider_active' "$T_TMP/k.csv"
ok $? "Skylake without ARITH.DIVIDER_ACTIVE: ports_utilization not computable (was 9.7%, the else-branch of a NaN comparison)"
"$DERIVE" -q "$K" 2>/dev/null | grep -q '^      l1_bound  *n/a  not computable: needs cycle_activity.stalls_l1d_miss$'
ok $? "Skylake: l1_bound names the one event it lacks"
"$DERIVE" -q "$T" 2>/dev/null | grep -q '^    memory_bound  *n/a  not computable: needs exe_activity.bound_on_stores$'
ok $? "TGL core group (no Level 2 bytes on Tiger Lake): memory_bound names the stall event it lacks"
# No capture has a Golden Cove core group: rows in perf's hybrid CSV layout.
printf '%s\n' '1000000,,cpu_core/TOPDOWN.SLOTS/,1000000,100.00,,' '300000,,cpu_core/topdown-retiring/,1000000,100.00,,' \
	'200000,,cpu_core/topdown-fe-bound/,1000000,100.00,,' '400000,,cpu_core/topdown-be-bound/,1000000,100.00,,' \
	'100000,,cpu_core/topdown-bad-spec/,1000000,100.00,,' '150000,,cpu_core/topdown-mem-bound/,1000000,100.00,,' \
	'200000,,cpu_core/CPU_CLK_UNHALTED.THREAD/,1000000,100.00,,' '20000,,cpu_core/EXE_ACTIVITY.1_PORTS_UTIL/,1000000,100.00,,' \
	'30000,,cpu_core/EXE_ACTIVITY.2_PORTS_UTIL,umask=0xc/,1000000,100.00,,' \
	'10000,,cpu_core/EXE_ACTIVITY.3_PORTS_UTIL,umask=0x80/,1000000,100.00,,' \
	'100000,,cpu_core/CYCLE_ACTIVITY.STALLS_TOTAL/,1000000,100.00,,' '40000,,cpu_core/EXE_ACTIVITY.BOUND_ON_LOADS/,1000000,100.00,,' \
	>"$T_TMP/synthetic-glc-core-group.csv"
cp "$T_TMP/synthetic-glc-core-group.csv" "$T_TMP/synthetic-glc-core-group-nodiv.csv"
echo '1000,,cpu_core/ARITH.DIV_ACTIVE/,1000000,100.00,,' >>"$T_TMP/synthetic-glc-core-group.csv"
"$DERIVE" -q --csv "$T_TMP/synthetic-glc-core-group.csv" | grep -q '^,all,cpu_core,ports_utilization,19\.500,%'
ok $? "Golden Cove (synthetic): ports_utilization from EXE_ACTIVITY.2_PORTS_UTIL,umask=0xc: (10000 + 20000 + 0.3*30000)/200000 = 19.5%"
"$DERIVE" -q --csv "$T_TMP/synthetic-glc-core-group-nodiv.csv" | grep -q '^,all,cpu_core,ports_utilization,,%,n/a,.*needs arith.div_active or arith.divider_active'
ok $? "Golden Cove (synthetic) without ARITH.DIV_ACTIVE: not computable, no number"

# --- a parent smaller than its children; high only under a high parent ---------
printf '%s\n' '14057182,,cycles,14057182,100.00,10.4,%  tma_ports_utilization' ',,,,,16.6,%  tma_ports_utilized_0' \
	',,,,,12.5,%  tma_ports_utilized_1' ',,,,,12.5,%  tma_ports_utilized_2' ',,,,,22.9,%  tma_ports_utilized_3m' \
	>"$T_TMP/synthetic-parent-below-children.csv"
"$DERIVE" -q --csv "$T_TMP/synthetic-parent-below-children.csv" | grep -q '^,all,,ports_utilization,10\.400,%,mismeasured,.*smaller than the sum of its children'
ok $? "ports_utilization 10.4% printed with children summing to 64.5% (synthetic): mismeasured"
printf '%s\n' '1000000,,slots,1000000,100.00,,' '300000,,topdown-retiring,1000000,100.00,,' '180000,,topdown-fe-bound,1000000,100.00,,' \
	'420000,,topdown-be-bound,1000000,100.00,,' '100000,,topdown-bad-spec,1000000,100.00,,' '120000,,topdown-fetch-lat,1000000,100.00,,' \
	'50000,,topdown-heavy-ops,1000000,100.00,,' '80000,,topdown-br-mispredict,1000000,100.00,,' '200000,,topdown-mem-bound,1000000,100.00,,' \
	>"$T_TMP/synthetic-topdown-l2.csv"
"$DERIVE" -q --csv "$T_TMP/synthetic-topdown-l2.csv" >"$T_TMP/l2.csv"
grep -q '^,all,,frontend_bound,18\.000,%,,' "$T_TMP/l2.csv" && grep -q '^,all,,fetch_latency,12\.000,%,,' "$T_TMP/l2.csv" &&
	grep -q '^,all,,memory_bound,20\.000,%,,' "$T_TMP/l2.csv" && grep -q '^,all,,backend_bound,42\.000,%,high,' "$T_TMP/l2.csv"
ok $? "(synthetic L2) fetch_latency 12% is not high under a frontend_bound of 18% that is not"

# --- next steps fit the machine and the capture ---------------------------------
"$DERIVE" -q "$Z" >"$T_TMP/z.txt" 2>/dev/null; "$DERIVE" -q --csv "$Z" >>"$T_TMP/z.txt" 2>/dev/null
! grep -v '^input: \|^command: ' "$T_TMP/z.txt" | grep -q 'TopdownL1\|TopDownL1\|PipelineL1\|PipelineL2\|(Intel)'
ok $? "Zen 4 PipelineL2 capture: no Intel command, not told to collect PipelineL1 or PipelineL2 again"
"$DERIVE" -q "$N" >"$T_TMP/n.txt" 2>/dev/null; "$DERIVE" -q --csv "$N" >>"$T_TMP/n.txt" 2>/dev/null
! grep -v '^input: \|^command: ' "$T_TMP/n.txt" | grep -q 'Topdown_Backend\|Topdown_Frontend\|perf record -b\|PipelineL\|TopdownL2' && grep -q 'arm_spe/branch_filter=1' "$T_TMP/n.txt" &&
	grep -q 'perf stat -M DTLB_Effectiveness,L1D_Cache_Effectiveness' "$T_TMP/n.txt"
ok $? "Neoverse N2: no Topdown_Backend (an N3 group), no perf record -b: SPE and perf's N2 groups"
"$DERIVE" -q "$P" >"$T_TMP/p.txt" 2>/dev/null; "$DERIVE" -q --csv "$P" >>"$T_TMP/p.txt" 2>/dev/null
! grep -v '^input: \|^command: ' "$T_TMP/p.txt" | grep -q 'TopdownL1\|TopdownL2\|PipelineL1' && grep -q 'next: perf stat -M TopdownL3' "$T_TMP/p.txt"
ok $? "SPR TopdownL1+L2 capture: not told to collect TopdownL1/L2; TopdownL3 for memory_bound"
"$DERIVE" -q "$T" >"$T_TMP/t.txt" 2>/dev/null; "$DERIVE" -q --csv "$T" >>"$T_TMP/t.txt" 2>/dev/null
! grep -v '^input: \|^command: ' "$T_TMP/t.txt" | grep -q 'TopdownL1\|TopdownL2' && grep -q "^    next: (the next level is in another run's tree of this capture)$" "$T_TMP/t.txt"
ok $? "TGL drill-down capture: the TopdownL1 runs are not told to collect TopdownL2, which run3 holds (also from perf's printed tree)"
"$DERIVE" -q "$K" 2>/dev/null | grep -q '^    to complete: add cycles to get IPC$'
ok $? "one more event named: a run with instructions only is told to add cycles"
"$DERIVE" -q "$Z" 2>/dev/null | grep -q '^    to complete: add branches to get the branch miss rate; add instructions to get IPC$'
ok $? "Zen 4 PipelineL2 run: add branches to get the branch miss rate"

M=$S/stat_text/intel-hybrid-deDE-locale_tiled-matmul_main
"$TD_BIN/td-diff" "$M.parallel6.profile.txt" "$M.profile.txt" >"$T_TMP/d.txt" 2>/dev/null
grep -q 'Next, on both builds: perf stat -M TopdownL1 -- CMD | td-derive; ' "$T_TMP/d.txt" && ! grep -q 'PipelineL1\|TopDownL1' "$T_TMP/d.txt"
ok $? "td-diff on a hybrid Intel pair: the Top-down step for Intel only"

# --- one diagnosis per run -------------------------------------------------------
sed -n '/^diagnosis (one per run):$/,/^$/p' "$T_TMP/z.txt" | grep -c '^  run[1-4] all: ' >"$T_TMP/count"
[ "$(cat "$T_TMP/count")" = 4 ] && grep -q '^  run1 all: memory bound: CPI 1\.06 with l1d_miss_rate 31\.1%, dtlb_miss_rate 96\.8%$' "$T_TMP/z.txt" &&
	grep -q '^  run2 all: backend_bound 80\.4% -> memory_bound 60\.3%: ' "$T_TMP/z.txt"
ok $? "Zen 4: one diagnosis for each of 4 runs, labelled; high CPI with high L1d misses -> memory bound"
"$DERIVE" -q --json "$Z" >"$T_TMP/z.json" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["diagnosis"]; assert [x["run"] for x in d]==["run1 all","run2 all","run3 all","run4 all"] and d[0]["next"].startswith("perf mem record")' "$T_TMP/z.json"
ok $? "--json: the diagnosis per run"
"$DERIVE" -q --markdown "$Z" 2>/dev/null | sed -n '/^## Diagnosis$/,/^## Validation/p' | grep -c '^- \*\*run' >"$T_TMP/count"
[ "$(cat "$T_TMP/count")" = 4 ]; ok $? "--markdown: four diagnoses, not a line per threshold crossed"

# --- one name, one meaning --------------------------------------------------------
"$DERIVE" -q --csv "$A" >"$T_TMP/a.csv" 2>/dev/null
grep -q '^,run1 all,,frontend_cycles_idle,2\.176,%' "$T_TMP/a.csv" && ! grep -q ',frontend_bound,\|,backend_bound,' "$T_TMP/a.csv"
ok $? "stalled-cycles-frontend / cycles is frontend_cycles_idle, not the Top-down frontend_bound"
done_testing
