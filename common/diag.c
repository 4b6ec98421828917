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

#define MESSAGE_MAX 4096          /* a message's bytes, newline included */

/* "tool: FILE:LINE: " (the parts there are) at buf; its length. */
static size_t prefix_text(char *buf, const char *file, unsigned long line)
{
	int n;
	if (file && line)
		n = snprintf(buf, MESSAGE_MAX, "%s: %s:%lu: ", td_progname, file, line);
	else if (file)
		n = snprintf(buf, MESSAGE_MAX, "%s: %s: ", td_progname, file);
	else
		n = snprintf(buf, MESSAGE_MAX, "%s: ", td_progname);
	return n < 0 || (size_t)n >= MESSAGE_MAX ? 0 : (size_t)n;
}

/* buf holds the prefix (n bytes) and the text after it (m bytes, perhaps
 * more than fit): the line, cut to MESSAGE_MAX, goes out in one write, so
 * threads never interleave within a line. */
static void deliver(char *buf, const char *file, unsigned long line, size_t n, size_t m, bool fatal)
{
	size_t len = n + m;
	if (len > MESSAGE_MAX - 2)
		len = MESSAGE_MAX - 2;
	buf[len++] = '\n';
	if (capture && !fatal) {
		size_t at = n < len - 1 ? n : len - 1;      /* a prefix past MESSAGE_MAX is cut too */
		struct td_diag_record r = { file, line, buf + at, len - 1 - at, buf, len };
		capture(capture_ctx, &r);
	} else {
		fwrite(buf, 1, len, stderr);
	}
}

static void vreport(const char *file, unsigned long line, const char *fmt, va_list ap, bool fatal)
{
	char buf[MESSAGE_MAX];
	size_t n = prefix_text(buf, file, line);
	int m = vsnprintf(buf + n, MESSAGE_MAX - n - 1, fmt, ap);
	deliver(buf, file, line, n, m < 0 ? 0 : (size_t)m, fatal);
}

void td_diag_emit(const char *file, unsigned long line, const char *text, size_t text_len)
{
	char buf[MESSAGE_MAX];
	size_t n = prefix_text(buf, file, line);
	size_t room = n < MESSAGE_MAX - 2 ? MESSAGE_MAX - 2 - n : 0;
	size_t m = text_len < room ? text_len : room;
	memcpy(buf + n, text, m);
	deliver(buf, file, line, n, m, false);
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

/* Zeroed memory whose pages are already written. A fresh block from
 * calloc is mapped on first touch, and a hash table's first touch is a
 * probe, a read: the page then maps the shared zero page, and the write
 * that follows faults again to replace it. With a second thread running,
 * that replacement flushes the other CPU's TLB by an interrupt. Writing
 * one byte per page here maps each page once, writable. */
void *td_calloc(size_t n, size_t size)
{
	n = n ? n : 1;
	size = size ? size : 1;
	void *p = calloc(n, size);
	if (!p)
		td_die("out of memory");
	size_t bytes = n * size;           /* calloc checked the product */
	if (bytes >= TD_TOUCH_FROM)
		for (size_t at = 0; at < bytes; at += 4096)
			((volatile char *)p)[at] = 0;
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
