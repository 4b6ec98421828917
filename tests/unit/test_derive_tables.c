/* Two derive engines in one process, each with its own perf metric table
 * (derive_config.metrics_file): the Ice Lake-X synthetic capture read by
 * both gives perf's UPI only to the engine with Ice Lake-X's table
 * (Skylake-X's UPI needs uops_retired.retire_slots, which the capture
 * lacks), whichever engine finishes first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/derive.h"
#include "tests/unit/tap.h"

struct seen {
	double upi, ipbranch;
};

static void on_set(void *ctx, const struct derive_set *s)
{
	struct seen *w = ctx;
	if (s->interval >= 0)
		return;
	for (int i = 0; i < s->nmetrics; i++) {
		if (!strcmp(s->metrics[i].name, "upi"))
			w->upi = s->metrics[i].value;
		if (!strcmp(s->metrics[i].name, "ipbranch"))
			w->ipbranch = s->metrics[i].value;
	}
}

static struct derive_engine *engine(const char *table, struct seen *w)
{
	*w = (struct seen){ NAN, NAN };
	struct derive_config c = { .metrics_file = table, .no_header_metrics = true };
	struct derive_callbacks cb = { .set = on_set, .ctx = w };
	return derive_new(&c, &cb);
}

int main(void)
{
	const char *root = getenv("TD_ROOT") ? getenv("TD_ROOT") : ".";
	char capture[1024], icx[1024], skx[1024];
	snprintf(capture, sizeof capture, "%s/testdata/collect/collect-synthetic-icelake-x-header.csv", root);
	snprintf(icx, sizeof icx, "%s/testdata/perf-list/GenuineIntel-6-6A-6.txt.gz", root);
	snprintf(skx, sizeof skx, "%s/testdata/perf-list/GenuineIntel-6-55-4.txt.gz", root);
	struct seen a, b;
	struct derive_engine *ea = engine(icx, &a), *eb = engine(skx, &b);
	derive_read(ea, capture, STAT_AUTO);
	derive_read(eb, capture, STAT_AUTO);
	derive_finish(eb);
	derive_finish(ea);
	ok(fabs(a.upi - 0.8) < 1e-9, "engine with Ice Lake-X's table: perf's UPI 0.8");
	ok(isnan(b.upi), "engine with Skylake-X's table, same process: no UPI (needs uops_retired.retire_slots)");
	ok(fabs(a.ipbranch - 5) < 1e-9 && fabs(b.ipbranch - 5) < 1e-9, "both tables: IpBranch 5");
	derive_free(ea);
	derive_free(eb);
	struct seen c;
	struct derive_engine *ec = engine(NULL, &c);
	derive_read(ec, capture, STAT_AUTO);
	derive_finish(ec);
	ok(isnan(c.upi) && isnan(c.ipbranch), "a third engine without a table (header's table not taken): none of perf's");
	derive_free(ec);
	return tap_done();
}
