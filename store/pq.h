/* libpq, opened the first time a PostgreSQL database is named.
 *
 * Linking libpq pulls in TLS, Kerberos and LDAP: two dozen shared objects
 * whose relocation costs every td-store, td-collect and td-mcp start, even
 * one that only reads a local SQLite file. So libpq is not linked; the
 * PostgreSQL backend calls it through `pq`, whose members have libpq's own
 * names and types (checked against <libpq-fe.h> when this compiles).
 *
 * pq_load() opens libpq.so.5 and fills `pq` once per process (thread-safe);
 * it returns 0, or -1 with a message naming the package to install. */
#ifndef TD_STORE_PQ_H
#define TD_STORE_PQ_H

#include <stddef.h>
#include <libpq-fe.h>

#define PQ_FUNCTIONS(X)                                                                                        \
	X(PQclear) X(PQconnectdb) X(PQdb) X(PQenterPipelineMode) X(PQerrorMessage) X(PQfinish) X(PQftype)      \
	X(PQgetResult) X(PQgetisnull) X(PQgetlength) X(PQgetvalue) X(PQhost) X(PQnfields) X(PQntuples)         \
	X(PQpipelineSync) X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus) X(PQsendPrepare)      \
	X(PQsendQueryParams) X(PQsendQueryPrepared) X(PQsetNoticeProcessor) X(PQstatus)

#define PQ_MEMBER(name) __typeof__(name) *name;
struct pq_functions {
	PQ_FUNCTIONS(PQ_MEMBER)
};
#undef PQ_MEMBER

extern struct pq_functions pq;

int pq_load(char *err, size_t errlen);

#endif
