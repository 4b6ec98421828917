/* The input layer: every tool reads its files through this.
 *
 * Opens a path ("-" or NULL is stdin), detects gzip and zstd by their magic
 * bytes and decompresses while streaming, and hands out lines as
 * (pointer, length) into an internal buffer: no copy, no NUL terminator, no
 * limit on line length, a CR before the LF dropped. A NUL byte ends the file
 * with "tool: FILE:LINE: binary data" (counted as bad input): every line
 * before it has been delivered. */
#ifndef TD_INPUT_H
#define TD_INPUT_H

#include <stddef.h>
#include <stdbool.h>

struct td_input;

/* NULL after printing "tool: PATH: reason" (counted as bad input). */
struct td_input *td_input_open(const char *path);
/* The same over len bytes at data (gzip and zstd detected as in a file),
 * named name in messages; both must outlive the input. Plain bytes are
 * handed out in place: nothing is copied. */
struct td_input *td_input_open_memory(const void *data, size_t len, const char *name);
void td_input_close(struct td_input *in);

/* Next line: returns true and sets line and len (valid until the next call),
 * false at end of input or after a fatal read/binary error. */
bool td_input_next(struct td_input *in, const char **line, size_t *len);

/* Bulk reading, for a parser that splits lines itself: the next run of
 * whole lines at *p, ending just after a newline (or at the end of input),
 * at least want bytes long unless the input ends first; its length is
 * returned and it stays valid until the next call. Lines keep a CR before
 * the LF. The run stops before a line holding a NUL byte: 0 there as at the
 * end, and td_input_next() then reports the binary data. The caller counts
 * the lines it took with td_input_count_lines(), so line numbers go on. */
size_t td_input_next_lines(struct td_input *in, size_t want, const char **p);
void td_input_count_lines(struct td_input *in, unsigned long n);

/* The whole content of a plain (uncompressed) regular file, mapped
 * instead of read: at *p, *len bytes (0 for an empty file), valid until
 * td_input_close(); the input is then at its end. False, and nothing
 * consumed, for a pipe, a compressed file, an input already read from, or
 * a mapping that fails: read it the usual way. A file that shrinks while
 * mapped ends the process: "FILE: the file shrank while it was read" on
 * stderr, exit 2 (a read past its new end faults; SIGBUS is caught). */
bool td_input_map(struct td_input *in, const char **p, size_t *len);
/* The mapped bytes [p, p + n) are read: their whole pages leave this
 * process's memory (the page cache keeps them), so a mapped file never
 * holds more of it resident than the readers are at. Any thread may call
 * it, each for its own bytes. */
void td_input_map_done(struct td_input *in, const char *p, size_t n);

/* The first bytes of the (decompressed) content without consuming them;
 * up to *len bytes, fewer at end of file. For format detection. */
const unsigned char *td_input_peek(struct td_input *in, size_t *len);

/* Read raw (decompressed) bytes instead of lines; returns bytes read, 0 at
 * end, and never mixes with td_input_next on the same input. */
size_t td_input_read(struct td_input *in, void *dst, size_t n);

/* wait(ctx) is called before a read that would wait for more input (a
 * pipe or terminal with nothing ready): a filter streaming its results
 * shows what it has there, so a live "perf stat -I" reads as it runs. */
void td_input_on_wait(struct td_input *in, void (*wait)(void *ctx), void *ctx);

const char *td_input_name(const struct td_input *in);
unsigned long td_input_lineno(const struct td_input *in);
/* True when the last line returned had no final newline. */
bool td_input_last_unterminated(const struct td_input *in);
/* True when the input stopped early (binary data, read or decompress error). */
bool td_input_failed(const struct td_input *in);
/* True when the file is perf.data (file or pipe mode) by its magic. */
bool td_input_is_perf_data(struct td_input *in);
/* Display name used in messages: "<stdin>" for stdin. */
const char *td_input_display_name(const char *path);

#endif
