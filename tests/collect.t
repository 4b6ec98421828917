#!/usr/bin/env bash
# td-collect: the perf command chosen for each fixture CPU (synthetic /proc
# and /sys trees built from published facts, testdata/PROVENANCE.md), and
# real collections on this machine with software events: a command, a
# process by name, -a, -I, the agent (two runs), --store with labels, the
# header read back by td-derive, td-diff and td-store, and failures.
. "$(dirname "$0")/lib.sh"
C=$TD_BIN/td-collect
D=$TD_ROOT/testdata
command -v perf >/dev/null 2>&1 || { skip "perf is not installed (Debian: linux-perf)"; done_testing; exit; }
perfv=$(perf version 2>/dev/null | sed 's/perf version //')

# --- one expected perf command per fixture CPU -------------------------------
# The metric groups come from this perf (PERF_CPUID=<fixture cpuid> perf list):
# the expected commands are perf 6.1's choice (Debian 12's linux-perf).
for exp in "$TD_ROOT"/tests/collect-expected/*.txt; do
	cpu=$(basename "$exp" .txt)
	case $perfv in
	6.1.*)
		(cd "$D" && "$C" --sysroot "sysroot-synthetic-$cpu" --dry-run -- ./app >"$T_TMP/o" 2>"$T_TMP/e")
		cat "$T_TMP/o" "$T_TMP/e" >"$T_TMP/got"
		same "$exp" "$T_TMP/got" "dry run on $cpu: perf command and notes" ;;
	*) skip "dry run on $cpu: the expected commands are perf 6.1's metric groups; this is perf $perfv" ;;
	esac
done
case $perfv in
6.1.*)
	run_tool "$T_TMP/o" "$T_TMP/e" "$C" --sysroot "$D/sysroot-synthetic-intel-sapphire-rapids" --level 2 --passes 3 --dry-run -- ./app
	[ "$(wc -l <"$T_TMP/o")" = 3 ] && grep -q -- "-M TopdownL1,TopdownL2 -- ./app" "$T_TMP/o"; ok $? "SPR --level 2 --passes 3: three perf runs, TopdownL1,TopdownL2 in one"
	grep -q "the command runs once per pass" "$T_TMP/e"; ok $? "passes of a command: says the command runs once per pass"
	run_tool "$T_TMP/o" "$T_TMP/e" "$C" --sysroot "$D/sysroot-synthetic-intel-skylake-x" --passes 4 --dry-run -a --duration 2s --interval 0.5s
	[ "$(grep -c -- "-I 500 -a .*-- sleep 0.5$" "$T_TMP/o")" = 4 ]; ok $? "Skylake-X -a over 2 s in 4 passes: each pass counts 0.5 s with -I 500"
	grep -q "take turns over the duration" "$T_TMP/e"; ok $? "passes of -a: says the groups take turns" ;;
*) skip "passes: perf 6.1 expected"; skip "passes note"; skip "-a passes"; skip "-a passes note" ;;
esac
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --sysroot "$D/sysroot-synthetic-arm-neoverse-v2" --level 2 --dry-run -- ./app
grep -q "Level 2 asked; Arm Neoverse gives Level 1" "$T_TMP/e"; ok $? "Neoverse V2 --level 2: says Level 1 is what Arm gives"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --sysroot "$T_TMP/nothing" --dry-run -- ./app
ok $(( RC != 2 )) "--sysroot without /proc/cpuinfo exits 2"
grep -q "^td-collect: $T_TMP/nothing/proc/cpuinfo: no CPU description" "$T_TMP/e"; ok $? "... and names the file"

# --- real collections here (software events only on this VM) ----------------
# perf_event_open may be refused (a container's seccomp profile, paranoid 3):
# then every live collection is skipped with perf's reason.
if ! perf stat -e task-clock -- true >/dev/null 2>"$T_TMP/probe"; then
	skip "live collections: perf stat cannot count here: $(grep -v '^$' "$T_TMP/probe" | head -1)"
	done_testing
	exit
fi
loop='i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'
run_tool "$T_TMP/cmd.csv" "$T_TMP/e" "$C" --no-git-labels --label bench=loop -- sh -c "$loop"
ok $RC "a command: exit 0"
grep -q '^# tdkit-collect: cpuid=' "$T_TMP/cmd.csv" && grep -q '^# tdkit-collect: target=command:sh -c' "$T_TMP/cmd.csv" &&
	grep -q '^# tdkit-collect: label.bench=loop' "$T_TMP/cmd.csv"; ok $? "a command: header with cpuid, target and the label"
grep -q ',task-clock,' "$T_TMP/cmd.csv" && grep -q ',duration_time,' "$T_TMP/cmd.csv"; ok $? "a command: perf's task-clock and duration_time rows follow"
if grep -q '^# tdkit-collect: hardware_events=no' "$T_TMP/cmd.csv"; then
	grep -q "no hardware counters: .*counting the software events only" "$T_TMP/e"; ok $? "no hardware counters: says why and what is counted"
else
	ok 0 "hardware counters present: nothing to say"
fi
run_tool "$T_TMP/o" "$T_TMP/e2" "$TD_BIN/td-derive" "$T_TMP/cmd.csv"
ok $RC "td-derive reads the capture (exit 0)"
grep -q "cpus_utilized" "$T_TMP/o"; ok $? "td-derive: CPUs utilized from the capture"

name=tdc-$$
cp "$(command -v sleep)" "$T_TMP/$name"
"$T_TMP/$name" 30 & target=$!
run_tool "$T_TMP/proc.csv" "$T_TMP/e" "$C" --no-git-labels --process "$name" --duration 0.2s
ok $RC "--process NAME --duration 0.2s: exit 0"
grep -q "^# tdkit-collect: target=comm:$name pid:$target\$" "$T_TMP/proc.csv"; ok $? "--process: the matching PID is the target"
grep -q ',task-clock,' "$T_TMP/proc.csv"; ok $? "--process: counts written"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --dry-run --pid "$target" --duration 0.2s
grep -q -- "-p $target -e .* -- sleep 0.2\$" "$T_TMP/o"; ok $? "--pid: perf stat -p PID -- sleep 0.2"
kill "$target" 2>/dev/null; wait "$target" 2>/dev/null
"$T_TMP/$name" 1 & target=$!
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --no-git-labels --process "$name" --duration 2s
wait "$target" 2>/dev/null
[ $RC = 0 ] && grep -q ',task-clock,' "$T_TMP/o"; ok $? "--process: a target that exits during the run is fine (exit 0, counts written)"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --process "no-such-process-$$" --duration 0.2s
ok $(( RC != 2 )) "--process with no match exits 2"
grep -q "^td-collect: --process no-such-process-$$: no running process has this name" "$T_TMP/e"; ok $? "... with one clear line"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --pid 999999999 --duration 0.2s
ok $(( RC != 2 )) "--pid of no process exits 2"

run_tool "$T_TMP/all.csv" "$T_TMP/e" "$C" --no-git-labels -a --duration 0.2s --interval 0.1s
ok $RC "-a --duration 0.2s --interval 0.1s: exit 0"
grep -q '^# tdkit-collect: target=system-wide' "$T_TMP/all.csv" && [ "$(grep -c ',cpu-clock,' "$T_TMP/all.csv")" -ge 2 ]
ok $? "-a -I: system-wide, interval rows of cpu-clock"

db=$T_TMP/runs.db
run_tool "$T_TMP/agent.csv" "$T_TMP/e" "$C" --no-git-labels -a --duration 0.2s --every 1s --count 2 --store "$db" --label bench=agent
ok $RC "agent --every 1s --count 2 --store DB: exit 0"
[ "$(grep -c '^# started on' "$T_TMP/agent.csv")" = 2 ]; ok $? "agent: two runs written"
[ "$(grep -c 'stored as run' "$T_TMP/e")" = 2 ]; ok $? "agent: both runs stored"
run_tool "$T_TMP/o" "$T_TMP/e" "$TD_BIN/td-store" list --db "$db" --label bench=agent --csv
[ "$(grep -c '^2026\|^20[0-9][0-9]' "$T_TMP/o")" = 2 ]; ok $? "td-store list: two runs with the --label"
for l in arch kernel host cpu cpuid pmus perf_version tma_level target; do
	grep -q "$l=" "$T_TMP/o" || { diag "label $l missing"; false; } || break
done; ok $? "stored runs carry arch, kernel, host, cpu, cpuid, pmus, perf_version, tma_level, target"
"$C" --no-git-labels -a --duration 0.2s --every 1s --count 10 >"$T_TMP/sig.csv" 2>"$T_TMP/sig.err" & agent=$!
sleep 1.5; kill -TERM "$agent"; wait "$agent"; RC=$?
ok $RC "agent stopped by SIGTERM: exit 0"
runs=$(grep -c '^# started on' "$T_TMP/sig.csv"); done_runs=$(grep -c ',duration_time,' "$T_TMP/sig.csv")
[ "$runs" -ge 1 ] && [ "$runs" -lt 10 ] && [ "$runs" = "$done_runs" ]; ok $? "agent stopped by SIGTERM: $runs whole runs written, none cut"
grep -q "stopped by a signal after the last run was written" "$T_TMP/sig.err"; ok $? "agent stopped by SIGTERM: says so"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" -- true --store
ok $RC "a command whose own arguments say --store is not td-collect's --store"
( cd "$TD_ROOT" && "$C" --store "$T_TMP/git.db" -- true >/dev/null 2>&1 )
"$TD_BIN/td-store" list --db "$T_TMP/git.db" --csv >"$T_TMP/o" 2>/dev/null
if git -C "$TD_ROOT" rev-parse HEAD >/dev/null 2>&1; then
	grep -q "git_commit=$(git -C "$TD_ROOT" rev-parse HEAD)" "$T_TMP/o"; ok $? "--store inside a git work tree: git_commit label"
else
	skip "not a git work tree"
fi

# --- the header, read back ----------------------------------------------------
v2=$D/collect/collect-synthetic-neoverse-v2-header.csv
run_tool "$T_TMP/o" "$T_TMP/e" "$TD_BIN/td-derive" --csv "$v2"
grep -q 'backend_bound,37.5' "$T_TMP/o" || grep -q 'backend_bound,.*37.5' "$T_TMP/o"; ok $? "td-derive: the header's V2 cpuid selects 8 slots (backend 37.5 %)"
grep -v '^# tdkit-collect' "$v2" >"$T_TMP/nohdr.csv"
"$TD_BIN/td-derive" --csv "$T_TMP/nohdr.csv" >"$T_TMP/o2" 2>/dev/null
grep -q 'backend_bound,.*60' "$T_TMP/o2"; ok $? "without the header the same events read as N2 (5 slots: backend 60 %)"
"$TD_BIN/td-derive" --csv --cpu arm-v2 "$T_TMP/nohdr.csv" >"$T_TMP/o3" 2>/dev/null
same "$T_TMP/o3" "$T_TMP/o" "header's model = --cpu arm-v2, byte for byte"
sed 's/$/\r/' "$v2" >"$T_TMP/crlf.csv"
"$TD_BIN/td-derive" --csv "$T_TMP/crlf.csv" >"$T_TMP/o4" 2>/dev/null
same "$T_TMP/o" "$T_TMP/o4" "CRLF header: the same model"
run_tool "$T_TMP/o" "$T_TMP/e" "$TD_BIN/td-diff" "$v2" "$v2"
grep -q '^backend_bound .* 37.5 ' "$T_TMP/o"; ok $? "td-diff: the header's model (backend 37.5 %)"
"$TD_BIN/td-diff" "$v2" "$T_TMP/nohdr.csv" >"$T_TMP/o" 2>/dev/null
grep -q '^backend_bound .* 37.5 .* 60 ' "$T_TMP/o"; ok $? "td-diff: a file without a header is not given the other's CPU"
run_tool "$T_TMP/o" "$T_TMP/e" "$TD_BIN/td-store" add --db "$T_TMP/h.db" "$v2"
"$TD_BIN/td-store" list --db "$T_TMP/h.db" >"$T_TMP/o" 2>/dev/null
grep -q 'bench=synthetic' "$T_TMP/o" && grep -q 'cpuid=0x00000000410fd4f0' "$T_TMP/o" && grep -q 'model=arm-v2' "$T_TMP/o"
ok $? "td-store add: the header's labels (label.bench, cpuid) and its model"
# bad header lines: never a crash, never a wrong model
{ printf '# tdkit-collect: cpuid\n# tdkit-collect: =x\n# tdkit-collect: cpuid=%s\n' "$(head -c 3000000 /dev/zero | tr '\0' 'x')"; grep -v cpuid "$v2"; } >"$T_TMP/bad.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$TD_BIN/td-derive" --csv "$T_TMP/bad.csv"
ok $RC "truncated, keyless and 3 MB header lines: exit 0"
grep -q 'backend_bound,.*60' "$T_TMP/o"; ok $? "... and no model from them (detected from the events)"
{ printf 'running the benchmark\n'; cat "$v2"; printf 'done\n'; } >"$T_TMP/prose.csv"
"$TD_BIN/td-derive" --csv "$T_TMP/prose.csv" >"$T_TMP/o" 2>/dev/null
grep -q 'backend_bound,.*37.5' "$T_TMP/o"; ok $? "prose around the capture: the header still counts"
: >"$T_TMP/empty.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$TD_BIN/td-derive" "$T_TMP/empty.csv"
ok $(( RC != 2 )) "an empty file: exit 2 (no perf stat output)"
head -c 700 "$v2" >"$T_TMP/cut.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$TD_BIN/td-derive" "$T_TMP/cut.csv"
ok $(( RC != 2 )) "a capture cut inside its header: exit 2, no counters"

# --- failures: one td-collect line, exit 2 -------------------------------------
for bad in "--duration 5x" "--duration -1s" "--interval 0s" "--label nokey" "--label =v" "--level 7" "--passes 0" "--count 2"; do
	run_tool "$T_TMP/o" "$T_TMP/e" "$C" $bad -a
	[ $RC = 2 ] && grep -q '^td-collect: ' "$T_TMP/e"; ok $? "bad option '$bad': exit 2 with a td-collect line"
done
run_tool "$T_TMP/o" "$T_TMP/e" "$C"
ok $(( RC != 2 )) "no target: exit 2"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" -a --process x
ok $(( RC != 2 )) "two targets: exit 2"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --duration 1s -- true
ok $(( RC != 2 )) "--duration with a command: exit 2"
TD_PERF=$T_TMP/no-perf run_tool "$T_TMP/o" "$T_TMP/e" "$C" -- true
[ $RC = 2 ] && grep -q "^td-collect: $T_TMP/no-perf not found: install perf" "$T_TMP/e"; ok $? "perf missing: exit 2, says how to install it"
cat >"$T_TMP/denied-perf" <<'EOS'
#!/bin/sh
[ "$1" = version ] && { echo "perf version 6.1.0"; exit 0; }
[ "$1" = list ] && exit 0
echo "Error:" >&2
echo "Access to performance monitoring and observability operations is limited." >&2
exit 255
EOS
chmod +x "$T_TMP/denied-perf"
TD_PERF=$T_TMP/denied-perf run_tool "$T_TMP/o" "$T_TMP/e" "$C" -- true
[ $RC = 2 ] && [ "$(wc -l <"$T_TMP/o")" = 0 ] && grep -q "^td-collect: perf stat failed: Error: Access to performance monitoring and observability operations is limited.$" "$T_TMP/e"; ok $? "perf refuses: exit 2, perf's own message, no capture written"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" -- "$T_TMP/no-such-command"
ok $(( RC != 2 )) "a command that cannot start: exit 2"

# --- the agent's unit -----------------------------------------------------------
run_tool "$T_TMP/unit" "$T_TMP/e" "$C" --systemd-unit --process redis-server --duration 30s --every 5m --store --label env=prod
ok $RC "--systemd-unit: exit 0"
grep -q '^ExecStart=/.*td-collect --process redis-server --duration 30s --every 5m --store= --label env=prod$' "$T_TMP/unit"
ok $? "the unit runs td-collect with the same arguments"
grep -q '^EnvironmentFile=' "$T_TMP/unit" && grep -q '0600' "$T_TMP/unit"; ok $? "the unit says where a password goes (EnvironmentFile, mode 0600)"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --systemd-unit -a --every 5m --store postgresql://tdkit:s3cret@db/runs
[ $RC = 2 ] && ! grep -q s3cret "$T_TMP/o"; ok $? "a PostgreSQL URL with a password is refused in a unit"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --systemd-unit -a --store "host=db dbname=runs password=x" --every 5m
ok $(( RC != 2 )) "a conninfo with password= is refused too"
run_tool "$T_TMP/o" "$T_TMP/e" "$C" --systemd-unit -a --store postgresql://tdkit@db/runs --every 5m
ok $RC "a URL without a password is fine"
mkdir -p "$T_TMP/root/etc/systemd/system"
if [ "$(id -u)" = 0 ]; then
	run_tool "$T_TMP/o" "$T_TMP/e" "$C" --install-unit --sysroot "$T_TMP/root" -a --every 5m
	[ $RC = 0 ] && [ -f "$T_TMP/root/etc/systemd/system/td-collect.service" ] && grep -q 'systemctl enable --now td-collect.service' "$T_TMP/o"
	ok $? "--install-unit writes the unit and prints the systemctl commands"
else
	run_tool "$T_TMP/o" "$T_TMP/e" "$C" --install-unit -a --every 5m
	ok $(( RC != 2 )) "--install-unit as a user: exit 2 (root only)"
fi
done_testing
