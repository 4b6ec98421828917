/* A metric's history as an SVG line chart: the values, the rolling band
 * (mean +- one standard deviation of the window before each run), the
 * anomalies as red dots and each change point as a dashed line with its
 * delta, on labelled axes. Plain SVG 1.1, no script: byte-stable. */
#ifndef TD_TREND_SVG_H
#define TD_TREND_SVG_H

#include <stdio.h>
#include "analysis/trend.h"

struct trend_chart {
	const char *title;         /* "ipc over 42 runs (bench=x)" */
	const char *unit;          /* y axis label */
	const char *first_time, *last_time;   /* x axis ends */
	const struct trend_point *points;
	size_t npoints;
	const struct trend_change *changes;
	size_t nchanges;
};

void trend_svg_write(FILE *f, const struct trend_chart *c);

#endif
