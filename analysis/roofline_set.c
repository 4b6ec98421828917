/* A stat model's whole-run set on the roofline (roofline_set.h). */
#include <math.h>
#include <string.h>
#include "analysis/roofline_set.h"

bool roofline_of_set(const struct stat_model *m, const struct counter_set *s, const struct metric_value *mv, int n,
		     const struct roofline_peaks *k, struct roofline_values *out)
{
	struct roofline_point p;
	if (s->interval >= 0 || !roofline_flops(s, &p))
		return false;
	double elapsed = NAN;
	for (int i = 0; i < n; i++)
		if (!strcmp(mv[i].name, "elapsed_s"))
			elapsed = mv[i].value;
	const struct counter *dur = counter_set_get(s, "duration_time");
	if (isnan(elapsed))
		elapsed = dur && !isnan(dur->value) ? dur->value / 1e9 : m->elapsed[s->session];
	int nsum;
	const struct counter_set *sum = stat_model_summary(m, &nsum);
	double conf = counter_set_lowest_enabled(s);
	for (int i = 0; i < nsum; i++)
		if (sum[i].session == s->session && (!strcmp(sum[i].scope, s->scope) || !s->scope[0]) &&
		    roofline_add_bytes(&sum[i], &p))
			conf = fmin(conf, counter_set_lowest_enabled(&sum[i]));
	if (!(elapsed > 0) || isnan(p.bytes) || !(p.bytes > 0))
		return false;
	*out = (struct roofline_values){ .gflops = p.flops / elapsed / 1e9, .gbs = p.bytes / elapsed / 1e9,
					 .ai = p.flops / p.bytes, .proxy = p.proxy, .confidence = conf };
	if (k) {
		out->has_roof = true;
		out->roof = roofline_attainable(k, out->ai);
		out->share = 100 * out->gflops / out->roof;
		out->memory_bound = roofline_memory_bound(k, out->ai);
	}
	return true;
}
