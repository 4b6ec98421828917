#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/utf8.h"
#include "flame_svg.h"

enum { XPAD = 10, FRAMEPAD = 1 };
static const char search_color[] = "rgb(230,0,230)";

/* Numbers as perl prints them: 15 significant digits, no trailing zeros. */
static const char *num(double v, char *buf)
{
	snprintf(buf, 32, "%.15g", v);
	return buf;
}

/* Text for XML: & < > (and " in attributes) escaped; bytes that are not
 * UTF-8, and characters XML forbids, shown as U+FFFD. */
static void put_xml(FILE *out, const char *s, size_t n, bool quote)
{
	size_t run = 0;            /* bytes copied as they are */
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x80 && c != '&' && c != '<' && c != '>' && !(quote && c == '"')) {
			i++;
			run++;
			continue;
		}
		fwrite(s + i - run, 1, run, out);
		run = 0;
		uint32_t cp;
		size_t k = td_utf8_next(s + i, n - i, &cp);
		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c == '\t')
			fputc('\t', out);
		else if (cp < 0x20 || cp == 0xfffe || cp == 0xffff || (cp == 0xfffd && k == 1 && c >= 0x80))
			fputs("\xef\xbf\xbd", out);
		else
			fwrite(s + i, 1, k, out);
		i += k;
	}
	fwrite(s + n - run, 1, run, out);
}

/* Inside a JS string in CDATA: quotes, backslashes, '<', '>' and control
 * characters as escapes (so neither "]]>" nor a tag can end the block). */
static void put_js(FILE *out, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = td_utf8_next(s + i, n - i, &cp);
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\' || c == '<' || c == '>' || c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else if (cp == 0xfffd && k == 1 && c >= 0x80)
			fputs("\\ufffd", out);
		else
			fwrite(s + i, 1, k, out);
		i += k;
	}
}

static void put_xml_str(FILE *out, const char *s, bool quote) { put_xml(out, s, strlen(s), quote); }

/* "1234567" -> "1,234,567" */
static void put_grouped(FILE *out, const char *digits)
{
	if (*digits == '-' || *digits == '+')
		fputc(*digits++, out);
	size_t n = strlen(digits);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0 && digits[i] >= '0' && digits[i] <= '9' && digits[i - 1] >= '0' && digits[i - 1] <= '9')
			fputc(',', out);
		fputc(digits[i], out);
	}
}

/* A name without its annotation (_[k], _[w], _[i], _[j]): that is only for colours. */
static size_t strip_annotation(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' && strchr("kwij", s[n - 2]) && s[n - 2])
		return n - 4;
	return n;
}

double flame_svg_min_count(const struct flame_svg_options *o, double total)
{
	if (o->min_width_pct)
		return total * o->min_width / 100;
	double per = (double)(o->width - 2 * XPAD) / total;
	return o->min_width / per;
}

static void put_header(FILE *out, const struct flame_svg_options *o, double height)
{
	char h[32];
	fprintf(out, "<?xml version=\"1.0\"");
	if (o->encoding)
		fprintf(out, " encoding=\"%s\"", o->encoding);
	fprintf(out, " standalone=\"no\"?>\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		"<svg version=\"1.1\" width=\"%ld\" height=\"%s\" onload=\"init(evt)\" viewBox=\"0 0 %ld %s\" "
		"xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
		o->width, num(height, h), o->width, h);
	fputs("<!-- Flame graph drawn by td-flame (tdkit) from folded stacks. -->\n<!-- NOTES: ", out);
	if (o->notes) {
		/* a comment cannot hold "--" */
		for (const char *p = o->notes; *p; p++) {
			if (*p == '-' && p[1] == '-') {
				fputs("- ", out);
				continue;
			}
			if (*p == '<' || *p == '>' || *p == '&')
				fputc(' ', out);
			else
				put_xml(out, p, 1, false);
		}
	}
	fputs(" -->\n", out);
}

void flame_svg_write_error(FILE *out, const struct flame_svg_options *o, const char *msg)
{
	char b[32];
	put_header(out, o, o->font_size * 5);
	fprintf(out, "<text x=\"%.2f\" y=\"%s\" >", (double)(o->width / 2), num(o->font_size * 2, b));
	put_xml_str(out, msg, false);
	fputs("</text>\n</svg>\n", out);
}

/* The page's behaviour. Frames are the <g> children of #frames, each a
 * <title> ("name (count unit, pct%)"), a <rect> and a <text>. */
static const char script[] =
"<script type=\"text/ecmascript\">\n<![CDATA[\n"
"\"use strict\";\n"
"var fg = { term: null, icase: false, zoomed: null };\n"
"function init(evt) {\n"
"\tvar d = document;\n"
"\tfg.frames = d.getElementById(\"frames\");\n"
"\tfg.details = d.getElementById(\"details\");\n"
"\tfg.searchBtn = d.getElementById(\"search\");\n"
"\tfg.icBtn = d.getElementById(\"ignorecase\");\n"
"\tfg.unzoomBtn = d.getElementById(\"unzoom\");\n"
"\tfg.matched = d.getElementById(\"matched\");\n"
"\tfg.full = +d.documentElement.getAttribute(\"width\") - 2 * FG.xpad;\n"
"\tvar q = url_params();\n"
"\tif (q.x !== undefined && q.y !== undefined) {\n"
"\t\tvar r = fg.frames.querySelector('rect[x=\"' + q.x + '\"][y=\"' + q.y + '\"]');\n"
"\t\tif (r) zoom(r.parentNode);\n"
"\t}\n"
"\tif (q.s) search(q.s);\n"
"\td.addEventListener(\"click\", on_click, false);\n"
"\td.addEventListener(\"mouseover\", function (e) { var g = frame_of(e.target); if (g) fg.details.textContent = FG.prefix + frame_title(g); }, false);\n"
"\td.addEventListener(\"mouseout\", function (e) { if (frame_of(e.target)) fg.details.textContent = \" \"; }, false);\n"
"\td.addEventListener(\"keydown\", function (e) {\n"
"\t\tif (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { e.preventDefault(); ask_search(); }\n"
"\t\telse if (e.ctrlKey && e.keyCode === 73) { e.preventDefault(); toggle_case(); }\n"
"\t}, false);\n"
"}\n"
"function url_params() {\n"
"\tvar out = {}, parts = window.location.search.replace(/^\\?/, \"\").split(\"&\");\n"
"\tfor (var i = 0; i < parts.length; i++) {\n"
"\t\tvar kv = parts[i].split(\"=\");\n"
"\t\tif (kv.length == 2 && kv[0] && kv[1]) out[kv[0]] = decodeURIComponent(kv[1].replace(/\\+/g, \" \"));\n"
"\t}\n"
"\treturn out;\n"
"}\n"
"function set_params(change) {\n"
"\tvar q = url_params(), k, s = [];\n"
"\tfor (k in change) { if (change[k] === null) delete q[k]; else q[k] = change[k]; }\n"
"\tfor (k in q) s.push(k + \"=\" + encodeURIComponent(q[k]));\n"
"\ttry { history.replaceState(null, \"\", s.length ? \"?\" + s.join(\"&\") : window.location.pathname); } catch (e) { }\n"
"}\n"
"function frame_of(node) {\n"
"\tfor (; node && node.parentNode; node = node.parentNode)\n"
"\t\tif (node.parentNode === fg.frames) return node;\n"
"\treturn null;\n"
"}\n"
"function frame_title(g) { return g.getElementsByTagName(\"title\")[0].textContent; }\n"
"function frame_name(g) {\n"
"\tvar t = frame_title(g), cut = t.lastIndexOf(\" (\");\n"
"\treturn cut < 0 ? t : t.substring(0, cut);\n"
"}\n"
"function box(g) {\n"
"\tvar r = g.getElementsByTagName(\"rect\")[0];\n"
"\tif (!r.hasAttribute(\"data-x\")) { r.setAttribute(\"data-x\", r.getAttribute(\"x\")); r.setAttribute(\"data-w\", r.getAttribute(\"width\")); }\n"
"\treturn { rect: r, x: +r.getAttribute(\"data-x\"), w: +r.getAttribute(\"data-w\"), y: +r.getAttribute(\"y\") };\n"
"}\n"
"function fit_text(g, x, w) {\n"
"\tvar t = g.getElementsByTagName(\"text\")[0], name = frame_name(g).replace(/_\\[[kwij]\\]$/, \"\");\n"
"\tt.setAttribute(\"x\", (x + 3).toFixed(2));\n"
"\tvar room = w - 3;\n"
"\tif (room < 2 * FG.fontsize * FG.fontwidth) { t.textContent = \"\"; return; }\n"
"\tt.textContent = name;\n"
"\tif (/^ *$/.test(name) || t.getComputedTextLength() <= room) return;\n"
"\tvar n = Math.floor(name.length * room / t.getComputedTextLength());\n"
"\tfor (; n > 0; n--) {\n"
"\t\tt.textContent = name.substring(0, n) + \"..\";\n"
"\t\tif (t.getComputedTextLength() <= room) return;\n"
"\t}\n"
"\tt.textContent = \"\";\n"
"}\n"
"function place(g, b, x, w) {\n"
"\tb.rect.setAttribute(\"x\", x.toFixed(1));\n"
"\tb.rect.setAttribute(\"width\", w.toFixed(1));\n"
"\tfit_text(g, x, w);\n"
"}\n"
"function zoom(target) {\n"
"\tvar a = box(target), scale = fg.full / a.w, eps = 0.0001;\n"
"\tvar list = fg.frames.children;\n"
"\tfor (var i = 0; i < list.length; i++) {\n"
"\t\tvar g = list[i], b = box(g);\n"
"\t\tg.classList.remove(\"hide\");\n"
"\t\tg.classList.remove(\"parent\");\n"
"\t\tvar rootward = FG.inverted ? b.y < a.y : b.y > a.y;\n"
"\t\tif (rootward) {\n"
"\t\t\tif (b.x <= a.x + eps && b.x + b.w >= a.x + a.w - eps) { g.classList.add(\"parent\"); place(g, b, FG.xpad, fg.full); }\n"
"\t\t\telse g.classList.add(\"hide\");\n"
"\t\t} else if (b.x >= a.x - eps && b.x + b.w <= a.x + a.w + eps && !(b.w == 0 && b.x >= a.x + a.w)) {\n"
"\t\t\tplace(g, b, FG.xpad + (b.x - a.x) * scale, b.w * scale);\n"
"\t\t} else g.classList.add(\"hide\");\n"
"\t}\n"
"\tfg.zoomed = target;\n"
"\tfg.unzoomBtn.classList.remove(\"hide\");\n"
"\tset_params({ x: a.rect.getAttribute(\"data-x\"), y: a.rect.getAttribute(\"y\") });\n"
"\tif (fg.term !== null) search(fg.term);\n"
"}\n"
"function unzoom() {\n"
"\tvar list = fg.frames.children;\n"
"\tfor (var i = 0; i < list.length; i++) {\n"
"\t\tvar g = list[i], r = g.getElementsByTagName(\"rect\")[0];\n"
"\t\tg.classList.remove(\"hide\");\n"
"\t\tg.classList.remove(\"parent\");\n"
"\t\tif (r.hasAttribute(\"data-x\")) { var b = box(g); place(g, b, b.x, b.w); }\n"
"\t}\n"
"\tfg.zoomed = null;\n"
"\tfg.unzoomBtn.classList.add(\"hide\");\n"
"\tset_params({ x: null, y: null });\n"
"\tif (fg.term !== null) search(fg.term);\n"
"}\n"
"function on_click(e) {\n"
"\tvar g = frame_of(e.target);\n"
"\tif (g) { zoom(g); return; }\n"
"\tvar id = e.target.id;\n"
"\tif (id == \"unzoom\") unzoom();\n"
"\telse if (id == \"search\") ask_search();\n"
"\telse if (id == \"ignorecase\") toggle_case();\n"
"}\n"
"function ask_search() {\n"
"\tif (fg.term !== null) { clear_search(); return; }\n"
"\tvar term = prompt(\"Search frames by regular expression\" + (fg.icase ? \" (ignoring case)\" : \"\") + \", e.g. ^ext4_\\nCtrl-I toggles case\", \"\");\n"
"\tif (term) search(term);\n"
"}\n"
"function toggle_case() {\n"
"\tfg.icase = !fg.icase;\n"
"\tfg.icBtn.classList.toggle(\"show\", fg.icase);\n"
"\tif (fg.term !== null) search(fg.term);\n"
"}\n"
"function unmark() {\n"
"\tvar rects = fg.frames.getElementsByTagName(\"rect\");\n"
"\tfor (var i = 0; i < rects.length; i++)\n"
"\t\tif (rects[i].hasAttribute(\"data-fill\")) { rects[i].setAttribute(\"fill\", rects[i].getAttribute(\"data-fill\")); rects[i].removeAttribute(\"data-fill\"); }\n"
"}\n"
"function clear_search() {\n"
"\tunmark();\n"
"\tfg.term = null;\n"
"\tfg.searchBtn.classList.remove(\"show\");\n"
"\tfg.searchBtn.textContent = \"Search\";\n"
"\tfg.matched.textContent = \" \";\n"
"\tset_params({ s: null });\n"
"}\n"
"function search(term) {\n"
"\tvar re;\n"
"\ttry { re = new RegExp(term, fg.icase ? \"i\" : \"\"); } catch (err) { fg.matched.textContent = \"Bad regex\"; return; }\n"
"\tunmark();\n"
"\tfg.term = term;\n"
"\tvar list = fg.frames.children, spans = [], widest = 0;\n"
"\tfor (var i = 0; i < list.length; i++) {\n"
"\t\tvar g = list[i];\n"
"\t\tif (g.classList.contains(\"hide\") || g.classList.contains(\"parent\")) continue;\n"
"\t\tvar r = g.getElementsByTagName(\"rect\")[0], x = +r.getAttribute(\"x\"), w = +r.getAttribute(\"width\");\n"
"\t\tif (w > widest) widest = w;\n"
"\t\tif (!re.test(frame_name(g))) continue;\n"
"\t\tr.setAttribute(\"data-fill\", r.getAttribute(\"fill\"));\n"
"\t\tr.setAttribute(\"fill\", FG.searchcolor);\n"
"\t\tspans.push([x, x + w]);\n"
"\t}\n"
"\tspans.sort(function (p, q) { return p[0] - q[0] || q[1] - p[1]; });\n"
"\tvar covered = 0, reach = -Infinity;\n"
"\tfor (var j = 0; j < spans.length; j++) {\n"
"\t\tvar lo = Math.max(spans[j][0], reach);\n"
"\t\tif (spans[j][1] > lo) { covered += spans[j][1] - lo; reach = spans[j][1]; }\n"
"\t}\n"
"\tvar pct = widest > 0 ? 100 * covered / widest : 0;\n"
"\tfg.searchBtn.classList.add(\"show\");\n"
"\tfg.searchBtn.textContent = \"Reset Search\";\n"
"\tfg.matched.textContent = \"Matched: \" + (Math.abs(pct - 100) < 1e-9 ? \"100\" : pct.toFixed(1)) + \"%\";\n"
"\tset_params({ s: term });\n"
"}\n"
"]]>\n</script>\n";

static void put_prelude(FILE *out, const struct flame_svg_options *o)
{
	char b[32];
	fprintf(out, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
		"\t\t<stop stop-color=\"%s\" offset=\"5%%\" />\n\t\t<stop stop-color=\"%s\" offset=\"95%%\" />\n"
		"\t</linearGradient>\n</defs>\n", o->bg1, o->bg2);
	fputs("<style type=\"text/css\">\n\ttext { font-family:", out);
	put_xml_str(out, o->font_type, false);
	fprintf(out, "; font-size:%spx; fill:rgb(0,0,0); }\n", num(o->font_size, b));
	fprintf(out, "\t#title { text-anchor:middle; font-size:%spx; }\n", num(o->font_size + 5, b));
	fputs("\t#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
	      "\t#legend { text-anchor:end; fill:rgb(90,90,90); }\n"
	      "\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
	      "\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
	      "\t#unzoom { cursor:pointer; }\n"
	      "\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
	      "\t.hide { display:none; }\n"
	      "\t.parent { opacity:0.5; }\n"
	      "</style>\n", out);
	fprintf(out, "<script type=\"text/ecmascript\">\n<![CDATA[\nvar FG = { xpad: %d, inverted: %d, fontsize: %s, ",
		XPAD, o->inverted ? 1 : 0, num(o->font_size, b));
	fprintf(out, "fontwidth: %s, searchcolor: \"%s\", prefix: \"", num(o->font_width, b), search_color);
	put_js(out, o->name_type);
	fputs(" \" };\n]]>\n</script>\n", out);
	fputs(script, out);
}

static void put_text(FILE *out, const char *id, double x, double y, const char *extra, const char *s)
{
	char b[32];
	fprintf(out, "<text id=\"%s\" x=\"%.2f\" y=\"%s\" %s>", id, x, num(y, b), extra);
	put_xml_str(out, s, false);
	fputs("</text>\n", out);
}

/* The frame's text: as many characters as fit at font_width per
 * character, the last two replaced by ".." when the name is cut. */
static void put_label(FILE *out, const char *name, size_t len, double px, const struct flame_svg_options *o)
{
	long chars = (long)(px / (o->font_size * o->font_width));
	if (chars < 3)
		return;
	len = strip_annotation(name, len);
	size_t end = 0, keep = 0;
	long k = 0;
	uint32_t cp;
	while (end < len && k < chars) {
		if (k == chars - 2)
			keep = end;
		end += td_utf8_next(name + end, len - end, &cp);
		k++;
	}
	if (end < len) {        /* cut: more characters than room */
		put_xml(out, name, keep, false);
		fputs("..", out);
	} else {
		put_xml(out, name, len, false);
	}
}

void flame_svg_write(FILE *out, const struct flame_tree *t, const struct flame_frame *frames, size_t n,
		     double total, double max_delta, uint32_t max_depth, bool differential,
		     const struct flame_svg_options *o)
{
	double ypad1 = o->font_size * 3, ypad2 = o->font_size * 2 + 10, ypad3 = o->font_size * 2;
	bool has_sub = o->subtitle && *o->subtitle;
	double height = (double)(max_depth + 1) * (double)o->frame_height + ypad1 + ypad2 + (has_sub ? ypad3 : 0);
	double per = (double)(o->width - 2 * XPAD) / total;
	char b1[32], b2[32];

	put_header(out, o, height);
	put_prelude(out, o);
	fprintf(out, "<rect x=\"0.0\" y=\"0\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#background)\"  />\n",
		(double)o->width, height);
	const char *title = o->title ? o->title : o->flamechart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
	double mid = (double)(o->width / 2);
	put_text(out, "title", mid, o->font_size * 2, "", title);
	if (has_sub)
		put_text(out, "subtitle", mid, o->font_size * 4, "", o->subtitle);
	fprintf(out, "<text id=\"details\" x=\"%.2f\" y=\"%s\" > </text>\n", (double)XPAD, num(height - ypad2 / 2, b1));
	put_text(out, "unzoom", XPAD, o->font_size * 2, "class=\"hide\"", "Reset Zoom");
	put_text(out, "search", (double)(o->width - XPAD - 100), o->font_size * 2, "", "Search");
	put_text(out, "ignorecase", (double)(o->width - XPAD - 16), o->font_size * 2, "", "ic");
	fprintf(out, "<text id=\"matched\" x=\"%.2f\" y=\"%s\" > </text>\n", (double)(o->width - XPAD - 100), num(height - ypad2 / 2, b1));

	/* legend: the total and its unit */
	snprintf(b2, sizeof b2, "%.0f", total * o->factor);
	char b3[32];
	fprintf(out, "<text id=\"legend\" x=\"%.2f\" y=\"%s\" style=\"font-size:%spx\">Total: ",
		(double)(o->width - XPAD), num(height - 2, b1), num(o->font_size * 0.8, b3));
	put_grouped(out, b2);
	fputc(' ', out);
	put_xml_str(out, o->count_name, false);
	if (differential)
		fprintf(out, "; widths: the second count; %s: grew, %s: shrank", o->negate ? "blue" : "red", o->negate ? "red" : "blue");
	fputs("</text>\n", out);

	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct flame_frame *f = &frames[i];
		size_t len;
		const char *name = flame_tree_name(t, f->name, &len);
		double end = i == 0 ? total : f->end;
		double x1 = XPAD + f->start * per, x2 = XPAD + end * per, y1, y2;
		if (!o->inverted) {
			y1 = height - ypad2 - (double)(f->depth + 1) * (double)o->frame_height + FRAMEPAD;
			y2 = height - ypad2 - (double)f->depth * (double)o->frame_height;
		} else {
			y1 = ypad1 + (double)f->depth * (double)o->frame_height;
			y2 = ypad1 + (double)(f->depth + 1) * (double)o->frame_height - FRAMEPAD;
		}
		char samples[64], pct[64];
		snprintf(samples, sizeof samples, "%.0f", (end - f->start) * o->factor);
		fputs("<g >\n<title>", out);
		if (i == 0) {
			fputs("all (", out);
			put_grouped(out, samples);
			fputc(' ', out);
			put_xml_str(out, o->count_name, true);
			fputs(", 100%)", out);
		} else {
			snprintf(pct, sizeof pct, "%.2f", 100 * atof(samples) / (total * o->factor));
			put_xml(out, name, strip_annotation(name, len), true);
			fputs(" (", out);
			put_grouped(out, samples);
			fputc(' ', out);
			put_xml_str(out, o->count_name, true);
			fprintf(out, ", %s%%", pct);
			if (differential) {
				double d = o->negate ? -f->delta : f->delta;
				if (d == 0)
					d = 0;      /* no "-0.00%" */
				fprintf(out, "; %s%.2f%%", d > 0 ? "+" : "", 100 * d / (total * o->factor));
			}
			fputc(')', out);
		}
		fputs("</title>", out);

		char color[32];
		if (len == 2 && !memcmp(name, "--", 2))
			strcpy(color, "rgb(160,160,160)");
		else if (len == 1 && name[0] == '-')
			strcpy(color, "rgb(200,200,200)");
		else if (differential)
			flame_color_delta(o->negate ? -f->delta : f->delta, max_delta, color);
		else if (o->palette_map)
			flame_palette_map_color(o->palette_map, o->colors, name, len, color);
		else
			flame_color(o->colors, name, len, color);
		char sx1[32], sx2[32];
		snprintf(sx1, sizeof sx1, "%.1f", x1);
		snprintf(sx2, sizeof sx2, "%.1f", x2);
		fprintf(out, "<rect x=\"%s\" y=\"%s\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" rx=\"2\" ry=\"2\" />\n",
			sx1, num(y1, b1), atof(sx2) - atof(sx1), y2 - y1, color);
		fprintf(out, "<text  x=\"%.2f\" y=\"%s\" >", x1 + 3, num(3 + (y1 + y2) / 2, b2));
		put_label(out, name, len, x2 - x1, o);
		fputs("</text>\n</g>\n", out);
	}
	fputs("</g>\n</svg>\n", out);
}
