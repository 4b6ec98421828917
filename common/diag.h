/* Diagnostics shared by every tool: "tool: FILE:LINE: message" on stderr,
 * counted, so every main ends with the same exit-code rule:
 * 0 fine, 1 a "regression found"-style result, 2 bad input or usage. */
#ifndef TD_DIAG_H
#define TD_DIAG_H

#include <stdarg.h>

enum { TD_EXIT_OK = 0, TD_EXIT_FOUND = 1, TD_EXIT_BAD = 2 };

extern const char *td_progname;
extern int td_quiet;            /* -q: suppress warnings that are not errors */

/* A problem with the input at FILE:LINE (line 0 omits it). Counted as bad input. */
void td_bad_input(const char *file, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A note that does not make the run fail (suppressed by -q). */
void td_warn(const char *file, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Usage or system error without a location; counted as bad input. */
void td_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Fatal: print and exit 2 (out of memory, cannot write output). */
void td_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A message in parts: file (NULL: none) and line (0: none) as given, text
 * the message after its "tool: FILE:LINE: " prefix (no newline), and the
 * whole line that would have been written, newline included. Valid only
 * during the capture call. */
struct td_diag_record {
	const char *file;
	unsigned long line;
	const char *text;
	size_t text_len;
	const char *whole;
	size_t whole_len;
};

/* This thread's messages (bad input, warnings, errors; not td_die's) go
 * to fn as records instead of to stderr: a reader on one thread hands them
 * to another that prints them in order with its own, moving their line
 * numbers if it must, with td_diag_emit. NULL: stderr again. */
typedef void (*td_diag_capture_fn)(void *ctx, const struct td_diag_record *r);
void td_diag_capture(td_diag_capture_fn fn, void *ctx);
/* Says a message (file, line, text as in a record) as one made here would
 * be said: the same bytes on stderr, or to this thread's capture. Not
 * counted again. */
void td_diag_emit(const char *file, unsigned long line, const char *text, size_t text_len);

unsigned long td_bad_input_count(void);
/* Exit code for a run whose result was otherwise RESULT (0 or 1). */
int td_exit_code(int result);

void *td_malloc(size_t n);
void *td_realloc(void *p, size_t n);
/* Zeroed; a block of TD_TOUCH_FROM bytes or more comes with every page
 * already written (a table probed before it is filled maps each page
 * once: see diag.c). */
#define TD_TOUCH_FROM (64u << 10)
void *td_calloc(size_t n, size_t size);
/* size zeroed bytes at a multiple of align (a power of two), for a struct
 * whose fields are grouped on cache lines (_Alignas); free() frees it. */
void *td_calloc_aligned(size_t align, size_t size);
char *td_strndup(const char *s, size_t n);

#endif
