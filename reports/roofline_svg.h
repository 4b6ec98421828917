/* The roofline as SVG: log-log axes (arithmetic intensity in FLOP/B,
 * performance in GFLOP/s), labelled by decade, the roofs of the peaks
 * (DRAM and each peak_gbs_LEVEL under the compute roof) and the measured
 * point with its values. Byte-stable: fixed-precision numbers only. */
#ifndef TD_ROOFLINE_SVG_H
#define TD_ROOFLINE_SVG_H

#include <stdbool.h>
#include <stdio.h>
#include "analysis/roofline.h"

struct roofline_svg_point {
	const char *label;           /* the set: "all", "run2 all" */
	double ai;                   /* FLOP/B */
	double gflops;
};

/* peaks may be NULL (the point and axes only). */
void roofline_svg_write(FILE *f, const struct roofline_peaks *peaks, const struct roofline_svg_point *p,
			const char *title);

#endif
