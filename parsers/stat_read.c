/* stat_read: the dispatcher of perf stat input. Opens the file, decides
 * each line's layout and hands it to toplev's reader or to the CSV, JSON
 * or text reader (stat.h); what no reader takes is counted and named once
 * per file. It sits above the readers and below nothing in parsers/: the
 * readers share stat_common.c, never this file. */
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/input.h"
#include "collect_header.h"
#include "shell_prompt.h"
#include "sniff.h"
#include "stat.h"
#include "stat_toplev.h"

/* Lines that carry no data in any layout. */
static bool is_note(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && s[i] == '<' && !(n - i >= 5 && memcmp(s + i, "<not ", 5) == 0))
		return true;                    /* "<wait some time, then cancel>" in notes */
	if (i < n && s[i] == '#' && i > 0) {
		/* an indented "#  11.2 %  tma_bad_speculation" continues the metrics
		 * of the row above (text output); other '#' lines are comments */
		size_t k = i + 1;
		while (k < n && s[k] == ' ')
			k++;
		if (k < n && ((s[k] >= '0' && s[k] <= '9') || s[k] == '-' || s[k] == 'n'))
			return false;
	}
	return i == n || s[i] == '#' || (n - i >= 2 && s[i] == '$' && s[i + 1] == ' ');
}

/* A JSON object starts on this line. */
static bool starts_object(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i < n && s[i] == '{';
}

/* Where stat_read says that its input paused. */
struct pause_to {
	stat_emit_fn emit;
	void *ctx;
	const char *file;
};

static void emit_pause(void *arg)
{
	const struct pause_to *to = arg;
	struct stat_record r;
	stat_record_init(&r, to->file, 0);
	r.kind = STAT_PAUSE;
	to->emit(to->ctx, &r);
}

/* A run ends where the layout of the rows changes: perf writes one layout
 * per run, so text rows and CSV rows one after the other (saved notes mix
 * them without a "Performance counter stats" line between) belong to two
 * runs, not to one that would average their copies. The line whose layout
 * differs from the last rows' is read through this, which puts a run
 * boundary before its first row (only if rows came before) and says
 * whether it gave any. */
struct layout_switch {
	stat_emit_fn emit;
	void *ctx;
	bool boundary;                  /* rows of another layout came before */
	bool rows;                      /* this line gave a counter or a metric */
};

static void emit_switched(void *arg, const struct stat_record *r)
{
	struct layout_switch *sw = arg;
	if (!sw->rows && (r->kind == STAT_COUNTER || r->kind == STAT_METRIC)) {
		sw->rows = true;
		if (sw->boundary) {
			struct stat_record run;
			stat_record_init(&run, r->file, r->line);
			run.kind = STAT_COMMAND;
			run.event = "";
			sw->emit(sw->ctx, &run);
		}
	}
	sw->emit(sw->ctx, r);
}

/* "# tdkit-collect: cpuid=0x00000000410fd4f0": a STAT_HEADER record. */
static void header_fact(const char *line, size_t len, const char *file, unsigned long no, stat_emit_fn emit, void *ctx)
{
	const char *k, *v;
	size_t kn, vn;
	if (!collect_header_fact(line, len, &k, &kn, &v, &vn) || kn > 64 || vn > 4096)
		return;
	char key[65], value[4097];
	memcpy(key, k, kn);
	key[kn] = '\0';
	memcpy(value, v, vn);
	value[vn] = '\0';
	struct stat_record r;
	stat_record_init(&r, file, no);
	r.kind = STAT_HEADER;
	r.event = key;
	r.unit = value;
	r.len[1] = (int)kn;
	r.len[2] = (int)vn;
	emit(ctx, &r);
}

/* Lines of a file that are not perf stat output. */
struct other_text {
	unsigned long lines, first;
	struct sniff_votes votes;       /* what the file's first lines look like */
};

/* The lines of a file whose shape is asked (sniff.h); after as many lines
 * and none of perf's, a file that looks like another tool's output is named
 * without reading the rest. */
#define SNIFF_LINES 1000

static void count_other(struct other_text *o, unsigned long lineno)
{
	if (!o->lines++)
		o->first = lineno;
}

/* One note per file for its other text; a file with none of perf's is bad
 * input, named as what it looks like. */
static void report_other(const char *name, const struct other_text *o, bool read_any)
{
	enum sniff_kind k = sniff_verdict(&o->votes);
	if (!read_any && k != SNIFF_NONE && k != SNIFF_PERF_STAT)
		td_bad_input(name, 0, "this is %s; use %s", sniff_name(k), sniff_reader(k));
	else if (!read_any && o->lines)
		td_bad_input(name, 0, "no perf stat output found in this file (%lu lines of other text)", o->lines);
	else if (!read_any)
		td_bad_input(name, 0, "no perf stat output found in this file");
	else if (o->lines)
		td_warn(name, 0, "%lu line%s of non-perf text skipped (the first at line %lu)", o->lines,
			o->lines == 1 ? "" : "s", o->first);
}

/* stat_read and stat_read_memory: in is closed here. */
static enum stat_format read_input(struct td_input *in, enum stat_format fmt, stat_emit_fn emit, void *ctx)
{
	struct pause_to pause = { emit, ctx, td_input_name(in) };
	td_input_on_wait(in, emit_pause, &pause);
	if (td_input_is_perf_data(in)) {
		td_bad_input(td_input_name(in), 0, "this is perf.data; td-derive reads perf stat output (perf stat -x, ... 2>file)");
		td_input_close(in);
		return fmt;
	}
	struct stat_csv *csv = NULL;
	struct stat_json *json = NULL;
	struct stat_text *text = NULL;
	struct stat_toplev *toplev = stat_toplev_new();
	char *pending = NULL;          /* a JSON object spread over several lines */
	size_t pending_len = 0;
	unsigned long pending_line = 0;
	const char *line;
	size_t len;
	enum stat_format seen = STAT_AUTO;      /* the layout of the first line read as perf's */
	enum stat_format rows_in = STAT_AUTO;   /* the layout of the last line that gave rows */
	struct other_text other = { 0 };
	unsigned long read = 0;                 /* lines read as perf's */
	while (td_input_next(in, &line, &len)) {
		const char *name = td_input_name(in);
		unsigned long no = td_input_lineno(in);
		if (pending) {
			pending = td_realloc(pending, pending_len + len + 2);
			pending[pending_len++] = ' ';
			memcpy(pending + pending_len, line, len);
			pending_len += len;
			if (!memchr(line, '}', len))
				continue;
			if (!json)
				json = stat_json_new();
			struct layout_switch sw = { emit, ctx, rows_in != STAT_AUTO, false };
			bool as_perf = rows_in == STAT_JSON ?
				stat_json_line(json, pending, pending_len, name, pending_line, emit, ctx) :
				stat_json_line(json, pending, pending_len, name, pending_line, emit_switched, &sw);
			if (sw.rows)
				rows_in = STAT_JSON;
			if (as_perf)
				read++, seen = seen != STAT_AUTO ? seen : STAT_JSON;
			else
				count_other(&other, pending_line);
			free(pending);
			pending = NULL;
			continue;
		}
		if (csv && rows_in == STAT_CSV && stat_csv_known_row(csv, line, len, name, no, emit, ctx))
			continue;
		if (stat_toplev_line(toplev, line, len, !csv && !json && !text, name, no, emit, ctx))
			continue;
		if (is_note(line, len)) {
			header_fact(line, len, name, no, emit, ctx);
			size_t i = 0;
			while (i < len && line[i] != '$' && line[i] != '#')
				i++;
			/* a run starts: a prompt running perf stat (its command line), or
			 * the "# started on" line perf -o writes before each run */
			bool prompt = i + 12 < len && memmem(line + i, len - i, "perf stat", 9);
			if (prompt || (len - i >= 12 && memcmp(line + i, "# started on", 12) == 0)) {
				struct stat_record r;
				stat_record_init(&r, name, no);
				r.kind = STAT_COMMAND;
				size_t at = shell_prompt_len(line, len);   /* the command without its prompt */
				if (!at)
					at = i;
				char *cmdline = prompt ? td_strndup(line + at, len - at) : NULL;
				r.event = prompt ? cmdline : "";
				emit(ctx, &r);
				free(cmdline);
			}
			continue;
		}
		if (no <= SNIFF_LINES)   /* a line read as perf's may yet be other text (stat_csv_unused_headers) */
			sniff_vote(&other.votes, line, len);
		/* the layout is decided per line: saved notes mix runs of several layouts */
		enum stat_format lf = fmt;
		if (lf == STAT_AUTO)
			lf = stat_detect(line, len);
		if (lf == STAT_AUTO)
			lf = seen != STAT_AUTO ? seen : STAT_CSV;
		bool perf = true;
		struct layout_switch sw;
		stat_emit_fn line_emit = emit;
		void *line_ctx = ctx;
		if (lf != rows_in) {
			sw = (struct layout_switch){ emit, ctx, rows_in != STAT_AUTO, false };
			line_emit = emit_switched, line_ctx = &sw;
		}
		switch (lf) {
		case STAT_JSON:
			if (!starts_object(line, len)) {
				perf = false;           /* "..." eliding lines of a JSON capture */
				break;
			}
			if (!memchr(line, '}', len)) {
				pending = td_strndup(line, len);
				pending_len = len;
				pending_line = no;
				continue;
			}
			if (!json)
				json = stat_json_new();
			perf = stat_json_line(json, line, len, name, no, line_emit, line_ctx);
			break;
		case STAT_TEXT:
			if (!text)
				text = stat_text_new();
			perf = stat_text_line(text, line, len, name, no, line_emit, line_ctx);
			break;
		default:
			if (!csv)
				csv = stat_csv_new();
			perf = stat_csv_line(csv, line, len, name, no, line_emit, line_ctx);
			break;
		}
		if (line_ctx == &sw && sw.rows)
			rows_in = lf;
		if (perf && lf == STAT_CSV && stat_csv_header_pending(csv))
			continue;                       /* decided by the next line */
		if (perf) {
			read++;
			if (seen == STAT_AUTO)
				seen = lf;
			continue;
		}
		count_other(&other, no);
		if (!read && no >= SNIFF_LINES) {
			enum sniff_kind k = sniff_verdict(&other.votes);
			if (k != SNIFF_NONE && k != SNIFF_PERF_STAT)
				break;
		}
	}
	if (pending) {
		td_bad_input(td_input_name(in), pending_line, "JSON object not closed before the end of input");
		free(pending);
	}
	enum stat_format toplev_read = stat_toplev_format(toplev);
	stat_toplev_free(toplev);               /* says once what of toplev's it did not read */
	unsigned long first_header;
	unsigned long headers = csv ? stat_csv_unused_headers(csv, &first_header) : 0;
	if (headers) {
		other.first = other.lines && other.first < first_header ? other.first : first_header;
		other.lines += headers;
	}
	report_other(td_input_name(in), &other, read > 0 || toplev_read != STAT_AUTO);
	fmt = seen == STAT_AUTO ? toplev_read : seen;
	stat_csv_free(csv);
	stat_json_free(json);
	stat_text_free(text);
	td_input_close(in);
	return fmt;
}

enum stat_format stat_read(const char *path, enum stat_format fmt, stat_emit_fn emit, void *ctx)
{
	struct td_input *in = td_input_open(path);
	return in ? read_input(in, fmt, emit, ctx) : fmt;
}

enum stat_format stat_read_memory(const void *data, size_t len, const char *name, enum stat_format fmt,
				  stat_emit_fn emit, void *ctx)
{
	return read_input(td_input_open_memory(data, len, name), fmt, emit, ctx);
}
