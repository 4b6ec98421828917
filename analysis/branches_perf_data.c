/* td-branches straight from perf.data: each sample's branch stack turned
 * into the entries perf script -F ip,brstack would print (0x addresses,
 * P/M/-, X, A, cycles, the saved type), so the ranking is the same. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "branches_perf_data.h"
#include "common/diag.h"

#define MAX_ENTRIES 256

/* perf's names for the saved branch type (PERF_BR_*). */
static const char *const type_names[] = { "", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
					  "SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "" };

struct reader {
	struct branches *b;
	char text[MAX_ENTRIES][48];
};

static void on_record(void *ctx, const struct perf_data *d, const struct pd_record *rec)
{
	struct reader *r = ctx;
	if (rec->type != PERF_RECORD_SAMPLE || !rec->decoded)
		return;
	const struct pd_sample *s = &rec->u.sample;
	const struct perf_event_attr *a = &d->attrs[s->attr].attr;
	if (!(a->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return;
	bool typed = a->branch_sample_type & PERF_SAMPLE_BRANCH_TYPE_SAVE;
	struct br_entry e[MAX_ENTRIES];
	size_t n = s->nr_branches < MAX_ENTRIES ? (size_t)s->nr_branches : MAX_ENTRIES;
	for (size_t i = 0; i < n; i++) {
		const struct pd_branch be = s->branches[i];
		int k = snprintf(r->text[i], sizeof r->text[i], "0x%llx/0x%llx", (unsigned long long)be.from,
				 (unsigned long long)be.to);
		const char *slash = memchr(r->text[i], '/', (size_t)k);
		memset(&e[i], 0, sizeof e[i]);
		e[i].from = (struct td_span){ r->text[i], (size_t)(slash - r->text[i]) };
		e[i].to = (struct td_span){ slash + 1, (size_t)(r->text[i] + k - slash - 1) };
		e[i].pred = be.mispred ? BR_MISPREDICTED : be.predicted ? BR_PREDICTED : BR_NO_INFO;
		e[i].in_tx = be.in_tx;
		e[i].abort = be.abort;
		e[i].cycles = be.cycles;
		const char *t = typed ? type_names[be.type & 15] : "";
		e[i].type = (struct td_span){ t, strlen(t) };
		e[i].empty = be.from == 0 && be.to == 0;
	}
	branches_add_sample(r->b, e, n);
}

bool branches_read_perf_data(struct branches *b, const char *path)
{
	struct perf_data *d = perf_data_open(path);
	if (!d)
		return false;
	struct reader *r = td_calloc(1, sizeof(*r));
	r->b = b;
	bool ok = perf_data_walk(d, on_record, r);
	free(r);
	perf_data_close(d);
	return ok;
}
