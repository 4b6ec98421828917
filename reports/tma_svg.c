#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/grow.h"
#include "reports/table.h"
#include "tma_svg.h"

#define MAX_SERIES 4
#define MAX_LAYERS 16
#define W 900
#define H 320
#define LEFT 60
#define RIGHT 220
#define TOP 40
#define BOTTOM 40

struct series {
	char pmu[320];             /* the series: [run or FILE] PMU */
	const char *layer[MAX_LAYERS];   /* node names, from the first tree */
	int nlayers;
	double *time, *value;            /* value[point * MAX_LAYERS + layer], fractions */
	double *retiring;
	size_t n, cap;
};

struct tma_chart {
	int level;
	struct series s[MAX_SERIES];
	int ns;
};

static const char *const colors[] = { "#4caf50", "#e53935", "#1e88e5", "#fb8c00", "#8e24aa", "#00897b",
				      "#c0ca33", "#6d4c41", "#3949ab", "#d81b60", "#546e7a", "#fdd835",
				      "#43a047", "#f4511e", "#5e35b1", "#00acc1" };

struct tma_chart *tma_chart_new(int level)
{
	struct tma_chart *c = td_calloc(1, sizeof(*c));
	c->level = level == 2 ? 2 : 1;
	return c;
}

void tma_chart_free(struct tma_chart *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->ns; i++) {
		free(c->s[i].time);
		free(c->s[i].value);
		free(c->s[i].retiring);
	}
	free(c);
}

static struct series *series_for(struct tma_chart *c, const char *pmu, const struct tma_tree *t)
{
	for (int i = 0; i < c->ns; i++)
		if (!strcmp(c->s[i].pmu, pmu))
			return &c->s[i];
	if (c->ns == MAX_SERIES)
		return NULL;
	struct series *s = &c->s[c->ns++];
	snprintf(s->pmu, sizeof s->pmu, "%s", pmu);
	/* the leaves of the chosen level: Level 2 nodes, or Level 1 nodes without children */
	for (int i = 0; i < t->n && s->nlayers < MAX_LAYERS; i++) {
		const struct tma_node *nd = &t->node[i];
		bool has_child = false;
		for (int k = 0; k < t->n; k++)
			has_child |= t->node[k].level == 2 && t->node[k].def->parent &&
				     !strcmp(t->node[k].def->parent, nd->def->name) && !strcmp(t->node[k].def->domain, "slots");
		if ((nd->level == 1 && (c->level == 1 || !has_child)) ||
		    (c->level == 2 && nd->level == 2 && !strcmp(nd->def->domain, "slots")))
			s->layer[s->nlayers++] = nd->def->name;
	}
	return s;
}

void tma_chart_add(struct tma_chart *c, const char *pmu, double time, const struct tma_tree *t)
{
	struct series *s = series_for(c, pmu, t);
	if (!s)
		return;
	if (s->n == s->cap) {
		size_t cap = td_alloc_nr(s->cap, (size_t)s->n + 1, MAX_LAYERS * sizeof(double));
		s->time = td_realloc_array(s->time, cap, sizeof(double));
		s->retiring = td_realloc_array(s->retiring, cap, sizeof(double));
		s->value = td_realloc_array(s->value, cap, MAX_LAYERS * sizeof(double));
		TD_SET_CAP(s->cap, cap);
	}
	s->time[s->n] = time;
	s->retiring[s->n] = tma_value(t, "retiring");
	for (int k = 0; k < s->nlayers; k++) {
		double v = tma_value(t, s->layer[k]);
		s->value[s->n * MAX_LAYERS + k] = isnan(v) ? 0 : fmax(0, v);
	}
	s->n++;
}

static double x_of(const struct series *s, size_t i)
{
	double t0 = s->time[0], t1 = s->time[s->n - 1];
	if (s->n == 1 || t1 <= t0)
		return LEFT + (W - LEFT - RIGHT) / 2.0;
	return LEFT + (s->time[i] - t0) / (t1 - t0) * (W - LEFT - RIGHT);
}

static double y_of(int chart, double frac) { return chart * H + TOP + (1 - fmin(frac, 1.0)) * (H - TOP - BOTTOM); }

static void write_series(FILE *f, const struct series *s, int chart, const char *title)
{
	double base = chart * H;
	fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"15\">", LEFT, base + 22);
	td_xml_text(f, title);
	fprintf(f, "%s%s: Top-down share of slots per interval</text>\n", s->pmu[0] ? " " : "", s->pmu);
	double half = s->n == 1 ? 20 : 0;    /* one interval: a bar, not a line */
	for (int k = 0; k < s->nlayers; k++) {
		fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.85\" points=\"", colors[k % 16]);
		for (size_t i = 0; i < s->n; i++) {     /* upper edge left to right */
			double top = 0;
			for (int j = 0; j <= k; j++)
				top += s->value[i * MAX_LAYERS + j];
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x_of(s, i) - half, y_of(chart, top), x_of(s, i) + half, y_of(chart, top));
		}
		for (size_t i = s->n; i-- > 0;) {       /* lower edge back */
			double bottom = 0;
			for (int j = 0; j < k; j++)
				bottom += s->value[i * MAX_LAYERS + j];
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x_of(s, i) + half, y_of(chart, bottom), x_of(s, i) - half, y_of(chart, bottom));
		}
		fprintf(f, "\"><title>%s</title></polygon>\n", s->layer[k]);
		fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%.0f\" font-size=\"12\">%s</text>\n",
			W - RIGHT + 20, base + TOP + 18.0 * k, colors[k % 16], W - RIGHT + 38, base + TOP + 18.0 * k + 11, s->layer[k]);
	}
	for (int p = 0; p <= 100; p += 25)
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%d%%</text>\n", LEFT - 6,
			y_of(chart, p / 100.0) + 4, p);
	fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"11\">%.3f s</text><text x=\"%d\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%.3f s</text>\n",
		LEFT, base + H - BOTTOM + 16, s->time[0], W - RIGHT, base + H - BOTTOM + 16, s->time[s->n - 1]);
	size_t worst = 0;                   /* least retiring: the most slots lost */
	for (size_t i = 1; i < s->n; i++)
		if (s->retiring[i] < s->retiring[worst])
			worst = i;
	if (!isnan(s->retiring[worst]))
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-dasharray=\"4,3\"/>"
			   "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\">worst: %.3f s, retiring %.1f%%</text>\n",
			x_of(s, worst), y_of(chart, 1), x_of(s, worst), y_of(chart, 0), x_of(s, worst) + 4, base + TOP - 4,
			s->time[worst], 100 * s->retiring[worst]);
}

bool tma_chart_write(const struct tma_chart *c, FILE *f, const char *title)
{
	if (!c->ns)
		return false;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H * c->ns);
	for (int i = 0; i < c->ns; i++)
		write_series(f, &c->s[i], i, title);
	fprintf(f, "</svg>\n");
	return true;
}
