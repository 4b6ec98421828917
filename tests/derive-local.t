#!/usr/bin/env bash
# td-derive on captures recorded for this project: golden CSV output per
# layout, the other output formats, and the bad-input matrix.
. "$(dirname "$0")/lib.sh"
D=$TD_ROOT/testdata/stat
X=$TD_ROOT/tests/derive-expected
DERIVE=$TD_BIN/td-derive
for f in "$D"/*; do
	b=$(basename "$f")
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" -q --csv "$f"
	rc=$RC
	run_tool "$T_TMP/counters" "$T_TMP/err" "$DERIVE" -q --csv --counters "$f"
	cat "$T_TMP/counters" >>"$T_TMP/out"
	same "$X/$b.csv" "$T_TMP/out" "$b: golden CSV (metrics, then --counters)"
	ok $((rc | RC)) "$b: exit 0"
done
A=$D/local-kvm_swevents_csv_-a-A-I250.csv
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --json "$A"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["perf_check"]["checked"] == d["perf_check"]["agree"] > 0' "$T_TMP/out"
ok $? "--json: valid, perf's CPUs utilized per CPU and interval all agree"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$A"
grep -q '^all' "$T_TMP/out" || grep -q '^CPU0 ' "$T_TMP/out"; ok $? "text: whole-run rows per CPU"
grep -q 'per-interval rows with --intervals' "$T_TMP/out"; ok $? "text: says where the intervals are"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --markdown "$D/local-kvm_swevents_text_-r3.txt"
grep -q '^## Environment' "$T_TMP/out" && grep -q '^## Validation plan' "$T_TMP/out"; ok $? "--markdown: report sections"
run_tool "$T_TMP/o1" "$T_TMP/err" "$DERIVE" --csv "$A"
run_tool "$T_TMP/o2" "$T_TMP/err" "$DERIVE" --csv - <"$A"
cmp -s "$T_TMP/o1" "$T_TMP/o2"; ok $? "stdin equals the file; output byte-stable"
# a live perf stat -I: the rows read so far are shown while the pipe waits,
# and the whole output is the same as the file's
mkfifo "$T_TMP/live"
"$DERIVE" --csv <"$T_TMP/live" >"$T_TMP/o2" 2>"$T_TMP/err" &
live=$!
exec 3>"$T_TMP/live"
head -n 40 "$A" >&3
shown=1
for i in $(seq 100); do
	grep -q '^0\.250694149,CPU1,' "$T_TMP/o2" && { shown=0; break; }
	sleep 0.1
done
ok $shown "live pipe: the first interval's rows are shown while the input waits"
tail -n +41 "$A" >&3
exec 3>&-
wait $live
ok $? "live pipe: exit 0"
cmp -s "$T_TMP/o1" "$T_TMP/o2"; ok $? "live pipe: the same output as the file"
gzip -c "$A" >"$T_TMP/a.csv.gz"
run_tool "$T_TMP/o2" "$T_TMP/err" "$DERIVE" --csv "$T_TMP/a.csv.gz"
cmp -s "$T_TMP/o1" "$T_TMP/o2"; ok $? "gzip input equals plain"
sed 's/$/\r/' "$A" >"$T_TMP/crlf.csv"
run_tool "$T_TMP/o2" "$T_TMP/err" "$DERIVE" --csv "$T_TMP/crlf.csv"
cmp -s "$T_TMP/o1" "$T_TMP/o2"; ok $? "CRLF input equals LF"

# a line of other text among perf's: counted in one note naming its line, every row used, exit 0
{ head -n 6 "$A"; echo 'this line is not perf stat output at all'; tail -n +7 "$A"; } >"$T_TMP/bad.csv"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$T_TMP/bad.csv"
ok $RC "line of other text: exit 0"
[ "$(cat "$T_TMP/err")" = "td-derive: $T_TMP/bad.csv: 1 line of non-perf text skipped (the first at line 7)" ]
ok $? "line of other text: one note with its line"
cmp -s "$T_TMP/o1" "$T_TMP/out"; ok $? "line of other text: every valid row still used"
: >"$T_TMP/empty"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$T_TMP/empty"
ok $(( RC != 2 )) "empty input: exit 2"
grep -q "no perf stat output found" "$T_TMP/err"; ok $? "empty input: says so"
head -c 300 "$A" >"$T_TMP/trunc.csv"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$T_TMP/trunc.csv"
ok $(( RC > 2 )) "truncated mid-row: no crash (exit $RC)"
{ head -n 4 "$A"; printf 'bin\0ary\n'; } >"$T_TMP/bin.csv"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --csv "$T_TMP/bin.csv"
grep -q "^td-derive: $T_TMP/bin.csv:5: binary data" "$T_TMP/err"; ok $? "binary: file:line"
ok $(( $(grep -c CPU0 "$T_TMP/out") == 0 )) "binary: rows before it kept"
{ printf '1000,,cycles,100,100.00,,\n'; head -c 3000000 /dev/zero | tr '\0' x; echo; } >"$T_TMP/huge.csv"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters --csv "$T_TMP/huge.csv"
grep -q "huge.csv: 1 line of non-perf text skipped (the first at line 2)" "$T_TMP/err" && grep -q ',cycles,1000.000000,' "$T_TMP/out"
ok $(( RC || $? )) "3 MB line of other text: counted once, the row before it kept, exit 0"
zcat "$TD_ROOT/testdata/fold/"*.script.txt.gz | head -200 >"$T_TMP/script.txt"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" "$T_TMP/script.txt"
ok $(( RC != 2 )) "perf script text (wrong format): exit 2"
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --format xml "$A"
ok $(( RC != 2 )) "--format xml: usage error"
# the comma-locale trap: values read right, and the user told why and how to avoid it
for f in "$D"/local-kvm_swevents_deDE-locale_csv_-x,.csv "$D"/local-kvm_swevents_deDE-locale_json_-j.json; do
	b=$(basename "$f")
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters --csv "$f"
	grep -q "^td-derive: $f:3: decimal commas.*LC_ALL=C" "$T_TMP/err"; ok $? "$b: decimal commas reported at file:line with LC_ALL=C"
	grep -q '^,all,,task-clock,[0-9]\.[0-9]*[1-9][0-9]*,100.00,$' "$T_TMP/out"; ok $? "$b: task-clock read with its decimals"
done
run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" --counters --csv "$D/local-kvm_swevents_deDE-locale_csv_-x,-I100.csv"
ok $(( $(grep -c '^0\.[0-9]*,all,' "$T_TMP/out") != 8 )) "-x, -I under a comma locale: 8 interval counters, no bogus scopes"
# --counters --csv is CSV to its end: the header once, then one 7-field row
# per counter, nothing after the last row (a text header line once
# followed it). A capture recorded here and a shared one with -I and runs.
counters_csv_only() {   # counters_csv_only FILE DESCRIPTION
	run_tool "$T_TMP/out" "$T_TMP/err" "$DERIVE" -q --counters --csv "$1"
	awk -F, -v rc="$RC" 'NR == 1 { ok = $0 == "interval,scope,pmu,event,value,enabled_pct,variance_pct"; next }
		NF != 7 || $4 == "event" { ok = 0 } END { exit !(ok && NR > 1 && rc == 0) }' "$T_TMP/out"
	ok $? "$2: --counters --csv: the header, then only 7-field rows to the end, exit 0"
}
counters_csv_only "$A" "$(basename "$A")"
J="$TD_SHARED/testdata/stat/x86-intel-8cpu_perf-stat-x,-I1000-summary_before-after-no-cvs-summary_lkml-2021-jinyao.snippet.csv"
if [ -f "$J" ]; then
	counters_csv_only "$J" "$(basename "$J")"
else
	skip "shared capture absent: $J"
fi
done_testing
