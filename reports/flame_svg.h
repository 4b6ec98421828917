/* The interactive flame graph SVG: flamegraph.pl's geometry (frame x, y,
 * width and height, text position and truncation, image size) and the same
 * behaviour in a browser — a tooltip and a details line per frame, click to
 * zoom, reset, regex search (Ctrl-F) with the matched share, case toggle —
 * through a script of our own. ?s=REGEX, ?x=X&y=Y in the URL restore a search
 * and a zoom, so a graph can be opened at a given view. */
#ifndef TD_FLAME_SVG_H
#define TD_FLAME_SVG_H

#include <stdbool.h>
#include <stdio.h>
#include "analysis/flame_tree.h"
#include "reports/flame_colors.h"

struct flame_svg_options {
	const char *title;            /* NULL: "Flame Graph", "Icicle Graph" or "Flame Chart" */
	const char *subtitle;         /* NULL or "": none */
	const char *notes;            /* written in a comment */
	const char *encoding;         /* XML declaration's encoding, or NULL */
	const char *font_type;
	const char *count_name, *name_type;
	long width, frame_height;
	double font_size, font_width;
	double min_width;             /* pixels, or percent of the total with min_width_pct */
	bool min_width_pct;
	bool inverted, flamechart, negate;
	double factor;                /* counts shown are multiplied by this */
	const char *bg1, *bg2;
	struct flame_colors *colors;
	struct flame_palette_map *palette_map;   /* --cp, or NULL */
};

/* The narrowest frame drawn, in count units, for a graph of this total. */
double flame_svg_min_count(const struct flame_svg_options *o, double total);

/* Writes the graph of the laid-out frames (frames[0] is the root). */
void flame_svg_write(FILE *out, const struct flame_tree *t, const struct flame_frame *frames, size_t n,
		     double total, double max_delta, uint32_t max_depth, bool differential,
		     const struct flame_svg_options *o);

/* An SVG that shows only msg, for automation that expects an image. */
void flame_svg_write_error(FILE *out, const struct flame_svg_options *o, const char *msg);

#endif
