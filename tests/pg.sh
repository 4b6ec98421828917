# A PostgreSQL server of the test's own (sourced by tests/*.t): initdb into a
# temporary folder as the postgres system user (initdb refuses root), the
# socket in that folder, no TCP, stopped and removed when the test exits,
# whether it passed or not.
#
# pg_start: 0 and PG_URL set ("host=DIR dbname=tdtest user=postgres"), or
# 1 with PG_WHY set when the server binaries are absent.
pg_start() {
	PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ]; then
		PG_WHY="PostgreSQL server binaries absent (Debian package postgresql)"
		return 1
	fi
	PG_DIR=$(mktemp -d /tmp/td-pg.XXXXXX)
	chmod 755 "$PG_DIR"
	PG_AS=""
	if [ "$(id -u)" = 0 ]; then
		chown postgres "$PG_DIR"
		PG_AS="runuser -u postgres --"
	fi
	trap 'pg_stop; rm -rf "$T_TMP"' EXIT
	$PG_AS "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres --no-sync >"$PG_DIR/initdb.log" 2>&1 || {
		PG_WHY="initdb failed: $(tail -n 1 "$PG_DIR/initdb.log")"; return 1; }
	# a password user for the wrong-password test; everyone else is trusted
	printf 'local all tdpass scram-sha-256\nlocal all all trust\n' | $PG_AS tee "$PG_DIR/data/pg_hba.conf" >/dev/null
	$PG_AS "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
		-o "-k $PG_DIR -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
		start >/dev/null 2>&1 || { PG_WHY="pg_ctl start failed: $(tail -n 1 "$PG_DIR/server.log")"; return 1; }
	PG_STARTED=1
	$PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -c "CREATE DATABASE tdtest" \
		-c "CREATE ROLE tdpass LOGIN PASSWORD 'right-password'" postgres >/dev/null
	PG_URL="host=$PG_DIR dbname=tdtest user=postgres"
	PG_SOCKET_DIR=$PG_DIR
	return 0
}

pg_stop() {
	if [ -n "${PG_STARTED:-}" ]; then
		$PG_AS "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1
		PG_STARTED=
	fi
	[ -n "${PG_DIR:-}" ] && rm -rf "$PG_DIR"
}

# pg_psql SQL: runs SQL on the test database as the superuser.
pg_psql() { pg_psql_db tdtest "$1"; }
# pg_psql_db DB SQL: the same on database DB.
pg_psql_db() { $PG_AS "$PG_BIN/psql" -h "$PG_DIR" -U postgres -qAt -d "$1" -c "$2" >/dev/null; }
