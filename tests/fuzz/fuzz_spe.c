/* libFuzzer target: ARM SPE text (parsers/spe.h) line by line: packet
 * dumps as records, and sample lines for their event and PC; a record's
 * strings stay NUL-terminated in their arrays. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "parsers/spe.h"
#include "tests/fuzz/fuzz_input.h"

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
	struct fuzz_lines it = fuzz_lines(data, size, false);
	const char *p;
	size_t n;
	while (fuzz_line(&it, &p, &n)) {
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
	}
	if (spe_dump_flush(&d, &done))
		check(&done);
	return 0;
}
