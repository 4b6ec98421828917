#!/bin/sh
# td-collect: one second of the bundled workload (collect-workload) counted
# by PID, the capture read by td-derive; then the events td-collect would
# choose on a Sapphire Rapids (a synthetic fixture tree).
if ! command -v perf >/dev/null 2>&1; then
	echo "== td-collect: skipped (perf is not installed: apt-get install linux-perf)"
	exit 0
fi
tmp=$(mktemp -d /tmp/td-demo-collect.XXXXXX)
sh scripts/demo.d/collect-workload &
pid=$!
echo "== td-collect: one second of the bundled workload (pid $pid), then td-derive on the capture"
echo "\$ td-collect --pid $pid --duration 1s --label demo=workload -o capture.csv"
"$BIN/td-collect" -q --no-git-labels --pid "$pid" --duration 1s --label demo=workload -o "$tmp/capture.csv"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
sed -n '1,4p;/^# tdkit-collect: cpuid/p;/^# tdkit-collect: target/p' "$tmp/capture.csv"
echo "..."
grep -v '^#' "$tmp/capture.csv" | sed '/^$/d'
echo "\$ td-derive capture.csv"
"$BIN/td-derive" -q "$tmp/capture.csv"
echo
echo "== td-collect --dry-run on a Sapphire Rapids (testdata/sysroot-synthetic-intel-sapphire-rapids)"
echo "\$ td-collect --sysroot testdata/sysroot-synthetic-intel-sapphire-rapids --level 2 --passes 3 --dry-run -- ./app"
"$BIN/td-collect" --sysroot testdata/sysroot-synthetic-intel-sapphire-rapids --level 2 --passes 3 --dry-run -- ./app 2>&1
rm -rf "$tmp"
exit 0
