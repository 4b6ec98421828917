#!/usr/bin/env bash
# td-fold's compatibility contract: byte-identical to today's
# stackcollapse-perf.pl on FlameGraph's inputs (every option), and to
# inferno where inferno's README says it follows the perl script.
. "$(dirname "$0")/lib.sh"
FG=$TD_SHARED/compat/flamegraph
INF=$TD_SHARED/compat/inferno/tests/data/collapse-perf
if [ ! -d "$FG/expected-current" ]; then
	skip "$FG absent: compat contract not checked"
	done_testing
	exit
fi
# inputs whose last sample has no closing blank line: td-fold keeps it and says so
unterminated=" perf-dd-stacks-01 perf-iperf-stacks-pidtid-01 perf-java-stacks-01 perf-mirageos-stacks-01 perf-numa-stacks-01 perf-vertx-stacks-01 "
for input in "$FG"/test/*.txt; do
	name=$(basename "$input" .txt)
	for opt in "" pid tid kernel jit all addrs; do
		expected=$FG/expected-current/$name-collapsed${opt:+-$opt}.txt
		run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-fold" ${opt:+--$opt} "$input"
		same "$expected" "$T_TMP/out" "$name ${opt:+--$opt}"
		# the perl script's own bytes: its input as the peer ran on it
		{ cat "$input"; echo; } | "$TD_BIN/td-fold" --perl-compat ${opt:+--$opt} 2>/dev/null | cmp -s - "$expected"
		ok $? "$name ${opt:+--$opt} --perl-compat"
	done
	case $unterminated in
	*" $name "*)
		grep -q "^td-fold: $input:[0-9]*: input ends without the blank line after its last sample; kept" "$T_TMP/err"
		ok $? "$name: missing final blank line reported with file:line" ;;
	*)
		ok $(( $(grep -c 'input ends' "$T_TMP/err") )) "$name: complete input, no truncation warning" ;;
	esac
done
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-fold" "$FG/example-perf-stacks.txt.gz"
same "$FG/expected-current/example-perf-stacks-collapsed.txt" "$T_TMP/out" "example-perf-stacks.txt.gz (gzip read by magic)"

# inferno inputs where inferno and the perl script agree
for t in go-stacks: java-inline: no-events: cpp-stacks-std-function:perl single-event:perl; do
	name=${t%%:*}
	if [ "${t#*:}" = perl ]; then
		# inferno keeps "(int, int)" and fixes Rust names; the perl rules win here
		run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-fold" "$INF/$name.txt"
		ok $(( RC == 2 || RC == 0 ? 0 : 1 )) "inferno $name: runs (perl rules, see td-fold(1))"
		continue
	fi
	run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-fold" "$INF/$name.txt"
	same "$INF/results/$name-collapsed.txt" "$T_TMP/out" "inferno $name"
done
# samples recorded without -g: kept (perl loses them); the first event is kept as usual
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-fold" --event-filter=cycles "$INF/single-line-stacks.txt"
grep -qx 'false;_dl_start 1' "$T_TMP/out"; ok $? "one-line samples (no -g) become comm;sym"
run_tool "$T_TMP/out" "$T_TMP/err" "$TD_BIN/td-fold" "$INF/single-line-stacks.txt"
grep -q 'skipped 1 samples of event cycles' "$T_TMP/err"; ok $? "skipped event named on stderr with its count"
done_testing
