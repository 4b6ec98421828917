/* td-collect's header lines, read (collect_header.h). */
#include <pthread.h>
#include <stdatomic.h>
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

/* What the files read so far said. */
static struct {
	pthread_mutex_t lock;
	unsigned files;            /* files read */
	unsigned with_cpuid;       /* of them, files whose header gave a cpuid */
	bool this_file_has;        /* the file being read gave one */
	bool conflict;             /* two cpuids differ */
	char cpuid[64];
	atomic_uint changes;       /* collect_header_changes: bumped under the lock, after a change */
} seen = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Under the lock: what collect_header_cpuid says may differ now. */
static void changed(void)
{
	atomic_fetch_add_explicit(&seen.changes, 1, memory_order_release);
}

void collect_header_file(const char *file)
{
	(void)file;
	pthread_mutex_lock(&seen.lock);
	seen.files++;
	seen.this_file_has = false;
	changed();
	pthread_mutex_unlock(&seen.lock);
}

void collect_header_note(const char *line, size_t len)
{
	const char *k, *v;
	size_t kn, vn;
	if (!collect_header_fact(line, len, &k, &kn, &v, &vn) || kn != 5 || memcmp(k, "cpuid", 5))
		return;
	pthread_mutex_lock(&seen.lock);
	if (vn == 0 || vn >= sizeof seen.cpuid) {
		seen.conflict = true;
	} else if (seen.with_cpuid && (strlen(seen.cpuid) != vn || memcmp(seen.cpuid, v, vn))) {
		seen.conflict = true;          /* the first one is kept: a caller may hold it */
	} else if (!seen.this_file_has) {
		memcpy(seen.cpuid, v, vn);
		seen.cpuid[vn] = '\0';
		seen.with_cpuid++;
		seen.this_file_has = true;
	}
	changed();
	pthread_mutex_unlock(&seen.lock);
}

void collect_header_reset(void)
{
	pthread_mutex_lock(&seen.lock);
	seen.files = seen.with_cpuid = 0;
	seen.this_file_has = seen.conflict = false;
	seen.cpuid[0] = '\0';
	changed();
	pthread_mutex_unlock(&seen.lock);
}

unsigned collect_header_changes(void)
{
	return atomic_load_explicit(&seen.changes, memory_order_acquire);
}

const char *collect_header_cpuid(void)
{
	pthread_mutex_lock(&seen.lock);
	bool agreed = seen.files && seen.with_cpuid == seen.files && !seen.conflict;
	pthread_mutex_unlock(&seen.lock);
	return agreed ? seen.cpuid : NULL;
}
