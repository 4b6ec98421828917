/* What the libFuzzer targets share: a fuzz input taken line by line; read
 * as branch text into td-branches' reader; read as perf stat output into
 * the model, every set's metrics touched. All in memory, on the calling
 * thread: a target starts no thread and writes no file unless comparing
 * with a second thread is its point (fuzz_stat, fuzz_brstack). */
#ifndef TD_FUZZ_INPUT_H
#define TD_FUZZ_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "analysis/branches.h"
#include "analysis/stat_model.h"
#include "common/diag.h"

/* The lines of an input: each ends at an LF (not included) or at the end;
 * a NUL byte is part of a line, as a parser may be handed one. */
struct fuzz_lines {
	const char *p, *end;
	unsigned long no;            /* of the line last returned, from 1 */
	bool drop_cr;                /* drop a CR before the LF, as td_input_next does */
};

static inline struct fuzz_lines fuzz_lines(const uint8_t *data, size_t size, bool drop_cr)
{
	const char *p = size ? (const char *)data : "";
	return (struct fuzz_lines){ p, p + size, 0, drop_cr };
}

static inline bool fuzz_line(struct fuzz_lines *it, const char **line, size_t *len)
{
	if (it->p >= it->end)
		return false;
	const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	size_t n = nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p);
	*line = it->p;
	*len = it->drop_cr && n && it->p[n - 1] == '\r' ? n - 1 : n;
	it->p += n + 1;
	it->no++;
	return true;
}

/* The input as perf script branch-stack text, SPE samples or SPE packet
 * dumps, line by line into td-branches' reader on this thread. */
static inline struct branches *fuzz_branches(const uint8_t *data, size_t size)
{
	td_quiet = 1;
	struct branches *b = branches_new();
	struct fuzz_lines it = fuzz_lines(data, size, true);       /* as td_input_next */
	const char *line;
	size_t n;
	while (fuzz_line(&it, &line, &n))
		branches_line(b, line, n, "fuzz", it.no);
	branches_end_input(b);
	return b;
}

/* Every set the model hands out: each interval's (interval true: the
 * model's perf_cur lists what perf printed for it) and then the whole
 * run's (m->perf). */
typedef void (*fuzz_set_fn)(const struct stat_model *m, const struct counter_set *s, bool interval);

static inline void fuzz_each_interval_set(void *ctx, const struct stat_model *m)
{
	fuzz_set_fn fn = *(fuzz_set_fn *)ctx;
	for (int i = 0; i < m->ncur; i++)
		fn(m, &m->cur[i], true);
}

/* The input as perf stat output of layout fmt (STAT_AUTO: detected per
 * line) through stat_read_memory into a model; fn sees every set. */
static inline void fuzz_stat_model(const uint8_t *data, size_t size, enum stat_format fmt, fuzz_set_fn fn)
{
	td_quiet = 1;
	struct stat_model m;
	stat_model_init(&m);
	m.on_interval = fuzz_each_interval_set;
	m.on_interval_ctx = &fn;
	stat_read_memory(data, size, "fuzz", fmt, stat_model_add, &m);
	stat_model_finish(&m);
	int nsum;
	const struct counter_set *sum = stat_model_summary(&m, &nsum);
	for (int i = 0; i < nsum; i++)
		fn(&m, &sum[i], false);
	stat_model_free(&m);
}

/* A set's metrics, computed and dropped. */
static inline void fuzz_set_metrics(const struct stat_model *m, const struct counter_set *s, bool interval)
{
	struct metric_value mv[METRICS_MAX];
	(void)interval;
	stat_model_metrics(m, s, mv, METRICS_MAX);
}

#endif
