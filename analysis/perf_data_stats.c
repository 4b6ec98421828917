/* perf.data records counted (perf_data_stats.h). */
#include <stdlib.h>
#include "analysis/perf_data_stats.h"
#include "common/diag.h"

static void grow(struct pd_stats *st, int nattrs)
{
	if (nattrs <= st->nattrs)
		return;
	int n = nattrs + 16;
	st->samples = td_realloc(st->samples, (size_t)n * sizeof *st->samples);
	st->callchains = td_realloc(st->callchains, (size_t)n * sizeof *st->callchains);
	st->branch_samples = td_realloc(st->branch_samples, (size_t)n * sizeof *st->branch_samples);
	st->periods = td_realloc(st->periods, (size_t)n * sizeof *st->periods);
	st->branch_entries = td_realloc(st->branch_entries, (size_t)n * sizeof *st->branch_entries);
	for (int i = st->nattrs; i < n; i++) {
		st->samples[i] = st->callchains[i] = st->branch_samples[i] = 0;
		st->periods[i] = st->branch_entries[i] = 0;
	}
	st->nattrs = n;
}

void pd_stats_add(struct pd_stats *st, const struct perf_data *d, const struct pd_record *r)
{

	if (r->type < PD_STATS_NTYPES)
		st->records[r->type]++;
	else
		st->other_records++;
	st->compressed_inner += r->in_compressed;
	if (r->type == PERF_RECORD_LOST && r->decoded)
		st->lost += r->u.lost.lost;
	else if (r->type == PERF_RECORD_LOST_SAMPLES && r->decoded)
		st->lost_samples += r->u.lost_samples.lost;
	if (r->type != PERF_RECORD_SAMPLE || !r->decoded)
		return;
	const struct pd_sample *s = &r->u.sample;
	grow(st, d->nattrs);
	st->samples[s->attr]++;
	st->periods[s->attr] += s->period;
	st->callchains[s->attr] += s->nr_callchain > 0;
	st->branch_samples[s->attr] += (s->sample_type & PERF_SAMPLE_BRANCH_STACK) != 0;
	st->branch_entries[s->attr] += s->nr_branches;
	if (s->sample_type & PERF_SAMPLE_TIME) {
		if (!st->has_time || s->time < st->first_time)
			st->first_time = s->time;
		if (!st->has_time || s->time > st->last_time)
			st->last_time = s->time;
		st->has_time = true;
	}
}

void pd_stats_free(struct pd_stats *st)
{
	free(st->samples);
	free(st->callchains);
	free(st->branch_samples);
	free(st->periods);
	free(st->branch_entries);
}
