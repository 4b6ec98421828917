#!/usr/bin/env bash
# Prose is never a metric: lines of other text around perf's are counted in
# one note (exit 0), another tool's output is named in one line (exit 2),
# the layout label is the one of perf's lines, options are validated.
. "$(dirname "$0")/lib.sh"
DERIVE=$TD_BIN/td-derive
D=$TD_ROOT/testdata/stat
S=$TD_SHARED/testdata

# own captures: uptime/dd output and a python JSON object before perf's rows
for f in "$D/local-kvm_swevents_text_with-uptime-dd-output.txt:text:85.200000:4" \
	 "$D/local-kvm_swevents_csv_with-uptime-dd-output.csv:csv:68.490000:4" \
	 "$D/local-kvm_swevents_j_with-python-json-output.jsonl:json:153.843452:1"; do
	IFS=: read -r path layout tc n <<<"$f"
	b=$(basename "$path")
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters --csv "$path"
	[ "$RC" = 0 ] && [ "$(cat "$T_TMP/err")" = "td-derive: $path: $n line$([ "$n" = 1 ] || echo s) of non-perf text skipped (the first at line 2)" ]
	ok $? "$b: exit 0, the program's $n lines named in one note"
	grep -q "^,all,,task-clock,$tc,100.00,$" "$T_TMP/out" && [ "$(grep -vc '^interval' "$T_TMP/out")" = 2 ]
	ok $? "$b: task-clock $tc and page-faults, nothing else read"
	"$DERIVE" -q "$path" | grep -q "^input: $path ($layout)$"; ok $? "$b: labelled $layout"
done
"$DERIVE" -q --csv "$D/local-kvm_swevents_j_with-python-json-output.jsonl" | grep -q 'iterations\|real_time'
ok $(( ! $? )) "another program's JSON object gives no metric"

# a folded file and perf script text: named in one line, exit 2
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$TD_ROOT/testdata/diff/local-kvm_gzip-1_cpu-clock-g.folded"
[ "$RC" = 2 ] && [ "$(cat "$T_TMP/err")" = "td-derive: $TD_ROOT/testdata/diff/local-kvm_gzip-1_cpu-clock-g.folded: this is folded stacks; use td-diff (two of them) or flamegraph.pl" ]
ok $? "folded stacks given to td-derive: one line naming them, exit 2"
grep -q '^input: .*folded (no perf stat output)$' "$T_TMP/out"; ok $? "folded stacks: labelled 'no perf stat output', not a layout"
zcat "$TD_ROOT/testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.script.txt.gz" >"$T_TMP/script.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$T_TMP/script.txt"
[ "$RC" = 2 ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && grep -q "script.txt: this is perf script output; use td-fold" "$T_TMP/err"
ok $? "perf script text (local-kvm gzip-perl) given to td-derive: one line, exit 2"
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-diff" "$T_TMP/script.txt" "$T_TMP/script.txt"
[ "$RC" = 2 ] && grep -q "this is perf script output" "$T_TMP/err"; ok $? "td-diff: perf script text named too"

# options
A=$D/local-kvm_swevents_csv.csv
for a in "--cpu bogus" "--cpu amd-zen4:x" "--level 0" "--level 9"; do
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" $a "$A"
	[ "$RC" = 2 ] && grep -q "^Try 'td-derive --help'" "$T_TMP/err" && [ ! -s "$T_TMP/out" ]
	ok $? "$a: usage error, exit 2, nothing read"
done
grep -q "no model 'bogus'; the models are intel-perf-metrics," "$("$DERIVE" --cpu bogus "$A" 2>&1 >/dev/null | head -1 >"$T_TMP/e"; echo "$T_TMP/e")"
ok $? "--cpu bogus: lists the models"
"$TD_BIN/td-explain" --help | grep -q "^Reads no file: each NODE"; ok $? "td-explain --help: says it reads node names, not files"
if command -v man >/dev/null; then
	bad=0
	for m in "$TD_ROOT"/man/*.1; do
		man -l --warnings "$m" 2>&1 >/dev/null | grep -q "macro .* not defined" && { diag "$m: a line troff takes for a macro"; bad=1; }
	done
	ok $bad "man pages: no text line that troff eats as a macro"
else
	skip "man not installed"
fi

# A program's line before perf's CSV never takes the rows with it: under
# ':' "benchmark: 12 ops/s" has a --metric-only header's shape, under ';'
# "throughput;3.2;GB/s" a further metric's, "a|b|c" a header under '|'.
# Every CSV capture reads the same with the line before it, which is named
# as other text.
csvs=("$D"/*.csv)
have_shared && csvs+=("$S"/stat_csv/*.csv "$S"/stat_csv/*/*.csv)
for pre in "benchmark: 12 ops/s" "throughput;3.2;GB/s" "a|b|c"; do
	bad=0
	for f in "${csvs[@]}"; do
		{ echo "$pre"; cat "$f"; } >"$T_TMP/pre.csv"
		"$DERIVE" --csv "$f" >"$T_TMP/a" 2>/dev/null
		"$DERIVE" --csv "$T_TMP/pre.csv" 2>"$T_TMP/err" | sed "s#$T_TMP/pre.csv#$f#" >"$T_TMP/b"
		cmp -s "$T_TMP/a" "$T_TMP/b" && grep -q "pre.csv: .*non-perf text skipped (the first at line 1)" "$T_TMP/err" ||
			{ diag "'$pre' before $f: read differently"; bad=1; }
	done
	ok $bad "'$pre' before each of ${#csvs[@]} CSV captures: the same metrics, the line named as other text"
done

if have_shared; then
	# the amd-zen4 perf-ninja notes: google-benchmark output around two PipelineL2 runs
	F=$S/stat/amd-zen4-7700X-class_PipelineL2_baseline-vs-solution_perf-ninja-vectorization1-notes.txt
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$F"
	[ "$RC" = 0 ] && grep -q "^td-derive: $F: 27 lines of non-perf text skipped (the first at line 2)$" "$T_TMP/err" &&
		[ "$(grep -c "$F" "$T_TMP/err")" = 1 ]
	ok $? "perf-ninja notes (google-benchmark output): exit 0, one note for 27 lines"
	grep -q ',run1 all,,memory_bound,0.908,%,' "$T_TMP/out" && grep -q ',run2 all,,memory_bound,65.766,%,' "$T_TMP/out"
	ok $? "perf-ninja notes: memory_bound 0.908 and 65.766 (perf printed 0.9 and 65.8)"
	"$DERIVE" -q "$F" | grep -q "^input: $F (text)$"; ok $? "perf-ninja notes: labelled text (a date line before perf's no longer makes it csv)"
	# Load Average after an old --topdown CSV table (Ice Lake, LKML 2020) is not a metric row
	T=$S/stat_csv/intel-icl-topdown-group-not-counted_and_old--topdown-x,_lkml-2020.snippet.csv
	{ head -n 3 "$T"; echo 'Load Average: 0.21, 0.48, 0.50'; tail -n +4 "$T"; } >"$T_TMP/la.csv"
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$T_TMP/la.csv"
	grep -q ' all,,frontend_bound,40.400,%,' "$T_TMP/out" && grep -q ' all,,bad_speculation,16.100,%,' "$T_TMP/out" &&
		grep -q "la.csv: 1 line of non-perf text skipped (the first at line 4)" "$T_TMP/err"
	ok $(( RC || $? )) "Load Average after --topdown rows: frontend_bound stays 40.4, bad_speculation 16.1, exit 0"
	# llama-bench tables and prompts around six Arm runs (rpi5)
	F=$S/stat/arm-cortex-a76-rpi5_stall_frontend-backend-inst_spec-l1d-l2d-l3d_perf-stat-e_ggml-neon-opt.txt
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$F"
	[ "$RC" = 0 ] && [ "$(cat "$T_TMP/err")" = "td-derive: $F: 36 lines of non-perf text skipped (the first at line 1)" ]
	ok $? "rpi5 llama-bench notes: exit 0, one note for 36 lines"
	# ps output in the perfwiki tutorial is not a counter
	F=$S/stat_text/mixed-eras_perf-stat-tutorial-outputs_hybrid-default-TopdownL1_-r_-a_-C_-x,_perfwiki.snippet.txt
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters --csv "$F"
	! grep -q 'rsyslogd' "$T_TMP/out" && grep -q '^,run1 all,,task-clock,2040.800000,' "$T_TMP/out"
	ok $(( RC || $? )) "perfwiki tutorial: 'ps' lines are no counters, run 1's task-clock 2040.80, exit 0"
	# -I -A text: the timestamp and CPU columns are not part of the event
	F=$S/stat_csv/local-kvm-amd-epyc-genoa_perf6.1_swevents/text_interval_A.txt
	"$DERIVE" -q --counters --csv "$F" >"$T_TMP/out"
	grep -q '^0.295387544,CPU0,,task-clock,296.450000,100.00,$' "$T_TMP/out"; ok $? "-I -A text: 0.295387544 CPU0 task-clock 296.45"
	# "..." eliding lines of a -j capture is not an unclosed JSON object
	F=$S/stat/intel-x86-16cpu_perf-stat-a-j-I1000_metric-threshold_lkml-2024-irogers.snippet.jsonl
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$F"
	[ "$RC" = 0 ] && [ "$(cat "$T_TMP/err")" = "td-derive: $F: 1 line of non-perf text skipped (the first at line 14)" ]
	ok $? "-j excerpt ending in '...': one note, exit 0 (was 'JSON object not closed', exit 2)"
	# the layout label of text captures with an early prose line holding a comma
	n=0
	for F in "$S/stat/intel-spr_default-a-sleep1_TopdownL1-L2-metricgroup_std_lkml-2023-kanliang.snippet.txt" \
		 "$S/stat/intel-hybrid-adl-class_default-a-sleep1_TopdownL1-core-atom_std_lkml-2023-kanliang.snippet.txt" \
		 "$S/stat_text/intel-skylake-client_pre-ICL-TMA_TopdownL1-L2-L3_hashmap-benchmark_readme.snippet.txt" \
		 "$S/stat_text/intel-tgl-ish_perf6.1_TopdownL1-drilldown_perfwiki.snippet.txt"; do
		"$DERIVE" -q "$F" 2>/dev/null | grep -q "^input: $F (text)$" || { diag "$F: not labelled text"; n=1; }
	done
	ok $n "text captures with a comma in an early prose line: labelled text"
	# every perf script, branch and SPE dump capture given to td-derive: one line naming it, exit 2
	n=0
	for F in "$S"/script_callchain/* "$S"/brstack/* "$S"/spe/*perf-report--dump*; do
		run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$F"
		{ [ "$RC" = 2 ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && grep -q ": this is perf " "$T_TMP/err"; } || { diag "$F"; n=$((n + 1)); }
	done
	ok $n "perf script, brstack and perf report -D captures: each named in one line, exit 2"
	# --cpu of the wrong vendor
	F=$S/stat/amd-zen4-7700X-class_PipelineL2_baseline-vs-solution_perf-ninja-vectorization1-notes.txt
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --cpu intel-perf-metrics "$F"
	[ "$RC" = 2 ] && grep -q "^td-derive: --cpu intel-perf-metrics does not fit this capture: its Top-down events are AMD's (model amd-zen4)" "$T_TMP/err"
	ok $? "--cpu intel-perf-metrics on an AMD Zen 4 capture: says the events are AMD's, exit 2"
	F=$S/stat_text/intel-tgl-ish_perf6.1_TopdownL1-drilldown_perfwiki.snippet.txt
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --cpu amd-zen4 "$F"
	[ "$RC" = 2 ] && grep -q "^td-derive: --cpu amd-zen4 does not fit this capture: its Top-down events are Intel's" "$T_TMP/err"
	ok $? "--cpu amd-zen4 on an Intel capture: says the events are Intel's, exit 2"
	# td-fold given perf stat output names it
	run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-fold" "$F"
	[ "$RC" = 2 ] && grep -q "^td-fold: this is perf stat output, not perf script output; use td-derive" "$T_TMP/err"
	ok $? "td-fold given a perf stat capture: names it, exit 2"
	# td-info --json with two files: one document
	P=$S/perfdata
	"$TD_BIN/td-info" --json "$P/intel-skx-6154_cycles-u_perf5.6.perf.data" "$P/armv7_multi-event_-a_perf3.4.perf.data" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); assert isinstance(d, list) and len(d) == 2'
	ok $? "td-info --json a b: one JSON array of two"
else
	for i in $(seq 15); do skip "../shared absent"; done
fi
done_testing
