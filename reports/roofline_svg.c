/* The roofline chart (roofline_svg.h). */
#include <math.h>
#include "reports/escape.h"
#include "reports/roofline_svg.h"

#define W 800
#define H 560
#define LEFT 90
#define RIGHT 30
#define TOP 50
#define BOTTOM 70

struct axes {
	double x0, x1, y0, y1;       /* decades: log10 of the range ends */
};

static double px(const struct axes *a, double ai)
{
	return LEFT + (log10(ai) - a->x0) / (a->x1 - a->x0) * (W - LEFT - RIGHT);
}

static double py(const struct axes *a, double gflops)
{
	return H - BOTTOM - (log10(gflops) - a->y0) / (a->y1 - a->y0) * (H - TOP - BOTTOM);
}

/* Whole decades around every value to show, at least two of them. */
static void widen(double *lo, double *hi, double v)
{
	if (!(v > 0) || !isfinite(v))
		return;
	double d = log10(v);
	*lo = fmin(*lo, floor(d - 0.5));
	*hi = fmax(*hi, ceil(d + 0.5));
}

/* One bandwidth roof: gbs x AI up to the compute roof (the ridge). */
static void roof(FILE *f, const struct axes *a, double gbs, double gflops, const char *label, const char *colour)
{
	double from = pow(10, a->x0), ridge = gflops / gbs;
	double start_y = gbs * from;
	double lo = pow(10, a->y0);
	if (start_y < lo)
		from = lo / gbs;        /* enters the plot at its bottom edge */
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
		px(a, from), py(a, gbs * from), px(a, ridge), py(a, gflops), colour);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"%s\">%s %.4g GB/s</text>\n", px(a, from) + 6,
		py(a, gbs * from) - 8, colour, label, gbs);
}

void roofline_svg_write(FILE *f, const struct roofline_peaks *k, const struct roofline_svg_point *p,
			const char *title)
{
	struct axes a = { INFINITY, -INFINITY, INFINITY, -INFINITY };
	widen(&a.x0, &a.x1, p->ai);
	widen(&a.y0, &a.y1, p->gflops);
	if (k) {
		widen(&a.x0, &a.x1, k->gflops / k->gbs);
		widen(&a.y0, &a.y1, k->gflops);
		for (int i = 0; i < k->nlevels; i++)
			widen(&a.x0, &a.x1, k->gflops / k->level_gbs[i]);
	}
	if (a.x1 - a.x0 < 2)
		a.x0 = a.x1 - 2;
	if (a.y1 - a.y0 < 2)
		a.y0 = a.y1 - 2;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		   "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana, sans-serif\">\n"
		   "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		W, H, W, H, W, H);
	fputs("<text x=\"400\" y=\"28\" font-size=\"17\" text-anchor=\"middle\">", f);
	td_xml_text(f, title);
	fputs("</text>\n", f);
	/* axes, decade grid and labels */
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000000\"/>\n", LEFT, TOP,
		W - LEFT - RIGHT, H - TOP - BOTTOM);
	for (double d = a.x0; d <= a.x1 + 1e-9; d++) {
		double x = px(&a, pow(10, d));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dddddd\"/>\n", x, TOP, x, H - BOTTOM);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%g</text>\n", x,
			H - BOTTOM + 18, pow(10, d));
	}
	for (double d = a.y0; d <= a.y1 + 1e-9; d++) {
		double y = py(&a, pow(10, d));
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", LEFT, y, W - RIGHT, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%g</text>\n", LEFT - 6, y + 4,
			pow(10, d));
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"14\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte of "
		   "DRAM traffic)</text>\n", (LEFT + W - RIGHT) / 2, H - 22);
	fprintf(f, "<text x=\"24\" y=\"%d\" font-size=\"14\" text-anchor=\"middle\" transform=\"rotate(-90 24 %d)\">"
		   "performance (GFLOP/s)</text>\n", (TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2);
	if (k) {
		double ridge = k->gflops / k->gbs;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c00000\" stroke-width=\"2\"/>\n",
			px(&a, ridge), py(&a, k->gflops), W - RIGHT, py(&a, k->gflops));
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\" fill=\"#c00000\">peak %.4g "
			   "GFLOP/s</text>\n", W - RIGHT - 6, py(&a, k->gflops) - 8, k->gflops);
		for (int i = 0; i < k->nlevels; i++)
			roof(f, &a, k->level_gbs[i], k->gflops, k->level[i], "#808080");
		roof(f, &a, k->gbs, k->gflops, "DRAM", "#c00000");
	}
	fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"#0050c0\"/>\n", px(&a, p->ai), py(&a, p->gflops));
	bool right = px(&a, p->ai) > W / 2;    /* the label on the side with room */
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"#0050c0\" text-anchor=\"%s\">",
		px(&a, p->ai) + (right ? -10 : 10), py(&a, p->gflops) + 22, right ? "end" : "start");
	td_xml_text(f, p->label);
	fprintf(f, ": %.3f FLOP/B, %.3f GFLOP/s", p->ai, p->gflops);
	if (k) {
		double roof_at = roofline_attainable(k, p->ai);
		fprintf(f, " (%.1f %% of the %s roof)", 100 * p->gflops / roof_at,
			roofline_memory_bound(k, p->ai) ? "memory" : "compute");
	}
	fputs("</text>\n</svg>\n", f);
}
