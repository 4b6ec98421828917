#!/usr/bin/env bash
# td-store under concurrent writers and a killed writer, on SQLite and on a
# PostgreSQL server of the test's own: 8 add processes x N captures each
# (N = TD_STORE_CAPTURES, default 100), every run present afterwards, none
# half-written; an add killed with SIGKILL leaves a consistent database.
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
	run_tool "$T_TMP/o" "$T_TMP/e" "$S" add --db "$db" --label again=1 "$T_TMP/cap/w1-"*.csv
	ok $RC "$name: the store takes adds again after the kill (exit $RC)"
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

if pg_start; then
	pg_q() { $PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d "$(printf '%s' "$1" | sed 's/.*dbname=\([^ ]*\).*/\1/')" -c "$2"; }
	concurrent "$PG_URL" postgresql
	consistent "$PG_URL" postgresql pg_q
	pg_psql "CREATE DATABASE tdkilled" 2>/dev/null || $PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d postgres -c "CREATE DATABASE tdkilled" >/dev/null
	killed "host=$PG_SOCKET_DIR user=postgres dbname=tdkilled" postgresql pg_q
else
	for i in 1 2 3 4 5 6; do skip "postgresql: $PG_WHY"; done
fi
done_testing
