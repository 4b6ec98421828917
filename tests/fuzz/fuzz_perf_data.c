/* libFuzzer target: bytes as a perf.data file through the reader, from
 * memory (header, attrs, features, every record, samples decoded, zstd
 * records inflated), touching every decoded array. */
#include <stdint.h>
#include <string.h>
#include "common/diag.h"
#include "parsers/perf_data.h"

static void each(void *ctx, const struct perf_data *d, const struct pd_record *r)
{
	unsigned long *sum = ctx;
	(void)d;
	*sum += r->type + r->size + (r->raw[r->size - 1] & 1);
	if (r->type == PERF_RECORD_SAMPLE && r->decoded) {
		const struct pd_sample *s = &r->u.sample;
		for (uint64_t i = 0; i < s->nr_callchain; i++)
			*sum += (s->callchain[i] & 1) + pd_is_context(s->callchain[i]);
		for (uint64_t i = 0; i < s->nr_branches; i++)
			*sum += s->branches[i].from + s->branches[i].cycles;
		for (uint64_t i = 0; i < s->nr_read; i++)
			*sum += s->read[i].value;
		if (s->raw_size)
			*sum += s->raw[s->raw_size - 1];
		if (s->stack_user_size)
			*sum += s->stack_user[s->stack_user_size - 1];
		if (s->aux_size)
			*sum += s->aux[s->aux_size - 1];
	} else if ((r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2) && r->decoded) {
		*sum += strlen(r->u.mmap.filename);
	} else if (r->type == PERF_RECORD_COMM && r->decoded) {
		*sum += strlen(r->u.comm.comm);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	td_quiet = 1;
	struct perf_data *d = perf_data_open_buffer(data, size, "fuzz");
	if (d) {
		unsigned long sum = 0;
		char name[160];
		perf_data_walk(d, each, &sum);
		for (int i = 0; i < d->nattrs; i++)
			perf_data_event_name(d, i, name, sizeof name);
		perf_data_close(d);
	}
	return 0;
}
