/* libFuzzer target: ARM SPE text (parsers/spe.h) line by line: packet
 * dumps as records, and sample lines for their event and PC; a record's
 * strings stay NUL-terminated in their arrays. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "parsers/spe.h"

static void check(const struct spe_record *r)
{
	if (!memchr(r->pc, 0, sizeof r->pc) || !memchr(r->tgt, 0, sizeof r->tgt) || !memchr(r->type, 0, sizeof r->type))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spe_dump d;
	memset(&d, 0, sizeof d);
	struct spe_record done;
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (spe_dump_line(&d, p, n, &done) == SPE_RECORD_END)
			check(&done);
		size_t after = 0;
		if (spe_sample_event(p, n, &after)) {
			if (after > n)
				abort();
			struct td_span pc = spe_sample_pc(p, n, after);
			if (pc.n && (pc.p < p || pc.p + pc.n > p + n))
				abort();
		}
		p += n + 1;
	}
	if (spe_dump_flush(&d, &done))
		check(&done);
	return 0;
}
