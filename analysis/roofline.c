/* The roofline tables and the peaks file (roofline.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/roofline.h"
#include "common/diag.h"
#include "common/input.h"

/* An FP event and the operations one count stands for. */
struct flop_row {
	const char *event;           /* canonical (events.h), without a PMU */
	double ops;
};

struct flop_table {
	const char *vendor;
	const char *what;            /* what was summed, for the report */
	const struct flop_row *rows; /* NULL-terminated */
};

static const struct flop_row intel_flops[] = {
	{ "fp_arith_inst_retired.scalar_double", 1 },      { "fp_arith_inst_retired.scalar_single", 1 },
	{ "fp_arith_inst_retired.128b_packed_double", 2 }, { "fp_arith_inst_retired.128b_packed_single", 4 },
	{ "fp_arith_inst_retired.256b_packed_double", 4 }, { "fp_arith_inst_retired.256b_packed_single", 8 },
	{ "fp_arith_inst_retired.512b_packed_double", 8 }, { "fp_arith_inst_retired.512b_packed_single", 16 },
	{ NULL, 0 },
};
static const struct flop_row amd_flops[] = { { "fp_ret_sse_avx_ops.all", 1 }, { NULL, 0 } };
static const struct flop_row arm_flops[] = { { "fp_fixed_ops_spec", 1 }, { "fp_scale_ops_spec", 1 }, { NULL, 0 } };

static const struct flop_table flop_tables[] = {
	{ "Intel", "fp_arith_inst_retired.* (x1 scalar .. x16 512-bit single)", intel_flops },
	{ "AMD", "fp_ret_sse_avx_ops.all", amd_flops },
	{ "Arm", "fp_fixed_ops_spec + fp_scale_ops_spec (per 128 bits)", arm_flops },
};

/* A memory-traffic event: a name part and the bytes one printed unit is. */
struct byte_row {
	const char *match;           /* a substring of the canonical name */
	double bytes;
	bool proxy;
	const char *what;
};

/* First kind that matches wins: DRAM counts before any proxy. */
static const struct byte_row byte_rows[] = {
	{ "cas_count_read", 1048576, false, "uncore_imc cas_count_read + cas_count_write (MiB)" },
	{ "cas_count_write", 1048576, false, "uncore_imc cas_count_read + cas_count_write (MiB)" },
	{ "unc_m_cas_count.rd", 1, false, "unc_m_cas_count.rd + .wr (bytes)" },
	{ "unc_m_cas_count.wr", 1, false, "unc_m_cas_count.rd + .wr (bytes)" },
	{ "dram_channel_data_controller_", 1048576, false, "dram_channel_data_controller_* (MiB)" },
	{ "llc-load-misses", 64, true, "64 B per LLC-load-miss and LLC-store-miss (a proxy)" },
	{ "llc-store-misses", 64, true, "64 B per LLC-load-miss and LLC-store-miss (a proxy)" },
	{ "ll_cache_miss_rd", 64, true, "64 B per ll_cache_miss_rd (a proxy)" },
	{ "l3d_cache_refill", 64, true, "64 B per l3d_cache_refill (a proxy)" },
};
#define NBYTE_ROWS (sizeof byte_rows / sizeof *byte_rows)

static bool counted(const struct counter *c) { return c && !isnan(c->value); }

static const char *bare(const char *name)
{
	const char *slash = strchr(name, '/');
	if (!slash)
		return name;
	return slash + 1;       /* "cpu_core/fp_arith.../" */
}

static bool same_event(const char *name, const char *event)
{
	const char *b = bare(name);
	size_t n = strlen(event);
	return !strncmp(b, event, n) && (b[n] == '\0' || b[n] == '/');
}

bool roofline_flops(const struct counter_set *s, struct roofline_point *p)
{
	for (size_t t = 0; t < sizeof flop_tables / sizeof *flop_tables; t++) {
		double sum = 0;
		bool any = false;
		for (const struct flop_row *r = flop_tables[t].rows; r->event; r++)
			for (int i = 0; i < s->n; i++)
				if (counted(&s->c[i]) && same_event(s->c[i].name, r->event)) {
					sum += r->ops * s->c[i].value;
					any = true;
				}
		if (any) {
			*p = (struct roofline_point){ sum, NAN, false, flop_tables[t].vendor, flop_tables[t].what, "" };
			return true;
		}
	}
	return false;
}

/* The kind of memory event a name is (index into byte_rows), -1: none. */
static int byte_kind(const char *name)
{
	for (size_t k = 0; k < NBYTE_ROWS; k++)
		if (strstr(name, byte_rows[k].match))
			return (int)k;
	return -1;
}

bool roofline_add_bytes(const struct counter_set *s, struct roofline_point *p)
{
	/* the best kind s has: DRAM counts over proxies */
	int best = -1;
	for (int i = 0; i < s->n; i++) {
		int k = counted(&s->c[i]) ? byte_kind(s->c[i].name) : -1;
		if (k >= 0 && (best < 0 || (byte_rows[best].proxy && !byte_rows[k].proxy)))
			best = k;
	}
	if (best < 0)
		return false;
	bool proxy = byte_rows[best].proxy;
	if (!isnan(p->bytes) && !p->proxy && proxy)
		return false;           /* a DRAM count from another set stands */
	if (!isnan(p->bytes) && p->proxy && !proxy)
		p->bytes = NAN;         /* a DRAM count replaces a proxy */
	double sum = 0;
	for (int i = 0; i < s->n; i++) {
		int k = counted(&s->c[i]) ? byte_kind(s->c[i].name) : -1;
		if (k >= 0 && byte_rows[k].proxy == proxy && !strcmp(byte_rows[k].what, byte_rows[best].what))
			sum += byte_rows[k].bytes * s->c[i].value;
	}
	p->bytes = (isnan(p->bytes) ? 0 : p->bytes) + sum;
	p->proxy = proxy;
	p->byte_events = byte_rows[best].what;
	return true;
}

double roofline_attainable(const struct roofline_peaks *k, double ai)
{
	return fmin(k->gflops, ai * k->gbs);
}

bool roofline_memory_bound(const struct roofline_peaks *k, double ai)
{
	return ai * k->gbs < k->gflops;
}

static int level_index(const struct roofline_peaks *p, const char *name)
{
	for (int i = 0; i < p->nlevels; i++)
		if (!strcmp(p->level[i], name))
			return i;
	return -1;
}

#define NOT_A_PEAK "not a 'key value' line with a positive number (peak_gflops 1200, peak_gbs 200, peak_gbs_l3 800)"

bool roofline_peaks_fact(struct roofline_peaks *p, const char *key, const char *value, char *why, size_t cap)
{
	char *end;
	double v = strtod(value, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == value || *end || !(v > 0) || !isfinite(v)) {
		snprintf(why, cap, "'%s' is not a positive number (peak_gflops 1200, peak_gbs 200, peak_gbs_l3 800)", value);
		return false;
	}
	if (!strcmp(key, "peak_gflops")) {
		p->gflops = v;
	} else if (!strcmp(key, "peak_gbs")) {
		p->gbs = v;
	} else if (!strncmp(key, "peak_gbs_", 9) && key[9] && strlen(key + 9) < sizeof p->level[0] &&
		   (level_index(p, key + 9) >= 0 || p->nlevels < ROOFLINE_MAX_LEVELS)) {
		int i = level_index(p, key + 9);   /* a level given again (each run of an agent's capture) */
		if (i < 0) {
			i = p->nlevels++;
			memcpy(p->level[i], key + 9, strlen(key + 9) + 1);   /* fits: checked above */
		}
		p->level_gbs[i] = v;
	} else {
		snprintf(why, cap, "unknown key '%s' (peak_gflops, peak_gbs, peak_gbs_LEVEL; at most %d levels)", key,
			 ROOFLINE_MAX_LEVELS);
		return false;
	}
	return true;
}

bool roofline_peaks_load(const char *path, struct roofline_peaks *p)
{
	*p = (struct roofline_peaks){ .gflops = NAN, .gbs = NAN };
	struct td_input *in = td_input_open(path);
	if (!in)
		return false;
	const char *line;
	size_t len;
	unsigned long no = 0;
	bool good = true;
	while (td_input_next(in, &line, &len)) {
		no++;
		char buf[256];
		if (len >= sizeof buf) {
			td_bad_input(path, no, "not a 'key value' line (peak_gflops, peak_gbs, peak_gbs_LEVEL)");
			good = false;
			continue;
		}
		memcpy(buf, line, len);
		buf[len] = '\0';
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		char key[64], value[128], rest[8];
		int got = sscanf(buf, "%63s %127s %7s", key, value, rest);
		if (got <= 0)
			continue;              /* blank or a comment */
		char why[160] = NOT_A_PEAK;
		if (got != 2 || !roofline_peaks_fact(p, key, value, why, sizeof why)) {
			td_bad_input(path, no, "%s", why);
			good = false;
		}
	}
	td_input_close(in);
	if (good && !roofline_peaks_complete(p)) {
		td_bad_input(path, 0, "needs both peak_gflops and peak_gbs");
		good = false;
	}
	return good;
}

bool roofline_peaks_complete(const struct roofline_peaks *p) { return !isnan(p->gflops) && !isnan(p->gbs); }

static bool same_peaks(const struct roofline_peaks *a, const struct roofline_peaks *b)
{
	if (a->gflops != b->gflops || a->gbs != b->gbs || a->nlevels != b->nlevels)
		return false;
	for (int i = 0; i < a->nlevels; i++)
		if (strcmp(a->level[i], b->level[i]) || a->level_gbs[i] != b->level_gbs[i])
			return false;
	return true;
}

void roofline_header_file(struct roofline_header_peaks *h, const char *file)
{
	if (h->files && h->file_any && !h->file_bad && !roofline_peaks_complete(&h->file)) {
		td_bad_input(h->file_name, h->file_line, "td-collect header: peaks need both peak_gflops and peak_gbs; "
							  "none used");
		h->file_bad = true;
	}
	if (h->files && h->file_any && !h->file_bad) {
		if (!h->with_peaks) {
			h->capture = h->file;
			memcpy(h->source, h->file_source, sizeof h->source);
		} else if (!same_peaks(&h->capture, &h->file) && !h->unusable) {
			td_warn(h->file_name, h->file_line, "td-collect header: other peaks than the capture's first "
							    "file: none used (give --peaks FILE)");
			h->unusable = true;
		}
		h->with_peaks++;
	}
	if (h->file_bad)
		h->unusable = true;
	h->file_any = false;            /* closed: a second close adds nothing */
	if (!file)
		return;
	h->files++;
	h->file = (struct roofline_peaks){ .gflops = NAN, .gbs = NAN };
	h->file_source[0] = '\0';
	snprintf(h->file_name, sizeof h->file_name, "%s", file);
	h->file_bad = false;
	h->file_line = 0;
}

bool roofline_header_fact(struct roofline_header_peaks *h, const char *key, const char *value, const char *file,
			  unsigned long line)
{
	if (!strcmp(key, "peaks_source")) {
		snprintf(h->file_source, sizeof h->file_source, "%s", value);
		return true;
	}
	if (strncmp(key, "peak_", 5))
		return false;
	if (!h->file_any)
		h->file_line = line;
	h->file_any = true;
	char why[160];
	if (!roofline_peaks_fact(&h->file, key, value, why, sizeof why)) {
		td_bad_input(file, line, "td-collect header: %s=%s: %s", key, value, why);
		h->file_bad = true;
	}
	return true;
}

const struct roofline_peaks *roofline_header_peaks(const struct roofline_header_peaks *h, const char **source)
{
	if (!h->files || h->with_peaks != h->files || h->unusable)
		return NULL;
	*source = h->source;
	return &h->capture;
}
