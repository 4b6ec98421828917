/* td-store migrate: the database's schema brought to this tdkit's version. */
#include <stdio.h>
#include "common/diag.h"
#include "common/opts.h"
#include "filters/td-store/verbs.h"

static const struct td_option options[] = {
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store migrate", "[--db URL]",
	"Create the schema, or upgrade it to this version (never drops data); says which versions.",
	options,
	"Reads no file: the runs come from the store --db names (default: $TD_DB, else ~/.local/share/tdkit/runs.db).",
};

int cmd_migrate(int argc, char **argv)
{
	verb_start(&cmd, argc, argv, VERB_NO_OPERANDS);
	char err[1024];
	struct td_store *s = store_open_raw(verb_db, err, sizeof err);
	if (!s)
		td_die("%s", err);
	int from, to;
	int rc = store_schema_migrate(s->b, &from, &to);
	if (rc < 0)
		verb_store_failed(s);
	if (from == to)
		printf("%s: schema version %d, up to date\n", s->b->where, to);
	else
		printf("%s: schema version %d -> %d\n", s->b->where, from, to);
	store_close(s);
	return TD_EXIT_OK;
}
