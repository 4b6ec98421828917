#!/bin/sh
# td-store: add throughput into SQLite and PostgreSQL (targets 2,000 and 500
# captures/s), memory while adding 10,000 files, and label/node queries on a
# store of 100,000 runs (targets 50 ms SQLite, 100 ms PostgreSQL), with the
# query plans that show the label index at work.
set -u
T_TMP=$BENCH_DIR/store
rm -rf "$T_TMP"
mkdir -p "$T_TMP/cap"
. tests/pg.sh
echo "== td-store bench"

# 1,000 real captures, recorded here (perf stat, software events), kept between runs
caps=$BENCH_DIR/store-captures
if [ "$(ls "$caps" 2>/dev/null | wc -l)" -lt 1000 ]; then
	mkdir -p "$caps"
	if ! perf stat -x, -e task-clock -o /dev/null true 2>/dev/null; then
		echo "td-store bench: perf stat cannot count task-clock here: skipped"
		exit 0
	fi
	for w in 1 2 3 4; do
		( for i in $(seq 1 250); do
			perf stat -x, -e task-clock,page-faults,context-switches,cpu-migrations -o "$caps/w$w-$i.csv" true 2>/dev/null
		done ) &
	done
	wait
fi

# t CMD...: s = wall seconds, k = max RSS (KiB), cpu = user + system seconds
# (the figures are time's last line: a command that exits non-zero, as
# compare does when it finds a regression, gets a line before them)
t() { /usr/bin/time -f "%e %M %U %S" -o "$T_TMP/time" "$@" >/dev/null 2>"$T_TMP/err"; read -r s k u y <<EOF
$(tail -n 1 "$T_TMP/time")
EOF
cpu=$(awk -v u="$u" -v y="$y" 'BEGIN { printf "%.2f", u + y }'); }
load() { cut -d' ' -f1 /proc/loadavg; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }

# median3 CMD...: runs CMD (which sets s, cpu, k and maybe scpu) three
# times; s, cpu, k, scpu become those of the run with the median wall time
median3() {
	local i runs=""
	for i in 1 2 3; do
		"$@"
		runs="$runs$s $cpu $k ${scpu:-0}
"
	done
	set -- $(printf '%s' "$runs" | sort -n | sed -n 2p)
	s=$1 cpu=$2 k=$3 scpu=$4
}

sqlite_db=$T_TMP/add.db
sqlite_add() { rm -f "$sqlite_db" "$sqlite_db"-*; t "$BIN/td-store" add --db "$sqlite_db" "$caps"/*.csv; }
median3 sqlite_add
echo "add, SQLite:      1000 captures in ${s} s = $(rate 1000 "$s") captures/s (target 2000), ${k} KiB max RSS; CPU ${cpu} s (= $(rate 1000 "$cpu")/s of CPU), load $(load); median of 3"
# memory: 10,000 files (the 1,000 ten times: the repeats are recognised by content)
set -- "$caps"/*.csv
t "$BIN/td-store" add --db "$T_TMP/mem.db" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@"
echo "add, SQLite:      10000 files in ${s} s, ${k} KiB max RSS (memory flat: compare with the line above)"
size=$(stat -c %s "$sqlite_db")
echo "SQLite size:      $(awk -v b="$size" 'BEGIN { printf "%.2f", b / 1000 / 1000 }') KB per run (1,000 runs of 4 software counters)"

# server_cpu: the CPU seconds the server's processes used (its backends'
# when they have exited, from the postmaster's children times)
server_cpu() {
	local pid t=0 p
	pid=$(head -n 1 "$PG_DIR/data/postmaster.pid")
	for p in $pid $(pgrep -P "$pid"); do
		set -- $(cut -d' ' -f14-17 "/proc/$p/stat" 2>/dev/null)
		[ $# = 4 ] || continue
		if [ "$p" = "$pid" ]; then t=$((t + $3 + $4)); else t=$((t + $1 + $2)); fi
	done
	echo "$t"
}
# pg_add [OPTION]: the 1,000 captures into a fresh database
pg_n=0
pg_add() {
	pg_n=$((pg_n + 1))
	$PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d postgres -c "CREATE DATABASE tdadd$pg_n" >/dev/null
	"$BIN/td-store" list --db "host=$PG_DIR user=postgres dbname=tdadd$pg_n" >/dev/null 2>&1    # the schema
	local before
	before=$(server_cpu)
	t "$BIN/td-store" add --db "host=$PG_DIR user=postgres dbname=tdadd$pg_n" ${1:-} "$caps"/*.csv
	sleep 0.2
	scpu=$(awk -v t=$(($(server_cpu) - before)) 'BEGIN { printf "%.2f", t / 100 }')
}
# pg_restart [SETTING...]: the server again, with these settings
pg_restart() {
	local o="-k $PG_DIR -c listen_addresses=" c
	for c in "$@"; do o="$o -c $c"; done
	$PG_AS "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -m fast -o "$o" restart >/dev/null 2>&1
}
if pg_start; then
	# PostgreSQL's defaults: each commit (one a batch of files) waits for its WAL flush to disk
	pg_restart
	median3 pg_add
	echo "add, PostgreSQL:  1000 captures in ${s} s = $(rate 1000 "$s") captures/s (target 500), ${k} KiB max RSS; client CPU ${cpu} s, server CPU ${scpu} s (= $(rate 1000 "$(awk -v a="$cpu" -v b="$scpu" 'BEGIN { print a + b }')")/s of CPU), load $(load); median of 3; server defaults (fsync=on synchronous_commit=on: one WAL flush per batch of files)"
	set -- "$caps"/*.csv
	$PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d postgres -c "CREATE DATABASE tdmem" >/dev/null
	t "$BIN/td-store" add --db "host=$PG_DIR user=postgres dbname=tdmem" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@" "$@"
	echo "add, PostgreSQL:  10000 files in ${s} s, ${k} KiB max RSS (memory flat: compare with the line above); server defaults"
	pg_add --async-commit
	echo "add, PostgreSQL:  1000 captures in ${s} s = $(rate 1000 "$s") captures/s; client CPU ${cpu} s, server CPU ${scpu} s, load $(load); server defaults, add --async-commit (a server crash may lose the last batches added, whole)"
	# the test suite's settings: no fsync, no wait for the WAL flush (for the queries below too)
	pg_restart fsync=off synchronous_commit=off full_page_writes=off
	pg_add
	echo "add, PostgreSQL:  1000 captures in ${s} s = $(rate 1000 "$s") captures/s; client CPU ${cpu} s, server CPU ${scpu} s, load $(load); server with fsync=off synchronous_commit=off (tests/pg.sh; does not count)"
else
	echo "add, PostgreSQL:  absent ($PG_WHY)"
fi

# 100,000 runs: the shared captures' runs and the recorded ones, exported,
# repeated under new ids and labels (bench=b0..b99, branch=main|dev), imported
"$BIN/td-store" add --db "$T_TMP/seed.db" "$SHARED"/testdata/stat*/* "$caps"/w1-*.csv >/dev/null 2>&1
"$BIN/td-store" export --db "$T_TMP/seed.db" >"$T_TMP/seed.csv"
python3 - "$T_TMP/seed.csv" "$T_TMP/big.csv" <<'EOF'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
head, body = rows[0], rows[1:]
runs = []
for r in body:
    if not runs or runs[-1][0][0] != r[0]:
        runs.append([])
    runs[-1].append(r)
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(head)
    n = 0
    while n < 100000:
        for run in runs:
            if n == 100000:
                break
            labels = json.loads(run[0][2])
            labels.update({"bench": "b%d" % (n % 100), "branch": "main" if n % 2 else "dev"})
            rid = "%s-%06x" % (run[0][0][:15], n)
            t = "2026-%02d-%02dT%02d:%02d:00Z" % (1 + n // 10000 % 12, 1 + n // 400 % 28, n // 60 % 24, n % 60)
            for r in run:
                w.writerow([rid, t, json.dumps(labels)] + r[3:])
            n += 1
EOF
big_rows=$(($(wc -l <"$T_TMP/big.csv") - 1))
query_times() {     # query_times DB NAME TARGET_MS
	"$BIN/td-store" list --db "$1" --limit 1 >/dev/null 2>&1     # warm the cache
	for q in "list --label bench=b43,branch=main" "list --label bench=b42 --limit 20" "query --node backend_bound --min 80 --label bench=b7" "query --node backend_bound --min 80"; do
		best=
		bestcpu=
		for i in 1 2 3; do
			t "$BIN/td-store" $q --db "$1"
			if [ -z "$best" ] || [ "$(awk -v a="$s" -v b="$best" 'BEGIN { print (a < b) }')" = 1 ]; then
				best=$s
				bestcpu=$cpu
			fi
		done
		lines=$("$BIN/td-store" $q --db "$1" --csv 2>/dev/null | tail -n +2 | wc -l)
		echo "$2: td-store $q: $(awk -v s="$best" 'BEGIN { printf "%.0f", s * 1000 }') ms, $lines rows (target $3 ms; best of 3, whole process; its CPU ${bestcpu} s, load $(load))"
	done
}
t "$BIN/td-store" import --db "$T_TMP/big.db" "$T_TMP/big.csv"
echo "import, SQLite:   100000 runs ($big_rows rows) in ${s} s"
size=$(stat -c %s "$T_TMP/big.db")
echo "SQLite size:      $(awk -v b="$size" 'BEGIN { printf "%.2f", b / 100000 / 1000 }') KB per run at 100,000 runs"
query_times "$T_TMP/big.db" "SQLite" 50
for q in "compare --a bench=b1 --b bench=b2" "trend --metric page_faults_per_s --label bench~b1*"; do
	t "$BIN/td-store" $q --db "$T_TMP/big.db"
	echo "SQLite: td-store $q: $(awk -v s="$s" 'BEGIN { printf "%.0f", s * 1000 }') ms (2 x 1,000 runs; trend: 11,000 runs; target 200 ms; CPU ${cpu} s, load $(load))"
done
python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
plan = c.execute("EXPLAIN QUERY PLAN SELECT r.id FROM runs r WHERE EXISTS (SELECT 1 FROM labels l WHERE l.run_id = r.id AND l.key = ? AND l.value = ?)", ("bench", "b42")).fetchall()
print("SQLite plan:      " + " | ".join(p[3] for p in plan))' "$T_TMP/big.db"
if [ -n "${PG_URL:-}" ]; then
	$PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d postgres -c "CREATE DATABASE tdbig" >/dev/null
	big_url="host=$PG_DIR user=postgres dbname=tdbig"
	t "$BIN/td-store" import --db "$big_url" "$T_TMP/big.csv"
	echo "import, PostgreSQL: 100000 runs in ${s} s"
	$PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d tdbig -c "VACUUM ANALYZE" >/dev/null
	echo "PostgreSQL size:  $($PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d tdbig -c "SELECT round(pg_database_size('tdbig') / 100000.0 / 1000, 2)") KB per run at 100,000 runs"
	query_times "$big_url" "PostgreSQL" 100
	echo "PostgreSQL plan:"
	$PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d tdbig -c "EXPLAIN SELECT r.id FROM runs r WHERE EXISTS (SELECT 1 FROM labels l WHERE l.run_id = r.id AND l.key = 'bench' AND l.value = 'b42')" | sed 's/^/    /'
	pg_stop
fi
rm -rf "$T_TMP"
exit 0
