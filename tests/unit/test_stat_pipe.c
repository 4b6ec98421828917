/* Unit tests of stat_pipe: records read through the pipe reach the
 * consumer as they were (every field and string), in order, with the
 * reader's messages between the same records as without the pipe; and
 * stat_read_memory over a file's bytes reads what stat_read reads.
 * Each record is written to stderr as a line, so stderr is the one
 * sequence of records and messages. Prints TAP. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/diag.h"
#include "parsers/stat.h"
#include "parsers/stat_pipe.h"
#include "tests/unit/tap.h"


static void str(FILE *f, const char *s, int len)
{
	if (!s) {
		fputs("(null)|", f);
		return;
	}
	fprintf(f, "%s|", s);
	if (len >= 0 && (size_t)len != strlen(s))
		fputs("(bad length)|", f);
}

/* The record as one line on stderr (numbers bit for bit). */
static void record(void *ctx, const struct stat_record *r)
{
	(void)ctx;
	FILE *f = stderr;
	const double d[] = { r->interval, r->value, r->enabled_pct, r->variance_pct, r->metric_value };
	fprintf(f, "record %d %d %d %d %lu ", (int)r->kind, r->not_counted, r->not_supported, r->metric_decimals, r->line);
	for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
		unsigned long long bits;
		memcpy(&bits, &d[i], sizeof bits);
		fprintf(f, "%llx ", bits);
	}
	str(f, r->scope, r->len[0]);
	str(f, r->event, r->len[1]);
	str(f, r->unit, r->len[2]);
	str(f, r->metric_unit, r->len[3]);
	str(f, r->threshold, r->len[4]);
	str(f, r->file, -1);
	fputc('\n', f);
}

/* A file's bytes (NULL: it cannot be read). */
static char *file_bytes(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *s = NULL;
	size_t cap = 0;
	*len = 0;
	for (;;) {
		if (*len == cap)
			s = realloc(s, cap = cap ? 2 * cap : 4096);
		size_t got = fread(s + *len, 1, cap - *len, f);
		if (!got)
			break;
		*len += got;
	}
	bool failed = ferror(f);            /* a directory opens, and cannot be read */
	fclose(f);
	if (failed) {
		free(s);
		return NULL;
	}
	return s;
}

enum how { DIRECT, PIPE, MEMORY };

/* stderr of reading paths directly, through the pipe, or from memory */
static char *read_all(char **paths, int n, enum how how, size_t *len)
{
	char tmp[] = "/tmp/td-pipe-test-XXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0)
		abort();
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	struct stat_pipe *p = how == PIPE ? stat_pipe_start(record, NULL) : NULL;
	for (int i = 0; i < n; i++) {
		size_t size;
		char *bytes = how == MEMORY ? file_bytes(paths[i], &size) : NULL;
		if (bytes)
			stat_read_memory(bytes, size, paths[i], STAT_AUTO, record, NULL);
		else
			stat_read(paths[i], STAT_AUTO, p ? stat_pipe_emit : record, p);
		free(bytes);
	}
	if (p)
		stat_pipe_finish(p);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fopen(tmp, "rb");
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	rewind(f);
	char *s = malloc((size_t)size + 1);
	*len = fread(s, 1, (size_t)size, f);
	s[*len] = '\0';
	fclose(f);
	close(fd);
	unlink(tmp);
	return s;
}

static int add_dir(char ***paths, int n, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = malloc(strlen(dir) + strlen(e->d_name) + 2);
		sprintf(p, "%s/%s", dir, e->d_name);
		*paths = realloc(*paths, (size_t)(n + 1) * sizeof(char *));
		(*paths)[n++] = p;
	}
	if (d)
		closedir(d);
	return n;
}

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/td-pipe-in-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

int main(void)
{
	const char *root = getenv("TD_ROOT") ? getenv("TD_ROOT") : ".";
	const char *shared = getenv("TD_SHARED");
	char **paths = NULL, dir[4096];
	int n = 0;
	snprintf(dir, sizeof dir, "%s/testdata/stat", root);
	n = add_dir(&paths, n, dir);
	const char *sub[] = { "stat", "stat_csv", "stat_json", "stat_text", "stat_csv/local-kvm-amd-epyc-genoa_perf6.1_swevents" };
	for (size_t i = 0; shared && i < sizeof sub / sizeof *sub; i++) {
		snprintf(dir, sizeof dir, "%s/testdata/%s", shared, sub[i]);
		n = add_dir(&paths, n, dir);
	}
	/* messages between records: bad rows, a comma locale, a missing file */
	paths = realloc(paths, (size_t)(n + 3) * sizeof(char *));
	paths[n++] = write_tmp("     1.000,CPU0,100,,cycles,100,100.00,,\nnot a row\n     1.000,CPU1,200,,cycles,100,100.00,2.00,insn per cycle\n"
			       "a,b,c,d\n     2.000,CPU0,3,04,msec,task-clock,3040000,100,00,1,00,CPUs utilized\n"
			       ",,,,,,51.0,%  tma_frontend_bound,bad\n");
	paths[n++] = strdup("/nonexistent/td-pipe-test");
	paths[n++] = write_tmp("{\"counter-value\" : \"100\", \"event\" : \"cycles\", \"unit\" : \"\"}\n{ broken\n");

	size_t la, lb, lc;
	int same = 0, same_memory = 0;
	for (int i = 0; i < n; i++) {
		char *a = read_all(&paths[i], 1, DIRECT, &la), *b = read_all(&paths[i], 1, PIPE, &lb);
		char *c = read_all(&paths[i], 1, MEMORY, &lc);
		if (la == lb && memcmp(a, b, la) == 0 && la > 0)
			same++;
		else
			printf("# differs through the pipe: %s\n", paths[i]);
		if (la == lc && memcmp(a, c, la) == 0 && la > 0)
			same_memory++;
		else
			printf("# differs from memory: %s\n", paths[i]);
		free(a);
		free(b);
		free(c);
	}
	ok(same == n, "each file: records and messages through the pipe as without it");
	printf("# %d files\n", n);
	ok(same_memory == n, "each file: records and messages from its bytes in memory as from the file");
	char *a = read_all(paths, n, DIRECT, &la), *b = read_all(paths, n, PIPE, &lb);
	ok(la == lb && memcmp(a, b, la) == 0, "all files in one run: the same sequence");
	free(a);
	free(b);
	for (int i = 0; i < n; i++) {
		if (strncmp(paths[i], "/tmp/td-pipe-in-", 16) == 0)
			unlink(paths[i]);
		free(paths[i]);
	}
	free(paths);
	return tap_done();
}
