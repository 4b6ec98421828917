#include <math.h>
#include <stdlib.h>
#include "counter_groups.h"

bool counter_set_has_copies(const struct counter_set *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->c[i].copies > 1)
			return true;
	return false;
}

/* The value of c as printed in group, or in the nearest group; between
 * two as near, the later: perf prints a group's metrics on its first rows,
 * so a row with a metric of its own may begin its group's copies. */
static double copy_in(const struct counter *c, unsigned group)
{
	if (c->copies < 2)
		return c->value;
	int kept = c->copies < 4 ? c->copies : 4, best = -1;
	long best_dist = 0;
	for (int i = 0; i < kept; i++) {
		long d = labs((long)c->copy_group[i] - (long)group);
		if (best < 0 || d < best_dist || (d == best_dist && c->copy_group[i] > group)) {
			best = i;
			best_dist = d;
		}
	}
	if (best_dist && c->copies > 4)
		return c->value;          /* its copy in group may be one not kept */
	return c->copy_value[best];
}

void counter_set_group_view(const struct counter_set *s, unsigned group, struct counter_set *view)
{
	counter_set_init(view, s->interval, s->scope, s->pmu);
	view->session = s->session;
	for (int i = 0; i < s->n; i++)
		counter_set_add(view, s->c[i].name, copy_in(&s->c[i], group), s->c[i].enabled_pct, s->c[i].variance_pct);
}
