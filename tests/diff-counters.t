#!/usr/bin/env bash
# td-diff on perf stat outputs: real A/B pairs recorded here (gzip -1 vs -9,
# software events) and from the shared captures; verdicts, exit codes and
# the inputs that must not compare.
. "$(dirname "$0")/lib.sh"
D=$TD_ROOT/testdata/diff
DIFF=$TD_BIN/td-diff
G1=$D/local-kvm_gzip-1_stat
G9=$D/local-kvm_gzip-9_stat

run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$G1-r5.csv" "$G9-r5.csv"
ok $(( RC != 1 )) "-r 5 CSV pair: gzip -9 is a regression (exit 1)"
grep -q "Welch's t-test" "$T_TMP/out"; ok $? "-r 5: perf's variance column feeds Welch's test"
grep -Eq '^task-clock +counter .* yes .* regression' "$T_TMP/out"; ok $? "-r 5: task-clock significant regression"

run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$G1"-run{1,2,3}.txt -- "$G9"-run{1,2,3}.txt
ok $(( RC != 1 )) "3 text runs per side: exit 1"
grep -q '(3 runs)' "$T_TMP/out"; ok $? "3 runs per side counted"
grep -Eq '^elapsed_s +metric .* yes .* regression' "$T_TMP/out"; ok $? "elapsed from the text footers: significant regression"

run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$G1-run1.txt" "$G1-run2.txt"
ok $RC "gzip -1 twice: no regression (exit 0)"
grep -q 'no variance: single run' "$T_TMP/out"; ok $? "single runs: says there is no variance"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$G1-run1.txt" "$G1-run1.txt"
ok $(( RC != 0 || $(grep -Ec ' (regression|improvement|worse|better|changed|uncertain|noise) +[0-9]' "$T_TMP/out") != 0 )) "a file against itself: everything unchanged"

run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --threshold task-clock=+200% --threshold elapsed_s=+200% "$G1-run1.txt" "$G9-run1.txt"
ok $RC "--threshold overrides: exit 0"
printf '# CI thresholds\nelapsed_s = +300%%\ntask-clock=+300%%\n' >"$T_TMP/thr"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --thresholds "$T_TMP/thr" "$G1-run1.txt" "$G9-run1.txt"
ok $RC "--thresholds FILE: exit 0"
printf 'elapsed_s=+5%%\nipc five percent\n' >"$T_TMP/thr"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --thresholds "$T_TMP/thr" "$G1-run1.txt" "$G9-run1.txt"
grep -q "^td-diff: $T_TMP/thr:2: not a threshold" "$T_TMP/err"; ok $(( RC != 2 || $? )) "bad threshold line: file:line, exit 2"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --threshold ipc=5 "$G1-run1.txt" "$G9-run1.txt"
ok $(( RC != 2 )) "--threshold without a sign: usage error"

run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --json "$G1-r5.csv" "$G9-r5.csv"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["regressions"] >= 1 and d["rows"][0]["verdict"] == "regression" and d["test"] == "welch"' "$T_TMP/out"
ok $? "--json: valid, regressions first"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --csv "$G1-r5.csv" "$G9-r5.csv"
head -1 "$T_TMP/out" | grep -q '^name,kind,unit,base,cand,delta,delta_pct,better,p_value,significant,threshold_pct,verdict,confidence$'
ok $? "--csv: header"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --markdown "$G1-run1.txt" "$G9-run1.txt"
grep -q '^## td-diff: regression' "$T_TMP/out" && grep -q '^### Regressions' "$T_TMP/out" && grep -q '^<details>' "$T_TMP/out"
ok $? "--markdown: regressions first, the rest collapsed"
run_tool "$T_TMP/o2" "$T_TMP/err" "$DIFF" --markdown "$G1-run1.txt" "$G9-run1.txt"
cmp -s "$T_TMP/out" "$T_TMP/o2"; ok $? "byte-stable output"

# inputs that must not compare: never a silent "no regression"
: >"$T_TMP/empty"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$G1-run1.txt" "$T_TMP/empty"
ok $(( RC != 2 )) "empty side: exit 2"
grep -q "no perf stat counters" "$T_TMP/err"; ok $? "empty side: says so"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$G1-run1.txt" "$D/local-kvm_gzip-9_cpu-clock-g.folded"
ok $(( RC != 2 )) "counters against folded stacks: exit 2"
grep -v page-faults "$G9-run1.txt" >"$T_TMP/fewer.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$G1-run1.txt" "$T_TMP/fewer.txt"
grep -q "has no page-faults.*different events" "$T_TMP/err"; ok $(( RC != 2 || $? )) "an event on one side only: named, exit 2"
sed 's/^ *[0-9]* *page-faults/   <not counted>      page-faults/' "$G9-run1.txt" >"$T_TMP/nc.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$G1-run1.txt" "$T_TMP/nc.txt"
grep -q "page-faults is <not counted>" "$T_TMP/err"; ok $(( RC != 2 || $? )) "<not counted> on one side: named, exit 2"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$G1-run1.txt" "$G9-run1.txt" "$G9-run2.txt"
ok $(( RC != 2 )) "three files without --: usage error"

# two empty inputs: nothing was compared, so never exit 0
: >"$T_TMP/empty2"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$T_TMP/empty" "$T_TMP/empty2"
grep -q "nothing to compare: every input is empty" "$T_TMP/err"; ok $(( RC != 2 || $? )) "two empty inputs: said, exit 2"
ok $(( $(wc -c <"$T_TMP/out") != 0 )) "two empty inputs: no report"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --folded "$T_TMP/empty" "$T_TMP/empty2"
ok $(( RC != 2 )) "two empty inputs --folded: exit 2"
grep -q "no folded stacks on either side" "$T_TMP/err"; ok $? "two empty inputs --folded: said"

# one side lacks events (own captures: gzip -9 with task-clock, page-faults,
# context-switches and cycles <not supported>; gzip -1 with task-clock and
# page-faults): what both have is compared and printed, the rest named, exit 2
W9=$D/local-kvm_gzip-9_stat-swevents+cycles.csv W1=$D/local-kvm_gzip-1_stat-task-clock+page-faults.csv
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" --csv "$W9" "$W1"
grep -q '^task-clock,counter,,63.45,21.01,' "$T_TMP/out" && grep -q '^page-faults,counter,,148,185,' "$T_TMP/out"
ok $? "events on both sides compared and printed (task-clock 63.45 -> 21.01, page-faults 148 -> 185)"
ok $(( RC != 2 )) "events on one side only: exit 2 after the report"
grep -q "gzip-1_stat-task-clock+page-faults.csv: has no context-switches, which .*gzip-9_stat-swevents+cycles.csv counted: context-switches not compared" "$T_TMP/err"
ok $? "an event counted on one side only: named as not compared"
grep -q "has no cycles, which .*asked for but did not count (<not counted> or <not supported> there): cycles not compared" "$T_TMP/err" &&
	! grep -q "has no cycles, which [^ ]* counted" "$T_TMP/err"
ok $? "an event <not supported> on one side and absent on the other: not called counted"
grep -q "2 events not compared (named above), 3 values compared" "$T_TMP/err"; ok $? "the count of what was and was not compared (task-clock, page-faults and its per-second rate)"
run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$W1" "$W9"
grep -q "gzip-1_stat-task-clock+page-faults.csv: has no context-switches, which .*gzip-9.* counted" "$T_TMP/err" &&
	grep -q '^task-clock ' "$T_TMP/out"
ok $(( RC != 2 || $? )) "the other way round: the same events named, the common ones compared"
if have_shared; then
	L=$TD_SHARED/testdata/stat_csv/local-kvm-amd-epyc-genoa_perf6.1_swevents
	run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$L/csv_default.csv" "$L/csv_r3_hw-events-not-supported.csv"
	grep -q '^task-clock .* 316.44 .* 324.65 ' "$T_TMP/out" && grep -q "has no branches, which .*csv_default.csv asked for but did not count" "$T_TMP/err" &&
		! grep -q "has no branches, which [^ ]* counted" "$T_TMP/err"
	ok $(( RC != 2 || $? )) "shared default vs -r 3 -e task-clock,cycles,instructions: task-clock compared, <not supported> branches not called counted, exit 2"
else
	skip "../shared absent: the swevents pair"
fi

# real pairs from the shared captures
S=$TD_SHARED/testdata
if have_shared; then
	M=$S/stat_text/intel-hybrid-deDE-locale_tiled-matmul_main
	run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$M.profile.txt" "$M.parallel6.profile.txt"
	grep -Eq '^cpu_core/ipc .* regression' "$T_TMP/out" && grep -q 'parallelism changed' "$T_TMP/out"
	ok $(( RC != 1 || $? )) "tiled-matmul serial vs parallel (hybrid, de_DE): P-core IPC regression, parallelism explained"
	grep -Eq '^cpu_atom/llc-load-misses .* uncertain' "$T_TMP/out"; ok $? "0 -> 7 scaled E-core misses: uncertain, not a regression"
	N=$S/stat/amd-zen4-5.5GHz_perf-stat-ddd_and_PipelineL2_gcc-vs-clang_structofvector-notes.txt
	sed -n '1,21p' "$N" >"$T_TMP/gcc.txt"; sed -n '42,62p' "$N" >"$T_TMP/clang.txt"
	run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$T_TMP/gcc.txt" "$T_TMP/clang.txt"
	grep -Eq '^ipc .* regression' "$T_TMP/out" && grep -q 'multiplexed: lowest enabled 35.52%' "$T_TMP/out"
	ok $(( RC != 1 || $? )) "Zen 4 gcc vs clang -ddd: IPC regression, multiplexing stated"
	sed -n '22,40p' "$N" >"$T_TMP/gccL2.txt"; sed -n '63,81p' "$N" >"$T_TMP/clangL2.txt"
	run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$T_TMP/gccL2.txt" "$T_TMP/clangL2.txt"
	grep -Eq '^core_bound +metric +% +48.16' "$T_TMP/out" && grep -q 'Top-down: core_bound grew most (48.2% -> 53.0%' "$T_TMP/out"
	ok $? "Zen 4 PipelineL2 gcc vs clang: Top-down nodes compared, the node that grew named"
	P=$S/stat/amd-zen4-7700X-class_PipelineL2_baseline-vs-solution_perf-ninja-vectorization1-notes.txt
	sed -n '17,41p' "$P" >"$T_TMP/baseline.txt"; sed -n '59,$p' "$P" >"$T_TMP/solution.txt"
	run_tool "$T_TMP/out" "$T_TMP/err" "$DIFF" "$T_TMP/baseline.txt" "$T_TMP/solution.txt"
	grep -q 'Top-down: memory_bound grew most (0.9% -> 65.8%' "$T_TMP/out" && grep -q 'multiplexed: lowest enabled 24.9' "$T_TMP/out"
	ok $? "PipelineL2 baseline vs solution (perf-ninja): memory_bound +64.9 points named, multiplexing stated"
else
	for i in 1 2 3 4 5; do skip "../shared absent: shared A/B pairs"; done
fi
done_testing
