/* Unit tests of the input layer: line splitting, CRLF, long lines, gzip,
 * zstd, binary data, unterminated last line. Prints TAP. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "common/diag.h"
#include "common/input.h"
#include "tests/unit/tap.h"


static char *write_tmp(const void *data, size_t len)
{
	char *path = strdup("/tmp/td-input-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

/* Concatenate all lines of in with '|' after each, and close it; returns
 * line count. */
static int slurp_input(struct td_input *in, char *out, size_t cap, int *failed)
{
	const char *l;
	size_t n, used = 0;
	int count = 0;
	while (td_input_next(in, &l, &n)) {
		if (used + n + 2 < cap) {
			memcpy(out + used, l, n);
			used += n;
			out[used++] = '|';
		}
		count++;
	}
	out[used] = '\0';
	*failed = td_input_failed(in);
	td_input_close(in);
	return count;
}

static int slurp_lines(const char *path, char *out, size_t cap, int *failed)
{
	return slurp_input(td_input_open(path), out, cap, failed);
}

static void test_plain(void)
{
	char out[256];
	int failed;
	char *p = write_tmp("a\nbb\r\n\nccc", 10);
	int n = slurp_lines(p, out, sizeof out, &failed);
	ok(n == 4 && strcmp(out, "a|bb||ccc|") == 0 && !failed, "plain lines, CRLF, blank, unterminated last");
	unlink(p);
	free(p);
	p = write_tmp("", 0);
	ok(slurp_lines(p, out, sizeof out, &failed) == 0 && !failed, "empty file has no lines");
	unlink(p);
	free(p);
}

static void test_binary(void)
{
	char out[256];
	int failed;
	char *p = write_tmp("ok\nalso\nbad\0x\nnever\n", 20);
	int n = slurp_lines(p, out, sizeof out, &failed);
	ok(n == 2 && strcmp(out, "ok|also|") == 0 && failed, "NUL stops at its line, lines before it kept");
	unlink(p);
	free(p);
}

static void test_long_line(void)
{
	size_t big = 5u << 20;
	char *data = malloc(big + 3);
	memset(data, 'x', big);
	memcpy(data + big, "\ny", 2);
	char *p = write_tmp(data, big + 2);
	struct td_input *in = td_input_open(p);
	const char *l;
	size_t n;
	ok(td_input_next(in, &l, &n) && n == big, "5 MiB line in one piece");
	ok(td_input_next(in, &l, &n) && n == 1 && l[0] == 'y', "line after it");
	ok(td_input_last_unterminated(in), "unterminated last line flagged");
	td_input_close(in);
	unlink(p);
	free(p);
	free(data);
}

static void test_gzip_zstd(void)
{
	const char *text = "line one\nline two\n";
	char out[256];
	int failed;
	unsigned char gz[256];
	z_stream z = { 0 };
	deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (Bytef *)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = gz;
	z.avail_out = sizeof gz;
	deflate(&z, Z_FINISH);
	size_t gzlen = sizeof gz - z.avail_out;
	deflateEnd(&z);
	char *p = write_tmp(gz, gzlen);
	ok(slurp_lines(p, out, sizeof out, &failed) == 2 && strcmp(out, "line one|line two|") == 0,
	   "gzip detected by magic and decompressed");
	unlink(p);
	free(p);

	unsigned char zs[256];
	size_t zlen = ZSTD_compress(zs, sizeof zs, text, strlen(text), 3);
	p = write_tmp(zs, zlen);
	ok(slurp_lines(p, out, sizeof out, &failed) == 2 && strcmp(out, "line one|line two|") == 0,
	   "zstd detected by magic and decompressed");
	unlink(p);
	free(p);

	p = write_tmp(gz, gzlen / 2);
	slurp_lines(p, out, sizeof out, &failed);
	ok(strncmp(out, "line", 4) == 0 || out[0] == '\0', "truncated gzip does not crash");
	unlink(p);
	free(p);
}

static void test_peek_perfdata(void)
{
	char *p = write_tmp("PERFILE2\x68\0\0\0", 12);
	struct td_input *in = td_input_open(p);
	ok(td_input_is_perf_data(in), "perf.data recognised by magic");
	td_input_close(in);
	unlink(p);
	free(p);
}

/* Runs of whole lines (td_input_next_lines), then lines as usual. */
static void test_runs(void)
{
	char *p = write_tmp("a\nbb\r\nccc\nbad\0x\nnever\n", 23);
	struct td_input *in = td_input_open(p);
	const char *run, *l;
	size_t n = td_input_next_lines(in, 4, &run);
	ok(n == 10 && !memcmp(run, "a\nbb\r\nccc\n", 10), "a run ends after a newline, stops before a NUL's line, keeps CRs");
	td_input_count_lines(in, 3);
	ok(td_input_next_lines(in, 4, &run) == 0, "nothing more in runs at the NUL's line");
	ok(!td_input_next(in, &l, &n) && td_input_failed(in) && td_input_lineno(in) == 4,
	   "td_input_next reports it, counted lines on");
	td_input_close(in);
	unlink(p);
	free(p);

	size_t big = 3u << 20;
	char *data = malloc(big + 8);
	memcpy(data, "x\n", 2);
	memset(data + 2, 'y', big);
	memcpy(data + 2 + big, "\nz", 3);
	p = write_tmp(data, big + 4);
	in = td_input_open(p);
	ok(td_input_next_lines(in, 1, &run) == 2, "a short run as asked");
	n = td_input_next_lines(in, 16, &run);
	ok(n == big + 1 && run[0] == 'y' && run[big] == '\n', "a line longer than asked for, whole");
	n = td_input_next_lines(in, 16, &run);
	ok(n == 1 && run[0] == 'z', "the unterminated last line");
	ok(td_input_next_lines(in, 16, &run) == 0 && !td_input_next(in, &l, &n) && !td_input_failed(in), "then the end");
	td_input_close(in);
	unlink(p);
	free(p);
	free(data);
}

/* td_input_open_memory: the lines, the binary data and the end as from a
 * file of the same bytes; gzip and zstd decompressed. */
static void test_memory(void)
{
	static const struct { const char *bytes; size_t len; } cases[] = {
		{ "a\nbb\r\n\nccc", 10 }, { "", 0 }, { "ok\nalso\nbad\0x\nnever\n", 20 }, { "\0", 1 }, { "x\r\n", 3 },
	};
	int same = 0, n = (int)(sizeof cases / sizeof *cases);
	for (int i = 0; i < n; i++) {
		char a[256], b[256];
		int fa, fb;
		char *p = write_tmp(cases[i].bytes, cases[i].len);
		int na = slurp_lines(p, a, sizeof a, &fa);
		int nb = slurp_input(td_input_open_memory(cases[i].bytes, cases[i].len, "mem"), b, sizeof b, &fb);
		same += na == nb && fa == fb && strcmp(a, b) == 0;
		unlink(p);
		free(p);
	}
	ok(same == n, "memory: the lines of a file of the same bytes (CRLF, empty, NUL, unterminated)");
	char out[256];
	int failed;
	ok(slurp_input(td_input_open_memory(NULL, 0, "mem"), out, sizeof out, &failed) == 0 && !failed,
	   "memory: no bytes at all, no lines");
	const char *text = "line one\nline two\n";
	unsigned char zs[256];
	size_t zlen = ZSTD_compress(zs, sizeof zs, text, strlen(text), 3);
	ok(slurp_input(td_input_open_memory(zs, zlen, "mem"), out, sizeof out, &failed) == 2 &&
	   strcmp(out, "line one|line two|") == 0 && !failed, "memory: zstd decompressed");
	slurp_input(td_input_open_memory(zs, zlen / 2, "mem"), out, sizeof out, &failed);
	ok(failed || out[0] == '\0' || strncmp(out, "line", 4) == 0, "memory: truncated zstd does not crash");
	struct td_input *in = td_input_open_memory("a\nbb\nccc", 8, "mem");
	const char *run;
	ok(td_input_next_lines(in, 1, &run) == 8 && !memcmp(run, "a\nbb\nccc", 8) && td_input_next_lines(in, 1, &run) == 0,
	   "memory: one run of all the lines, the unterminated last one included");
	char buf[8];
	td_input_close(in);
	in = td_input_open_memory("abc", 3, "mem");
	ok(td_input_read(in, buf, sizeof buf) == 3 && !memcmp(buf, "abc", 3) && td_input_read(in, buf, 1) == 0 &&
	   !td_input_failed(in), "memory: raw bytes, then the end");
	td_input_close(in);
}

/* td_input_map: a plain regular file is mapped whole, from where its
 * descriptor stands; pipes, compressed files and inputs already read from
 * are not, and read on as usual. */
static void test_map(void)
{
	const char text[] = "line one\nline two\n";
	char *p = write_tmp(text, sizeof text - 1);
	struct td_input *in = td_input_open(p);
	const char *data;
	size_t len;
	ok(td_input_is_perf_data(in) == false && td_input_map(in, &data, &len) && len == sizeof text - 1 &&
	   !memcmp(data, text, len), "map: a plain file whole, after a peek");
	const char *l;
	size_t n;
	ok(!td_input_next(in, &l, &n) && !td_input_map(in, &data, &len), "map: the input is then at its end, mapped once");
	td_input_map_done(in, data, len);
	td_input_close(in);
	in = td_input_open(p);
	ok(td_input_next(in, &l, &n) && !td_input_map(in, &data, &len) && td_input_next(in, &l, &n) && n == 8 &&
	   !memcmp(l, "line two", 8), "map: not after a line was read, which goes on");
	td_input_close(in);
	unlink(p);
	free(p);
	p = write_tmp("", 0);
	in = td_input_open(p);
	ok(td_input_map(in, &data, &len) && len == 0, "map: an empty file is 0 bytes");
	td_input_close(in);
	unlink(p);
	free(p);
	/* stdin that is a file read in part: from its position on */
	p = write_tmp(text, sizeof text - 1);
	int fd = dup(0), f = open(p, O_RDONLY);
	if (fd < 0 || f < 0 || lseek(f, 9, SEEK_SET) != 9 || dup2(f, 0) < 0)
		abort();
	in = td_input_open("-");
	ok(td_input_map(in, &data, &len) && len == 9 && !memcmp(data, "line two\n", 9), "map: stdin from its file position");
	td_input_close(in);
	dup2(fd, 0);
	close(fd);
	close(f);
	unlink(p);
	free(p);
	gzFile gz;
	p = strdup("/tmp/td-input-XXXXXX");
	fd = mkstemp(p);
	gz = gzdopen(fd, "wb");
	gzwrite(gz, text, sizeof text - 1);
	gzclose(gz);
	in = td_input_open(p);
	ok(!td_input_map(in, &data, &len) && td_input_next(in, &l, &n) && n == 8, "map: not a gzip file, read as usual");
	td_input_close(in);
	unlink(p);
	free(p);
	int pipefd[2];
	if (pipe(pipefd) || write(pipefd[1], text, sizeof text - 1) != (ssize_t)(sizeof text - 1))
		abort();
	close(pipefd[1]);
	fd = dup(0);
	dup2(pipefd[0], 0);
	in = td_input_open("-");
	ok(!td_input_map(in, &data, &len) && td_input_next(in, &l, &n) && n == 8, "map: not a pipe, read as usual");
	td_input_close(in);
	dup2(fd, 0);
	close(fd);
	close(pipefd[0]);
}

/* A mapped file cut short while it is read: the reader dies with exit 2
 * and a message naming the file, not of SIGBUS. */
static void test_map_shrinks(void)
{
	static char text[3 * 4096];
	memset(text, 'x', sizeof text);
	char *p = write_tmp(text, sizeof text);
	char err[] = "/tmp/td-input-err-XXXXXX";
	int efd = mkstemp(err);
	pid_t child = fork();
	if (child == 0) {
		dup2(efd, 2);
		struct td_input *in = td_input_open(p);
		const char *data;
		size_t len;
		if (!td_input_map(in, &data, &len) || truncate(p, 0) != 0)
			_exit(10);
		volatile char c = data[len - 1];     /* past the new end: faults */
		(void)c;
		_exit(11);
	}
	int status = 0;
	waitpid(child, &status, 0);
	char msg[256] = "";
	ssize_t got = pread(efd, msg, sizeof msg - 1, 0);
	msg[got > 0 ? got : 0] = '\0';
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 2 && strstr(msg, p) && strstr(msg, "the file shrank while it was read"),
	   "map: a file that shrinks while mapped ends the run with exit 2 and says so");
	if (!strstr(msg, "the file shrank"))
		fprintf(stderr, "# child status %d, stderr: %s\n", status, msg);
	close(efd);
	unlink(err);
	unlink(p);
	free(p);
}

int main(void)
{
	td_quiet = 1;
	test_plain();
	test_binary();
	test_long_line();
	test_gzip_zstd();
	test_peek_perfdata();
	test_runs();
	test_memory();
	test_map();
	test_map_shrinks();
	return tap_done();
}
