#!/usr/bin/env bash
# td-store under concurrent writers and a killed writer, on SQLite and on a
# PostgreSQL server of the test's own: 8 add processes x N captures each
# (N = TD_STORE_CAPTURES, default 100), every run present afterwards, none
# half-written; an add killed with SIGKILL leaves a consistent database
# holding only whole runs (add commits files in batches: a kill loses the
# batch it was in). Two adds of the same captures in opposite orders both
# succeed with the same ids (a batch whose capture proves stored, or that
# deadlocks, is sent again); a bad file in the middle of a batch is
# rejected alone.
# The captures are recorded here with perf stat (software events), so each
# is a real, distinct capture.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
S=$TD_BIN/td-store
N=${TD_STORE_CAPTURES:-100}
WRITERS=8
if ! perf stat -x, -e task-clock -o "$T_TMP/probe.csv" true 2>/dev/null; then
	skip "perf stat cannot count task-clock here: no captures to add"
	done_testing
	exit
fi
mkdir -p "$T_TMP/cap"
record() {       # record W: writer W's N captures
	for i in $(seq 1 "$N"); do
		perf stat -x, -e task-clock,page-faults,context-switches -o "$T_TMP/cap/w$1-$i.csv" true 2>/dev/null
	done
}
for w in $(seq 1 $WRITERS); do record "$w" & done
wait
total=$(ls "$T_TMP/cap" | wc -l)
distinct=$(md5sum "$T_TMP/cap"/*.csv | cut -d' ' -f1 | sort -u | wc -l)
ok $(( total != WRITERS * N )) "$total captures recorded ($distinct distinct)"

# count_runs DB: the runs the store lists
count_runs() { "$S" list --db "$1" --csv | tail -n +2 | wc -l; }

concurrent() {
	local db=$1 name=$2
	local pids=() fails=0
	for w in $(seq 1 $WRITERS); do
		"$S" add --db "$db" --label writer="$w" "$T_TMP/cap/w$w-"*.csv >"$T_TMP/ids.$w" 2>"$T_TMP/err.$w" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
	ok $fails "$name: $WRITERS concurrent adds all exit 0 ($fails failed$(cat "$T_TMP"/err.* | grep -m1 . | sed 's/^/: /'))"
	local ids runs
	ids=$(cat "$T_TMP"/ids.* | sort -u | wc -l)
	runs=$(count_runs "$db")
	ok $(( ids != distinct || runs != distinct )) "$name: every run present ($ids ids printed, $runs stored, $distinct captures)"
	grep -l "locked" "$T_TMP"/err.* >/dev/null 2>&1
	ok $(( $? == 0 )) "$name: no 'database is locked'"
}

# consistent DB SQLFN: no row without its run, every run with its rows
consistent() {
	local db=$1 name=$2 q=$3
	local orphans empty
	orphans=$($q "$db" "SELECT (SELECT count(*) FROM counters c WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = c.run_id)) + (SELECT count(*) FROM metrics m WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = m.run_id)) + (SELECT count(*) FROM labels l WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = l.run_id))")
	empty=$($q "$db" "SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM counters c WHERE c.run_id = r.id)")
	ok $(( orphans != 0 || empty != 0 )) "$name: nothing half-written ($orphans rows without a run, $empty runs without rows)"
}

killed() {
	local db=$1 name=$2 q=$3
	"$S" add --db "$db" --label killed=1 "$T_TMP/cap/"*.csv >/dev/null 2>&1 &
	local pid=$!
	sleep 0.4
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	consistent "$db" "$name: after kill -9 mid-add" "$q"
	# every run has as many counters and metrics as any other (the captures
	# all count the same events), and list shows just those runs
	local shapes runs listed
	shapes=$($q "$db" "SELECT count(DISTINCT shape) FROM (SELECT (SELECT count(*) FROM counters c WHERE c.run_id = r.id) || '/' || (SELECT count(*) FROM metrics m WHERE m.run_id = r.id) AS shape FROM runs r) x")
	runs=$($q "$db" "SELECT count(*) FROM runs")
	listed=$("$S" list --db "$db" --label killed=1 --csv | tail -n +2 | wc -l)
	ok $(( shapes > 1 || runs != listed )) "$name: after kill -9 mid-add: only whole runs ($runs runs of one shape, $listed listed; $((WRITERS * N)) given)"
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$db" --label again=1 "$T_TMP/cap/w1-"*.csv
	ok $RC "$name: the store takes adds again after the kill (exit $RC)"
}

# same_captures DB NAME: two adds of the same files, in opposite orders, at once
same_captures() {
	local db=$1 name=$2
	local files rc1 rc2
	files=$(ls "$T_TMP/cap/"w[12]-*.csv)
	"$S" add --db "$db" $files >"$T_TMP/same1" 2>"$T_TMP/same1.err" &
	local p1=$!
	"$S" add --db "$db" $(printf '%s\n' $files | tac) >"$T_TMP/same2" 2>"$T_TMP/same2.err"
	rc2=$?
	wait $p1
	rc1=$?
	ok $(( rc1 != 0 || rc2 != 0 )) "$name: two adds of the same $((2 * N)) captures in opposite orders both exit 0 ($rc1, $rc2$(cat "$T_TMP"/same[12].err | grep -v 'stored already' | grep -m1 . | sed 's/^/: /'))"
	local a b
	a=$(sort "$T_TMP/same1" | md5sum)
	b=$(sort "$T_TMP/same2" | md5sum)
	local n
	n=$(sort -u "$T_TMP/same1" | wc -l)
	ok $(( n != 2 * N )) "$name: $n ids printed for $((2 * N)) captures"
	[ "$a" = "$b" ]; ok $? "$name: both adds print the same ids"
}

# bad_in_batch DB NAME: a file with no counters among good ones
bad_in_batch() {
	local db=$1 name=$2
	printf 'this is not perf stat output\n' >"$T_TMP/not-stat-synthetic.csv"
	run_tool "$T_TMP/bad.ids" "$T_TMP/bad.err" "$S" add --db "$db" --label batch=bad "$T_TMP/cap/w3-1.csv" "$T_TMP/cap/w3-2.csv" \
		"$T_TMP/not-stat-synthetic.csv" "$T_TMP/cap/w3-3.csv"
	ok $(( RC != 2 )) "$name: a bad file among good ones: exit 2 ($RC)"
	grep -q "not-stat-synthetic.csv: no perf stat counters found: nothing stored" "$T_TMP/bad.err"
	ok $? "$name: the bad file is named"
	local n
	n=$("$S" list --db "$db" --label batch=bad --csv | tail -n +2 | wc -l)
	ok $(( n != 3 || $(wc -l <"$T_TMP/bad.ids") != 3 )) "$name: the three good files stored and their ids printed ($n runs, $(wc -l <"$T_TMP/bad.ids") ids)"
}

sqlite_q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute(sys.argv[2]).fetchone()[0])' "$1" "$2"; }
db=$T_TMP/runs.db
concurrent "$db" sqlite
consistent "$db" sqlite sqlite_q
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute("PRAGMA integrity_check").fetchone()[0]; sys.exit(r != "ok")' "$db"
ok $? "sqlite: integrity_check ok"
killed "$T_TMP/killed.db" sqlite sqlite_q
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute("PRAGMA integrity_check").fetchone()[0]; sys.exit(r != "ok")' "$T_TMP/killed.db"
ok $? "sqlite: integrity_check ok after the kill"
same_captures "$T_TMP/same.db" sqlite
bad_in_batch "$T_TMP/same.db" sqlite

if pg_start; then
	pg_q() { $PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d "$(printf '%s' "$1" | sed 's/.*dbname=\([^ ]*\).*/\1/')" -c "$2"; }
	concurrent "$PG_URL" postgresql
	consistent "$PG_URL" postgresql pg_q
	pg_psql "CREATE DATABASE tdkilled" 2>/dev/null || $PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d postgres -c "CREATE DATABASE tdkilled" >/dev/null
	killed "host=$PG_SOCKET_DIR user=postgres dbname=tdkilled" postgresql pg_q
	$PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d postgres -c "CREATE DATABASE tdsame" >/dev/null
	same_captures "host=$PG_SOCKET_DIR user=postgres dbname=tdsame" postgresql
	bad_in_batch "host=$PG_SOCKET_DIR user=postgres dbname=tdsame" postgresql
else
	for i in $(seq 1 13); do skip "postgresql: $PG_WHY"; done
fi
done_testing
