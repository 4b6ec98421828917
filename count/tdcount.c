/* libtdcount (tdcount.h): a perf_event_open group, encoded by libpfm4. */
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "count/tdcount.h"

#define TDCOUNT_MAX 32

struct tdcount_event {
	char name[128];
	int fd;                    /* -1: not supported */
	uint64_t enabled0, running0;   /* times at start: a reset keeps them */
	bool clock;                /* task-clock, cpu-clock: ns, printed as msec */
};

struct tdcount {
	struct tdcount_event ev[TDCOUNT_MAX];
	int n;
	int leader;                /* fd of the group's leader */
	struct timespec started, stopped;
	bool running;
};

static long open_event(struct perf_event_attr *a, int group)
{
	return syscall(SYS_perf_event_open, a, 0, -1, group, 0);
}

/* The attr libpfm4 gives for a name at the privilege levels plm. */
static int encode(const char *name, int plm, struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof arg);
	arg.attr = a;
	arg.size = sizeof arg;
	int r = pfm_get_os_event_encoding(name, plm, PFM_OS_PERF_EVENT, &arg);
	a->size = sizeof *a;
	a->disabled = 1;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return r;
}

tdcount *tdcount_open(const char *events, char *err, size_t errlen)
{
	static int initialized = -1;
	if (initialized < 0)
		initialized = pfm_initialize() == PFM_SUCCESS;
	if (!initialized) {
		snprintf(err, errlen, "libpfm4 could not initialize");
		return NULL;
	}
	tdcount *t = calloc(1, sizeof *t);
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->leader = -1;
	int last_errno = 0;
	const char *p = events ? events : "";
	while (*p) {
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= sizeof t->ev[0].name || t->n == TDCOUNT_MAX) {
			snprintf(err, errlen, len ? "too many events or too long a name near '%.40s'" : "an empty event name in '%s'",
				 len ? p : events);
			tdcount_close(t);
			return NULL;
		}
		struct tdcount_event *e = &t->ev[t->n++];
		snprintf(e->name, sizeof e->name, "%.*s", (int)len, p);
		p += len + (p[len] == ',');
		e->fd = -1;
		struct perf_event_attr a;
		int r = encode(e->name, PFM_PLM0 | PFM_PLM3, &a);
		if (r != PFM_SUCCESS) {
			snprintf(err, errlen, "%s: %s (libpfm4; `perf list` or `showevtinfo` lists the names)", e->name,
				 pfm_strerror(r));
			tdcount_close(t);
			return NULL;
		}
		e->clock = a.type == PERF_TYPE_SOFTWARE &&
			   (a.config == PERF_COUNT_SW_TASK_CLOCK || a.config == PERF_COUNT_SW_CPU_CLOCK);
		a.disabled = t->leader < 0;    /* the leader starts and stops the group */
		long fd = open_event(&a, t->leader);
		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			/* perf_event_paranoid forbids kernel counts: user space only */
			encode(e->name, PFM_PLM3, &a);
			a.disabled = t->leader < 0;
			a.exclude_kernel = 1;
			fd = open_event(&a, t->leader);
			if (fd >= 0 && strlen(e->name) + 2 < sizeof e->name)
				strcat(e->name, ":u");
		}
		if (fd < 0) {
			last_errno = errno;
			continue;          /* not supported here */
		}
		e->fd = (int)fd;
		if (t->leader < 0)
			t->leader = e->fd;
	}
	if (t->n == 0 || t->leader < 0) {
		snprintf(err, errlen, t->n ? "no event could be opened: %s" : "no events given",
			 strerror(last_errno ? last_errno : EINVAL));
		tdcount_close(t);
		return NULL;
	}
	return t;
}

int tdcount_start(tdcount *t)
{
	if (ioctl(t->leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) < 0)
		return -1;
	for (int i = 0; i < t->n; i++) {
		uint64_t buf[3];
		if (t->ev[i].fd >= 0 && read(t->ev[i].fd, buf, sizeof buf) == (ssize_t)sizeof buf) {
			t->ev[i].enabled0 = buf[1];
			t->ev[i].running0 = buf[2];
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t->started);
	t->running = true;
	return ioctl(t->leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0 ? -1 : 0;
}

int tdcount_stop(tdcount *t)
{
	int r = ioctl(t->leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) < 0 ? -1 : 0;
	clock_gettime(CLOCK_MONOTONIC, &t->stopped);
	t->running = false;
	return r;
}

int tdcount_read(tdcount *t, struct tdcount_value *out, int max)
{
	int n = 0;
	for (int i = 0; i < t->n && n < max; i++, n++) {
		const struct tdcount_event *e = &t->ev[i];
		struct tdcount_value *v = &out[n];
		memset(v, 0, sizeof *v);
		v->name = e->name;
		v->supported = e->fd >= 0;
		uint64_t buf[3];
		if (!v->supported || read(e->fd, buf, sizeof buf) != (ssize_t)sizeof buf)
			continue;
		v->raw = buf[0];
		v->time_enabled = buf[1] - e->enabled0;
		v->time_running = buf[2] - e->running0;
		v->counted = v->time_running > 0;
		v->running_share = v->time_enabled ? (double)v->time_running / (double)v->time_enabled : 0;
		v->value = !v->counted ? 0
			   : v->time_running < v->time_enabled ? (double)v->raw * (double)v->time_enabled / (double)v->time_running
			   : (double)v->raw;
	}
	return n;
}

int tdcount_write(tdcount *t, FILE *f)
{
	struct tdcount_value v[TDCOUNT_MAX];
	int n = tdcount_read(t, v, TDCOUNT_MAX);
	for (int i = 0; i < n; i++) {
		/* perf's -x, columns: value, unit, event, running time, running %, metric, metric unit */
		if (!v[i].supported)
			fprintf(f, "<not supported>,,%s,0,100.00,,\n", v[i].name);
		else if (!v[i].counted)
			fprintf(f, "<not counted>,%s,%s,0,0.00,,\n", t->ev[i].clock ? "msec" : "", v[i].name);
		else if (t->ev[i].clock)
			fprintf(f, "%.2f,msec,%s,%llu,%.2f,,\n", v[i].value / 1e6, v[i].name,
				(unsigned long long)v[i].time_running, 100 * v[i].running_share);
		else
			fprintf(f, "%.0f,,%s,%llu,%.2f,,\n", v[i].value, v[i].name, (unsigned long long)v[i].time_running,
				100 * v[i].running_share);
	}
	const struct timespec *end = &t->stopped, now = { 0 };
	if (t->running) {
		clock_gettime(CLOCK_MONOTONIC, (struct timespec *)&now);
		end = &now;
	}
	long long ns = (long long)(end->tv_sec - t->started.tv_sec) * 1000000000LL + (end->tv_nsec - t->started.tv_nsec);
	fprintf(f, "%lld,ns,duration_time,%lld,100.00,,\n", ns, ns);
	return ferror(f) ? -1 : 0;
}

void tdcount_close(tdcount *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++)
		if (t->ev[i].fd >= 0)
			close(t->ev[i].fd);
	free(t);
}
