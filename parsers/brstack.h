/* Branch-stack entries as perf script prints them (-F brstack, brstacksym,
 * brstackoff, and SPE's --itrace=bl), every era:
 *
 *   FROM/TO/PRED/INTX/ABORT/CYCLES[/TYPE[/SPEC[/future...]]]
 *
 * FROM and TO are 0x addresses, sym+0xoff or [unknown], optionally with a
 * "(dso)" suffix (whose path may hold '/'). PRED is P, M, - (no
 * prediction information), PN or MN (SPE: not taken). */
#ifndef TD_BRSTACK_H
#define TD_BRSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "parsers/perf_script.h"

enum br_prediction { BR_PREDICTED, BR_MISPREDICTED, BR_NO_INFO };

struct br_entry {
	struct td_span from, to;       /* as printed, dso suffix included */
	enum br_prediction pred;
	bool not_taken;                /* PN / MN */
	bool in_tx, abort;
	unsigned long cycles;          /* 0: the hardware gave none */
	struct td_span type;           /* "COND", "IND_CALL" ... (n == 0: unknown) */
	struct td_span spec;           /* "NON_SPEC_CORRECT_PATH" ... */
	bool empty;                    /* 0x0/0x0: an unused LBR slot */
};

enum br_parse { BR_NOT_ENTRY, BR_OK, BR_BAD };

/* One whitespace-free token. BR_BAD sets *why to a static message. */
enum br_parse brstack_parse_entry(const char *p, size_t n, struct br_entry *e, const char **why);

/* The shape nearly every LBR entry has, 0xFROM/0xTO/PRED/INTX/ABORT/CYCLES
 * with an optional trailing '/', PRED one of P, M or -, both addresses in
 * perf's own spelling (see brstack_plain_address), read in one pass with the
 * addresses as numbers. brstack_parse_entry() reads such an entry the same
 * (type and spec unknown, taken), INTX and ABORT aside, which are not kept. */
struct br_plain {
	uint64_t from, to;              /* the addresses' values */
	const char *text;               /* FROM as printed; TO at text + from_n + 1 */
	uint8_t from_n, to_n;
	uint8_t pred;                   /* enum br_prediction */
	uint32_t cycles;                /* 0: none */
};

/* p[0..n) may run on past the entry, which must end at n or at a blank.
 * Returns the entry's length with *e set; 0 for any other shape, which
 * brstack_parse_entry() then judges. */
size_t brstack_scan_plain(const char *p, size_t n, struct br_plain *e);

/* "0x" and 1 to 16 lowercase hex digits without a leading zero, as perf
 * prints addresses: such a text and its value (*v) name each other one to
 * one, so a value can stand for the text. */
bool brstack_plain_address(struct td_span s, uint64_t *v);

/* perf script prints brstacksym's first entry right after the field before
 * it, without a blank:
 *   " ffffffffb42071f2[unknown]/[unknown]/P/-/-/4/"                       -F ip,brstacksym
 *   " ffffffffb4209891 [unknown][unknown]/[unknown]/P/-/-/1/"             -F ip,sym,brstacksym
 *   " ffffffffb4209891 [unknown] ([kernel.kallsyms])[unknown]([kernel.kallsyms])/..."
 *                                                                         -F ip,sym,dso,brstacksym
 * brstack_glued_ip: the length of such a hex ip prefix, or 0. */
size_t brstack_glued_ip(const char *p, size_t n);
/* The same for a line's first token after `blanks` blanks (-F ip,brstacksym):
 * perf prints the ip as " %16lx", so its digits are 17 - blanks of the
 * token's hex run, and a symbol starting with a hex letter ("abort+0x4",
 * "do_syscall_64+0x5d") is told from the ip by where the padding puts its
 * end. 0 when the blanks and the hex run do not fit that layout. */
size_t brstack_glued_ip_padded(const char *p, size_t n, size_t blanks);
/* The length of the sample's "(dso)" glued to the front of the entry p, or 0. */
size_t brstack_glued_dso(const char *p, size_t n);
/* The length of the sample's symbol glued to the front of the entry p (the
 * token after the sample's ip), or 0 when it cannot be told from the entry's
 * source. It can be told when either is [unknown], or when the symbol is the
 * function of the entry's target (the sample's ip follows that target) and
 * what remains is one "name+0xoff". */
size_t brstack_glued_sym(const char *p, size_t n);

#endif
