/* The PostgreSQL backend, through libpq in pipeline mode: parameters are
 * sent apart from the SQL text (PQsendQueryParams), statements of a
 * transaction whose rows nobody reads are queued and their results read at
 * the next statement that waits (a query, the commit), bulk rows go as
 * multi-row INSERTs; results come as text (bytea columns are decoded from
 * bytea's hex form before the caller sees them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "store/backend.h"
#include "store/pq.h"

#define BYTEA_OID 17

#define MAX_QUEUED 256            /* statements sent before their results are read */
#define MAX_LOAD_PARAMS 30000     /* in one multi-row INSERT (PostgreSQL takes 65,535) */
#define MAX_PREPARED 64           /* statements kept parsed and planned on the server */

struct pg_params {
	const char **values;
	int *lengths, *formats;
	char **owned;              /* the values this made (numbers, NUL-terminated text) */
	int n, cap;
};

struct pg_backend {
	struct store_backend base;
	PGconn *conn;
	struct pg_params params;   /* of the statement being sent */
	char *sql;                 /* a multi-row INSERT being built */
	size_t sql_len, sql_cap;
	struct prepared {
		char *sql;         /* as sent, with $n placeholders */
		char name[16];
	} prepared[MAX_PREPARED];
	int nprepared, next_name;
	int pending;               /* results not read yet: statements, and preparations */
	bool send_failed;          /* sending one failed: the next sync reports it */
	bool in_transaction;
};

/* libpq's messages end in a newline and may run over several lines: keep the first. */
static void first_line(char *dst, size_t cap, const char *what, const char *msg)
{
	size_t n = strcspn(msg, "\n");
	snprintf(dst, cap, "%s%s%.*s", what ? what : "", what ? ": " : "", (int)n, msg);
}

static void set_error(struct pg_backend *b, const char *msg)
{
	b->base.conflict[0] = 0;
	const char *m = msg ? msg : pq.PQerrorMessage(b->conn);
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

/* Parameters in libpq's form (text; blobs binary), valid until cleared. */
static void params_clear(struct pg_params *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->owned[i]);
	p->n = 0;
}

static void params_free(struct pg_params *p)
{
	params_clear(p);
	free(p->values);
	free(p->lengths);
	free(p->formats);
	free(p->owned);
}

static void params_add(struct pg_params *p, const struct store_value *v)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->values = td_realloc(p->values, (size_t)p->cap * sizeof *p->values);
		p->lengths = td_realloc(p->lengths, (size_t)p->cap * sizeof *p->lengths);
		p->formats = td_realloc(p->formats, (size_t)p->cap * sizeof *p->formats);
		p->owned = td_realloc(p->owned, (size_t)p->cap * sizeof *p->owned);
	}
	int i = p->n++;
	char num[40];
	p->owned[i] = NULL;
	p->lengths[i] = 0;
	p->formats[i] = 0;
	switch (v->type) {
	case SV_NULL:
		p->values[i] = NULL;
		return;
	case SV_INT:
		snprintf(num, sizeof num, "%lld", v->i);
		break;
	case SV_REAL:
		snprintf(num, sizeof num, "%.17g", v->d);
		break;
	case SV_BLOB:
		p->values[i] = v->s;
		p->lengths[i] = (int)v->len;
		p->formats[i] = 1;
		return;
	case SV_TEXT:
		/* libpq reads a text parameter up to its NUL: a copy for one without */
		if (v->s[v->len] == 0)
			p->values[i] = v->s;
		else
			p->values[i] = p->owned[i] = td_strndup(v->s, v->len);
		return;
	}
	p->values[i] = p->owned[i] = td_strndup(num, strlen(num));
}

/* The rows of one result, to fn; returns fn's stop. */
static bool rows_to(PGresult *res, store_row_fn fn, void *ctx)
{
	int rows = pq.PQntuples(res), cols = pq.PQnfields(res);
	if (cols > 64)
		cols = 64;
	for (int r = 0; r < rows; r++) {
		const char *cells[64];
		size_t lens[64];
		for (int c = 0; c < cols; c++) {
			if (pq.PQgetisnull(res, r, c)) {
				cells[c] = NULL;
				lens[c] = 0;
				continue;
			}
			char *v = pq.PQgetvalue(res, r, c);
			size_t len = (size_t)pq.PQgetlength(res, r, c);
			if (pq.PQftype(res, c) == BYTEA_OID)
				len = bytea_decode(v, len);
			cells[c] = v;
			lens[c] = len;
		}
		if (fn(ctx, cols, cells, lens))
			return true;
	}
	return false;
}

static void forget_prepared(struct pg_backend *b)
{
	for (int i = 0; i < b->nprepared; i++)
		free(b->prepared[i].sql);
	b->nprepared = 0;
}

/* The server-side name of a statement prepared before, or of one prepared
 * now (its preparation queued before it); NULL: sent unnamed. A run's
 * statements are the same few texts every time: parsed and planned once. */
static const char *prepared_name(struct pg_backend *b, const char *text, int nparams)
{
	if (strncmp(text, "INSERT", 6) && strncmp(text, "SELECT", 6) && strncmp(text, "UPDATE", 6) &&
	    strncmp(text, "DELETE", 6))
		return NULL;
	for (int i = 0; i < b->nprepared; i++)
		if (!strcmp(b->prepared[i].sql, text))
			return b->prepared[i].name;
	if (b->nprepared == MAX_PREPARED)
		return NULL;
	struct prepared *p = &b->prepared[b->nprepared];
	snprintf(p->name, sizeof p->name, "td%d", ++b->next_name);
	if (pq.PQsendPrepare(b->conn, p->name, text, nparams, NULL) != 1)
		return NULL;
	b->pending++;
	p->sql = td_strndup(text, strlen(text));
	b->nprepared++;
	return p->name;
}

/* A sync, then the results of every statement sent since the last one, in
 * order; the last statement's rows go to fn. The first failure is kept in
 * b->error (the server skips the statements after it: "aborted"). */
static int pg_sync(struct pg_backend *b, store_row_fn fn, void *ctx)
{
	int rc = b->send_failed ? -1 : 0;
	if (pq.PQpipelineSync(b->conn) != 1) {
		set_error(b, NULL);
		b->pending = 0;
		return -1;
	}
	/* each statement's results end in a NULL; the sync's result ends it all */
	int finished = 0;
	bool stop = false;
	while (finished <= b->pending + 1) {
		PGresult *res = pq.PQgetResult(b->conn);
		if (!res) {
			finished++;
			continue;
		}
		ExecStatusType st = pq.PQresultStatus(res);
		if (st == PGRES_PIPELINE_SYNC) {
			pq.PQclear(res);
			break;
		}
		if (st == PGRES_PIPELINE_ABORTED) {
			rc = -1;
		} else if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
			if (rc == 0) {
				set_error(b, pq.PQresultErrorMessage(res));
				/* unique_violation: which constraint, for a caller that can tell a duplicate */
				const char *state = pq.PQresultErrorField(res, PG_DIAG_SQLSTATE);
				const char *constraint = pq.PQresultErrorField(res, PG_DIAG_CONSTRAINT_NAME);
				if (state && constraint && !strcmp(state, "23505"))
					snprintf(b->base.conflict, sizeof b->base.conflict, "%s", constraint);
				/* two adds of the same captures in different orders */
				if (state && !strcmp(state, "40P01"))
					snprintf(b->base.conflict, sizeof b->base.conflict, "deadlock");
			}
			rc = -1;
		} else if (st == PGRES_TUPLES_OK && fn && !stop && rc == 0 && finished == b->pending - 1) {
			stop = rows_to(res, fn, ctx);
		}
		pq.PQclear(res);
	}
	b->pending = 0;
	b->send_failed = false;
	/* a failed preparation leaves its name unknown to the server: forget
	 * them all (names are never reused, so none is prepared twice) */
	if (rc < 0)
		forget_prepared(b);
	return rc;
}

/* Sends one statement. In a transaction, a statement whose rows nobody
 * reads is only queued (libpq's pipeline mode): an added run's dozen
 * statements cost one round trip, at the commit, not one each. A queued
 * statement's failure is reported by the next call that waits for the
 * server (the commit then fails, and the caller rolls back). */
static int pg_send(struct pg_backend *b, const char *sql, store_row_fn fn, void *ctx, bool wait)
{
	char *text = numbered_placeholders(sql);
	const struct pg_params *p = &b->params;
	const char *name = prepared_name(b, text, p->n);
	int sent = name ? pq.PQsendQueryPrepared(b->conn, name, p->n, p->values, p->lengths, p->formats, 0)
			: pq.PQsendQueryParams(b->conn, text, p->n, NULL, p->values, p->lengths, p->formats, 0);
	free(text);
	params_clear(&b->params);
	if (sent != 1) {
		if (!b->send_failed)
			set_error(b, NULL);
		b->send_failed = true;
		pg_sync(b, NULL, NULL);
		return -1;
	}
	b->pending++;
	if (!wait && !fn && b->in_transaction && b->pending < MAX_QUEUED)
		return 0;
	return pg_sync(b, fn, ctx);
}

static int pg_exec(struct store_backend *base, const char *sql, const struct store_value *params, int nparams,
		   store_row_fn fn, void *ctx)
{
	struct pg_backend *b = (struct pg_backend *)base;
	params_clear(&b->params);
	for (int i = 0; i < nparams; i++)
		params_add(&b->params, &params[i]);
	return pg_send(b, sql, fn, ctx, false);
}

static void sql_put(struct pg_backend *b, const char *s)
{
	size_t n = strlen(s);
	if (b->sql_len + n + 1 > b->sql_cap) {
		b->sql_cap = (b->sql_len + n + 1) * 2;
		b->sql = td_realloc(b->sql, b->sql_cap);
	}
	memcpy(b->sql + b->sql_len, s, n + 1);
	b->sql_len += n;
}

/* Rows as multi-row INSERTs of bound parameters (COPY cannot be
 * pipelined), at most MAX_LOAD_PARAMS parameters a statement. */
static int pg_load(struct store_backend *base, const char *table, const char *const *cols, int ncols,
		   const struct store_value *values, size_t nrows)
{
	struct pg_backend *b = (struct pg_backend *)base;
	size_t per = MAX_LOAD_PARAMS / (size_t)ncols;
	for (size_t at = 0; at < nrows; at += per) {
		size_t n = nrows - at < per ? nrows - at : per;
		b->sql_len = 0;
		sql_put(b, "INSERT INTO ");
		sql_put(b, table);
		for (int c = 0; c < ncols; c++) {
			sql_put(b, c ? ", " : " (");
			sql_put(b, cols[c]);
		}
		sql_put(b, ") VALUES ");
		params_clear(&b->params);
		for (size_t r = 0; r < n; r++) {
			sql_put(b, r ? ", (" : "(");
			for (int c = 0; c < ncols; c++) {
				sql_put(b, c ? ", ?" : "?");
				params_add(&b->params, &values[(at + r) * (size_t)ncols + (size_t)c]);
			}
			sql_put(b, ")");
		}
		if (pg_send(b, b->sql, NULL, NULL, false) < 0)
			return -1;
	}
	return 0;
}

static int pg_begin(struct store_backend *base)
{
	struct pg_backend *b = (struct pg_backend *)base;
	b->in_transaction = true;
	params_clear(&b->params);
	return pg_send(b, "BEGIN", NULL, NULL, false);
}

static int pg_commit(struct store_backend *base)
{
	struct pg_backend *b = (struct pg_backend *)base;
	params_clear(&b->params);
	int rc = pg_send(b, "COMMIT", NULL, NULL, true);
	/* failed: a statement before it failed and the pipeline skipped the
	 * COMMIT, leaving the transaction open and aborted: the rollback ends it */
	b->in_transaction = rc < 0;
	return rc;
}

static int pg_rollback(struct store_backend *base)
{
	struct pg_backend *b = (struct pg_backend *)base;
	if (!b->in_transaction && !b->pending)
		return 0;
	params_clear(&b->params);
	int rc = pg_send(b, "ROLLBACK", NULL, NULL, true);
	b->in_transaction = false;
	return rc;
}

static void pg_close(struct store_backend *base)
{
	struct pg_backend *b = (struct pg_backend *)base;
	if (b->pending)
		pg_sync(b, NULL, NULL);
	pq.PQfinish(b->conn);
	forget_prepared(b);
	params_free(&b->params);
	free(b->sql);
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
	b->base.remote = true;
	if (pq_load(err, errlen) < 0) {
		free(b);
		return NULL;
	}
	b->conn = pq.PQconnectdb(conninfo);
	if (pq.PQstatus(b->conn) != CONNECTION_OK) {
		const char *m = pq.PQerrorMessage(b->conn);
		/* "connection to server on socket ... failed: FATAL:  password ..." */
		const char *fatal = strstr(m, "FATAL:  ");
		first_line(err, errlen, "cannot connect to PostgreSQL", fatal ? fatal + 8 : m);
		pq.PQfinish(b->conn);
		free(b);
		return NULL;
	}
	pq.PQsetNoticeProcessor(b->conn, quiet_notice, NULL);
	if (pq.PQenterPipelineMode(b->conn) != 1) {
		first_line(err, errlen, "PostgreSQL: cannot enter pipeline mode", pq.PQerrorMessage(b->conn));
		pq.PQfinish(b->conn);
		free(b);
		return NULL;
	}
	snprintf(b->base.where, sizeof b->base.where, "postgresql database %s on %s", pq.PQdb(b->conn),
		 pq.PQhost(b->conn) ? pq.PQhost(b->conn) : "localhost");
	return &b->base;
}
