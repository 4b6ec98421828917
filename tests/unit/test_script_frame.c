/* script_parse_frame() (16 bytes at a time) against
 * script_parse_frame_plain() (byte loops): the same verdict and the same
 * three spans on every line: frame lines of every shape perf prints, each
 * byte value at each position of them, and random lines made of the
 * characters the parse turns on (blanks of each kind, word characters,
 * '(', ')', '+', '-', '>', high bytes), of lengths around the 16-byte
 * steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parsers/perf_script.h"
#include "tests/unit/tap.h"

static int same_span(struct td_span a, struct td_span b) { return a.p == b.p && a.n == b.n; }

/* 1 when both parses agree on line[0..n) */
static int agree(const char *line, size_t n)
{
	struct script_frame a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	/* copied to the heap at its exact length: ASan sees any read past it */
	char *copy = malloc(n ? n : 1);
	memcpy(copy, line, n);
	bool fa = script_parse_frame(copy, n, &a), fb = script_parse_frame_plain(copy, n, &b);
	int ok_ = fa == fb && (!fa || (same_span(a.pc, b.pc) && same_span(a.sym, b.sym) && same_span(a.dso, b.dso)));
	if (!ok_)
		fprintf(stderr, "# differ (%d/%d) on [%.*s]\n", fa, fb, (int)n, line);
	free(copy);
	return ok_;
}

static const char *const shapes[] = {
	"\t    7f2c1a2b func+0x1f (/usr/lib/libc.so.6)",
	"\tffffffff8225a6c1 do_syscall_64+0x71 ([kernel.kallsyms])",
	"\t            5729 [unknown] (/usr/bin/sha256sum)",
	"\t    7f0ee8c94000 [unknown] ([unknown])",
	"\t          2ba754 visit_decref+0x4 (/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0)",
	"\t  401136 main+0x16 (/tmp/a (copy)/prog)",
	"\t  401136 std::vector<int, std::allocator<int> >::push_back(int const&)+0x1c (/tmp/a.out)",
	"\t  401136 (anonymous namespace)::f()+0x1 (/tmp/x)",
	"\t  401136 a->b->c (inlined)",
	"\t  401136  (/tmp/x)",
	"\t  401136 x ()",
	"\t 401136 x(",
	"\t 401136 x)",
	"  \t\v\f\r 401136 \t x \t (y)",
	"401136 x (y)",
	"\t 4011_36 x (y) (z)",
	"\t (x)",
	"\t 1 (x)",
	"\t 1  (x)",
	"\t1 a (b",
	"\tffffffffffffffff1 x (y)",
	"\tffffffff8225a6c1  x (y)",
	"\t               1 x (y)",
	"\t                 x (y)",
	"\tffffffff8225a6c1 (y)",
	"\tffffffff8225a6c1 x",
	"",
	" ",
	"\t                                        ",
};

int main(void)
{
	int bad = 0, total = 0;
	for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
		total++;
		bad += !agree(shapes[s], strlen(shapes[s]));
	}
	ok(bad == 0, "the fast and plain frame parses agree on frame lines of every shape");

	/* every byte value at every position of each shape */
	bad = 0;
	char line[512];
	for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
		size_t n = strlen(shapes[s]);
		for (size_t at = 0; at < n; at++)
			for (int c = 0; c < 256; c++) {
				memcpy(line, shapes[s], n);
				line[at] = (char)c;
				total++;
				bad += !agree(line, n);
			}
	}
	ok(bad == 0, "... and with each byte value put at each position of them");

	/* random lines over the characters that matter */
	static const char alphabet[] = " \t\v\f\r\n09afAFzZ_x+->()[]/.:\x80\xff";
	srand(19);
	bad = 0;
	for (int r = 0; r < 300000; r++) {
		size_t n = (size_t)(rand() % 70);
		int lead = rand() % 20;   /* a run of blanks, then hex, as perf prints */
		for (size_t i = 0; i < n; i++)
			line[i] = (int)i < lead ? (rand() % 4 ? ' ' : '\t')
				: (int)i < lead + 8 ? "0123456789abcdef"[rand() % 16]
				: alphabet[rand() % (int)(sizeof alphabet - 1)];
		total++;
		bad += !agree(line, n);
	}
	ok(bad == 0, "... and on 300,000 random lines of blanks, word characters, parentheses and high bytes");
	printf("# %d lines compared\n", total);
	return tap_done();
}
