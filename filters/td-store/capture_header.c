/* The labels a capture brings: td-collect's header facts (parsers/
 * collect_header.h) that name the machine and the target, and its
 * label.K=V lines (the user's --label at collection). */
#include <string.h>
#include "common/diag.h"
#include "filters/td-store/verbs.h"
#include "parsers/collect_header.h"

/* The header facts kept as labels, under the same names. */
static const char *const label_facts[] = {
	"arch", "kernel", "host", "cpu", "cpuid", "pmus", "perf_version", "tma_level", "target", "git_branch",
	"git_commit", NULL,
};

int capture_header_labels(const char *bytes, size_t len, struct store_label *out, int max)
{
	int n = 0;
	const char *p = bytes, *end = bytes + len;
	while (p < end && n < max) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		const char *k, *v;
		size_t kn, vn;
		if (collect_header_fact(p, (size_t)(line_end - p), &k, &kn, &v, &vn) && vn) {
			bool user = kn > 6 && !memcmp(k, "label.", 6);
			bool fact = false;
			for (int i = 0; label_facts[i] && !user; i++)
				fact |= strlen(label_facts[i]) == kn && !memcmp(label_facts[i], k, kn);
			if (user)
				k += 6, kn -= 6;
			bool dup = false;     /* a capture of several runs repeats its header */
			for (int i = 0; i < n; i++)
				dup |= strlen(out[i].key) == kn && !memcmp(out[i].key, k, kn);
			if ((user || fact) && !dup && !store_label_invalid(k, kn, v, vn))
				out[n++] = (struct store_label){ td_strndup(k, kn), td_strndup(v, vn) };
		}
		p = line_end + 1;
	}
	return n;
}

const char *capture_header_label(const struct store_label *l, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(l[i].key, key))
			return l[i].value;
	return NULL;
}
