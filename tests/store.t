#!/usr/bin/env bash
# td-store on both backends: the same checks on an SQLite file and on a
# PostgreSQL server this test starts itself (skipped, saying why, only
# where the server binaries are absent).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
S=$TD_BIN/td-store
L=$TD_ROOT/testdata/stat
Z4=$TD_SHARED/testdata/stat_text/amd-zen4-5.47GHz_PipelineL2_and_ddd_kinematics-demo.snippet.txt
unset TD_DB

suite() {
	local db=$1 name=$2 db2=$3 sql=$4
	run_tool "$T_TMP/ids" "$T_TMP/err" "$S" add --db "$db" --label branch=main --label bench=swevents \
		"$L/local-kvm_swevents_csv.csv" "$L/local-kvm_swevents_j.jsonl"
	ok $RC "$name: add two captures (exit $RC)"
	ok $(( $(wc -l <"$T_TMP/ids") != 2 )) "$name: one id a run ($(wc -l <"$T_TMP/ids") printed)"
	grep -qvE '^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$' "$T_TMP/ids"; ok $(( $? == 0 )) "$name: ids are time-hash"
	first=$(head -n 1 "$T_TMP/ids")

	# the same content again: stored once, the id printed again, labels added
	run_tool "$T_TMP/ids2" "$T_TMP/err" "$S" add --db "$db" --label extra=1 --label branch=other "$L/local-kvm_swevents_csv.csv"
	ok $(( RC != 0 )) "$name: adding the same capture again succeeds"
	same <(head -n 1 "$T_TMP/ids") "$T_TMP/ids2" "$name: the same capture keeps its id"
	grep -q "stored already as $first (labels added)" "$T_TMP/err"; ok $? "$name: says it was stored already"
	"$S" list --db "$db" --json >"$T_TMP/list.json"
	python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); r=[x for x in d if x["id"]==sys.argv[2]][0]
sys.exit(not (r["labels"]["extra"]=="1" and r["labels"]["branch"]=="main"))' "$T_TMP/list.json" "$first"
	ok $? "$name: a new key is added, a key it had keeps its value"
	"$S" add --db "$db" --relabel --label branch=other "$L/local-kvm_swevents_csv.csv" >/dev/null 2>&1
	"$S" list --db "$db" --label branch=other --csv | grep -c "^$first," >"$T_TMP/n"
	ok $(( $(cat "$T_TMP/n") != 1 )) "$name: --relabel replaces the value"

	# labels that would break spliced SQL come back exactly
	weird="it's \"quoted\"; DROP TABLE runs; -- 100% _x_ back\\slash ünïcødé 日本"
	run_tool "$T_TMP/wid" "$T_TMP/err" "$S" add --db "$db" --label "note=$weird" --label "a.b-c_d=$weird" "$L/local-kvm_swevents_csv_-a-A-I250.csv"
	ok $RC "$name: add with quotes, semicolons, %, _, backslash, non-ASCII (exit $RC)"
	"$S" list --db "$db" --json >"$T_TMP/list.json"
	python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); w=sys.argv[3]
r=[x for x in d if x["id"]==sys.argv[2]][0]
sys.exit(not (r["labels"]["note"]==w and r["labels"]["a.b-c_d"]==w))' "$T_TMP/list.json" "$(cat "$T_TMP/wid")" "$weird"
	ok $? "$name: those labels read back byte for byte"
	n=$("$S" list --db "$db" --label "note=$weird" --csv | tail -n +2 | wc -l)
	ok $(( n != 1 )) "$name: and select by exact value ($n)"
	n=$("$S" list --db "$db" --label 'note~*100% _x_*' --csv | tail -n +2 | wc -l)
	ok $(( n != 1 )) "$name: % and _ are literal in a glob ($n)"
	n=$("$S" list --db "$db" --label 'note~*100?%*' --csv | tail -n +2 | wc -l)
	ok $(( n != 0 )) "$name: ? matches one character ($n)"

	# interval input (-I 250, -A): each interval's counters and metrics kept with
	# its time stamp beside the whole-run sums, which stay what the rest reads
	wid=$(cat "$T_TMP/wid")
	"$S" show --db "$db" --stored --intervals --counters --csv "$wid" >"$T_TMP/iv.csv"
	grep -q '^0.250694,CPU0,,task-clock,251.250000,' "$T_TMP/iv.csv" && grep -q '^0.250694,CPU0,,page-faults,7195.000000,' "$T_TMP/iv.csv"
	ok $? "$name: show --intervals --counters: the first interval as perf printed it (0.250694149 CPU0 task-clock 251.25, 7195 page faults)"
	python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
whole = {(r["scope"], r["event"]): float(r["value"]) for r in rows if r["interval"] == ""}
iv = {}
for r in rows:
    if r["interval"]:
        iv[(r["scope"], r["event"])] = iv.get((r["scope"], r["event"]), 0) + float(r["value"])
assert len({r["interval"] for r in rows if r["interval"]}) == 5
assert whole and all(abs(iv[k] - v) < 1e-6 * max(1, v) for k, v in whole.items()), (whole, iv)' "$T_TMP/iv.csv"
	ok $? "$name: 5 intervals kept; the whole-run counters are their sums"
	n=$("$S" show --db "$db" --stored --csv "$wid" | tail -n +2 | wc -l)
	m=$("$S" show --db "$db" --stored --intervals --csv "$wid" | tail -n +2 | wc -l)
	ok $(( n != 6 || m <= n )) "$name: show: the whole run's 6 metrics; --intervals adds each interval's ($n, $m)"
	# by default, td-derive's own report of the kept capture: only the
	# lines naming the input differ
	"$S" show --db "$db" "$wid" 2>&1 | sed -n '/^input: /,$p' | grep -v '^input: ' >"$T_TMP/show-report"
	"$TD_BIN/td-derive" "$L/local-kvm_swevents_csv_-a-A-I250.csv" 2>&1 | sed -n '/^input: /,$p' | grep -v '^input: ' >"$T_TMP/derive-report"
	[ -s "$T_TMP/show-report" ] && cmp -s "$T_TMP/show-report" "$T_TMP/derive-report"
	ok $? "$name: show is td-derive's report of the capture ($(wc -l <"$T_TMP/show-report") lines the same)"
	for f in csv json; do
		"$S" show --db "$db" --$f "$wid" >"$T_TMP/show.$f"; "$TD_BIN/td-derive" --$f "$L/local-kvm_swevents_csv_-a-A-I250.csv" >"$T_TMP/derive.$f" 2>/dev/null
		diff "$T_TMP/show.$f" "$T_TMP/derive.$f" | grep '^[<>]' | grep -vq '"input": '
		ok $(( ! $? )) "$name: show --$f is td-derive --$f, byte for byte but the input's name"
	done
	"$S" export --db "$db" --label note >"$T_TMP/ivx.csv"
	grep -q ',page_faults_per_s,.*,tdkit,0.250694149$' "$T_TMP/ivx.csv"; ok $? "$name: export: an interval's row carries interval_s"
	"$S" query --db "$db" --metric page_faults_per_s --label note --csv | tail -n +2 >"$T_TMP/ivq"
	ok $(( $(wc -l <"$T_TMP/ivq") != 2 )) "$name: query --metric reads the whole run only (one row per CPU: $(wc -l <"$T_TMP/ivq"))"

	# filters
	n=$("$S" list --db "$db" --label bench=swevents --csv | tail -n +2 | wc -l)
	ok $(( n != 2 )) "$name: k=v selects ($n of 2)"
	n=$("$S" list --db "$db" --label 'bench!=swevents' --csv | tail -n +2 | wc -l)
	ok $(( n != 1 )) "$name: k!=v selects, a run without k included ($n of 1)"
	n=$("$S" list --db "$db" --label note --csv | tail -n +2 | wc -l)
	ok $(( n != 1 )) "$name: k alone: has the key ($n of 1)"
	n=$("$S" list --db "$db" --label 'bench=swevents,extra=1' --csv | tail -n +2 | wc -l)
	ok $(( n != 1 )) "$name: comma-separated terms are ANDed ($n of 1)"
	n=$("$S" list --db "$db" --label 'branch~ma*' --label bench --csv | tail -n +2 | wc -l)
	ok $(( n != 1 )) "$name: glob and two flags ($n of 1)"
	n=$("$S" list --db "$db" --limit 1 --csv | tail -n +2 | wc -l)
	ok $(( n != 1 )) "$name: --limit 1"
	n=$("$S" list --db "$db" --since 2000-01-01 --until 2000-12-31 --csv | tail -n +2 | wc -l)
	ok $(( n != 0 )) "$name: a window with no run"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" list --db "$db" --label 'bad key=1'
	ok $(( RC != 2 )) "$name: a malformed label filter is a usage error (exit $RC)"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" list --db "$db" --since yesterday
	ok $(( RC != 2 )) "$name: a malformed --since is a usage error (exit $RC)"

	# automatic labels and summaries from the derive engine
	if [ -f "$Z4" ]; then
		"$S" add --db "$db" --label bench=zen4 "$Z4" >"$T_TMP/z4ids" 2>/dev/null
		"$S" list --db "$db" --label bench=zen4 --json >"$T_TMP/z4.json"
		python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
assert len(d)==4, len(d)
tma=[r for r in d if r["labels"].get("model")=="amd-zen4"]
assert len(tma)==2 and all(r["labels"]["vendor"]=="amd" and r["labels"]["tma_level"]=="2" for r in tma)
assert any(r["summary"]=="IPC 0.94" for r in d), [r["summary"] for r in d]
assert any(r["summary"].startswith("retiring 15.5%") for r in d)' "$T_TMP/z4.json"
		ok $? "$name: Zen 4 capture: 4 runs, model amd-zen4, Level 2, IPC 0.94 as td-derive"
		"$S" query --db "$db" --label bench=zen4 --bottlenecks --csv >"$T_TMP/b.csv"
		sed -n 2p "$T_TMP/b.csv" | grep -q '^backend_bound,1,82.8,3.4,2,2,2$'
		ok $? "$name: query --bottlenecks: backend_bound first, mean 82.8 % over 2 runs ($(sed -n 2p "$T_TMP/b.csv"))"
		n=$("$S" query --db "$db" --node backend_bound --min 80 --csv | tail -n +2 | wc -l)
		m=$("$S" query --db "$db" --node Backend_Bound --min 81 --csv | tail -n +2 | wc -l)
		ok $(( n != 2 || m != 1 )) "$name: query --node backend_bound --min 80: 2 runs, --min 81: 1 ($n, $m)"
		"$S" query --db "$db" --metric ipc --min 0.9 --max 1 --csv | tail -n +2 >"$T_TMP/ipc"
		grep -q ',ipc,0.945,' "$T_TMP/ipc" && [ "$(wc -l <"$T_TMP/ipc")" = 1 ]
		ok $? "$name: query --metric ipc --min 0.9 --max 1: the 0.945 run"
		"$S" query --db "$db" --label bench=zen4 --funnel --csv >"$T_TMP/f.csv"
		grep -q '^retiring,1,13.6,useful,' "$T_TMP/f.csv"; ok $? "$name: query --funnel: retiring 13.6 % useful"
		tid=$("$S" query --db "$db" --node backend_bound --min 85 --csv | sed -n 2p | cut -d, -f1)
		"$S" show --db "$db" --stored "$tid" >"$T_TMP/show"
		grep -q 'backend_bound .*85.1%.*<- bottleneck' "$T_TMP/show"; ok $? "$name: show --stored draws the stored tree"
		sed -n 2p "$T_TMP/show" | grep -q '^command perf stat -ddd --pid=.*  elapsed 8.435 s$'
		ok $? "$name: show says what the capture said: its command and elapsed time ($(sed -n 2p "$T_TMP/show" | head -c 80))"
		"$S" show --db "$db" --stored --counters --csv "$tid" | grep -q '^all,,cycles,'; ok $? "$name: show --stored --counters"
		# a capture that holds four runs: td-derive's report would cover them all,
		# so show gives the rows stored for this one and says why
		"$S" show --db "$db" "$tid" 2>"$T_TMP/err" | grep -q 'backend_bound .*85.1%.*<- bottleneck' &&
		grep -q "its capture holds 4 runs" "$T_TMP/err"; ok $? "$name: show of one run of a four-run capture: its stored rows, said so"
		"$S" show --db "$db" --csv "$tid" >/dev/null 2>&1; ok $? "$name: ... and exits 0"
		"$S" show --db "$db" --funnel --csv "$tid" >"$T_TMP/sf.csv"
		grep -q '^backend_bound,1,85.1,waste,' "$T_TMP/sf.csv" && grep -q '^retiring,1,11.7,useful,' "$T_TMP/sf.csv"
		ok $? "$name: show --funnel: one run's slots (backend_bound 85.1 % waste, retiring 11.7 % useful)"
	else
		for i in 1 2 3 4 5 6 7 8 9 10 11; do skip "$name: $Z4 absent"; done
	fi

	# export -> import into an empty store -> export: the same bytes
	for form in csv jsonl; do
		"$S" export --db "$db" --$form >"$T_TMP/e1.$form"
		run_tool "$T_TMP/o" "$T_TMP/e" "$S" import --db "$db2" "$T_TMP/e1.$form"
		ok $RC "$name: import --$form (exit $RC, $(cat "$T_TMP/e"))"
		"$S" export --db "$db2" --$form >"$T_TMP/e2.$form"
		same "$T_TMP/e1.$form" "$T_TMP/e2.$form" "$name: export -> import -> export is byte-identical ($form, $(wc -l <"$T_TMP/e1.$form") lines)"
		$sql "$db2" "DELETE FROM runs"
	done

	# an export written before interval_s (15 columns) still imports
	python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
w = csv.writer(open(sys.argv[2], "w", newline=""), lineterminator="\n")
for r in rows:
    if r[15] == "" or r[0] == "id":
        w.writerow(r[:15])' "$T_TMP/e1.csv" "$T_TMP/e15.csv"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" import --db "$db2" "$T_TMP/e15.csv"
	ok $RC "$name: an export of 15 columns (before interval_s) imports (exit $RC, $(cat "$T_TMP/e"))"
	$sql "$db2" "DELETE FROM runs"

	# rederive from the kept captures: nothing changes; a damaged value is put right
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" rederive --db "$db"
	grep -q "runs rederived, 0 values changed" "$T_TMP/e"; ok $? "$name: rederive: 0 values changed ($(cat "$T_TMP/e"))"
	# ipc comes with the Zen 4 capture from ../shared; the software-event
	# captures of testdata/ have a page-fault rate
	dmg=page_faults_per_s
	[ -f "$Z4" ] && dmg=ipc
	$sql "$db" "UPDATE metrics SET value = value + 1 WHERE name = '$dmg'"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" rederive --db "$db"
	grep -q "ipc: 1.945 -> 0.945" "$T_TMP/o" 2>/dev/null || grep -q "$dmg: .* -> " "$T_TMP/o"
	ok $? "$name: rederive reports the value it puts right ($dmg)"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" rederive --db "$db"
	grep -q "0 values changed" "$T_TMP/e"; ok $? "$name: and then nothing changes"

	# a file with no counters: exit 2, nothing stored for it, the others still added
	printf 'hello\nworld\n' >"$T_TMP/prose-synthetic.txt"
	before=$("$S" list --db "$db" --csv | wc -l)
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$db" "$T_TMP/prose-synthetic.txt" "$L/local-kvm_swevents_deDE-locale_csv_-x;.csv"
	ok $(( RC != 2 )) "$name: a file without counters exits 2 (exit $RC)"
	grep -q "prose-synthetic.txt: no perf stat counters found: nothing stored" "$T_TMP/e"; ok $? "$name: and says so"
	after=$("$S" list --db "$db" --csv | wc -l)
	ok $(( after != before + 1 )) "$name: the other file is still added ($before -> $after lines)"

	# stdin
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$db" - <"$L/local-kvm_swevents_semicolon_per-core.csv"
	ok $(( RC != 0 || $(wc -l <"$T_TMP/o") != 1 )) "$name: add - reads stdin (exit $RC)"

	# a new file given twice in one add (on PostgreSQL the second is looked
	# up at once; a file already stored is taken as new, fails on its key
	# and is added again), with --async-commit: stored once, its id twice
	twice=$L/local-kvm_swevents_text_-d_default.txt
	run_tool "$T_TMP/ids3" "$T_TMP/err" "$S" add --db "$db" --async-commit --label twice=1 "$twice" "$twice" \
		"$L/local-kvm_swevents_csv.csv"
	ok $RC "$name: add --async-commit, one new file twice and one stored (exit $RC)"
	[ "$(sed -n 1p "$T_TMP/ids3")" = "$(sed -n 2p "$T_TMP/ids3")" ] && [ "$(sed -n 3p "$T_TMP/ids3")" = "$first" ]
	ok $? "$name: ... the same id twice, the stored one's id ($(tr '\n' ' ' <"$T_TMP/ids3"))"
	"$S" list --db "$db" --label twice=1 --csv | tail -n +2 | wc -l >"$T_TMP/n"
	ok $(( $(cat "$T_TMP/n") != 2 )) "$name: ... two runs stored, labelled ($(cat "$T_TMP/n"))"

	# rm
	total=$("$S" list --db "$db" --csv | tail -n +2 | wc -l)
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" rm --db "$db" --label bench=swevents
	ok $(( RC != 2 )) "$name: rm of two runs without --yes refused (exit $RC)"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" rm --db "$db" --yes --label bench=swevents
	ok $RC "$name: rm --yes --label (exit $RC)"
	left=$("$S" list --db "$db" --csv | tail -n +2 | wc -l)
	ok $(( left != total - 2 )) "$name: two runs fewer ($total -> $left)"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$db" "$L/local-kvm_swevents_csv.csv"
	again=$("$S" list --db "$db" --csv | tail -n +2 | wc -l)
	ok $(( RC != 0 || again != left + 1 )) "$name: a file whose runs were removed is added again (exit $RC, $left -> $again)"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" rm --db "$db" 20000101-000000-000000
	ok $(( RC != 2 )) "$name: rm of an unknown id exits 2 (exit $RC)"

	run_tool "$T_TMP/o" "$T_TMP/e" "$S" migrate --db "$db"
	grep -q "schema version 1, up to date" "$T_TMP/o"; ok $? "$name: migrate: up to date"
}

# --- SQLite
sqlite_sql() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA foreign_keys = ON"); c.execute(sys.argv[2]); c.commit()' "$1" "$2"; }
db=$T_TMP/runs.db
suite "$db" sqlite "$T_TMP/import.db" sqlite_sql
XDG_DATA_HOME=$T_TMP/xdg HOME=$T_TMP "$S" add "$L/local-kvm_swevents_csv.csv" >/dev/null 2>&1
[ -f "$T_TMP/xdg/tdkit/runs.db" ]; ok $? "sqlite: default database created with its folder under XDG_DATA_HOME"
TD_DB=$T_TMP/env.db "$S" add "$L/local-kvm_swevents_csv.csv" >/dev/null 2>&1
[ -f "$T_TMP/env.db" ]; ok $? "sqlite: TD_DB names the database"
sqlite_sql "$db" "UPDATE td_schema SET version = 99"
run_tool "$T_TMP/o" "$T_TMP/e" "$S" list --db "$db"
ok $(( RC != 2 )) "sqlite: a newer schema is refused (exit $RC)"
grep -q "schema version 99, newer than this tdkit's 1" "$T_TMP/e"; ok $? "sqlite: and says why"
head -c 4096 /dev/urandom >"$T_TMP/corrupt.db"
run_tool "$T_TMP/o" "$T_TMP/e" "$S" list --db "$T_TMP/corrupt.db"
ok $(( RC != 2 || $(wc -l <"$T_TMP/e") != 1 )) "sqlite: a corrupt file: one line, exit 2 (exit $RC: $(head -c 120 "$T_TMP/e"))"
cp "$T_TMP/env.db" "$T_TMP/ro.db"; chmod 444 "$T_TMP/ro.db"
as_user=""
if [ "$(id -u)" = 0 ]; then     # root writes any file: try as nobody
	chmod 755 "$T_TMP"
	as_user="runuser -u nobody --"
fi
run_tool "$T_TMP/o" "$T_TMP/e" $as_user "$S" add --db "$T_TMP/ro.db" "$L/local-kvm_swevents_j.jsonl"
ok $(( RC != 2 || $(wc -l <"$T_TMP/e") != 1 )) "sqlite: a read-only database: one line, exit 2 (exit $RC: $(head -c 160 "$T_TMP/e"))"

# the bad-input matrix: add and import say file and what, exit 2, and keep what is valid
c=$L/local-kvm_swevents_csv.csv
m=$T_TMP/matrix.db
: >"$T_TMP/empty.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$m" "$T_TMP/empty.csv"
ok $(( RC != 2 )) "add, empty file: exit 2 (exit $RC)"
grep -q "^td-store: $T_TMP/empty.csv: " "$T_TMP/e"; ok $? "add, empty file: named ($(head -n 1 "$T_TMP/e"))"
sed 's/$/\r/' "$c" >"$T_TMP/crlf-synthetic.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$m" --label form=crlf "$T_TMP/crlf-synthetic.csv"
ok $(( RC != 0 || $(wc -l <"$T_TMP/o") != 1 )) "add, CRLF: exit 0, one run (exit $RC)"
"$S" add --db "$m" --label form=lf "$c" >/dev/null 2>&1
a=$("$S" export --db "$m" --label form=crlf | tail -n +2 | cut -d, -f4- | sed 's/^[^}]*}",//' | md5sum)
b=$("$S" export --db "$m" --label form=lf | tail -n +2 | cut -d, -f4- | sed 's/^[^}]*}",//' | md5sum)
[ "$a" = "$b" ]; ok $? "add, CRLF: the same metrics as LF"
head -c 200 "$c" >"$T_TMP/truncated-synthetic.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$m" "$T_TMP/truncated-synthetic.csv"
ok $(( RC > 2 || $(wc -l <"$T_TMP/o") != 1 )) "add, truncated capture: what came before the cut is kept (exit $RC)"
printf 'task\0clock\001\002\377\n' >"$T_TMP/binary-synthetic.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$m" "$T_TMP/binary-synthetic.csv"
ok $(( RC != 2 )) "add, binary: exit 2 (exit $RC)"
grep -q "^td-store: $T_TMP/binary-synthetic.csv" "$T_TMP/e"; ok $? "add, binary: named"
{ head -c 3000000 /dev/zero | tr '\0' x; echo; cat "$c"; } >"$T_TMP/hugeline-synthetic.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$m" "$T_TMP/hugeline-synthetic.csv"
ok $(( RC != 0 || $(wc -l <"$T_TMP/o") != 1 )) "add, a 3 MB line before the capture: exit 0, the run kept (exit $RC)"
sc=$TD_SHARED/testdata/script_callchain/flamegraph_perf-funcab-cmd-01.txt
if [ -f "$sc" ]; then
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$m" "$sc"
	ok $(( RC != 2 || $(wc -l <"$T_TMP/o") != 0 )) "add, perf script output: exit 2, nothing stored (exit $RC)"
	grep -q "perf script" "$T_TMP/e"; ok $? "add, perf script output: named as such ($(head -c 140 "$T_TMP/e"))"
else
	skip "$sc absent"; skip "$sc absent"
fi
run_tool "$T_TMP/o" "$T_TMP/e" "$S" import --db "$m" "$T_TMP/empty.csv"
ok $(( RC != 2 )) "import, empty file: exit 2 (exit $RC)"
run_tool "$T_TMP/o" "$T_TMP/e" "$S" import --db "$m" "$T_TMP/binary-synthetic.csv"
ok $(( RC != 2 )) "import, binary: exit 2 (exit $RC)"
"$S" export --db "$m" --label form=lf >"$T_TMP/x.csv"
{ head -n 2 "$T_TMP/x.csv"; echo 'broken,row'; tail -n +3 "$T_TMP/x.csv"; } | sed 's/$/\r/' >"$T_TMP/x-crlf-broken-synthetic.csv"
run_tool "$T_TMP/o" "$T_TMP/e" "$S" import --db "$T_TMP/matrix2.db" "$T_TMP/x-crlf-broken-synthetic.csv"
ok $(( RC != 2 )) "import, a broken row in CRLF text: exit 2 (exit $RC)"
grep -q "x-crlf-broken-synthetic.csv:3: expected 16 fields, found 2" "$T_TMP/e"; ok $? "import: file:line and what is wrong"
n=$("$S" export --db "$T_TMP/matrix2.db" | tail -n +2 | wc -l)
ok $(( n != $(tail -n +2 "$T_TMP/x.csv" | wc -l) )) "import: every valid row still imported ($n)"

# --- PostgreSQL
if pg_start; then
	pg_url_sql() { pg_psql_db "$(printf '%s' "$1" | sed 's/.*dbname=\([^ ]*\).*/\1/')" "$2"; }
	pg_psql "CREATE DATABASE tdimport" >/dev/null
	suite "$PG_URL" postgresql "host=$PG_SOCKET_DIR user=postgres dbname=tdimport" pg_url_sql
	pg_psql "UPDATE td_schema SET version = 99"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" list --db "$PG_URL"
	ok $(( RC != 2 )) "postgresql: a newer schema is refused (exit $RC)"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" list --db "host=$T_TMP/nowhere dbname=tdtest"
	ok $(( RC != 2 || $(wc -l <"$T_TMP/e") != 1 )) "postgresql: a refused connection: one line, exit 2 ($(head -c 160 "$T_TMP/e"))"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" list --db "host=$PG_SOCKET_DIR dbname=tdtest user=tdpass password=wrong"
	grep -q "password authentication failed" "$T_TMP/e"
	ok $(( $? != 0 || RC != 2 || $(wc -l <"$T_TMP/e") != 1 )) "postgresql: a wrong password: one line, exit 2 ($(head -c 160 "$T_TMP/e"))"
else
	skip "postgresql: $PG_WHY"
fi
# libpq (TLS, Kerberos, LDAP) costs every start; it is opened only for a
# PostgreSQL database, so a SQLite command never maps it
if command -v ldd >/dev/null; then
	! ldd "$S" | grep -q "libpq\."
	ok $? "td-store does not link libpq (it is opened on first PostgreSQL use)"
	run_tool "$T_TMP/o" "$T_TMP/e" env LD_DEBUG=files "$S" list --db "$T_TMP/nolibpq.db"
	! grep -q "file=libpq\." "$T_TMP/e"
	ok $? "a SQLite list does not load libpq"
fi
done_testing
