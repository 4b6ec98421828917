/* Rolling statistics and change points of a metric's history (trend.h). */
#include <math.h>
#include <stdlib.h>
#include "analysis/trend.h"
#include "common/diag.h"
#include "common/stats.h"

void trend_options_default(struct trend_options *o)
{
	o->window = 10;
	o->z = 3;
	o->threshold_pct = 2;
	o->threshold_abs = NAN;
	o->alpha = 0.001;
	o->min_segment = 5;
}

void trend_points(const double *x, size_t n, const struct trend_options *o, struct trend_point *p)
{
	size_t window = o->window > 1 ? (size_t)o->window : 2;
	for (size_t i = 0; i < n; i++) {
		size_t w = i < window ? i : window;
		p[i] = (struct trend_point){ x[i], NAN, NAN, NAN, false };
		if (w < 2)
			continue;
		double sum = 0, sq = 0;
		for (size_t j = i - w; j < i; j++)
			sum += x[j];
		double mean = sum / (double)w;
		for (size_t j = i - w; j < i; j++)
			sq += (x[j] - mean) * (x[j] - mean);
		double sd = sqrt(sq / (double)(w - 1));
		p[i].mean = mean;
		p[i].stddev = sd;
		if (sd > 0)
			p[i].z = (x[i] - mean) / sd;
		double moved = mean != 0 ? fabs(x[i] - mean) / fabs(mean) * 100 : INFINITY;
		bool enough = isnan(o->threshold_abs) ? moved >= o->threshold_pct : fabs(x[i] - mean) >= o->threshold_abs;
		p[i].anomaly = !isnan(p[i].z) && fabs(p[i].z) >= o->z && enough &&
			       td_student_t_p(p[i].z / sqrt(1 + 1.0 / (double)w), (double)(w - 1)) <= erfc(o->z / M_SQRT2);
	}
}

struct segmenter {
	const double *x;
	double *sum, *sq;          /* prefix sums: sum[i] = x[0] + ... + x[i-1] */
	const struct trend_options *o;
	struct trend_change *out;
	size_t n, max;
};

static void side_stats(const struct segmenter *g, size_t a, size_t b, double *mean, double *se)
{
	double n = (double)(b - a), s = g->sum[b] - g->sum[a], q = g->sq[b] - g->sq[a];
	*mean = s / n;
	double var = (q - n * *mean * *mean) / (n - 1);
	*se = sqrt(var > 0 ? var / n : 0);
}

/* Student's t of a split of [a, b) at k: the difference of the two sides'
 * means over the pooled standard deviation (the null hypothesis is one
 * distribution on both sides, so one variance, estimated from all the
 * runs). Welch's separate variances are not used: where one side is a
 * few runs that sit in one mode of a bimodal metric (task-clock on a busy
 * VM), its variance is near 0 and Welch's t calls the split significant
 * far more often than alpha says. */
static double split_t(const struct segmenter *g, size_t a, size_t k, size_t b, double *ml, double *mr)
{
	double nl = (double)(k - a), nr = (double)(b - k), sl, sr;
	side_stats(g, a, k, ml, &sl);
	side_stats(g, k, b, mr, &sr);
	/* within-side sums of squares from the standard errors: (n - 1) var = se^2 n (n - 1) */
	double ss = sl * sl * nl * (nl - 1) + sr * sr * nr * (nr - 1);
	double se = sqrt(ss / (nl + nr - 2) * (1 / nl + 1 / nr));
	return se > 0 ? fabs(*mr - *ml) / se : (*mr != *ml ? INFINITY : 0);
}

/* The most likely step in [a, b), kept if significant and large enough;
 * then the same on both sides of it. */
static void segment(struct segmenter *g, size_t a, size_t b)
{
	size_t m = g->o->min_segment > 2 ? (size_t)g->o->min_segment : 2;
	if (b - a < 2 * m || g->n == g->max)
		return;
	size_t best = 0;
	double best_t = -1, ml, mr;
	for (size_t k = a + m; k + m <= b; k++) {
		double t = split_t(g, a, k, b, &ml, &mr);
		if (t > best_t) {
			best_t = t;
			best = k;
		}
	}
	if (best_t <= 0)
		return;
	split_t(g, a, best, b, &ml, &mr);
	double p = isinf(best_t) ? 0 : td_student_t_p(best_t, (double)(b - a - 2));
	/* the best of the segment's candidate splits: Bonferroni over them */
	p = fmin(1, p * (double)(b - a - 2 * m + 1));
	double delta = ml != 0 ? (mr - ml) / fabs(ml) * 100 : INFINITY;
	bool enough = isnan(g->o->threshold_abs) ? fabs(delta) >= g->o->threshold_pct
						   : fabs(mr - ml) >= g->o->threshold_abs;
	if (!(p < g->o->alpha) || !enough)
		return;
	g->out[g->n++] = (struct trend_change){ best, ml, mr, delta, p };
	segment(g, a, best);
	segment(g, best, b);
}

static int by_place(const void *a, const void *b)
{
	size_t x = ((const struct trend_change *)a)->at, y = ((const struct trend_change *)b)->at;
	return x < y ? -1 : x > y;
}

size_t trend_changes(const double *x, size_t n, const struct trend_options *o, struct trend_change *out, size_t max)
{
	struct segmenter g = { x, td_malloc((n + 1) * sizeof(double)), td_malloc((n + 1) * sizeof(double)), o, out, 0, max };
	g.sum[0] = g.sq[0] = 0;
	for (size_t i = 0; i < n; i++) {
		g.sum[i + 1] = g.sum[i] + x[i];
		g.sq[i + 1] = g.sq[i] + x[i] * x[i];
	}
	segment(&g, 0, n);
	/* a step's before/after are the means of the segments it was found
	 * between; once all steps are known, each gets its neighbours' instead */
	qsort(out, g.n, sizeof *out, by_place);
	for (size_t i = 0; i < g.n; i++) {
		size_t a = i ? out[i - 1].at : 0, b = out[i].at, c = i + 1 < g.n ? out[i + 1].at : n;
		double ml, mr, sl, sr;
		side_stats(&g, a, b, &ml, &sl);
		side_stats(&g, b, c, &mr, &sr);
		out[i].before = ml;
		out[i].after = mr;
		out[i].delta_pct = ml != 0 ? (mr - ml) / fabs(ml) * 100 : INFINITY;
	}
	free(g.sum);
	free(g.sq);
	return g.n;
}
