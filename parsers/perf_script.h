/* perf script text: the two kinds of line a callchain dump is made of.
 *
 *   comm pid/tid [cpu] time: period event:        <- sample header
 *   \t    7f2c1a2b func+0x1f (/usr/lib/libc.so.6)  <- frame, leaf first
 *
 * The header is read the way stackcollapse-perf.pl reads it (comm is the
 * shortest prefix followed by a pid), so folded output matches it byte for
 * byte, with one exception: a one-character comm ("w 10197 569.98: ...")
 * is read as such. The perl regex wants two characters at least, so it
 * takes "w 10197 569.98:" as the comm and the period's digits as the pid;
 * script_parse_header_perl() keeps that rule for byte-identity.
 * script_parse_header_exact() reads the comm from the right instead, so a
 * comm with spaces ("worker 1") stays whole. */
#ifndef TD_PERF_SCRIPT_H
#define TD_PERF_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct td_span {
	const char *p;
	size_t n;
};

struct script_header {
	struct td_span comm, pid, tid;   /* pid.n == 0: no pid/tid pair ("comm-?") */
	struct td_span event;            /* n == 0: the line does not end in "event:" */
	uint64_t period;                 /* 1 when absent or 0 */
};

struct script_frame {
	struct td_span pc, sym, dso;     /* sym may hold "a->b" inline chains */
};

bool script_parse_header(const char *line, size_t len, struct script_header *h);
bool script_parse_header_perl(const char *line, size_t len, struct script_header *h);
bool script_parse_header_exact(const char *line, size_t len, struct script_header *h);
/* The event and period of a header line (h's other fields are left): what
 * the parsers above set them to once the line's comm and pid are read. */
void script_parse_event(const char *line, size_t len, struct script_header *h);
bool script_parse_frame(const char *line, size_t len, struct script_frame *f);
/* The same answer from byte loops alone: what script_parse_frame() is
 * checked against, and what it runs under TD_PLAIN=1 (common/plain.h). */
bool script_parse_frame_plain(const char *line, size_t len, struct script_frame *f);
/* A side-band record perf script prints between samples with
 * --show-task-events, --show-mmap-events and the like; not a sample:
 *   "sh 28671 391.907511: PERF_RECORD_FORK(28896:28896):(28671:28671)"
 *   "ls 28896 391.913263: PERF_RECORD_COMM exec: ls:28896/28896" */
bool script_is_record(const char *line, size_t len);
/* A sample recorded without -g: header and its one frame on a single line
 * ("  comm pid time: period event:  ip sym+off (dso)"). */
bool script_parse_one_line(const char *line, size_t len, bool exact,
			   struct script_header *h, struct script_frame *f);

#endif
