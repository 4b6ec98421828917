/* ARM SPE (Statistical Profiling Extension) as perf prints it, the two
 * shapes that are not brstack entries (FORMATS.md §5):
 *
 * perf report -D / --dump-raw-trace, one packet a line, records ending at
 * TS (or END):
 *   .  00000000:  b0 f4 d3 29 10 00 80 ff a0     PC 0xff80001029d3f4 el1 ns=1
 *   .  0000000c:  98 0d 00                       LAT 13 TOT
 *   .  0000000f:  52 16 00                       EV RETIRED MISPRED NOT-TAKEN
 *   .  00000012:  4a 01                          B IND
 *   .  00000020:  ff ff                          Bad packet!
 *
 * perf script of the events perf synthesizes from SPE (branch-miss,
 * l1d-access, ...): an ordinary sample line whose event names them. */
#ifndef TD_SPE_H
#define TD_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include "parsers/perf_script.h"

/* One decoded SPE record of a dump. */
struct spe_record {
	bool branch;                 /* a B operation packet */
	bool mispred, not_taken;     /* EV MISPRED, EV NOT-TAKEN */
	unsigned long lat_total;     /* LAT n TOT (0: none) */
	char pc[24], tgt[24];        /* "0x..." as printed; "" when absent */
	char type[16];               /* "COND", "IND", "UNCOND" (a bare B), words joined by '_' */
};

struct spe_dump {
	struct spe_record cur;
	bool open;                   /* a packet of cur has been seen */
};

enum spe_dump_line {
	SPE_NOT_DUMP,                /* not a packet line */
	SPE_PACKET,                  /* a packet, added to the record being read */
	SPE_BAD_PACKET,              /* "Bad packet!": perf could not decode it */
	SPE_RECORD_END,              /* TS or END: *done holds the whole record */
};

/* One line of a dump; on SPE_RECORD_END the record is copied to *done and
 * a new one starts. */
enum spe_dump_line spe_dump_line(struct spe_dump *d, const char *line, size_t len, struct spe_record *done);
/* End of input: true (and *done set) when a record without TS was open. */
bool spe_dump_flush(struct spe_dump *d, struct spe_record *done);

/* The SPE event a perf script line names as a token "branch-miss:",
 * "l1d-access:" ... wherever -F put it (a static string), or NULL. *after is
 * the offset just past the event token. */
const char *spe_sample_event(const char *line, size_t len, size_t *after);

/* The code location of a synthesized sample: sym+0xoff when perf resolved
 * it, else the instruction address (the hex number a symbol or dso follows;
 * without one, the ip among -F addr,ip,phys_addr). n == 0: none found. */
struct td_span spe_sample_pc(const char *line, size_t len, size_t after);

#endif
