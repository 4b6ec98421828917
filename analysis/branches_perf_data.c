/* td-branches straight from perf.data: each sample's branch stack turned
 * into the entries perf script -F ip,brstack (or brstacksym) would print
 * (P/M/-, X, A, cycles, the saved type), so the ranking is the same. */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "branches_perf_data.h"
#include "analysis/ordered_records.h"
#include "common/diag.h"
#include "common/grow.h"

#define MAX_ENTRIES 256

/* perf's names for the saved branch type (PERF_BR_*). */
static const char *const type_names[] = { "", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
					  "SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "" };

struct reader {
	struct branches *b;
	struct machine *m;             /* brstacksym: names from the replayed machine */
	char *text;                    /* the sample's "from/to" texts, one after another */
	size_t text_cap;
	size_t at[MAX_ENTRIES][2];     /* each entry's text offset and the length of its from part */
};

size_t branches_symbol_name(struct machine *m, int32_t pid, int cpumode, uint64_t addr, char *buf, size_t cap)
{
	struct machine_frame f;
	machine_resolve_fb(m, pid, cpumode, addr, &f);
	int n = f.sym ? snprintf(buf, cap, "%s+0x%" PRIx64, f.sym, f.sym_off) : snprintf(buf, cap, "[unknown]");
	return n < 0 ? 0 : (size_t)n;
}

/* One side of an entry, its symbol name or address, at offset at of
 * r->text, grown until the whole name fits (C++ names run to kilobytes);
 * returns the new end. */
static size_t entry_name(struct reader *r, int32_t pid, int cpumode, uint64_t addr, size_t at)
{
	TD_ALLOC_GROW(r->text, at + 64, r->text_cap);
	for (;;) {
		size_t room = r->text_cap - at;
		size_t n = r->m ? branches_symbol_name(r->m, pid, cpumode, addr, r->text + at, room)
				: (size_t)snprintf(r->text + at, room, "0x%llx", (unsigned long long)addr);
		if (n < room)
			return at + n;
		TD_ALLOC_GROW(r->text, at + n + 1, r->text_cap);
	}
}

/* The entry's "from/to" at offset used of r->text; returns the new end. */
static size_t entry_text(struct reader *r, const struct pd_sample *s, int cpumode, const struct pd_branch *be,
			 size_t used, size_t *from_len)
{
	int32_t pid = s->sample_type & PERF_SAMPLE_TID ? (int32_t)s->pid : -1;
	size_t at = entry_name(r, pid, cpumode, be->from, used);
	*from_len = at - used;
	r->text[at++] = '/';             /* entry_name left room past the name */
	return entry_name(r, pid, cpumode, be->to, at);
}

static void sample(struct reader *r, const struct perf_data *d, const struct pd_record *rec)
{
	const struct pd_sample *s = &rec->u.sample;
	const struct perf_event_attr *a = &d->attrs[s->attr].attr;
	if (!(a->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return;
	bool typed = a->branch_sample_type & PERF_SAMPLE_BRANCH_TYPE_SAVE;
	int cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct br_entry e[MAX_ENTRIES];
	size_t n = s->nr_branches < MAX_ENTRIES ? (size_t)s->nr_branches : MAX_ENTRIES, used = 0;
	for (size_t i = 0; i < n; i++) {
		r->at[i][0] = used;
		used = entry_text(r, s, cpumode, &s->branches[i], used, &r->at[i][1]);
	}
	for (size_t i = 0; i < n; i++) {     /* spans once the text has stopped moving */
		const struct pd_branch be = s->branches[i];
		const char *t = r->text + r->at[i][0];
		size_t end = i + 1 < n ? r->at[i + 1][0] : used;
		memset(&e[i], 0, sizeof e[i]);
		e[i].from = (struct td_span){ t, r->at[i][1] };
		e[i].to = (struct td_span){ t + r->at[i][1] + 1, end - r->at[i][0] - r->at[i][1] - 1 };
		e[i].pred = be.mispred ? BR_MISPREDICTED : be.predicted ? BR_PREDICTED : BR_NO_INFO;
		e[i].in_tx = be.in_tx;
		e[i].abort = be.abort;
		e[i].cycles = be.cycles;
		const char *type = typed ? type_names[be.type & 15] : "";
		e[i].type = (struct td_span){ type, strlen(type) };
		/* an unused slot: brstacksym prints it [unknown]/[unknown], but it is no branch */
		e[i].empty = be.from == 0 && be.to == 0;
	}
	branches_add_sample(r->b, e, n);
}

static void on_record(void *ctx, const struct perf_data *d, const struct pd_record *rec)
{
	struct reader *r = ctx;
	if (rec->type == PERF_RECORD_SAMPLE && rec->decoded)
		sample(r, d, rec);
}

struct replay {
	struct reader *r;
	const struct perf_data *d;
};

/* Records in perf's time order: side-band ones keep the machine current. */
static void play(void *ctx, const struct pd_record *rec)
{
	struct replay *p = ctx;
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (rec->decoded)
			sample(p->r, p->d, rec);
	} else {
		machine_apply(p->r->m, rec);
	}
}

bool branches_read_perf_data(struct branches *b, const char *path, const struct br_perf_data_options *o)
{
	struct perf_data *d = perf_data_open(path);
	if (!d)
		return false;
	struct reader r = { .b = b };
	bool ok;
	if (!o->symbols) {
		ok = perf_data_walk(d, on_record, &r);
	} else {
		r.m = machine_new(d, &o->machine);
		struct replay p = { &r, d };
		struct ordered_records *q = ordered_new(d, play, &p);
		const struct pd_record *rec;
		int k;
		while ((k = perf_data_next(d, &rec)) > 0)
			ordered_add(q, rec);
		ordered_finish(q);
		ordered_free(q);
		machine_free(r.m);
		ok = k == 0;
	}
	free(r.text);
	perf_data_close(d);
	return ok;
}
