#!/usr/bin/env bash
# What perf kept apart stays apart: runs appended to one file, several
# files, copies of one event per metric group, a counter's variance and
# enabled % printed on its continuation row; and td-diff counting runs.
. "$(dirname "$0")/lib.sh"
DERIVE=$TD_BIN/td-derive
DIFF=$TD_BIN/td-diff
L=$TD_ROOT/testdata
S=$TD_SHARED/testdata

# row FILE-OF-OUTPUT ERE DESCRIPTION
row() { grep -Eq "$2" "$1"; ok $? "$3"; }

# ---- runs in one file: perf stat --append writes a "# started on" per run
CA=$L/stat/local-kvm_swevents_csv_-x,-append.csv
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$CA"
ok $RC "CSV --append: exit 0"
row "$T_TMP/out" '^,run1 all,,task-clock,0\.820000,' "CSV --append: run 1 keeps its 0.82 ms of task-clock"
row "$T_TMP/out" '^,run2 all,,task-clock,468\.790000,' "CSV --append: run 2 keeps its 468.79 ms"
row "$T_TMP/out" '^,run2 all,,context-switches,2\.000000,' "CSV --append: run 2's context switches"
grep -q '234\.8' "$T_TMP/out"; ok $(( ! $? )) "CSV --append: no averaged run (234.8 ms)"
JA=$L/stat/local-kvm_swevents_json_-j-append.json
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$JA"
row "$T_TMP/out" '^,run1 all,,task-clock,0\.693251,' "JSON --append: run 1 keeps its 0.69 ms"
row "$T_TMP/out" '^,run2 all,,task-clock,444\.280061,' "JSON --append: run 2 keeps its 444.28 ms"
row "$T_TMP/out" '^,run2 all,,context-switches,15\.000000,' "JSON --append: run 2's 15 context switches"
if have_shared; then
	H=$S/stat/x86-4.09GHz-stalled-cycles-amd-likely_perf-stat-x,_continuation-row_and_-o-header_hs-opt-handbook.csv
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$H"
	row "$T_TMP/out" '^,run2 all,,instructions,425066725899\.000000,' "CSV: a shell prompt running perf stat starts a run"
	row "$T_TMP/out" '^,run3 all,,instructions,425115750611\.000000,' "CSV: '# started on' after a prompt starts one run, not two"
	grep -q '^,run4 ' "$T_TMP/out"; ok $(( ! $? )) "CSV: three runs"
else
	skip "$TD_SHARED absent: the prompt-line capture is in ../shared"
	skip "$TD_SHARED absent"
	skip "$TD_SHARED absent"
fi

# ---- several files: each its own run, labelled with its file everywhere
R1=$L/diff/local-kvm_gzip-1_stat-r5.csv
R9=$L/diff/local-kvm_gzip-9_stat-r5.csv
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$R1" "$R9"
row "$T_TMP/out" "^,$R1 all,,task-clock,18\\.970000," "two files, CSV: the first file's 18.97 ms under its name"
row "$T_TMP/out" "^,$R9 all,,task-clock,46\\.590000," "two files, CSV: the second file's 46.59 ms under its name"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --json --counters "$R1" "$R9"
python3 - "$T_TMP/out" "$R1" "$R9" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
tc = {r["scope"]: r["value"] for r in d["metrics"] if r["event"] == "task-clock"}
assert tc == {sys.argv[2] + " all": 18.97, sys.argv[3] + " all": 46.59}, tc
EOF
ok $? "two files, JSON: one task-clock per file, labelled"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters "$R1" "$R9"
row "$T_TMP/out" "^ +$R9 all +task-clock +46\\.590000 " "two files, text: labelled"
G=$L/diff/local-kvm_gzip-1_stat
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$G-run1.txt" "$G-run2.txt"
row "$T_TMP/out" "^elapsed: 0\\.042 s \\(the sum of the runs' footers\\)$" "two files, text: the summed elapsed says it is a sum"
row "$T_TMP/out" "^$G-run2\\.txt all +elapsed_s +0\\.021 " "... and each file's own elapsed is its row"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$R1" "$JA"
row "$T_TMP/out" "^,$JA run2 all,,task-clock,444\\.280061," "a file of two runs beside another: file and run in the label"
row "$T_TMP/out" "^,$R1 all,,task-clock,18\\.970000," "... and the one-run file by its name alone"
if have_shared; then
	T=$S/stat_text/intel-tgl-ish_perf6.1_TopdownL1-drilldown_perfwiki.snippet.txt
	K=$S/stat_text/intel-skylake-client_pre-ICL-TMA_TopdownL1-L2-L3_hashmap-benchmark_readme.snippet.txt
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$T" "$K"
	row "$T_TMP/out" "^Top-down $T run1 all: " "two files, text tree: titled with the file and run"
	row "$T_TMP/out" "^Top-down $K run3 all: " "two files, text tree: the second file's runs"
	row "$T_TMP/out" "^$K run2 all +ipc +1\\.618 " "two files, text metrics: labelled"
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --markdown "$T" "$K"
	row "$T_TMP/out" "$K run3 all" "two files, markdown: labelled"
	grep -q '| run1 all |' "$T_TMP/out"; ok $(( ! $? )) "two files, markdown: no row without its file"
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$T" "$K"
	row "$T_TMP/out" "^,$K run3 all,,memory_bound,48\\.8" "two files, CSV tree rows: labelled, values as from the file alone"
	run_tool "$T_TMP/o1" "$T_TMP/err" "$DERIVE" --csv "$K"
	grep ',memory_bound,' "$T_TMP/o1" | sed 's/^,run[0-9]* all,//' >"$T_TMP/alone"
	grep ",memory_bound," "$T_TMP/out" | grep -F "$K" | sed 's/^,[^,]* run[0-9]* all,//' >"$T_TMP/beside"
	same "$T_TMP/alone" "$T_TMP/beside" "a file read beside another gives the same tree as alone"
	I1=$S/stat_csv/intel-perfmetrics-topdownl1_-a-M-x,-I1000_metric-threshold-col_lkml-2024.snippet.csv
	I2=$S/stat/intel-x86-16cpu_perf-stat-a-j-I1000_metric-threshold_lkml-2024-irogers.snippet.jsonl
	"$DERIVE" -q --svg "$T_TMP/c.svg" "$I1" "$I2" >/dev/null 2>&1
	[ "$(grep -c 'Top-down share of slots per interval' "$T_TMP/c.svg")" = 2 ] &&
		grep -qF "$I2: Top-down share" "$T_TMP/c.svg"
	ok $? "two -I files, --svg: a chart per file, titled with it (not one series of both)"
else
	for i in 1 2 3 4 5 6 7 8; do skip "$TD_SHARED absent: the Top-down captures are in ../shared"; done
fi

# ---- copies of one event: each Top-down node from its own group's copies
if have_shared; then
	P=$S/stat_text/intel-pre-icl_TopDownL1-fraction-metrics_and_skylake-default-skippable_lkml-irogers.snippet.txt
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$P"
	# perf printed 0.4 / 0.5 / 0.1 from three groups; each group alone gives
	# 2013757701 / (4 * 1383713292), 1 - (1977733128 + 920211343 + 4 * 51668510) / (4 * 1497621849)
	# and (721098274 - 552475482 + 4 * 47708340) / (4 * 1332681791); the copies' mean gave 35.5 / 46.3 / 6.7
	row "$T_TMP/out" '^,run1 all,,frontend_bound,36\.38[0-9]*,' "pre-ICL: frontend_bound 36.4% from its group's cycles and idq_uops_not_delivered"
	row "$T_TMP/out" '^,run1 all,,backend_bound,48\.17[0-9]*,' "pre-ICL: backend_bound 48.2% from its group's five events"
	row "$T_TMP/out" '^,run1 all,,bad_speculation,6\.74[0-9]*,' "pre-ICL: bad_speculation 6.7% from its group's four events"
	grep -q 'computed from its own group' "$T_TMP/err"; ok $? "pre-ICL: the note says which copy a node uses"
	# every shared capture that prints an event more than once: perf's own
	# metrics all agree with ours
	for f in stat_text/intel-pre-icl_TopDownL1-fraction-metrics_and_skylake-default-skippable_lkml-irogers.snippet.txt \
		stat_text/intel-tgl-ish_perf6.1_TopdownL1-drilldown_perfwiki.snippet.txt \
		stat_text/arm-neoverse-n2_TopDownL1_branch_metrics_lkml-2022-jingzhang.snippet.txt \
		stat_text/intel-hybrid-ptl-lnl-adl_topdown_lkml-snippets.txt \
		stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt \
		stat/amd-zen4-or-5_PipelineL1_two-runs_skip-literal-bench.txt \
		stat/amd-zen4-7700X-class_PipelineL2_baseline-vs-solution_perf-ninja-vectorization1-notes.txt \
		stat/amd-zen4-5.5GHz_perf-stat-ddd_and_PipelineL2_gcc-vs-clang_structofvector-notes.txt; do
		run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --json "$S/$f"
		grep -q 'printed more than once' "$T_TMP/err" &&
			python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["perf_check"]; assert c["checked"] == c["agree"] > 0, c' "$T_TMP/out"
		ok $? "$(basename "$f"): repeats events; perf's metrics all agree"
	done
else
	for i in $(seq 12); do skip "$TD_SHARED absent: the captures that repeat events are in ../shared"; done
fi

# ---- a metric group's rows are its PMU's, not the counter's printed above
if have_shared; then
	for f in std_lkml-2023-kanliang.snippet.txt:13.6 x,_lkml-2023-kanliang.snippet.csv:13.8 json_lkml-2023-kanliang.snippet.jsonl:13.7; do
		F=$S/stat/intel-hybrid-adl-class_default-a-sleep1_TopdownL1-core-atom_${f%:*}
		run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$F"
		grep -Eq "^,all,cpu_atom,bad_speculation,${f#*:}[0-9]*,.*from perf$" "$T_TMP/out" &&
			grep -Eq '^,all,cpu_core,bad_speculation,0\.000,.*from perf$' "$T_TMP/out" &&
			! grep -Eq '^,all,,.*from perf$' "$T_TMP/out"
		ok $? "hybrid ${f%%_*}: TopdownL1 (cpu_atom) bad_speculation ${f#*:}% under cpu_atom, cpu_core's 0.0 under cpu_core"
	done
else
	for i in 1 2 3; do skip "$TD_SHARED absent: the hybrid captures are in ../shared"; done
fi

# ---- variance and enabled % on a continuation row belong to the counter
if have_shared; then
	A=$S/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$A"
	row "$T_TMP/out" '^,run1 all,,instructions,26966395584\.000000,35\.81,' "Zen 4 -ddd: instructions 35.81% enabled (printed after 'stalled cycles per insn')"
	row "$T_TMP/out" '^,run3 all,,instructions,25519401840\.000000,35\.85,' "Zen 4 -ddd, second run: 35.85%"
	Z=$S/stat/amd-zen4-5.5GHz_perf-stat-ddd_and_PipelineL2_gcc-vs-clang_structofvector-notes.txt
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$Z"
	row "$T_TMP/out" '^,run1 all,,instructions,10521948827\.000000,35\.72,' "Zen 4 structofvector: instructions 35.72% enabled"
else
	for i in 1 2 3; do skip "$TD_SHARED absent: the -ddd captures are in ../shared"; done
fi
# no capture here prints a variance there (perf -r with stalled-cycles needs
# hardware counters): perf's layout of it, hand-written
cat >"$T_TMP/synthetic-r5-continuation-variance.txt" <<'EOF'
 Performance counter stats for './a.out' (5 runs):

     1,000,000,000      cycles                           #    3.000 GHz                         ( +-  0.50% )  (33.30%)
       800,000,000      instructions                     #    0.80  insn per cycle
                                                  #    0.21  stalled cycles per insn  ( +-  1.23% )  (33.36%)
       210,000,000      stalled-cycles-frontend          #   21.00% frontend cycles idle        ( +-  2.00% )  (33.40%)

       0.333 +- 0.001 seconds time elapsed  ( +-  0.30% )
EOF
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$T_TMP/synthetic-r5-continuation-variance.txt"
row "$T_TMP/out" '^,all,,instructions,800000000\.000000,33\.36,1\.23$' "synthetic -r 5: the continuation row's variance and enabled % go to instructions"
row "$T_TMP/out" '^,all,,cycles,1000000000\.000000,33\.30,0\.50$' "synthetic -r 5: cycles keeps its own"

# ---- td-diff counts runs
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$L/stat/local-kvm_swevents_text_-r3.txt" "$L/stat/local-kvm_swevents_text_-r3.txt"
row "$T_TMP/out" '^base: .*_text_-r3\.txt \(3 runs, perf -r\)$' "td-diff: a perf stat -r 3 text file is 3 runs (perf -r), not 1"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$R1" "$R9"
row "$T_TMP/out" '^base: .*-r5\.csv \(perf -r runs: the file does not say how many\)$' "td-diff: perf -r CSV without its count says so"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --json "$CA" "$JA"
python3 - "$T_TMP/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["base_runs"] == 2 and d["cand_runs"] == 2, d
tc = [r for r in d["rows"] if r["name"] == "task-clock"][0]
assert abs(tc["base"] - (0.82 + 468.79) / 2) < 1e-6 and tc["p_value"] is not None, tc
EOF
ok $? "td-diff: appended runs are runs: 2 per side, their mean, Welch's test over them"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$CA" "$JA"
row "$T_TMP/out" '^cand: .*append\.json \(2 runs\)$' "td-diff text: (2 runs)"

G9=$L/diff/local-kvm_gzip-9_stat
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --json $(for i in $(seq 70); do echo "$G-run1.txt"; done) -- "$G9-run1.txt" "$G9-run2.txt"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["base_runs"] == 70, d["base_runs"]' "$T_TMP/out"
ok $? "td-diff: 70 runs on a side are 70 runs (no value dropped past 64)"

# ---- perf 2.6's text rows ("    2,812,305,464 cycles": one blank before the
# event, no '#' column) are counters, not other text, and a change of layout
# between rows (a text run, then -x rows without a header line of their own)
# starts a run rather than averaging the two runs' copies
if have_shared; then
	M="$S/stat_text/mixed-eras_perf-stat-tutorial-outputs_hybrid-default-TopdownL1_-r_-a_-C_-x,_perfwiki.snippet.txt"
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$M"
	ok $RC "perf 2.6 text: exit 0"
	row "$T_TMP/out" '^,run2 all,,raw 0x1a8,210140\.000000,' "perf 2.6 text: '210,140 raw 0x1a8' is a counter"
	row "$T_TMP/out" '^,run3 all,,cycles,2812304902\.000000,' "perf 2.6 text: -e cycles,cycles gives its two copies' mean"
	row "$T_TMP/out" '^,run6 all,,cycles,1993541603\.000000,' "perf 2.6 text: a row without a '#' column beside one with it"
	row "$T_TMP/out" '^,run11 all,,instructions,38176009\.000000,' "a text run before -x rows keeps its instructions"
	row "$T_TMP/out" '^,run12 all,,cache-misses,884\.000000,' "... and the -x rows after it are a run of their own"
	grep -q '^,run12 all,,instructions,,' "$T_TMP/out"; ok $? "... whose <not counted> instructions stay not counted"
	grep -q '36 lines of non-perf text' "$T_TMP/err"; ok $? "perf 2.6 text: 36 lines of other text (the prose, not the rows)"
else
	for i in 1 2 3 4 5 6 7 8; do skip "$TD_SHARED absent: the mixed-eras capture is in ../shared"; done
fi
# the same two rules on lines built here (synthetic: prose and a CSV field
# list that must not be read as perf 2.6 rows)
printf ' Performance counter stats for %s:\n\n    1,234,567 cycles\n      765,432 instructions\n\n1234,,cycles\n7,,instructions\n    1,2 cycles,,x\n' "'true'" >"$T_TMP/eras-synthetic.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv --counters "$T_TMP/eras-synthetic.txt"
row "$T_TMP/out" '^,run1 all,,cycles,1234567\.000000,' "synthetic: perf 2.6 cycles in run 1"
row "$T_TMP/out" '^,run1 all,,instructions,765432\.000000,' "synthetic: perf 2.6 instructions in run 1"
row "$T_TMP/out" '^,run2 all,,instructions,7\.000000,' "synthetic: -x rows after them are run 2"
row "$T_TMP/out" '^,run2 all,,cycles,1234\.000000,' "synthetic: ... with their cycles"
grep -q '1 line of non-perf text skipped (the first at line 8)' "$T_TMP/err"; ok $? "synthetic: '    1,2 cycles,,x' is other text, not a perf 2.6 row"

# ---- the command of "Performance counter stats for 'CMD':" is the run's
# command, without perf's quotes; a workload's own -I ("gcc -I...") is not
# perf's interval
TR=$L/stat/local-kvm_swevents_text_-r3.txt
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$TR"
row "$T_TMP/out" '^command: sh -c i=0; while \[ \$i -lt 300000 \]; do i=\$\(\(i\+1\)\); done$' "text: the command perf quoted, unquoted"
printf '#           time             counts unit events\n     1.001000000             10,000      page-faults\n     2.002000000             20,000      page-faults\n' >"$T_TMP/I-synthetic.txt"
{ printf " Performance counter stats for 'gcc -I2 x.c':\n\n"; cat "$T_TMP/I-synthetic.txt"; } >"$T_TMP/I-gcc-synthetic.txt"
run_tool "$T_TMP/a" "$T_TMP/err" "$DERIVE" --csv "$T_TMP/I-synthetic.txt"
run_tool "$T_TMP/b" "$T_TMP/err" "$DERIVE" --csv "$T_TMP/I-gcc-synthetic.txt"
cmp -s "$T_TMP/a" "$T_TMP/b"; ok $? "synthetic -I: the workload's 'gcc -I2' does not make the interval 2 ms"

done_testing
