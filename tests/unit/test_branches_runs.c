/* Reading runs of lines on two threads (branches_lines) ranks exactly as
 * reading the same lines one at a time (branches_line): the fuzz seeds and
 * the shared captures, whole, cut into runs at many places, and spliced
 * into one another so a run's second half starts on every kind of line
 * (sample headers left open, entries continuing a sample, SPE dumps,
 * malformed entries); their warnings too, in the same order. Prints TAP. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/branches.h"
#include "common/diag.h"

static int ntest, nfail;

static void ok(int cond, const char *what, const char *name)
{
	ntest++;
	nfail += !cond;
	printf("%sok %d - %s: %s\n", cond ? "" : "not ", ntest, name, what);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0, got;
	char *p = malloc(cap);
	while ((got = fread(p + len, 1, cap - len, f)) > 0)
		if ((len += got) == cap)
			p = realloc(p, cap *= 2);
	fclose(f);
	*n = len;
	return p;
}

/* The reference: one line at a time, as td_input_next hands them out. */
static struct branches *by_line(const char *p, size_t n)
{
	struct branches *b = branches_new();
	unsigned long lineno = 1;
	for (size_t at = 0; at < n;) {
		const char *nl = memchr(p + at, '\n', n - at);
		size_t len = nl ? (size_t)(nl - p - at) : n - at, next = at + len + (nl != NULL);
		if (len && p[at + len - 1] == '\r')
			len--;
		branches_line(b, p + at, len, "t", lineno++);
		at = next;
	}
	branches_end_input(b);
	return b;
}

/* Runs cut after every cut-th line (0: one run), each split in two. */
static struct branches *by_runs(const char *p, size_t n, unsigned cut)
{
	struct branches *b = branches_new();
	branches_split_min(b, 1);
	unsigned long lineno = 1;
	for (size_t at = 0; at < n;) {
		size_t end = at;
		for (unsigned k = 0; end < n && (cut == 0 || k < cut); k++) {
			const char *nl = memchr(p + end, '\n', n - end);
			end = nl ? (size_t)(nl - p) + 1 : n;
		}
		lineno += branches_lines(b, p + at, end - at, "t", lineno);
		at = end;
	}
	branches_end_input(b);
	return b;
}

/* The warnings written since offset *at (stderr goes to a file). */
static char *warnings(off_t *at)
{
	off_t end = lseek(2, 0, SEEK_END);
	char *w = calloc(1, (size_t)(end - *at) + 1);
	if (pread(2, w, (size_t)(end - *at), *at) != end - *at)
		abort();
	*at = end;
	return w;
}

static bool same_num(double a, double c) { return (isnan(a) && isnan(c)) || a == c; }

static bool same(struct branches *a, struct branches *c)
{
	if (memcmp(branches_totals(a), branches_totals(c), sizeof(struct br_totals)))
		return false;
	for (int g = BR_BY_PAIR; g <= BR_BY_FUNC; g++)
		for (int s = BR_SORT_MISPREDICTED; s <= BR_SORT_COUNT; s++) {
			const struct br_row *ra, *rc;
			int na = branches_rank(a, (enum br_group)g, (enum br_sort)s, 0, &ra);
			int nc = branches_rank(c, (enum br_group)g, (enum br_sort)s, 0, &rc);
			if (na != nc)
				return false;
			for (int i = 0; i < na; i++)
				if (strcmp(ra[i].from, rc[i].from) || strcmp(ra[i].to, rc[i].to) ||
				    strcmp(ra[i].type, rc[i].type) || strcmp(ra[i].cause, rc[i].cause) ||
				    ra[i].count != rc[i].count || ra[i].mispredicted != rc[i].mispredicted ||
				    ra[i].no_info != rc[i].no_info || ra[i].not_taken != rc[i].not_taken ||
				    !same_num(ra[i].rate, rc[i].rate) || !same_num(ra[i].cycles_mean, rc[i].cycles_mean) ||
				    !same_num(ra[i].cycles_median, rc[i].cycles_median))
					return false;
		}
	return true;
}

/* Read as runs cut after every cut-th line: the same ranking and warnings as line by line. */
static bool same_by_runs(const char *p, size_t n, const unsigned *cuts, size_t ncuts)
{
	off_t at = lseek(2, 0, SEEK_END);
	struct branches *ref = by_line(p, n);
	char *ref_warnings = warnings(&at);
	bool all = true;
	for (size_t i = 0; i < ncuts; i++) {
		struct branches *b = by_runs(p, n, cuts[i]);
		char *w = warnings(&at);
		all &= same(ref, b) && !strcmp(w, ref_warnings);
		free(w);
		branches_free(b);
	}
	free(ref_warnings);
	branches_free(ref);
	return all;
}

static void check(const char *name, const char *p, size_t n)
{
	static const unsigned cuts[] = { 0, 1, 3, 7, 64, 1000 };
	ok(same_by_runs(p, n, cuts, n < 100000 ? 6 : 1), "runs on two threads rank and warn as lines one by one", name);
}

struct file {
	char name[512];
	char *p;
	size_t n;
};

static int add_dir(struct file *f, int nf, int cap, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && nf < cap && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(f[nf].name, sizeof f[nf].name, "%s/%s", dir, e->d_name);
			if ((f[nf].p = slurp(f[nf].name, &f[nf].n)))
				nf++;
		}
	if (d)
		closedir(d);
	return nf;
}

int main(void)
{
	char err[] = "/tmp/td-branches-runs-XXXXXX";
	int fd = mkstemp(err);
	if (fd < 0 || dup2(fd, 2) < 0)
		return 2;
	unlink(err);
	const char *root = getenv("TD_ROOT"), *shared = getenv("TD_SHARED");
	char dir[512];
	struct file f[64];
	int nf = 0;
	snprintf(dir, sizeof dir, "%s/tests/fuzz/seeds/brstack", root ? root : ".");
	nf = add_dir(f, nf, 64, dir);
	int nseeds = nf;
	if (shared) {
		snprintf(dir, sizeof dir, "%s/testdata/brstack", shared);
		nf = add_dir(f, nf, 64, dir);
		snprintf(dir, sizeof dir, "%s/testdata/spe", shared);
		nf = add_dir(f, nf, 64, dir);
	}
	ok(nseeds > 0, "fuzz seeds found", dir);
	for (int i = 0; i < nf; i++)
		check(f[i].name, f[i].p, f[i].n);
	/* every small input spliced between the halves of every other, at a line */
	char *buf = NULL;
	bool all = true;
	for (int i = 0; i < nf; i++)
		for (int j = 0; j < nf; j++) {
			if (f[i].n + f[j].n > 200000 || i == j)
				continue;
			const char *nl = memchr(f[i].p + f[i].n / 2, '\n', f[i].n - f[i].n / 2);
			size_t head = nl ? (size_t)(nl - f[i].p) + 1 : f[i].n;
			buf = realloc(buf, f[i].n + f[j].n + 1);
			memcpy(buf, f[i].p, head);
			memcpy(buf + head, f[j].p, f[j].n);
			size_t n = head + f[j].n;
			if (f[j].n && f[j].p[f[j].n - 1] != '\n')
				buf[n++] = '\n';
			memcpy(buf + n, f[i].p + head, f[i].n - head);
			n += f[i].n - head;
			static const unsigned cuts[] = { 0, 4 };
			all &= same_by_runs(buf, n, cuts, 2);
		}
	ok(all, "every input spliced into every other", "spliced");
	free(buf);
	for (int i = 0; i < nf; i++)
		free(f[i].p);
	printf("1..%d\n", ntest);
	return nfail != 0;
}
