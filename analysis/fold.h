/* Folding stacks: samples in, "root;...;leaf COUNT" lines out, the way
 * stackcollapse-perf.pl names frames and sorts its output.
 *
 * Each distinct output frame name is interned once; a stack is the byte
 * string of its frame ids and is interned too, so counting a sample costs
 * one hash of a few ids. Strings are built only at output. */
#ifndef TD_FOLD_H
#define TD_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "parsers/perf_script.h"

struct fold_options {
	bool pid, tid, kernel, jit, addrs;
	bool exact_comm;             /* read the comm from the right */
	bool perl_compat;            /* stackcollapse-perf.pl's bytes: its comm rule, no one-line
					samples, record lines and an unterminated last sample as it reads them */
	const char *event_filter;    /* NULL: the first event seen */
	const char **skip_after;     /* cut the stack above these functions */
	int nskip_after;
	int threads;                 /* fold_write sorts and joins its lines on this many (0: 1) */
};

struct fold;

struct fold *fold_new(const struct fold_options *opts);
void fold_free(struct fold *f);

/* Feed perf script text one line at a time (CR and LF already removed).
 * file/lineno are for warnings only. */
void fold_line(struct fold *f, const char *line, size_t len, const char *file, unsigned long lineno);
/* The same for a run of whole lines at p (each ending with a newline but
 * perhaps the last; a CR before a newline is dropped), the first one being
 * line lineno; returns the number of lines. Unless td_plain(), a sample's
 * frame lines seen before, byte for byte, fold from a memo of what they
 * gave (the same ids, counts and notes as reading them again). */
size_t fold_text(struct fold *f, const char *p, size_t n, const char *file, unsigned long lineno);
/* A callchain frame the caller resolved itself (perf.data replay), in
 * place of the line "\t%16lx sym+0xOFF (dso)" perf script would print
 * (sym or dso NULL: "[unknown]"); folds to the same names. sym_id names
 * the (sym, dso) pair densely (0, 1, ...; one pair per id, not always
 * one id per pair): names are cached by it and by
 * the pointers, whose text must not change while the fold lives. */
void fold_resolved_frame(struct fold *f, const char *sym, uint64_t sym_off, const char *dso, uint64_t addr,
			 uint32_t sym_id);
/* perf.data replay: a sample header from its parts. fold_cached_header()
 * handles it if a header with the same comm, tid and event was seen
 * (false: fold its text line, then give it to fold_cache_header(), which
 * keeps the result when the line's parse depends on those parts alone). */
bool fold_cached_header(struct fold *f, const char *comm, int32_t tid, const char *event, uint64_t period);
void fold_cache_header(struct fold *f, const char *comm, int32_t tid, const char *event, const char *line, size_t len);
/* End of one input file: every stack is counted. A sample still open (the
 * input lacks the blank line after it) is kept, with a note; with
 * perl_compat it is dropped, as stackcollapse-perf.pl drops it. */
void fold_end_input(struct fold *f, const char *file, unsigned long lineno);

/* Sorted folded output. */
void fold_write(struct fold *f, FILE *out);
/* stderr notes: skipped events, malformed lines, share of [unknown]. */
void fold_report(const struct fold *f);

/* The event the default filter settled on (NULL before the first header). */
const char *fold_event(const struct fold *f);
/* Unrecognized lines read so far (merged ones included). The first
 * FOLD_MAX_WARNINGS a fold reads are each reported as read, with their
 * file:line: fold_text's and fold_line's only messages. */
#define FOLD_MAX_WARNINGS 10
uint64_t fold_malformed(const struct fold *f);
/* Merge another fold's counts into f (for per-thread folds). */
void fold_merge(struct fold *into, struct fold *from);

#endif
