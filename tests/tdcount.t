#!/usr/bin/env bash
# libtdcount: the README's example program (count/example.c) counts a block
# that touches 4096 fresh pages and sleeps three times; its perf stat -x,
# lines are read by td-derive. Hardware events are checked where the
# machine has a PMU, and skipped with the reason where it has none.
. "$(dirname "$0")/lib.sh"
ex=${TD_BUILD:-$TD_ROOT/build}/tdcount-example
[ -x "$ex" ] || { skip "tdcount-example not built ($ex)"; done_testing; exit; }
run_tool "$T_TMP/out" "$T_TMP/c.csv" "$ex"
if [ $RC = 2 ] && grep -q '^tdcount: no event could be opened' "$T_TMP/c.csv"; then
	skip "perf_event_open is refused here (a container's seccomp profile, perf_event_paranoid 3): $(head -1 "$T_TMP/c.csv")"
	done_testing
	exit
fi
ok $RC "the example runs (exit 0)"
grep -q '^result ' "$T_TMP/out"; ok $? "its own output stays on stdout"
pf=$(awk -F, '$3 ~ /^page-faults/ {print $1}' "$T_TMP/c.csv")
[ -n "$pf" ] && [ "$pf" -ge 4096 ] && [ "$pf" -lt 8192 ]; ok $? "page-faults of the block: $pf (4096 pages touched; ASan's shadow pages add some)"
cs=$(awk -F, '$3 ~ /^context-switches/ {print $1}' "$T_TMP/c.csv")
[ -n "$cs" ] && [ "$cs" -ge 3 ]; ok $? "context-switches of the block: $cs (3 sleeps)"
awk -F, '$3 ~ /^task-clock/ && $2 == "msec" && $1 > 0 && $5 == "100.00" {f=1} END {exit !f}' "$T_TMP/c.csv"; ok $? "task-clock in msec, running 100 %"
grep -q ',ns,duration_time,' "$T_TMP/c.csv"; ok $? "the block's wall time as duration_time"
run_tool "$T_TMP/d" "$T_TMP/e" "$TD_BIN/td-derive" --csv "$T_TMP/c.csv"
ok $RC "td-derive reads the writer's lines (exit 0)"
grep -q '^,all,,cpus_utilized,' "$T_TMP/d" && grep -q '^,all,,page_faults_per_s,' "$T_TMP/d"; ok $? "td-derive: CPUs utilized and page faults per second of the block"
! grep -q 'non-perf text' "$T_TMP/e"; ok $? "td-derive: no line of it is other text"
"$TD_BIN/td-derive" --counters --csv "$T_TMP/c.csv" >"$T_TMP/k" 2>/dev/null
grep -q "^,all,,page-faults,$pf\.000000,100\.00," "$T_TMP/k"
ok $? "td-derive --counters: the same page-faults count"
if grep -q '^<not supported>,,cycles' "$T_TMP/c.csv"; then
	skip "hardware events: this machine has no PMU (cycles <not supported>, kept as such)"
	grep -q 'not supported' "$T_TMP/e"; ok $? "td-derive names the unsupported hardware events"
else
	cy=$(awk -F, '$3 ~ /^cycles/ {print $1}' "$T_TMP/c.csv")
	[ -n "$cy" ] && [ "$cy" -gt 0 ]; ok $? "cycles counted: $cy"
	grep -q ',ipc,' "$T_TMP/d"; ok $? "td-derive: IPC of the block"
fi
run_tool "$T_TMP/o" "$T_TMP/e" "$ex" "task-clock,no_such_event_anywhere"
[ $RC = 2 ] && grep -q '^tdcount: no_such_event_anywhere: ' "$T_TMP/e"; ok $? "an unknown event name: libpfm4's reason"
run_tool "$T_TMP/o" "$T_TMP/e" "$ex" "task-clock,,page-faults"
ok $(( RC != 2 )) "an empty name in the list is refused"
run_tool "$T_TMP/o" "$T_TMP/e" "$ex" "PERF_COUNT_SW_PAGE_FAULTS"
grep -q ',PERF_COUNT_SW_PAGE_FAULTS,' "$T_TMP/e"; ok $? "libpfm4's own names work too"
done_testing
