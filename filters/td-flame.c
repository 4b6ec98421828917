/* td-flame: folded stacks in, an interactive flame graph SVG (or speedscope
 * JSON) out, drawn as flamegraph.pl draws it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "analysis/flame_tree.h"
#include "common/diag.h"
#include "common/input.h"
#include "common/opts.h"
#include "reports/flame_colors.h"
#include "reports/flame_svg.h"
#include "reports/speedscope.h"

static const char *opt_title, *opt_subtitle, *opt_fonttype = "Verdana", *opt_countname = "samples";
static const char *opt_nametype = "Function:", *opt_colors = "hot", *opt_bgcolors, *opt_notes, *opt_encoding;
static const char *opt_fontsize = "12", *opt_fontwidth = "0.59", *opt_minwidth = "0.1", *opt_factor = "1";
static const char *opt_total, *opt_palette = "palette.map", *opt_format = "svg", *opt_seed;
static long opt_width = 1200, opt_height = 16;
static bool opt_hash, opt_random, opt_cp, opt_reverse, opt_inverted, opt_flamechart, opt_negate;

static const struct td_option options[] = {
	{ 0, "title", TD_OPT_STRING, &opt_title, "TEXT", "title (default \"Flame Graph\", \"Icicle Graph\" or \"Flame Chart\")", NULL },
	{ 0, "subtitle", TD_OPT_STRING, &opt_subtitle, "TEXT", "second title line", NULL },
	{ 0, "width", TD_OPT_INT, &opt_width, "PX", "image width (default 1200)", NULL },
	{ 0, "height", TD_OPT_INT, &opt_height, "PX", "frame height (default 16)", NULL },
	{ 0, "minwidth", TD_OPT_STRING, &opt_minwidth, "PX|PCT%", "omit frames narrower than this (default 0.1 pixels)", NULL },
	{ 0, "fonttype", TD_OPT_STRING, &opt_fonttype, "FONT", "font family (default Verdana)", NULL },
	{ 0, "fontsize", TD_OPT_STRING, &opt_fontsize, "PX", "font size (default 12)", NULL },
	{ 0, "fontwidth", TD_OPT_STRING, &opt_fontwidth, "RATIO", "average character width / font size, for cutting names (default 0.59)", NULL },
	{ 0, "countname", TD_OPT_STRING, &opt_countname, "TEXT", "unit of the counts (default \"samples\")", NULL },
	{ 0, "nametype", TD_OPT_STRING, &opt_nametype, "TEXT", "label of the details line (default \"Function:\")", NULL },
	{ 0, "colors", TD_OPT_STRING, &opt_colors, "PALETTE", "hot (default), mem, io, wakeup, java, js, perl, red, green, blue, aqua, yellow, purple, orange", NULL },
	{ 0, "bgcolors", TD_OPT_STRING, &opt_bgcolors, "COLOR", "background: yellow, blue, green, grey or #rrggbb (default: by palette)", NULL },
	{ 0, "hash", TD_OPT_FLAG, &opt_hash, NULL, "colours from a hash of the name (the same in every graph)", NULL },
	{ 0, "random", TD_OPT_FLAG, &opt_random, NULL, "random colours (see --seed)", NULL },
	{ 0, "seed", TD_OPT_STRING, &opt_seed, "N", "seed of --random, for reproducible colours", NULL },
	{ 0, "cp", TD_OPT_FLAG, &opt_cp, NULL, "consistent palette: colours kept in the --palette file across runs", NULL },
	{ 0, "palette", TD_OPT_STRING, &opt_palette, "FILE", "the --cp file (default palette.map)", NULL },
	{ 0, "reverse", TD_OPT_FLAG, &opt_reverse, NULL, "stacks reversed: merge from the leaf (callers above)", NULL },
	{ 0, "inverted", TD_OPT_FLAG, &opt_inverted, NULL, "icicle graph: root at the top", NULL },
	{ 0, "flamechart", TD_OPT_FLAG, &opt_flamechart, NULL, "keep input order, merge only neighbouring lines", NULL },
	{ 0, "negate", TD_OPT_FLAG, &opt_negate, NULL, "differential: swap red and blue", NULL },
	{ 0, "factor", TD_OPT_STRING, &opt_factor, "X", "multiply the counts shown by X", NULL },
	{ 0, "total", TD_OPT_STRING, &opt_total, "N", "draw against this total when larger than the input's", NULL },
	{ 0, "notes", TD_OPT_STRING, &opt_notes, "TEXT", "a comment in the SVG", NULL },
	{ 0, "encoding", TD_OPT_STRING, &opt_encoding, "NAME", "encoding named in the XML declaration", NULL },
	{ 0, "format", TD_OPT_STRING, &opt_format, "svg|speedscope", "output: the SVG (default) or speedscope's JSON", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-flame", "[options] [FILE...]",
	"Draw folded stacks (td-fold, td-diff --folded) as an interactive flame graph SVG, as flamegraph.pl does.",
	options,
	"FILEs of \"frame;frame;... COUNT\" or \"... COUNT1 COUNT2\" lines, or stdin; .gz/.zst read as well",
};

static double number_opt(const char *name, const char *s, bool allow_pct, bool *pct)
{
	char *end;
	double v = strtod(s, &end);
	if (allow_pct && *end == '%') {
		*pct = true;
		end++;
	}
	if (end == s || *end || !isfinite(v) || v < 0)
		td_usage_error(&cmd, "--%s: '%s' is not a non-negative number", name, s);
	return v;
}

enum { MAX_REPORTED = 10 };

static void read_file(struct flame_tree *t, const char *path, unsigned long *bad)
{
	struct td_input *in = td_input_open(path);
	if (!in)
		return;
	const char *line;
	size_t len;
	while (td_input_next(in, &line, &len)) {
		if (flame_tree_add_line(t, line, len))
			continue;
		size_t i = 0;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			continue;       /* blank lines hold no stacks */
		if (++*bad <= MAX_REPORTED)
			td_bad_input(td_input_name(in), td_input_lineno(in), "not a folded stack (\"frame;frame;... COUNT\"); line skipped");
	}
	td_input_close(in);
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	bool speedscope = !strcmp(opt_format, "speedscope");
	if (!speedscope && strcmp(opt_format, "svg"))
		td_usage_error(&cmd, "--format: '%s' is neither svg nor speedscope", opt_format);
	if (speedscope && opt_flamechart)
		td_usage_error(&cmd, "--flamechart draws input order; speedscope's sampled profile has none (use speedscope's own time order view)");
	int palette = flame_palette(opt_colors);
	if (palette < 0)
		td_usage_error(&cmd, "--colors: '%s' is not one of %s", opt_colors, flame_palette_names());
	struct flame_svg_options o = {
		.title = opt_title, .subtitle = opt_subtitle, .notes = opt_notes, .encoding = opt_encoding,
		.font_type = opt_fonttype, .count_name = opt_countname, .name_type = opt_nametype,
		.width = opt_width, .frame_height = opt_height,
		.inverted = opt_inverted, .flamechart = opt_flamechart, .negate = opt_negate,
	};
	bool unused;
	o.font_size = number_opt("fontsize", opt_fontsize, false, &unused);
	o.font_width = number_opt("fontwidth", opt_fontwidth, false, &unused);
	o.factor = number_opt("factor", opt_factor, false, &unused);
	o.min_width = number_opt("minwidth", opt_minwidth, true, &o.min_width_pct);
	double total_opt = opt_total ? number_opt("total", opt_total, false, &unused) : 0;
	if (opt_width <= 2 * 10 || opt_width > 1000000 || opt_height <= 0 || opt_height > 10000)
		td_usage_error(&cmd, "--width must be 21..1000000 and --height 1..10000 pixels");
	if (o.font_size <= 0 || o.font_width <= 0 || o.factor <= 0)
		td_usage_error(&cmd, "--fontsize, --fontwidth and --factor must be positive");
	if (opt_notes && strpbrk(opt_notes, "<>"))
		td_usage_error(&cmd, "--notes cannot hold '<' or '>'");
	if (opt_encoding && (!*opt_encoding || strspn(opt_encoding, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(opt_encoding)))
		td_usage_error(&cmd, "--encoding: '%s' is not an encoding name", opt_encoding);
	if (!flame_background(opt_bgcolors, palette, &o.bg1, &o.bg2))
		td_usage_error(&cmd, "--bgcolors: '%s' is not yellow, blue, green, grey or #rrggbb", opt_bgcolors);
	uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
	if (opt_seed) {
		char *end;
		seed = strtoull(opt_seed, &end, 10);
		if (end == opt_seed || *end)
			td_usage_error(&cmd, "--seed: '%s' is not a number", opt_seed);
	}
	o.colors = flame_colors_new(palette, opt_hash ? FLAME_SHADE_HASH : opt_random ? FLAME_SHADE_RANDOM : FLAME_SHADE_DEFAULT, seed);
	if (opt_cp)
		o.palette_map = flame_palette_map_read(opt_palette);

	struct flame_tree_options to = { .reverse = opt_reverse, .flamechart = opt_flamechart };
	struct flame_tree *t = flame_tree_new(&to);
	unsigned long bad = 0;
	if (n == 0)
		read_file(t, "-", &bad);
	for (int i = 0; i < n; i++)
		read_file(t, argv[i], &bad);
	if (bad > MAX_REPORTED)
		td_bad_input(NULL, 0, "%lu lines in all were not folded stacks and were skipped", bad);

	double total = flame_tree_total(t);
	if (!(total > 0)) {
		td_error("no stack counts found");
		if (!speedscope)
			flame_svg_write_error(stdout, &o, "ERROR: No valid input provided to td-flame.");
	} else if (speedscope) {
		speedscope_write(stdout, t, n == 1 ? argv[0] : n == 0 ? "stdin" : "td-flame", "td-flame (tdkit) " TD_VERSION);
	} else {
		if (opt_total && total_opt >= total)
			total = total_opt;
		else if (opt_total)
			td_warn(NULL, 0, "--total %s is less than the input's total %.15g: ignored", opt_total, total);
		size_t nframes;
		double max_delta;
		uint32_t max_depth;
		struct flame_frame *frames = flame_tree_layout(t, total, flame_svg_min_count(&o, total),
							       &nframes, &max_delta, &max_depth);
		flame_svg_write(stdout, t, frames, nframes, total, max_delta, max_depth, flame_tree_differential(t), &o);
		free(frames);
		if (o.palette_map && !flame_palette_map_write(o.palette_map, opt_palette))
			td_error("%s: cannot write the palette: %m", opt_palette);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		td_die("cannot write the output: %m");
	flame_palette_map_free(o.palette_map);
	flame_colors_free(o.colors);
	flame_tree_free(t);
	return td_exit_code(TD_EXIT_OK);
}
