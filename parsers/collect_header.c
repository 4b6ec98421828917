/* td-collect's header lines, read (collect_header.h). */
#include <stdio.h>
#include <string.h>
#include "parsers/collect_header.h"

bool collect_header_fact(const char *line, size_t len, const char **key, size_t *klen, const char **value,
			 size_t *vlen)
{
	size_t mark = sizeof COLLECT_HEADER_MARK - 1;
	if (len <= mark || memcmp(line, COLLECT_HEADER_MARK, mark))
		return false;
	const char *k = line + mark, *end = line + len;
	if (end > k && end[-1] == '\r')
		end--;
	const char *eq = memchr(k, '=', (size_t)(end - k));
	if (!eq || eq == k)
		return false;
	for (const char *p = k; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      *p == '.' || *p == '-'))
			return false;
	*key = k;
	*klen = (size_t)(eq - k);
	*value = eq + 1;
	*vlen = (size_t)(end - eq - 1);
	return true;
}

void collect_cpu_file(struct collect_cpu *c)
{
	c->files++;
	c->this_file_has = false;
}

void collect_cpu_fact(struct collect_cpu *c, const char *key, size_t klen, const char *value, size_t vlen)
{
	if (klen != 5 || memcmp(key, "cpuid", 5))
		return;
	if (vlen == 0 || vlen >= sizeof c->cpuid) {
		c->conflict = true;
	} else if (c->with_cpuid && (strlen(c->cpuid) != vlen || memcmp(c->cpuid, value, vlen))) {
		c->conflict = true;        /* the first one is kept: a caller may hold it */
	} else if (!c->this_file_has) {
		memcpy(c->cpuid, value, vlen);
		c->cpuid[vlen] = '\0';
		c->with_cpuid++;
		c->this_file_has = true;
	}
}

const char *collect_cpu_id(const struct collect_cpu *c)
{
	return c->files && c->with_cpuid == c->files && !c->conflict ? c->cpuid : NULL;
}
