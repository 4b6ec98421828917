/* td-derive's reports: the derive engine's results (analysis/derive.h) as
 * text, CSV, JSON or markdown on one stream, and the Top-down chart as SVG.
 *
 *     struct derive_report *r = derive_report_new(&opts, stdout);
 *     struct derive_callbacks cb;
 *     derive_report_callbacks(r, &cb);        // what the engine calls
 *     struct derive_engine *e = derive_new(&cfg, &cb);
 *     ... derive_read, derive_finish ...
 *     derive_report_end(r, e, inputs);       // the rest of the document
 *     derive_report_free(r);
 *
 * CSV and JSON stream: every set's rows are written as the engine hands
 * them over (memory stays flat); the text and markdown views are written at
 * the end, from the rows kept. derive_report_config gives the engine
 * configuration a report needs. */
#ifndef TD_DERIVE_REPORT_H
#define TD_DERIVE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "analysis/derive.h"
#include "analysis/roofline.h"
#include "reports/table.h"

struct derive_report_options {
	enum td_format format;
	int level;                   /* Top-down rows and trees down to this level; 0: all */
	bool intervals;              /* text: the -I intervals' rows too (CSV and JSON always have them) */
	bool counters;               /* the counters as read instead of metrics (not markdown) */
	bool explain;                /* text: every node on the bottleneck path explained */
	const char *svg;             /* a file for the Top-down chart over time (-I input), else for
					the roofline of the first set with a roofline point; or NULL */
	const struct roofline_peaks *peaks;   /* the roofs (roofline.h), or NULL: the capture
						 header's, if any (derive_header_peaks) */
	const char *peaks_file;      /* where peaks came from (--peaks FILE), for the report */
};

struct derive_report;

struct derive_report *derive_report_new(const struct derive_report_options *o, FILE *out);
/* The engine configuration these options need (cpu left NULL). */
void derive_report_config(const struct derive_report_options *o, struct derive_config *c);
void derive_report_callbacks(struct derive_report *r, struct derive_callbacks *cb);
/* After derive_finish: the document's end (text and markdown: all of it),
 * and the SVG chart; inputs names the files read, for the headers. */
void derive_report_end(struct derive_report *r, const struct derive_engine *e, const char *inputs);
void derive_report_free(struct derive_report *r);

#endif
