/* perf stat output, any layout, as one kind of record.
 *
 * Every reader (stat_csv.c, stat_json.c, stat_text.c) turns lines into
 * struct stat_record: a counter (an event's value in one interval and
 * scope) or a metric perf itself printed. Strings point into the reader's
 * line buffer or interned storage and are valid only during the callback. */
#ifndef TD_STAT_H
#define TD_STAT_H

#include <stdbool.h>
#include <stddef.h>

/* STAT_TOPLEV_*: what stat_read found, never a layout to ask for. */
enum stat_format { STAT_AUTO, STAT_CSV, STAT_JSON, STAT_TEXT, STAT_TOPLEV_TEXT, STAT_TOPLEV_CSV };

enum stat_kind {
	STAT_COUNTER,      /* value of event */
	STAT_METRIC,       /* a metric perf printed: metric_value metric_unit */
	STAT_ELAPSED,      /* "seconds time elapsed" (value in s) */
	STAT_COMMAND,      /* a perf stat run starts here (text banner, "# started on", a shell
			      prompt running perf stat, a repeated --metric-only header): event
			      is its command line when the file records it, else "". Every
			      reader marks runs so; the model splits on it (stat_model.h) */
	STAT_RUNS,         /* "(N runs)": value = N */
	STAT_PAUSE,        /* no line is ready yet (a live pipe): what came before may be shown now */
	STAT_HEADER        /* a td-collect header fact ("# tdkit-collect: KEY=VALUE",
			      parsers/collect_header.h): event is KEY, unit is VALUE */
};

/* Who printed a metric: perf, or toplev (stat_toplev.h), whose metric_unit
 * is its unit and its node's dotted name. */
enum stat_source { STAT_FROM_PERF, STAT_FROM_TOPLEV };

struct stat_record {
	enum stat_kind kind;
	enum stat_source source;  /* STAT_FROM_PERF unless a metric says otherwise */
	double interval;          /* seconds since start; < 0 when not an interval run */
	const char *scope;        /* "" global, "CPU0", "S0-D0-C0", "comm-pid", ... */
	const char *event;        /* as printed: "cycles:u", "cpu_core/slots/" */
	double value;             /* NaN when not counted / not supported */
	bool not_counted, not_supported;
	const char *unit;         /* "", "msec", "ns" ... */
	double enabled_pct;       /* 100 when absent */
	double variance_pct;      /* -r: relative stddev of the mean; NaN when absent */
	double metric_value;      /* NaN when perf printed no metric on this row */
	const char *metric_unit;  /* "insn per cycle", "%  tma_backend_bound" */
	int metric_decimals;      /* digits perf printed after the point; -1 unknown */
	const char *threshold;    /* "good", "bad" ... or "" */
	const char *file;         /* the input's name: while records are read, one address is
				     one name (readers do not rewrite a name they passed) */
	unsigned long line;
	bool again;               /* this record is the one emitted just before, again, as its
				     row's metric: kind is STAT_METRIC now and every other field,
				     each string's bytes included, is the same (a consumer may keep
				     what it found for that record's strings); false: not known */
	int len[5];               /* strlen of scope, event, unit, metric_unit and threshold where
				     the reader knows it, else -1 (stat_record_init); a reader that
				     sets a string after its length sets both */
	size_t run;               /* not 0: scope, event, unit, metric_unit and threshold lie one
				     after another from scope, each ended by its NUL, in run bytes
				     (the last NUL not counted; td_strings_run). Then run bytes
				     equal to those of five such strings are those five strings,
				     one comparison proves them. 0: not known (stat_record_init);
				     a reader that sets a string sets run to 0 or anew */
};

typedef void (*stat_emit_fn)(void *ctx, const struct stat_record *r);

/* The dispatcher (stat_read.c): reads one file (path "-" = stdin) of the
 * given or detected format and calls emit for each record. Lines of perf's
 * shape with bad values are reported as "tool: FILE:LINE: ..." and
 * skipped; lines of other text are counted and named in one note per file.
 * A file with no perf stat line is bad input, named as the output of the
 * tool it looks like (perf script, folded stacks, perf.data) when it does.
 * Returns the layout of the lines read as perf stat output (STAT_AUTO:
 * none was). */
enum stat_format stat_read(const char *path, enum stat_format fmt, stat_emit_fn emit, void *ctx);
/* The same over len bytes in memory, named name in messages (a fuzz
 * input; a capture a caller already holds). */
enum stat_format stat_read_memory(const void *data, size_t len, const char *name, enum stat_format fmt,
				  stat_emit_fn emit, void *ctx);

const char *stat_format_name(enum stat_format f);
/* A --format argument (NULL: detect; "csv", "json" or "text") as a layout;
 * false for any other word. */
bool stat_format_parse(const char *arg, enum stat_format *f);

/* Shared helpers of the readers (stat_common.c). */
enum stat_format stat_detect(const char *line, size_t len);
bool stat_parse_number(const char *s, size_t n, double *out);
/* Also "2,41": one decimal comma, as perf prints under a comma locale
 * (for layouts where the comma cannot be a separator). */
bool stat_parse_number_comma(const char *s, size_t n, double *out);
void stat_record_init(struct stat_record *r, const char *file, unsigned long line);

/* The event a metric-group header's metrics are filed under, into out:
 * "TopdownL1 (cpu_core)" -> "cpu_core/TopdownL1/" (its PMU's set, never
 * the set of the counter printed above it), "TopdownL1" -> "TopdownL1". */
void stat_group_event(const char *s, size_t n, char *out, size_t cap);

/* The counter a continuation metric line belongs to (CSV and text). */
struct stat_last {
	double interval;
	char *scope, *event;
	size_t scope_cap, event_cap;
};
void stat_last_remember(struct stat_last *l, const struct stat_record *r);
/* Fills r's interval, scope and event from the last counter. */
void stat_last_apply(const struct stat_last *l, struct stat_record *r);
void stat_last_free(struct stat_last *l);

/* The per-format line parsers: state lives in the opaque reader. Each
 * returns false for a line that does not have perf's shape (a program's
 * own output pasted around perf's, a shell prompt, a banner): nothing was
 * emitted or reported for it, and stat_read counts it as other text. A
 * line of perf's shape returns true, bad values in it reported. */
struct stat_csv;
struct stat_csv *stat_csv_new(void);
void stat_csv_free(struct stat_csv *c);
bool stat_csv_line(struct stat_csv *c, const char *line, size_t len, const char *file, unsigned long lineno,
		   stat_emit_fn emit, void *ctx);
/* The line repeats the shape of a counter row read before
 * (stat_csv_shape.h): read and emitted as stat_csv_line would read and
 * emit it; false: it does not, or TD_PLAIN is set (read it with
 * stat_csv_line).
 * Such a line is no note and reads as CSV whatever the format given. */
bool stat_csv_known_row(struct stat_csv *c, const char *line, size_t len, const char *file, unsigned long lineno,
			stat_emit_fn emit, void *ctx);
/* The line just read is a --metric-only header no row has followed yet: it
 * is perf's only if one does. */
bool stat_csv_header_pending(const struct stat_csv *c);
/* Header lines of --metric-only tables no row followed (so they were other
 * text after all) since the last call; *first: the first one's line. */
unsigned long stat_csv_unused_headers(struct stat_csv *c, unsigned long *first);

struct stat_json;
struct stat_json *stat_json_new(void);
void stat_json_free(struct stat_json *j);
bool stat_json_line(struct stat_json *j, const char *line, size_t len, const char *file,
		    unsigned long lineno, stat_emit_fn emit, void *ctx);

struct stat_text;
struct stat_text *stat_text_new(void);
void stat_text_free(struct stat_text *t);
bool stat_text_line(struct stat_text *t, const char *line, size_t len, const char *file,
		    unsigned long lineno, stat_emit_fn emit, void *ctx);

#endif
