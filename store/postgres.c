/* The PostgreSQL backend, through libpq: parameters are sent apart from
 * the SQL text (PQexecParams), bulk rows go in one COPY, results come as
 * text (bytea columns are decoded from bytea's hex form before the caller
 * sees them). */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "store/backend.h"

#define BYTEA_OID 17

struct pg_backend {
	struct store_backend base;
	PGconn *conn;
	char *copy_buf;            /* COPY rows being built */
	size_t copy_len, copy_cap;
};

/* libpq's messages end in a newline and may run over several lines: keep the first. */
static void first_line(char *dst, size_t cap, const char *what, const char *msg)
{
	size_t n = strcspn(msg, "\n");
	snprintf(dst, cap, "%s%s%.*s", what ? what : "", what ? ": " : "", (int)n, msg);
}

static void set_error(struct pg_backend *b, const char *msg)
{
	const char *m = msg ? msg : PQerrorMessage(b->conn);
	if (strncmp(m, "ERROR:  ", 8) == 0)
		m += 8;
	first_line(b->base.error, sizeof b->base.error, NULL, m);
}

/* "... WHERE a = ? AND b = ?" -> "... WHERE a = $1 AND b = $2" (not inside quotes). */
static char *numbered_placeholders(const char *sql)
{
	size_t n = strlen(sql), cap = n * 2 + 16, o = 0;
	char *out = td_malloc(cap);
	int k = 0;
	bool quoted = false;
	for (size_t i = 0; i < n; i++) {
		if (sql[i] == '\'')
			quoted = !quoted;
		if (sql[i] == '?' && !quoted) {
			if (o + 12 >= cap)
				out = td_realloc(out, cap *= 2);
			o += (size_t)snprintf(out + o, cap - o, "$%d", ++k);
			continue;
		}
		if (o + 2 >= cap)
			out = td_realloc(out, cap *= 2);
		out[o++] = sql[i];
	}
	out[o] = 0;
	return out;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* bytea's text form "\x0a1b..." into bytes, in place (the result shrinks). */
static size_t bytea_decode(char *s, size_t len)
{
	if (len < 2 || s[0] != '\\' || s[1] != 'x')
		return len;
	size_t o = 0;
	for (size_t i = 2; i + 1 < len; i += 2) {
		int hi = hexval((unsigned char)s[i]), lo = hexval((unsigned char)s[i + 1]);
		if (hi < 0 || lo < 0)
			break;
		s[o++] = (char)(hi << 4 | lo);
	}
	s[o] = 0;
	return o;
}

static int pg_exec(struct store_backend *base, const char *sql, const struct store_value *params, int nparams,
		   store_row_fn fn, void *ctx)
{
	struct pg_backend *b = (struct pg_backend *)base;
	char *text = numbered_placeholders(sql);
	const char *values[64];
	int lengths[64], formats[64];
	char numbers[64][32];
	if (nparams > 64)
		td_die("too many SQL parameters (%d)", nparams);
	for (int i = 0; i < nparams; i++) {
		lengths[i] = 0;
		formats[i] = 0;
		switch (params[i].type) {
		case SV_NULL: values[i] = NULL; break;
		case SV_TEXT: values[i] = params[i].s; lengths[i] = (int)params[i].len; break;
		case SV_BLOB: values[i] = params[i].s; lengths[i] = (int)params[i].len; formats[i] = 1; break;
		case SV_INT: snprintf(numbers[i], sizeof numbers[i], "%lld", params[i].i); values[i] = numbers[i]; break;
		case SV_REAL: snprintf(numbers[i], sizeof numbers[i], "%.17g", params[i].d); values[i] = numbers[i]; break;
		}
	}
	/* text parameters are not NUL-terminated in general: libpq reads text
	 * format up to the NUL, so copy those that need it */
	char *copies[64] = { 0 };
	for (int i = 0; i < nparams; i++)
		if (params[i].type == SV_TEXT && params[i].s[params[i].len] != 0)
			values[i] = copies[i] = td_strndup(params[i].s, params[i].len);
	PGresult *res = PQexecParams(b->conn, text, nparams, NULL, values, lengths, formats, 0);
	for (int i = 0; i < nparams; i++)
		free(copies[i]);
	free(text);
	ExecStatusType st = PQresultStatus(res);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		set_error(b, PQresultErrorMessage(res));
		PQclear(res);
		return -1;
	}
	if (fn && st == PGRES_TUPLES_OK) {
		int rows = PQntuples(res), cols = PQnfields(res);
		if (cols > 64)
			cols = 64;
		for (int r = 0; r < rows; r++) {
			const char *cells[64];
			size_t lens[64];
			for (int c = 0; c < cols; c++) {
				if (PQgetisnull(res, r, c)) {
					cells[c] = NULL;
					lens[c] = 0;
					continue;
				}
				char *v = PQgetvalue(res, r, c);
				size_t len = (size_t)PQgetlength(res, r, c);
				if (PQftype(res, c) == BYTEA_OID)
					len = bytea_decode(v, len);
				cells[c] = v;
				lens[c] = len;
			}
			if (fn(ctx, cols, cells, lens))
				break;
		}
	}
	PQclear(res);
	return 0;
}

static void copy_put(struct pg_backend *b, const char *s, size_t n)
{
	if (b->copy_len + n + 1 > b->copy_cap) {
		b->copy_cap = (b->copy_len + n + 1) * 2;
		b->copy_buf = td_realloc(b->copy_buf, b->copy_cap);
	}
	memcpy(b->copy_buf + b->copy_len, s, n);
	b->copy_len += n;
}

/* COPY's text format: tab between columns, \N for NULL, backslash escapes. */
static void copy_value(struct pg_backend *b, const struct store_value *v)
{
	char num[40];
	switch (v->type) {
	case SV_NULL: copy_put(b, "\\N", 2); return;
	case SV_INT: copy_put(b, num, (size_t)snprintf(num, sizeof num, "%lld", v->i)); return;
	case SV_REAL: copy_put(b, num, (size_t)snprintf(num, sizeof num, "%.17g", v->d)); return;
	case SV_BLOB: td_die("COPY of a blob is not supported");
	case SV_TEXT: break;
	}
	for (size_t i = 0; i < v->len; i++) {
		char c = v->s[i];
		const char *esc = c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : NULL;
		if (esc)
			copy_put(b, esc, 2);
		else
			copy_put(b, &c, 1);
	}
}

static int pg_load(struct store_backend *base, const char *table, const char *const *cols, int ncols,
		   const struct store_value *values, size_t nrows)
{
	struct pg_backend *b = (struct pg_backend *)base;
	if (nrows == 0)
		return 0;
	char sql[1024];
	int len = snprintf(sql, sizeof sql, "COPY %s (", table);
	for (int i = 0; i < ncols; i++)
		len += snprintf(sql + len, sizeof sql - (size_t)len, "%s%s", i ? ", " : "", cols[i]);
	snprintf(sql + len, sizeof sql - (size_t)len, ") FROM STDIN");
	b->copy_len = 0;
	for (size_t r = 0; r < nrows; r++)
		for (int c = 0; c < ncols; c++) {
			copy_value(b, &values[r * (size_t)ncols + (size_t)c]);
			copy_put(b, c + 1 < ncols ? "\t" : "\n", 1);
		}
	PGresult *res = PQexec(b->conn, sql);
	if (PQresultStatus(res) != PGRES_COPY_IN) {
		set_error(b, PQresultErrorMessage(res));
		PQclear(res);
		return -1;
	}
	PQclear(res);
	if (PQputCopyData(b->conn, b->copy_buf, (int)b->copy_len) != 1 || PQputCopyEnd(b->conn, NULL) != 1) {
		set_error(b, NULL);
		return -1;
	}
	int rc = 0;
	while ((res = PQgetResult(b->conn))) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK && rc == 0) {
			set_error(b, PQresultErrorMessage(res));
			rc = -1;
		}
		PQclear(res);
	}
	return rc;
}

static int run_plain(struct pg_backend *b, const char *sql)
{
	PGresult *res = PQexec(b->conn, sql);
	int rc = PQresultStatus(res) == PGRES_COMMAND_OK ? 0 : -1;
	if (rc)
		set_error(b, PQresultErrorMessage(res));
	PQclear(res);
	return rc;
}

static int pg_begin(struct store_backend *base) { return run_plain((struct pg_backend *)base, "BEGIN"); }
static int pg_commit(struct store_backend *base) { return run_plain((struct pg_backend *)base, "COMMIT"); }
static int pg_rollback(struct store_backend *base)
{
	struct pg_backend *b = (struct pg_backend *)base;
	return PQtransactionStatus(b->conn) == PQTRANS_IDLE ? 0 : run_plain(b, "ROLLBACK");
}

static void pg_close(struct store_backend *base)
{
	struct pg_backend *b = (struct pg_backend *)base;
	PQfinish(b->conn);
	free(b->copy_buf);
	free(b);
}

static const struct store_backend_ops pg_ops = { pg_exec, pg_load, pg_begin, pg_commit, pg_rollback, pg_close };

/* Notices ("relation already exists, skipping") are not for the user. */
static void quiet_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

struct store_backend *store_postgres_open(const char *conninfo, char *err, size_t errlen)
{
	struct pg_backend *b = td_calloc(1, sizeof *b);
	b->base.ops = &pg_ops;
	b->base.dialect = STORE_POSTGRES;
	b->base.name = "postgresql";
	b->conn = PQconnectdb(conninfo);
	if (PQstatus(b->conn) != CONNECTION_OK) {
		const char *m = PQerrorMessage(b->conn);
		/* "connection to server on socket ... failed: FATAL:  password ..." */
		const char *fatal = strstr(m, "FATAL:  ");
		first_line(err, errlen, "cannot connect to PostgreSQL", fatal ? fatal + 8 : m);
		PQfinish(b->conn);
		free(b);
		return NULL;
	}
	PQsetNoticeProcessor(b->conn, quiet_notice, NULL);
	snprintf(b->base.where, sizeof b->base.where, "postgresql database %s on %s", PQdb(b->conn),
		 PQhost(b->conn) ? PQhost(b->conn) : "localhost");
	return &b->base;
}
