/* libFuzzer target: bytes as a perf.data file through the reader (header,
 * attrs, features, every record, samples decoded, zstd records inflated). */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include "common/diag.h"
#include "parsers/perf_data.h"

static void each(void *ctx, const struct perf_data *d, uint32_t type, uint16_t misc, const unsigned char *rec,
		 size_t size, const struct pd_sample *s)
{
	unsigned long *sum = ctx;
	(void)d, (void)misc;
	*sum += type + size + (rec[size - 1] & 1);
	if (s)
		for (uint64_t i = 0; i < s->nr_callchain; i++)
			*sum += pd_callchain(s, i) & 1;
	if (s && s->nr_branches) {
		struct perf_branch_entry e;
		pd_branch(s, s->nr_branches - 1, &e);
		*sum += e.from & 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/td-fuzz-perf-data-%d", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	td_quiet = 1;
	struct perf_data *d = perf_data_open(path);
	if (d) {
		unsigned long sum = 0;
		perf_data_walk(d, each, &sum);
		perf_data_close(d);
	}
	return 0;
}
