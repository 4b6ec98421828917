#include <string.h>
#include "common/intern.h"
#include "common/utf8.h"
#include "speedscope.h"

/* A JSON string: quotes, backslashes and control characters escaped;
 * bytes that are not UTF-8 as U+FFFD. */
static void put_json(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = td_utf8_next(s + i, n - i, &cp);
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else if (cp == 0xfffd && k == 1 && c >= 0x80)
			fputs("\\ufffd", out);
		else
			fwrite(s + i, 1, k, out);
		i += k;
	}
	fputc('"', out);
}

struct pass {
	FILE *out;
	bool weights;
	size_t count;
};

static void put_stack(void *ctx, const uint32_t *names, size_t depth, double count)
{
	struct pass *p = ctx;
	fputs(p->count++ ? ",\n" : "\n", p->out);
	if (p->weights) {
		fprintf(p->out, "%.15g", count);
		return;
	}
	fputc('[', p->out);
	for (size_t i = 0; i < depth; i++)
		fprintf(p->out, i ? ",%u" : "%u", names[i]);
	fputc(']', p->out);
}

void speedscope_write(FILE *out, struct flame_tree *t, const char *name, const char *exporter)
{
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n\"shared\":{\"frames\":[", out);
	/* frame i is name id i: the names are already deduplicated */
	uint32_t nnames = flame_tree_name_count(t);
	for (uint32_t id = 0; id < nnames; id++) {
		size_t len;
		const char *s = flame_tree_name(t, id, &len);
		fputs(id ? ",\n{\"name\":" : "\n{\"name\":", out);
		put_json(out, s, len);
		fputc('}', out);
	}
	fputs("]},\n\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
	put_json(out, name, strlen(name));
	fprintf(out, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%.15g,\n\"samples\":[", flame_tree_total(t));
	struct pass p = { out, false, 0 };
	flame_tree_each_stack(t, put_stack, &p);
	fputs("],\n\"weights\":[", out);
	p = (struct pass){ out, true, 0 };
	flame_tree_each_stack(t, put_stack, &p);
	fputs("]}],\n\"name\":", out);
	put_json(out, name, strlen(name));
	fputs(",\"activeProfileIndex\":0,\"exporter\":", out);
	put_json(out, exporter, strlen(exporter));
	fputs("}\n", out);
}
