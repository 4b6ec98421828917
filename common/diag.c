#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"

const char *td_progname = "td";
int td_quiet;
static _Atomic unsigned long bad_inputs;

static _Thread_local td_diag_capture_fn capture;
static _Thread_local void *capture_ctx;

void td_diag_capture(td_diag_capture_fn fn, void *ctx)
{
	capture = fn;
	capture_ctx = ctx;
}

/* One write per message, so threads never interleave within a line. */
static void vreport(const char *file, unsigned long line, const char *fmt, va_list ap, bool fatal)
{
	char buf[4096];
	int n;
	if (file && line)
		n = snprintf(buf, sizeof buf, "%s: %s:%lu: ", td_progname, file, line);
	else if (file)
		n = snprintf(buf, sizeof buf, "%s: %s: ", td_progname, file);
	else
		n = snprintf(buf, sizeof buf, "%s: ", td_progname);
	if (n < 0 || (size_t)n >= sizeof buf)
		n = 0;
	int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	size_t len = m < 0 ? (size_t)n : (size_t)n + (size_t)m;
	if (len > sizeof buf - 2)
		len = sizeof buf - 2;
	buf[len++] = '\n';
	if (capture && !fatal)
		capture(capture_ctx, buf, len);
	else
		fwrite(buf, 1, len, stderr);
}

void td_bad_input(const char *file, unsigned long line, const char *fmt, ...)
{
	va_list ap;
	bad_inputs++;
	va_start(ap, fmt);
	vreport(file, line, fmt, ap, false);
	va_end(ap);
}

void td_warn(const char *file, unsigned long line, const char *fmt, ...)
{
	va_list ap;
	if (td_quiet)
		return;
	va_start(ap, fmt);
	vreport(file, line, fmt, ap, false);
	va_end(ap);
}

void td_error(const char *fmt, ...)
{
	va_list ap;
	bad_inputs++;
	va_start(ap, fmt);
	vreport(NULL, 0, fmt, ap, false);
	va_end(ap);
}

void td_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(NULL, 0, fmt, ap, true);
	va_end(ap);
	exit(TD_EXIT_BAD);
}

unsigned long td_bad_input_count(void) { return bad_inputs; }

int td_exit_code(int result)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: error writing output\n", td_progname);
		return TD_EXIT_BAD;
	}
	return bad_inputs ? TD_EXIT_BAD : result;
}

void *td_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		td_die("out of memory (%zu bytes)", n);
	return p;
}

void *td_realloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		td_die("out of memory (%zu bytes)", n);
	return p;
}

void *td_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		td_die("out of memory");
	return p;
}

void *td_calloc_aligned(size_t align, size_t size)
{
	size = (size + align - 1) & ~(align - 1);    /* aligned_alloc asks for a multiple */
	void *p = aligned_alloc(align, size ? size : align);
	if (!p)
		td_die("out of memory");
	return memset(p, 0, size);
}

char *td_strndup(const char *s, size_t n)
{
	char *p = td_malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}
