/* trend's false-alarm rates on series with no change, against the rates
 * its rules promise: an anomaly as rare as a |z| >= 3 of a normal
 * (0.27 % of runs) although each window's standard deviation is estimated
 * from at most 10 runs, and a step in at most 1 % of 30-run series
 * (alpha 0.001 after the Bonferroni over candidate splits), on Gaussian
 * and on bimodal noise. Noise from a fixed seed, so the counts are the same on every run; a step of
 * 6 % in noise of 1 % is still found, at its first run. TAP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "analysis/trend.h"
#include "tests/unit/tap.h"

static unsigned long long rng = 88172645463325252ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void) { return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform()); }

int main(void)
{
	enum { SERIES = 2000, N = 30 };
	struct trend_options o;
	trend_options_default(&o);
	o.threshold_pct = 0;           /* the statistics alone: no threshold to hide behind */
	double x[N];
	struct trend_point p[N];
	struct trend_change c[16];
	long anomalies = 0, judged = 0, with_change = 0;
	for (int s = 0; s < SERIES; s++) {
		for (int i = 0; i < N; i++)
			x[i] = 100 + normal();
		trend_points(x, N, &o, p);
		for (int i = 0; i < N; i++) {
			anomalies += p[i].anomaly;
			judged += !isnan(p[i].z);
		}
		with_change += trend_changes(x, N, &o, c, 16) > 0;
	}
	double rate = (double)anomalies / (double)judged;
	char what[200];
	snprintf(what, sizeof what, "no change: %ld anomalies in %ld runs judged (%.2f %%; a normal's |z| >= 3: 0.27 %%)",
		 anomalies, judged, 100 * rate);
	ok(rate < 0.005, what);
	snprintf(what, sizeof what, "no change: a step in %ld of %d series of %d runs (%.2f %%)", with_change, SERIES, N,
		 100.0 * (double)with_change / SERIES);
	ok(with_change <= SERIES / 100, what);

	/* 20 runs, then 10 runs 6 % slower */
	for (int i = 0; i < N; i++)
		x[i] = (i < 20 ? 100 : 106) + normal();
	o.threshold_pct = 5;
	size_t nc = trend_changes(x, N, &o, c, 16);
	snprintf(what, sizeof what, "a 6 %% step: found once (%zu), at run 21 (%zu), +%.1f %%", nc, nc ? c[0].at + 1 : 0,
		 nc ? c[0].delta_pct : 0);
	ok(nc == 1 && c[0].at == 20 && c[0].delta_pct > 5 && c[0].delta_pct < 7, what);
	trend_points(x, N, &o, p);
	ok(p[20].anomaly, "a 6 % step: its first run is an anomaly");
	/* bimodal noise, as task-clock on a busy 2-core VM: each run fast
	 * (25 ms) or, 4 times in 10, slow (40 ms), independently. A side of
	 * 5 runs that all fell in one mode has almost no variance: Welch's t
	 * (each side's own variance) finds a step in 3.5 % of these series;
	 * Student's pooled variance keeps to alpha's promise */
	o.threshold_pct = 0;
	with_change = 0;
	for (int s = 0; s < SERIES; s++) {
		for (int i = 0; i < N; i++)
			x[i] = uniform() < 0.4 ? 40 + 1.5 * normal() : 25 + normal();
		with_change += trend_changes(x, N, &o, c, 16) > 0;
	}
	snprintf(what, sizeof what, "bimodal, no change: a step in %ld of %d series of %d runs (%.2f %%)", with_change,
		 SERIES, N, 100.0 * (double)with_change / SERIES);
	ok(with_change <= SERIES / 100, what);

	return tap_done();
}
