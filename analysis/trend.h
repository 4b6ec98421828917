/* A metric's history: for each run the rolling mean and standard deviation
 * of the runs before it, its z-score and whether it is an anomaly; and the
 * steps in the series' mean (change points), each reported once, where it
 * starts.
 *
 * Change points: binary segmentation with Student's two-sample t-test
 * (pooled variance), the deterministic variant of E-Divisive that Hunter
 * (Fleming et al., "Hunter: Using Change Point Detection to Hunt for
 * Performance Regressions", ICPE 2023; now Apache Otava) uses in place of
 * E-Divisive's permutation test: the split with the largest |t| between
 * the segment's two sides is kept when its p-value is below alpha and the
 * means differ by at least the metric's threshold, and both sides are
 * searched again. The split is the best of K candidates, so its p-value
 * is K times Student's (Bonferroni).
 * Deterministic: the same series gives the same answer. O(n log n) with
 * prefix sums.
 *
 * Anomalies: |z| >= Z is not enough where the window's standard deviation
 * comes from a few runs (at 2 runs a quarter of steady runs would pass):
 * a run is also as improbable as a Z-sigma normal deviation by the
 * prediction interval of one new observation (z / sqrt(1 + 1/w) on
 * Student's t, w - 1 degrees of freedom). */
#ifndef TD_TREND_H
#define TD_TREND_H

#include <stdbool.h>
#include <stddef.h>

struct trend_options {
	int window;                /* runs in the rolling mean (default 10) */
	double z;                  /* |z| at or above this is an anomaly (default 3) */
	double threshold_pct;      /* ... and the value moved at least this % from the mean */
	double threshold_abs;      /* ... or, when not NaN, at least this much (a node's points) instead */
	double alpha;              /* change points: p-value below this (default 0.001) */
	int min_segment;           /* change points: runs on each side at least (default 5) */
};

struct trend_point {
	double value;
	double mean, stddev;       /* of the window before this run; NaN for the first two runs */
	double z;                  /* NaN where stddev is 0 or unknown */
	bool anomaly;
};

struct trend_change {
	size_t at;                 /* index of the first run after the step */
	double before, after;      /* means of the segments on each side */
	double delta_pct;
	double p_value;            /* Student's, times the candidate splits (Bonferroni) */
};

void trend_options_default(struct trend_options *o);

/* Fills points[0..n) from values[0..n). */
void trend_points(const double *values, size_t n, const struct trend_options *o, struct trend_point *points);

/* The change points of values[0..n) in order; returns their count (at most max). */
size_t trend_changes(const double *values, size_t n, const struct trend_options *o, struct trend_change *out,
		     size_t max);

#endif
