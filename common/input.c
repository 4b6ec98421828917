#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "diag.h"
#include "grow.h"
#include "input.h"

#define BLOCK (1u << 18)      /* bytes asked of read() or a decompressor at a time */

enum codec { CODEC_PLAIN, CODEC_GZIP, CODEC_ZSTD };

struct td_input {
	const char *name;
	int fd;
	enum codec codec;
	/* compressed bytes waiting for the decompressor */
	unsigned char *raw;
	size_t raw_len, raw_pos;
	bool raw_eof;
	z_stream gz;
	ZSTD_DStream *zs;
	/* decompressed bytes: [start, end) not yet handed out */
	char *buf;
	size_t cap, start, end;
	size_t nul_at;          /* offset of the first NUL in buf, or SIZE_MAX */
	size_t scanned;         /* bytes after start known to hold no newline */
	bool eof, failed, unterminated;
	unsigned long lineno;
	/* td_input_on_wait: asked before a read that may wait */
	void (*wait)(void *ctx);
	void *wait_ctx;
	bool may_wait;          /* a pipe or terminal, not a regular file */
	bool drained;           /* the last read got less than it asked: maybe nothing is left now */
	bool borrowed;          /* buf is the caller's memory (td_input_open_memory, plain bytes) */
	off_t origin;           /* where a regular file's content starts in it; -1: not seekable */
	void *map;              /* td_input_map: the mapping, map_len bytes */
	size_t map_len;
};

const char *td_input_display_name(const char *path)
{
	return (!path || strcmp(path, "-") == 0) ? "<stdin>" : path;
}

/* Nothing to read on fd right now. */
static bool nothing_ready(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	return poll(&p, 1, 0) == 0;
}

/* Read up to n raw bytes from the file descriptor; -1 on error. A short
 * read may have emptied a pipe: the next read then first looks whether
 * it would wait, and says so (td_input_on_wait). */
static ssize_t read_fd(struct td_input *in, void *dst, size_t n)
{
	if (in->wait && in->drained && nothing_ready(in->fd))
		in->wait(in->wait_ctx);
	for (;;) {
		ssize_t r = read(in->fd, dst, n);
		if (r >= 0 || errno != EINTR) {
			in->drained = in->may_wait && r >= 0 && (size_t)r < n;
			return r;
		}
	}
}

void td_input_on_wait(struct td_input *in, void (*wait)(void *ctx), void *ctx)
{
	in->wait = wait;
	in->wait_ctx = ctx;
}

static bool fill_raw(struct td_input *in)
{
	if (in->raw_pos < in->raw_len || in->raw_eof)
		return true;
	ssize_t r = read_fd(in, in->raw, BLOCK);
	if (r < 0) {
		td_bad_input(in->name, 0, "read error: %s", strerror(errno));
		in->failed = true;
		return false;
	}
	in->raw_len = (size_t)r;
	in->raw_pos = 0;
	in->raw_eof = r == 0;
	return true;
}

/* Decompress (or copy) into dst; returns bytes produced, 0 at end. */
static size_t produce(struct td_input *in, char *dst, size_t n)
{
	if (in->failed)
		return 0;
	if (in->codec == CODEC_PLAIN) {
		if (in->fd < 0)                         /* memory: all of it is in buf */
			return 0;
		if (in->raw_pos < in->raw_len) {        /* bytes peeked at open */
			size_t k = in->raw_len - in->raw_pos;
			if (k > n)
				k = n;
			memcpy(dst, in->raw + in->raw_pos, k);
			in->raw_pos += k;
			return k;
		}
		ssize_t r = read_fd(in, dst, n);
		if (r < 0) {
			td_bad_input(in->name, 0, "read error: %s", strerror(errno));
			in->failed = true;
			return 0;
		}
		return (size_t)r;
	}
	size_t made = 0;
	while (made == 0) {
		if (!fill_raw(in))
			return 0;
		if (in->raw_eof && in->raw_pos == in->raw_len)
			return 0;
		if (in->codec == CODEC_GZIP) {
			in->gz.next_in = in->raw + in->raw_pos;
			in->gz.avail_in = (uInt)(in->raw_len - in->raw_pos);
			in->gz.next_out = (Bytef *)dst;
			in->gz.avail_out = (uInt)n;
			int rc = inflate(&in->gz, Z_NO_FLUSH);
			in->raw_pos = in->raw_len - in->gz.avail_in;
			made = n - in->gz.avail_out;
			if (rc == Z_STREAM_END) {
				inflateReset(&in->gz);   /* concatenated members go on */
			} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
				td_bad_input(in->name, 0, "gzip data is corrupt (%s)",
					     in->gz.msg ? in->gz.msg : "inflate failed");
				in->failed = true;
				return made;
			}
		} else {
			ZSTD_inBuffer ib = { in->raw, in->raw_len, in->raw_pos };
			ZSTD_outBuffer ob = { dst, n, 0 };
			size_t rc = ZSTD_decompressStream(in->zs, &ob, &ib);
			in->raw_pos = ib.pos;
			made = ob.pos;
			if (ZSTD_isError(rc)) {
				td_bad_input(in->name, 0, "zstd data is corrupt (%s)",
					     ZSTD_getErrorName(rc));
				in->failed = true;
				return made;
			}
		}
	}
	return made;
}

/* Make room and append decompressed bytes to buf; false at end of input. */
static bool fill(struct td_input *in)
{
	if (in->eof)
		return false;
	if (in->start > 0) {
		memmove(in->buf, in->buf + in->start, in->end - in->start);
		if (in->nul_at != SIZE_MAX)
			in->nul_at -= in->start;
		in->end -= in->start;
		in->start = 0;
	}
	TD_ALLOC_GROW(in->buf, in->end + BLOCK, in->cap);
	size_t got = produce(in, in->buf + in->end, in->cap - in->end);
	if (got == 0) {
		in->eof = true;
		return false;
	}
	if (in->nul_at == SIZE_MAX) {
		char *z = memchr(in->buf + in->end, '\0', got);
		if (z)
			in->nul_at = (size_t)(z - in->buf);
	}
	in->end += got;
	return true;
}

/* The codec of the content by its first bytes (m, len of them). */
static void start_codec(struct td_input *in, const unsigned char *m, size_t len)
{
	if (len >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
		in->codec = CODEC_GZIP;
		if (inflateInit2(&in->gz, 15 + 32) != Z_OK)
			td_die("cannot initialise zlib");
	} else if (len >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) {
		in->codec = CODEC_ZSTD;
		in->zs = ZSTD_createDStream();
		if (!in->zs)
			td_die("cannot initialise zstd");
		ZSTD_initDStream(in->zs);
	}
}

struct td_input *td_input_open(const char *path)
{
	struct td_input *in = td_calloc(1, sizeof(*in));
	in->name = td_input_display_name(path);
	in->nul_at = SIZE_MAX;
	if (!path || strcmp(path, "-") == 0) {
		in->fd = 0;
	} else {
		in->fd = open(path, O_RDONLY);
		if (in->fd < 0) {
			td_bad_input(in->name, 0, "cannot open: %s", strerror(errno));
			free(in);
			return NULL;
		}
	}
	struct stat st;
	in->may_wait = fstat(in->fd, &st) != 0 || !S_ISREG(st.st_mode);
	in->origin = in->may_wait ? -1 : lseek(in->fd, 0, SEEK_CUR);   /* stdin may be a file read in part */
	in->raw = td_malloc(BLOCK);
	/* Sniff the magic: read at least 4 bytes unless the file is shorter. */
	while (in->raw_len < 4) {
		ssize_t r = read_fd(in, in->raw + in->raw_len, BLOCK - in->raw_len);
		if (r < 0) {
			td_bad_input(in->name, 0, "read error: %s", strerror(errno));
			in->failed = true;
			break;
		}
		if (r == 0) {
			in->raw_eof = true;
			break;
		}
		in->raw_len += (size_t)r;
	}
	start_codec(in, in->raw, in->raw_len);
	return in;
}

struct td_input *td_input_open_memory(const void *data, size_t len, const char *name)
{
	struct td_input *in = td_calloc(1, sizeof(*in));
	in->name = name;
	in->fd = -1;
	in->nul_at = SIZE_MAX;
	in->origin = -1;
	if (!data)
		data = "";
	start_codec(in, data, len);
	if (in->codec == CODEC_PLAIN) {
		/* the lines are handed out of data itself: nothing to read, nothing copied */
		in->buf = (char *)data;        /* never written: fill() returns at eof first */
		in->borrowed = true;
		in->cap = in->end = len;
		in->eof = true;
		const char *z = len ? memchr(data, '\0', len) : NULL;
		if (z)
			in->nul_at = (size_t)(z - in->buf);
	} else {
		in->raw = (unsigned char *)data;    /* only read, as the decompressor's input; not freed */
		in->raw_len = len;
		in->raw_eof = true;
	}
	return in;
}

/* A mapped file that shrinks while it is read faults (SIGBUS) on the
 * pages past its new end. That is bad input, not a crash: the run ends
 * saying so, with exit 2, before any output is written from the mapping
 * (td-fold writes only once it has read everything). */
static const char *volatile mapped_name;

static void say(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

static void mapped_file_shrank(int sig)
{
	(void)sig;
	say(td_progname ? td_progname : "td");
	say(": ");
	say(mapped_name ? mapped_name : "input");
	say(": the file shrank while it was read\n");
	_exit(TD_EXIT_BAD);
}

static void catch_shrinking(const char *name)
{
	static bool installed;
	mapped_name = name;
	if (installed)
		return;
	struct sigaction sa = { .sa_handler = mapped_file_shrank };
	sigemptyset(&sa.sa_mask);
	installed = sigaction(SIGBUS, &sa, NULL) == 0;
}

void td_input_close(struct td_input *in)
{
	if (!in)
		return;
	if (in->codec == CODEC_GZIP)
		inflateEnd(&in->gz);
	if (in->zs)
		ZSTD_freeDStream(in->zs);
	if (in->fd > 0)
		close(in->fd);
	if (in->fd >= 0)
		free(in->raw);
	if (!in->borrowed)
		free(in->buf);
	if (in->map) {
		munmap(in->map, in->map_len);
		mapped_name = NULL;
	}
	free(in);
}

bool td_input_map(struct td_input *in, const char **p, size_t *len)
{
	struct stat st;
	if (in->codec != CODEC_PLAIN || in->fd < 0 || in->may_wait || in->origin < 0 || in->map ||
	    in->lineno || in->start || in->failed || fstat(in->fd, &st) != 0 || st.st_size < in->origin)
		return false;
	size_t n = (size_t)(st.st_size - in->origin);
	if (n) {
		long page = sysconf(_SC_PAGESIZE);
		off_t at = in->origin - in->origin % (page > 0 ? page : 4096);
		size_t skip = (size_t)(in->origin - at);
		void *m = mmap(NULL, n + skip, PROT_READ, MAP_PRIVATE, in->fd, at);
		if (m == MAP_FAILED)
			return false;
		madvise(m, n + skip, MADV_SEQUENTIAL);
		catch_shrinking(in->name);
		in->map = m;
		in->map_len = n + skip;
		*p = (const char *)m + skip;
	} else {
		*p = "";
	}
	*len = n;
	in->start = in->end = 0;              /* what the sniffing read is in the mapping too */
	in->raw_pos = in->raw_len;
	in->eof = in->raw_eof = true;
	return true;
}

void td_input_map_done(struct td_input *in, const char *p, size_t n)
{
	if (!in->map || !n)
		return;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
	uintptr_t from = ((uintptr_t)p + mask) & ~mask, to = ((uintptr_t)p + n) & ~mask;
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

bool td_input_next(struct td_input *in, const char **line, size_t *len)
{
	for (;;) {
		char *s = in->buf + in->start;
		size_t avail = in->end - in->start;
		char *nl = avail > in->scanned ?
			memchr(s + in->scanned, '\n', avail - in->scanned) : NULL;
		size_t n;
		if (nl) {
			n = (size_t)(nl - s);
		} else if ((in->scanned = avail, fill(in))) {
			continue;
		} else if (avail) {
			s = in->buf + in->start; /* fill() may have moved the bytes */
			n = avail;               /* last line without a newline */
		} else {
			return false;
		}
		in->lineno++;
		if (in->nul_at != SIZE_MAX && in->nul_at < in->start + n + (nl != NULL)) {
			td_bad_input(in->name, in->lineno, "binary data");
			in->failed = true;
			in->start = in->end = 0;
			in->eof = true;
			return false;
		}
		in->unterminated = nl == NULL;
		in->scanned = 0;
		in->start += n + (nl != NULL);
		if (n && s[n - 1] == '\r')
			n--;
		*line = s;
		*len = n;
		return true;
	}
}

size_t td_input_next_lines(struct td_input *in, size_t want, const char **p)
{
	for (;;) {
		while (in->end - in->start < want && fill(in))
			;
		char *s = in->buf + in->start;
		size_t avail = in->end - in->start, n = avail;
		bool nul = in->nul_at != SIZE_MAX && in->nul_at - in->start < avail;
		if (nul)                                 /* whole lines before the NUL's */
			avail = in->nul_at - in->start;
		if (nul || !in->eof) {
			char *nl = avail ? memrchr(s, '\n', avail) : NULL;
			n = nl ? (size_t)(nl - s) + 1 : 0;
		}
		if (n || nul || in->eof) {
			in->start += n;
			in->scanned = 0;
			*p = s;
			return n;
		}
		want = in->end - in->start + 1;          /* one line longer than want: read on */
	}
}

void td_input_count_lines(struct td_input *in, unsigned long n) { in->lineno += n; }

const unsigned char *td_input_peek(struct td_input *in, size_t *len)
{
	while (in->end - in->start < *len && fill(in))
		;
	if (in->end - in->start < *len)
		*len = in->end - in->start;
	return (const unsigned char *)in->buf + in->start;
}

size_t td_input_read(struct td_input *in, void *dst, size_t n)
{
	size_t done = 0;
	while (done < n) {
		size_t avail = in->end - in->start;
		if (avail) {
			size_t k = avail < n - done ? avail : n - done;
			memcpy((char *)dst + done, in->buf + in->start, k);
			in->start += k;
			done += k;
			continue;
		}
		size_t got = produce(in, (char *)dst + done, n - done);
		if (got == 0)
			break;
		done += got;
	}
	return done;
}

bool td_input_is_perf_data(struct td_input *in)
{
	size_t n = 8;
	const unsigned char *p = td_input_peek(in, &n);
	return n == 8 && (memcmp(p, "PERFILE2", 8) == 0 || memcmp(p, "2ELIFREP", 8) == 0);
}

const char *td_input_name(const struct td_input *in) { return in->name; }
unsigned long td_input_lineno(const struct td_input *in) { return in->lineno; }
bool td_input_last_unterminated(const struct td_input *in) { return in->unterminated; }
bool td_input_failed(const struct td_input *in) { return in->failed; }
