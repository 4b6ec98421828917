#!/usr/bin/env bash
# toplev's output (pmu-tools) read by td-derive: every Top-down node value
# toplev printed enters the tree under tdkit's name, equal to the printed
# value, marked "from toplev"; its other rows are counted, not read.
. "$(dirname "$0")/lib.sh"
D=$TD_ROOT/testdata/toplev
ALL_RC=0

# nodes FILE: "scope metric value level" of every Top-down row td-derive shows
nodes() {
	RC=0
	"$TD_BIN/td-derive" --csv "$1" >"$T_TMP/csv" 2>"$T_TMP/err" || RC=$?
	sed -E 's/"[^"]*"//g' "$T_TMP/csv" |
		awk -F, 'NR > 1 && $13 != "" { print ($1 == "" ? "" : $1 " ") $2, $4, $5, $13, ($14 ~ /^from toplev/ ? "toplev" : "NOT-TOPLEV") }'
}

# check FILE DESCRIPTION: nodes equal the expected lines on stdin, exit 0
check() {
	cat >"$T_TMP/want"
	nodes "$1" >"$T_TMP/got"
	same "$T_TMP/want" "$T_TMP/got" "$2: node values equal what toplev printed"
	[ "$RC" -eq 0 ] || diag "$1: exit $RC"
	ALL_RC=$((ALL_RC + RC))
}

check "$D/pmu-tools-370_skx-gold6140_toplev4.1_l1-v-no-desc-global.txt" "text -l1 -v --no-desc --global (pmu-tools#370)" <<'X'
all frontend_bound 32.900 1 toplev
all bad_speculation 5.300 1 toplev
all backend_bound 53.800 1 toplev
all retiring 8.000 1 toplev
X
grep -q 'MUX) not read' "$T_TMP/err"; ok $? "#370: the MUX row is counted as not read"
check "$D/pmu-tools-370_skx-gold6140_toplev4.1_l1-v-no-desc-global-no-multiplex.txt" "text --no-multiplex (pmu-tools#370)" <<'X'
all frontend_bound 61.700 1 toplev
all bad_speculation 7.800 1 toplev
all backend_bound 20.000 1 toplev
all retiring 10.500 1 toplev
X
check "$D/perf-ninja-116_bdx-e5-2680v4_toplev5.01_l1-core-S0-C0-v-no-desc.txt" "text --core S0-C0, S0-C0-T0 MUX rows (perf-ninja#116)" <<'X'
S0-C0 frontend_bound 32.900 1 toplev
S0-C0 bad_speculation 0.400 1 toplev
S0-C0 backend_bound 4.100 1 toplev
S0-C0 retiring 62.600 1 toplev
X
check "$D/pmu-tools-449_icx_toplev4.5_l1-mux-column-info-counts.txt" "text with the [ 1.8%] multiplex column, indented (pmu-tools#449)" <<'X'
all frontend_bound 18.400 1 toplev
all bad_speculation 7.700 1 toplev
all backend_bound 19.500 1 toplev
all retiring 54.200 1 toplev
X
grep -q "2 other rows" "$T_TMP/err" && ! grep -q "not toplev's" "$T_TMP/err"
ok $? "#449: Info count rows (1,035,193,342,312) counted as not read, the banner is toplev's"
check "$D/pmu-tools-369_skl-6700K_toplev4.11_l1-core-C0-v-no-desc-csv.csv" "CSV --core C0, current header (pmu-tools#369)" <<'X'
C0 frontend_bound 53.900 1 toplev
C0 bad_speculation 13273.400 1 toplev
C0 backend_bound -13254.600 1 toplev
C0 retiring 27.300 1 toplev
X
"$TD_BIN/td-derive" "$D/pmu-tools-369_skl-6700K_toplev4.11_l1-core-C0-v-no-desc-csv.csv" >"$T_TMP/out" 2>/dev/null
grep -q 'input: .*(toplev csv)' "$T_TMP/out" && grep -q 'backend_bound *-13254.6%.*mismeasured (outside 0-100%)' "$T_TMP/out"
ok $? "#369: labelled toplev csv; toplev's impossible -13254.6% is shown and flagged mismeasured"

check "$D/pmu-tools-125_bdw-e5-2650v4_toplev3.4_l1-core-S0-C0-no-desc_spec-chatter.txt" "toplev 3.4 'Name: value % Slots [100.00%]' order, SPEC output around it (pmu-tools#125)" <<'X'
S0-C0 frontend_bound 23.770 1 toplev
S0-C0 backend_bound 11.110 1 toplev
X
grep -q "4 lines that are not toplev's skipped (the first is line 6)" "$T_TMP/err"
ok $? "#125: SPEC's 4 lines are counted once, not read, not an error"
check "$D/pmu-tools-203_clx-gold6230_toplev-l1-core-C0_name-colon-unit-value.txt" "'Name:   % Slots   value <==' with a description (pmu-tools#203)" <<'X'
S1-C0 backend_bound 59.450 1 toplev
X

check "$D/pmu-tools-516_skx-i9-7980XE_toplev5.01_all-l2-C0-no-mux.txt" "toplev 5.01 --all, Level 2, C0 (pmu-tools#516)" <<'X'
C0 frontend_bound 21.100 1 toplev
C0 backend_bound 33.500 1 toplev
C0 retiring 39.700 1 toplev
C0 fetch_latency 14.000 2 toplev
C0 fetch_bandwidth 6.800 2 toplev
C0 branch_mispredicts 4.200 2 toplev
C0 machine_clears 1.100 2 toplev
C0 core_bound 20.200 2 toplev
C0 heavy_operations 33.400 2 toplev
X
"$TD_BIN/td-derive" "$D/pmu-tools-516_skx-i9-7980XE_toplev5.01_all-l2-C0-no-mux.txt" 2>/dev/null |
	grep -A1 '^  bad_speculation  *n/a$' | grep -q '^    branch_mispredicts  *4.2%'
ok $? "#516: Bad_Speculation, not printed, is named n/a above its children"

# synthetic: -I with SUMMARY rows, --abbrev names, descriptions (toplev's documented layout)
check "$D/synthetic-toplev-I-abbrev-summary.txt" "text -I, ...abbreviated names, SUMMARY (synthetic)" <<'X'
1.000512003 all frontend_bound 15.200 1 toplev
1.000512003 all backend_bound 52.400 1 toplev
1.000512003 all memory_bound 38.700 2 toplev
1.000512003 all dram_bound 21.000 3 toplev
1.000512003 all mem_bandwidth 12.500 4 toplev
all frontend_bound 15.000 1 toplev
all backend_bound 52.000 1 toplev
all memory_bound 38.000 2 toplev
X
check "$D/synthetic-toplev-I-per-core.csv" "CSV -I --per-core, quoted description (synthetic)" <<'X'
1.001234567 S0-C0 frontend_bound 21.500 1 toplev
1.001234567 S0-C0 backend_bound 48.200 1 toplev
1.001234567 S0-C0 memory_bound 30.100 2 toplev
1.001234567 S0-C1 frontend_bound 25.000 1 toplev
1.001234567 S0-C1 backend_bound 40.000 1 toplev
2.002345678 S0-C0 frontend_bound 22.500 1 toplev
2.002345678 S0-C0 backend_bound 47.000 1 toplev
2.002345678 S0-C0 memory_bound 29.000 2 toplev
2.002345678 S0-C1 frontend_bound 26.000 1 toplev
2.002345678 S0-C1 backend_bound 41.000 1 toplev
X
[ "$ALL_RC" -eq 0 ]; ok $? "every toplev capture exits 0"

S=$TD_SHARED/testdata/stat/intel-snb-ep-e5-4620_toplev4.4-l10-pid-S_mysqld-same-vs-cross-numa_confluence-notes.txt
if [ -f "$S" ]; then
	check "$S" "shared SNB-EP toplev 4.4 -l10, two runs, [ 0.0%] and <==, descriptions" <<'X'
run1 all frontend_bound 36.900 1 toplev
run1 all backend_bound 55.700 1 toplev
run1 all fetch_latency 26.200 2 toplev
run1 all memory_bound 32.200 2 toplev
run1 all core_bound 23.600 2 toplev
run1 all itlb_misses 5.100 3 toplev
run1 all branch_resteers 20.800 3 toplev
run1 all ports_utilization 21.900 3 toplev
run2 all frontend_bound 20.700 1 toplev
run2 all backend_bound 73.200 1 toplev
run2 all fetch_latency 23.900 2 toplev
run2 all memory_bound 45.200 2 toplev
run2 all core_bound 28.000 2 toplev
run2 all branch_resteers 17.500 3 toplev
run2 all ports_utilization 19.500 3 toplev
X
	[ ! -s "$T_TMP/err" ]; ok $? "SNB-EP: toplev's messages and descriptions are not noise on stderr"
	"$TD_BIN/td-derive" "$S" >"$T_TMP/out" 2>&1
	grep -q '^Top-down run2 all: as toplev printed them' "$T_TMP/out" &&
		grep -q 'fetch_latency *23.9%.*mismeasured (larger than its parent)' "$T_TMP/out"
	ok $? "SNB-EP: the second run is its own tree; toplev's fetch_latency 23.9 above frontend_bound 20.7 is flagged"
else
	skip "shared captures absent ($TD_SHARED)"
	skip "shared captures absent"
	skip "shared captures absent"
fi

# --columns: a value per CPU; reading the first as the row's would be a wrong number
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" --csv "$D/synthetic-toplev-columns.txt"
[ $RC -eq 2 ] && ! grep -q frontend_bound "$T_TMP/out" && grep -q '2 rows with a value per CPU (toplev --columns) not read' "$T_TMP/err"
ok $? "toplev --columns rows are named and not read (synthetic), exit 2: nothing was read"

# td-diff compares two toplev captures node by node (#370: with and without --no-multiplex)
A=$D/pmu-tools-370_skx-gold6140_toplev4.1_l1-v-no-desc-global.txt
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-diff" --csv "$A" "${A%.txt}-no-multiplex.txt"
[ $RC -eq 0 ] && grep -q '^backend_bound,metric,%,53.8,20,-33.8,' "$T_TMP/out" &&
	grep -q '^frontend_bound,metric,%,32.9,61.7,28.8,' "$T_TMP/out"
ok $? "td-diff: toplev's backend_bound 53.8 -> 20.0 and frontend_bound 32.9 -> 61.7 as printed, exit 0"

# a perf stat file is not taken for toplev's
"$TD_BIN/td-derive" --csv "$TD_ROOT/testdata/stat/local-kvm_swevents_csv.csv" >"$T_TMP/out" 2>"$T_TMP/err"
! grep -q toplev "$T_TMP/out" "$T_TMP/err"; ok $? "perf stat CSV is not read as toplev's"
# toplev's node values are not perf's metrics: perf_check does not count them
# (printed = checked + not_recomputable holds with nothing printed), and the
# tree's nodes say where their values came from (#516)
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" --json "$D/pmu-tools-516_skx-i9-7980XE_toplev5.01_all-l2-C0-no-mux.txt"
[ $RC -eq 0 ] && grep -q '"perf_check": {"printed": 0, "checked": 0, "agree": 0' "$T_TMP/out"
ok $? "#516: toplev's 9 node values are not counted as perf-printed metrics"

# toplev's lines are read before the other-text count: a toplev file is not
# reported as non-perf text (#125: only SPEC's own 4 lines are named)
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-derive" "$D/pmu-tools-125_bdw-e5-2650v4_toplev3.4_l1-core-S0-C0-no-desc_spec-chatter.txt"
[ $RC -eq 0 ] && ! grep -q 'non-perf text' "$T_TMP/err" && grep -q "4 lines that are not toplev's skipped" "$T_TMP/err"
ok $? "#125: toplev's rows are not counted as other text; SPEC's 4 lines are named once"
done_testing
