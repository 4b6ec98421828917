/* A metric's history as SVG (trend_svg.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "reports/table.h"
#include "reports/trend_svg.h"

#define W 960
#define H 420
#define LEFT 90
#define RIGHT 30
#define TOP 50
#define BOTTOM 60

struct scale {
	double lo, hi;
	size_t n;
};

static double sx(const struct scale *s, size_t i)
{
	return LEFT + (s->n > 1 ? (double)i / (double)(s->n - 1) : 0.5) * (W - LEFT - RIGHT);
}

static double sy(const struct scale *s, double v)
{
	return TOP + (s->hi - v) / (s->hi - s->lo) * (H - TOP - BOTTOM);
}

static void bounds(const struct trend_chart *c, struct scale *s)
{
	s->lo = INFINITY;
	s->hi = -INFINITY;
	s->n = c->npoints;
	for (size_t i = 0; i < c->npoints; i++) {
		const struct trend_point *p = &c->points[i];
		double v[3] = { p->value, p->mean - p->stddev, p->mean + p->stddev };
		for (int k = 0; k < 3; k++)
			if (isfinite(v[k])) {
				s->lo = v[k] < s->lo ? v[k] : s->lo;
				s->hi = v[k] > s->hi ? v[k] : s->hi;
			}
	}
	if (!isfinite(s->lo)) {
		s->lo = 0;
		s->hi = 1;
	}
	double pad = (s->hi - s->lo) * 0.08;
	if (pad == 0)
		pad = fabs(s->hi) * 0.05 + 1e-9;
	s->lo -= pad;
	s->hi += pad;
}

static void axes(FILE *f, const struct trend_chart *c, const struct scale *s)
{
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT, TOP, LEFT, H - BOTTOM);
	for (int k = 0; k <= 4; k++) {
		double v = s->lo + (s->hi - s->lo) * k / 4;
		double y = sy(s, v);
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT, y, W - RIGHT, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">%.4g</text>\n", LEFT - 6, y + 4, v);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">", LEFT, H - BOTTOM + 18);
	td_xml_text(f, c->first_time ? c->first_time : "");
	fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"12\">", W - RIGHT, H - BOTTOM + 18);
	td_xml_text(f, c->last_time ? c->last_time : "");
	fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">run, oldest to newest (%zu runs)</text>\n",
		(LEFT + W - RIGHT) / 2, H - 18, c->npoints);
	fprintf(f, "<text x=\"18\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 18 %d)\">",
		(TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2);
	td_xml_text(f, c->unit && *c->unit ? c->unit : "value");
	fputs("</text>\n", f);
}

/* The rolling band: mean + sd along the top, back along mean - sd. */
static void band(FILE *f, const struct trend_chart *c, const struct scale *s)
{
	size_t first = 0;
	while (first < c->npoints && isnan(c->points[first].mean))
		first++;
	if (first >= c->npoints)
		return;
	fputs("<polygon fill=\"#cfe3f7\" stroke=\"none\" points=\"", f);
	for (size_t i = first; i < c->npoints; i++)
		fprintf(f, "%.1f,%.1f ", sx(s, i), sy(s, c->points[i].mean + c->points[i].stddev));
	for (size_t i = c->npoints; i-- > first;)
		fprintf(f, "%.1f,%.1f ", sx(s, i), sy(s, c->points[i].mean - c->points[i].stddev));
	fputs("\"/>\n<polyline fill=\"none\" stroke=\"#7aa6d6\" stroke-width=\"1\" points=\"", f);
	for (size_t i = first; i < c->npoints; i++)
		fprintf(f, "%.1f,%.1f ", sx(s, i), sy(s, c->points[i].mean));
	fputs("\"/>\n", f);
}

void trend_svg_write(FILE *f, const struct trend_chart *c)
{
	struct scale s;
	bounds(c, &s);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		   "font-family=\"Verdana, sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		W, H, W, H);
	fprintf(f, "<text x=\"%d\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">", W / 2);
	td_xml_text(f, c->title);
	fputs("</text>\n", f);
	axes(f, c, &s);
	band(f, c, &s);
	for (size_t i = 0; i < c->nchanges; i++) {
		double x = (sx(&s, c->changes[i].at - 1) + sx(&s, c->changes[i].at)) / 2;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e07000\" stroke-width=\"2\" "
			   "stroke-dasharray=\"6,4\"/>\n<text x=\"%.1f\" y=\"%d\" font-size=\"12\" fill=\"#e07000\">"
			   "%+.1f%%</text>\n", x, TOP, x, H - BOTTOM, x + 4, TOP + 12, c->changes[i].delta_pct);
	}
	fputs("<polyline fill=\"none\" stroke=\"#1f4e8c\" stroke-width=\"2\" points=\"", f);
	for (size_t i = 0; i < c->npoints; i++)
		if (isfinite(c->points[i].value))
			fprintf(f, "%.1f,%.1f ", sx(&s, i), sy(&s, c->points[i].value));
	fputs("\"/>\n", f);
	for (size_t i = 0; i < c->npoints; i++) {
		const struct trend_point *p = &c->points[i];
		if (!isfinite(p->value))
			continue;
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>run %zu: %.6g%s</title></circle>\n",
			sx(&s, i), sy(&s, p->value), p->anomaly ? 6 : 3, p->anomaly ? "#d62728" : "#1f4e8c", i + 1,
			p->value, p->anomaly ? " (anomaly)" : "");
	}
	fputs("</svg>\n", f);
}
