/* Runs of perf stat as captures (collect.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "filters/td-collect/collect.h"
#include "filters/td-collect/header.h"
#include "filters/td-collect/perf.h"
#include "filters/td-collect/store.h"
#include "filters/td-collect/target.h"
#include "common/diag.h"

#define MAX_ARGS 64

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* "0.2", "30", "3.333" */
static void seconds(char *buf, size_t cap, double s)
{
	snprintf(buf, cap, "%.3f", s);
	char *end = buf + strlen(buf) - 1;
	while (*end == '0')
		*end-- = '\0';
	if (*end == '.')
		*end = '\0';
}

struct argv_buf {
	char *v[MAX_ARGS + 1];
	int n;
	char interval[32], sleep_s[32];
};

static void push(struct argv_buf *a, const char *s)
{
	if (a->n < MAX_ARGS)
		a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

/* The perf command of one pass over the PIDs given (process, PID targets). */
static void pass_argv(const struct collect_job *j, int pass, const char *pids, struct argv_buf *a)
{
	a->n = 0;
	push(a, perf_path());
	push(a, "stat");
	push(a, "-x,");
	push(a, "--log-fd");
	push(a, "3");
	if (j->interval_s > 0) {
		snprintf(a->interval, sizeof a->interval, "%.0f", j->interval_s * 1000);
		push(a, "-I");
		push(a, a->interval);
	}
	if (j->kind == TARGET_SYSTEM)
		push(a, "-a");
	if (j->kind == TARGET_PROCESS || j->kind == TARGET_PIDS) {
		push(a, "-p");
		push(a, pids);
	}
	for (int i = 0; i < j->plan->n; i++)
		if (j->plan->g[i].pass == pass && !j->plan->g[i].metric_groups) {
			push(a, "-e");
			push(a, j->plan->g[i].spec);
		}
	for (int i = 0; i < j->plan->n; i++)
		if (j->plan->g[i].pass == pass && j->plan->g[i].metric_groups) {
			push(a, "-M");
			push(a, j->plan->g[i].spec);
		}
	push(a, "--");
	if (j->kind == TARGET_COMMAND) {
		for (int i = 0; i < j->ncmd; i++)
			push(a, j->cmd[i]);
	} else {
		seconds(a->sleep_s, sizeof a->sleep_s, j->duration_s / j->plan->passes);
		push(a, "sleep");
		push(a, a->sleep_s);
	}
}

/* Shell quoting for the printed command: a word of safe bytes as it is. */
static void print_word(FILE *f, const char *w)
{
	bool safe = *w != '\0';
	for (const char *p = w; *p && safe; p++)
		safe = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		       strchr("-_./:=,@%+", *p);
	if (safe) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = w; *p; p++)
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	fputc('\'', f);
}

/* The target's PIDs now, into pids; 0 or 2 after one message. */
static int resolve(const struct collect_job *j, char *pids, size_t cap, char *target, size_t tcap)
{
	char why[256];
	switch (j->kind) {
	case TARGET_PROCESS:
		if (!target_find_process(j->process, pids, cap)) {
			td_error("--process %s: no running process has this name (its comm, or argv[0] or its base name)",
				 j->process);
			return 2;
		}
		snprintf(target, tcap, "comm:%s pid:%s", j->process, pids);
		return 0;
	case TARGET_PIDS:
		if (target_check_pids(j->pids, pids, cap, why, sizeof why) <= 0) {
			td_error("%s", why);
			return 2;
		}
		snprintf(target, tcap, "pid:%s", pids);
		return 0;
	case TARGET_SYSTEM:
		snprintf(target, tcap, "system-wide");
		return 0;
	case TARGET_COMMAND: {
		size_t used = (size_t)snprintf(target, tcap, "command:");
		for (int i = 0; i < j->ncmd && used < tcap; i++)
			used += (size_t)snprintf(target + used, tcap - used, "%s%s", i ? " " : "", j->cmd[i]);
		return 0;
	}
	}
	return 0;
}

int collect_print(const struct collect_job *j)
{
	char pids[4096] = "", target[4096];
	int rc = resolve(j, pids, sizeof pids, target, sizeof target);
	if (rc)
		return rc;
	for (int p = 0; p < j->plan->passes; p++) {
		struct argv_buf a;
		pass_argv(j, p, pids, &a);
		for (int i = 0; i < a.n; i++) {
			if (i)
				putchar(' ');
			print_word(stdout, a.v[i]);
		}
		putchar('\n');
	}
	return 0;
}

/* The first line of perf's message, and the next when the first only
 * announces it ("Error:" then the reason). */
static void first_line(const char *err, char *out, size_t cap)
{
	const char *p = err;
	while (*p == '\n' || *p == ' ')
		p++;
	size_t n = strcspn(p, "\n");
	int w = snprintf(out, cap, "%.*s", (int)n, p);
	if (n && p[n - 1] == ':' && p[n] == '\n' && w > 0 && (size_t)w < cap) {
		const char *q = p + n;
		while (*q == '\n' || *q == ' ')
			q++;
		snprintf(out + w, cap - (size_t)w, " %.*s", (int)strcspn(q, "\n"), q);
	}
}

/* Lines of perf's after the header: counters were written. */
static bool has_counts(FILE *f)
{
	char line[512];
	rewind(f);
	while (fgets(line, sizeof line, f))
		if (line[0] != '#' && line[0] != '\n')
			return true;
	return false;
}

static void git_label(const char *cmd, char *out, size_t cap)
{
	out[0] = '\0';
	FILE *p = popen(cmd, "r");
	if (!p)
		return;
	if (!fgets(out, (int)cap, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

int collect_once(const struct collect_job *j)
{
	char pids[4096] = "", target[4096];
	int rc = resolve(j, pids, sizeof pids, target, sizeof target);
	if (rc)
		return rc;
	char path[256];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/td-collect-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		td_error("cannot make a temporary file in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return 2;
	}
	fcntl(fd, F_SETFL, O_APPEND);
	FILE *f = fdopen(fd, "a+");
	char branch[256] = "", commit[64] = "";
	if (j->git_labels) {
		git_label("git rev-parse --abbrev-ref HEAD 2>/dev/null", branch, sizeof branch);
		git_label("git rev-parse HEAD 2>/dev/null", commit, sizeof commit);
	}
	struct header_facts h = { j->m, j->plan, j->perf_version, j->level, target, branch[0] ? branch : NULL,
				  commit[0] ? commit : NULL, j->labels, j->nlabels, time(NULL), j->peaks,
				  j->peaks_source, j->peaks_method };
	header_write(f, &h);
	fflush(f);
	int status = 0;
	char err[8192] = "";
	for (int p = 0; p < j->plan->passes && !(p > 0 && stop); p++) {
		if (j->plan->passes > 1) {
			fprintf(f, "# tdkit-collect: pass=%d/%d\n", p + 1, j->plan->passes);
			fflush(f);
		}
		struct argv_buf a;
		pass_argv(j, p, pids, &a);
		status = perf_run(a.v, 2, fd, j->kind == TARGET_COMMAND, err, sizeof err);
		if (status < 0 || (status && !has_counts(f)))
			break;
		fseek(f, 0, SEEK_END);
	}
	rc = 0;
	if (status < 0 || !has_counts(f)) {
		char line[512];
		first_line(err, line, sizeof line);
		td_error("perf stat failed%s%s", line[0] ? ": " : " (no message)", line);
		rc = 2;
	} else {
		if (status)
			td_warn(NULL, 0, "%s exited with status %d; its counts are kept",
				j->kind == TARGET_COMMAND ? j->cmd[0] : "perf stat", status);
		rewind(f);
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			if (fwrite(buf, 1, n, stdout) != n)
				td_die("cannot write the capture: %s", strerror(errno));
		fflush(stdout);
		if (j->store) {
			char ids[1024];
			if (store_capture(j->db, path, ids, sizeof ids)) {
				ids[strcspn(ids, "\n")] = '\0';
				td_warn(NULL, 0, "stored as run %s", ids);
			} else {
				td_error("the run was not stored (td-store add said why above)");
				rc = 2;
			}
		}
	}
	fclose(f);
	unlink(path);
	return rc;
}

static void sleep_until(const struct timespec *t)
{
	while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
}

int collect_agent(const struct collect_job *j, double every_s, long count)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	int rc = 0;
	for (long run = 0; !stop && (count <= 0 || run < count); run++) {
		if (run) {
			double whole = floor(every_s);
			next.tv_sec += (time_t)whole;
			next.tv_nsec += (long)((every_s - whole) * 1e9);
			if (next.tv_nsec >= 1000000000L)
				next.tv_sec++, next.tv_nsec -= 1000000000L;
			sleep_until(&next);
			if (stop)
				break;
		}
		int r = collect_once(j);
		if (r && j->kind != TARGET_PROCESS)
			return r;          /* a process may come back; anything else will fail again */
		rc |= r;
	}
	if (stop)
		td_warn(NULL, 0, "stopped by a signal after the last run was written");
	return rc;
}
