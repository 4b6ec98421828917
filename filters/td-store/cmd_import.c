/* td-store import: an export (CSV or JSON lines, detected) read back into a
 * store, runs keeping their ids, times and labels. An export holds no raw
 * capture, so imported runs cannot be rederived; a run already in the
 * store is left as it is (its labels added to). One transaction per file. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/opts.h"
#include "common/grow.h"
#include "filters/td-store/verbs.h"

static const struct td_option options[] = {
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store import", "[--db URL] FILE...",
	"Read td-store export output (CSV or JSON lines) back into the store.",
	options,
	"Reads td-store export output, CSV or JSON lines (detected): FILEs, - for stdin.",
};

/* An export has 16 fields; one from before interval_s, 15. */
#define NFIELDS 16
#define NFIELDS_OLD 15
enum { X_ID, X_TIME, X_LABELS, X_SCOPE, X_PMU, X_NAME, X_VALUE, X_UNIT, X_BETTER, X_LEVEL, X_VERDICT, X_CONF, X_VAR, X_PATH,
       X_SOURCE, X_INTERVAL };
static const char *const field_names[NFIELDS] = { "id", "time", "labels", "scope", "pmu", "name", "value", "unit",
						  "better", "level", "verdict", "confidence", "variance_pct", "on_path", "source",
						  "interval_s" };

/* The run being read: its rows until the id changes. */
struct pending {
	char id[STORE_ID_LEN], time[32];
	json_t *labels;
	struct store_metric_row *rows;
	char **strings;            /* every string the rows point to */
	size_t n, cap, nstrings, cap_strings;
};

static char *keep(struct pending *p, const char *s)
{
	if (!s)
		return NULL;
	TD_ALLOC_GROW(p->strings, p->nstrings + 1, p->cap_strings);
	return p->strings[p->nstrings++] = td_strndup(s, strlen(s));
}

static void pending_clear(struct pending *p)
{
	for (size_t i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	p->nstrings = p->n = 0;
	p->id[0] = 0;
	json_decref(p->labels);
	p->labels = NULL;
}

static double number(const char *s) { return s && *s ? strtod(s, NULL) : NAN; }

/* Stores the pending run (its rows in file order). */
static int flush(struct td_store *s, struct pending *p, long *runs)
{
	if (!p->id[0])
		return 0;
	struct store_label labels[256];
	int nl = 0;
	const char *key;
	json_t *value;
	json_object_foreach(p->labels, key, value) {
		const char *v = json_is_string(value) ? json_string_value(value) : NULL;
		const char *why = v ? store_label_invalid(key, strlen(key), v, strlen(v)) : "a label value is a string";
		if (why)
			td_bad_input(NULL, 0, "run %s: label '%s' left out: %s", p->id, key, why);
		else if (nl < 256)
			labels[nl++] = (struct store_label){ key, v };
	}
	struct store_run r = { .id = p->id, .labels = labels, .nlabels = nl, .metrics = p->rows, .nmetrics = p->n,
			       .duration_s = NAN, .source = "import" };
	snprintf(r.time, sizeof r.time, "%s", p->time);
	char id[STORE_ID_LEN];
	bool existed;
	if (store_add_run(s, NULL, &r, false, id, &existed) < 0)
		return -1;
	(*runs)++;
	pending_clear(p);
	return 0;
}

/* One row's fields (NULL: empty), into the pending run. */
static int take_row(struct td_store *s, struct pending *p, const char *const *f, const char *file, unsigned long line,
		    long *runs)
{
	if (!f[X_ID] || !f[X_TIME] || !f[X_NAME]) {
		td_bad_input(file, line, "a row needs id, time and name");
		return 0;
	}
	if (strcmp(p->id, f[X_ID])) {
		if (flush(s, p, runs) < 0)
			return -1;
		json_error_t err;
		p->labels = json_loads(f[X_LABELS] ? f[X_LABELS] : "{}", 0, &err);
		if (!json_is_object(p->labels)) {
			td_bad_input(file, line, "labels are not a JSON object: %s", err.text);
			json_decref(p->labels);
			p->labels = json_object();
		}
		snprintf(p->id, sizeof p->id, "%s", f[X_ID]);
		snprintf(p->time, sizeof p->time, "%s", f[X_TIME]);
	}
	TD_ALLOC_GROW(p->rows, p->n + 1, p->cap);
	p->rows[p->n++] = (struct store_metric_row){
		number(f[X_INTERVAL]), keep(p, f[X_SCOPE] ? f[X_SCOPE] : ""), keep(p, f[X_PMU] ? f[X_PMU] : ""), keep(p, f[X_NAME]),
		number(f[X_VALUE]), keep(p, f[X_UNIT] ? f[X_UNIT] : ""), keep(p, f[X_BETTER] ? f[X_BETTER] : ""),
		f[X_LEVEL] ? atoi(f[X_LEVEL]) : 0,
		keep(p, f[X_VERDICT] ? f[X_VERDICT] : ""), number(f[X_CONF]), number(f[X_VAR]),
		f[X_PATH] && atoi(f[X_PATH]), keep(p, f[X_SOURCE] ? f[X_SOURCE] : "tdkit"),
	};
	return 0;
}

/* A CSV line as td_csv_field writes it: "..." with "" inside; empty = NULL. */
static int split_csv(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;
	while (n < max) {
		char *out = p, *start = p;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					return -1;
				if (*p == '"' && p[1] == '"') {
					*out++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*out++ = *p++;
				}
			}
			fields[n++] = start;
		} else {
			while (*p && *p != ',')
				*out++ = *p++;
			fields[n++] = out == start ? NULL : start;
		}
		char sep = *p;
		*out = 0;
		if (sep != ',')
			break;
		p++;
	}
	return *p ? -1 : n;
}

static int import_file(struct td_store *s, const char *path, long *runs)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	if (!f) {
		td_error("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	struct pending p = { 0 };
	int rc = 0;
	bool header = false;
	int width = NFIELDS;                   /* fields a CSV row has, as its header says */
	unsigned long lineno_json = 0;         /* JSON lines read */
	if (store_add_begin(s, NULL) < 0)
		verb_store_failed(s);
	while ((len = getline(&line, &cap, f)) >= 0 && rc == 0) {
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len)
			continue;
		const char *fields[NFIELDS] = { 0 };
		char nums[NFIELDS][40];
		json_t *obj = NULL;
		if (line[0] == '{') {
			json_error_t err;
			obj = json_loads(line, 0, &err);
			if (!json_is_object(obj)) {
				td_bad_input(name, lineno, "not a JSON object: %s", err.text);
				json_decref(obj);
				continue;
			}
			char *labels = NULL;
			for (int i = 0; i < NFIELDS; i++) {
				json_t *v = json_object_get(obj, field_names[i]);
				if (i == X_LABELS && v)
					fields[i] = labels = json_dumps(v, JSON_COMPACT);
				else if (json_is_string(v))
					fields[i] = json_string_value(v);
				else if (json_is_integer(v))
					snprintf(nums[i], sizeof nums[i], "%lld", (long long)json_integer_value(v)), fields[i] = nums[i];
				else if (json_is_real(v))
					snprintf(nums[i], sizeof nums[i], "%.17g", json_real_value(v)), fields[i] = nums[i];
			}
			rc = take_row(s, &p, fields, name, lineno, runs);
			lineno_json++;
			free(labels);
			json_decref(obj);
			continue;
		}
		char *cells[NFIELDS + 1];
		int n = split_csv(line, cells, NFIELDS + 1);
		if (!header) {
			header = true;
			if ((n == NFIELDS || n == NFIELDS_OLD) && cells[0] && !strcmp(cells[0], "id")) {
				width = n;
				continue;
			}
			td_bad_input(name, lineno, "not td-store export output (the header is id,time,labels,...)");
			rc = -1;
			break;
		}
		if (n != width) {
			td_bad_input(name, lineno, "expected %d fields, found %d", width, n);
			continue;
		}
		for (int i = 0; i < n; i++)
			fields[i] = cells[i];
		rc = take_row(s, &p, fields, name, lineno, runs);
	}
	if (rc == 0 && !header && lineno_json == 0) {
		td_bad_input(name, 0, "no td-store export rows in the file");
		rc = -1;
	}
	if (rc == 0)
		rc = flush(s, &p, runs);
	if (rc == 0 && store_add_end(s, true) < 0)
		rc = -1;
	else if (rc < 0 && !s->b->error[0])
		store_add_end(s, false);          /* not an export: nothing of it is kept */
	if (rc < 0 && s->b->error[0])
		verb_store_failed(s);
	pending_clear(&p);
	free(p.rows);
	free(p.strings);
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	int n = verb_start(&cmd, argc, argv, VERB_OPERANDS);
	if (n == 0)
		td_usage_error(&cmd, "no file to import (use - for stdin)");
	struct td_store *s = verb_open();
	long runs = 0;
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad |= import_file(s, argv[i], &runs) < 0;
	fprintf(stderr, "td-store: %ld run%s imported\n", runs, runs == 1 ? "" : "s");
	store_close(s);
	return td_exit_code(bad ? TD_EXIT_BAD : TD_EXIT_OK);
}
