/* libFuzzer target: what td-store parses and computes without a database:
 * label filters as users type them (and their SQL for both dialects), time
 * bounds, and a metric's history through the rolling statistics and the
 * change-point search (any doubles: NaN, infinities, huge, tiny). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/trend.h"
#include "common/diag.h"
#include "store/filter.h"

static void filters(const uint8_t *data, size_t size)
{
	char *arg = malloc(size + 1);
	memcpy(arg, data, size);
	arg[size] = 0;
	struct store_filter f = { 0 };
	char err[512], sql[8192];
	store_filter_add_labels(&f, arg, err, sizeof err);
	store_filter_set_time(f.since, sizeof f.since, arg, err, sizeof err);
	for (int d = 0; d < 2; d++) {
		struct store_value params[64];
		int np = 0;
		sql[0] = 0;
		store_filter_sql(&f, d ? STORE_POSTGRES : STORE_SQLITE, sql, sizeof sql, params, &np, 64);
		if (np > 64)
			abort();
		for (int i = 0; i < np; i++)           /* every value bound, none spliced */
			if (params[i].type == SV_TEXT && params[i].len && strstr(sql, params[i].s) && strlen(params[i].s) > 8)
				abort();
	}
	store_filter_free(&f);
	free(arg);
}

static void history(const uint8_t *data, size_t size)
{
	size_t n = size / sizeof(double);
	if (n == 0)
		return;
	double *v = malloc(n * sizeof *v);
	memcpy(v, data, n * sizeof *v);
	struct trend_options o;
	trend_options_default(&o);
	o.window = 1 + (int)(data[0] % 12);
	o.min_segment = 2 + (int)(data[size - 1] % 6);
	struct trend_point *p = malloc(n * sizeof *p);
	trend_points(v, n, &o, p);
	struct trend_change c[16];
	size_t nc = trend_changes(v, n, &o, c, 16);
	for (size_t i = 0; i < nc; i++)
		if (c[i].at == 0 || c[i].at >= n || (i && c[i].at <= c[i - 1].at))
			abort();
	free(p);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	td_quiet = 1;
	if (size < 2)
		return 0;
	if (data[0] & 1)
		filters(data + 1, size - 1);
	else
		history(data + 1, size - 1);
	return 0;
}
