/* common/diag.c: a captured message is a record of its parts, and
 * td_diag_emit says a record, with any line number, in the very bytes the
 * message made with that number is said: what fold_threads relies on when
 * it moves a chunk's line numbers to the input's. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "tests/unit/tap.h"

struct kept {
	char file[64], text[8192], whole[8192];
	bool has_file;
	unsigned long line;
	size_t text_len, whole_len;
};

static void keep(void *ctx, const struct td_diag_record *r)
{
	struct kept *k = ctx;
	k->has_file = r->file != NULL;
	if (r->file)
		snprintf(k->file, sizeof k->file, "%s", r->file);
	k->line = r->line;
	memcpy(k->text, r->text, r->text_len);
	k->text_len = r->text_len;
	memcpy(k->whole, r->whole, r->whole_len);
	k->whole_len = r->whole_len;
}

/* The bytes td_bad_input(file, line, "%s", text) says. */
static void said(struct kept *k, const char *file, unsigned long line, const char *text)
{
	td_diag_capture(keep, k);
	td_bad_input(file, line, "%s", text);
	td_diag_capture(NULL, NULL);
}

/* The bytes td_diag_emit says for k's text at line. */
static void emitted(struct kept *out, const struct kept *k, const char *file, unsigned long line)
{
	td_diag_capture(keep, out);
	td_diag_emit(file, line, k->text, k->text_len);
	td_diag_capture(NULL, NULL);
}

int main(void)
{
	td_progname = "td-test";
	struct kept a, b, c;
	said(&a, "in.txt", 7, "unrecognized line; ignored");
	ok(a.has_file && strcmp(a.file, "in.txt") == 0 && a.line == 7, "a record names its file and line");
	ok(a.text_len == strlen("unrecognized line; ignored") && memcmp(a.text, "unrecognized line; ignored", a.text_len) == 0,
	   "... its text without prefix or newline");
	ok(a.whole_len == strlen("td-test: in.txt:7: unrecognized line; ignored\n") &&
	   memcmp(a.whole, "td-test: in.txt:7: unrecognized line; ignored\n", a.whole_len) == 0,
	   "... and the whole line stderr would have had");

	/* moved: line 7 of a chunk that starts at line 1000001 */
	emitted(&b, &a, "in.txt", 1000007);
	said(&c, "in.txt", 1000007, "unrecognized line; ignored");
	ok(b.whole_len == c.whole_len && memcmp(b.whole, c.whole, b.whole_len) == 0,
	   "emitted at another line: the bytes of the message made there");
	emitted(&b, &a, NULL, 0);
	ok(b.whole_len == strlen("td-test: unrecognized line; ignored\n") && !b.has_file && b.line == 0,
	   "without file and line: no location");

	/* a text that fills the line: cut where the message made with the
	 * longer number is cut */
	static char longtext[6000];
	memset(longtext, 'x', sizeof longtext - 1);
	said(&a, "in.txt", 3, longtext);
	emitted(&b, &a, "in.txt", 123456789);
	said(&c, "in.txt", 123456789, longtext);
	ok(c.whole_len == 4095 && c.whole[c.whole_len - 1] == '\n', "a long message is cut to 4095 bytes with its newline");
	ok(b.whole_len == c.whole_len && memcmp(b.whole, c.whole, b.whole_len) == 0,
	   "... and a moved one the same way");
	return tap_done();
}
