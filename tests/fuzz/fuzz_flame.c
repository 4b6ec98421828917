/* libFuzzer target: folded stacks through td-flame's tree (sorted,
 * reversed or flame chart merge), its layout, the SVG and the speedscope
 * writer. Frames must lie inside the total and never be wider than it.
 * One drawing and one writer per input, picked by the input's first byte
 * (which stays part of the input): an SVG of the sorted, reversed or
 * flame chart tree, or the sorted or reversed tree as speedscope JSON, so
 * one corpus reaches all five. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/flame_tree.h"
#include "common/diag.h"
#include "reports/flame_colors.h"
#include "reports/flame_svg.h"
#include "reports/speedscope.h"
#include "tests/fuzz/fuzz_input.h"

static FILE *sink;

static void draw(const uint8_t *data, size_t size, bool reverse, bool chart, bool speedscope)
{
	struct flame_tree_options o = { .reverse = reverse, .flamechart = chart };
	struct flame_tree *t = flame_tree_new(&o);
	struct fuzz_lines it = fuzz_lines(data, size, true);
	const char *line;
	size_t n;
	while (fuzz_line(&it, &line, &n))
		flame_tree_add_line(t, line, n);
	double total = flame_tree_total(t);
	if (total > 0 && speedscope) {
		speedscope_write(sink, t, "fuzz", "fuzz");
	} else if (total > 0) {
		struct flame_svg_options so = {
			.font_type = "Verdana", .count_name = "samples", .name_type = "Function:",
			.width = 1200, .frame_height = 16, .font_size = 12, .font_width = 0.59,
			.min_width = 0.1, .factor = 1, .bg1 = "#eeeeee", .bg2 = "#eeeeb0",
			.inverted = reverse,
		};
		so.colors = flame_colors_new(flame_palette(chart ? "java" : "hot"), FLAME_SHADE_HASH, 1);
		size_t n;
		double md;
		uint32_t depth;
		struct flame_frame *f = flame_tree_layout(t, total, flame_svg_min_count(&so, total), &n, &md, &depth);
		for (size_t i = 1; i < n; i++)
			if (f[i].start < -1e-9 * total || f[i].end > total * (1 + 1e-9) || f[i].end < f[i].start)
				abort();
		flame_svg_write(sink, t, f, n, total, md, depth, flame_tree_differential(t), &so);
		free(f);
		flame_colors_free(so.colors);
	}
	flame_tree_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	td_quiet = 1;
	if (!sink)
		sink = fopen("/dev/null", "w");
	unsigned pick = size ? data[0] % 5 : 0;
	draw(data, size, pick == 1 || pick == 4, pick == 2, pick >= 3);
	return 0;
}
