/* perf, asked and run (perf.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "filters/td-collect/perf.h"
#include "common/diag.h"

volatile pid_t perf_running;

const char *perf_path(void)
{
	const char *p = getenv("TD_PERF");
	return p && *p ? p : "perf";
}

/* Runs argv with stdout into a malloc'd string; env is one NAME=VALUE or NULL. */
static char *capture(char *const argv[], const char *env, int *status)
{
	int fd[2];
	if (pipe(fd) < 0)
		return NULL;
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		close(fd[0]);
		close(fd[1]);
		if (env)
			putenv((char *)env);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	size_t cap = 4096, n = 0;
	char *out = td_malloc(cap);
	ssize_t got;
	while ((got = read(fd[0], out + n, cap - n - 1)) > 0 || (got < 0 && errno == EINTR)) {
		if (got < 0)
			continue;
		n += (size_t)got;
		if (cap - n < 2)
			out = td_realloc(out, cap *= 2);
	}
	out[n] = '\0';
	close(fd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return out;
}

bool perf_version(char *buf, size_t cap, char *why, size_t whylen)
{
	char *argv[] = { (char *)perf_path(), "version", NULL };
	int st;
	char *out = capture(argv, NULL, &st);
	const char *v = out ? strstr(out, "perf version ") : NULL;
	if (!v || st) {
		if (st == 127)
			snprintf(why, whylen, "%s not found: install perf (Debian: apt-get install linux-perf; Fedora: dnf install "
				 "perf) or set TD_PERF to its path", perf_path());
		else
			snprintf(why, whylen, "'%s version' failed (exit %d): %.200s", perf_path(), st, out ? out : "");
		free(out);
		return false;
	}
	v += 13;
	size_t n = strcspn(v, " \n");
	snprintf(buf, cap, "%.*s", (int)n, v);
	free(out);
	return true;
}

char *perf_metric_groups(const char *cpuid)
{
	char *argv[] = { (char *)perf_path(), "list", "--raw-dump", "metricgroups", NULL };
	char env[128];
	if (cpuid)
		snprintf(env, sizeof env, "PERF_CPUID=%s", cpuid);
	int st;
	char *out = capture(argv, cpuid ? env : NULL, &st);
	if (!out || st) {
		free(out);
		return td_strndup("", 0);
	}
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return out;
}

bool perf_list_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

int perf_run(char *const argv[], int out_fd, int log_fd, bool echo, char *err, size_t errcap)
{
	int efd[2];
	if (pipe(efd) < 0) {
		snprintf(err, errcap, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errcap, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* the log and the error pipe above 2 and 3 first: no dup2 below lands on them */
		int lfd = fcntl(log_fd, F_DUPFD, 10), ewr = fcntl(efd[1], F_DUPFD, 10);
		close(efd[0]);
		close(efd[1]);
		dup2(out_fd, 1);
		dup2(ewr, 2);
		dup2(lfd, 3);
		close(lfd);
		close(ewr);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	perf_running = pid;
	close(efd[1]);
	size_t n = 0;
	char buf[4096];
	ssize_t got;
	err[0] = '\0';
	while ((got = read(efd[0], buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR)) {
		if (got < 0)
			continue;
		if (echo && write(2, buf, (size_t)got) < 0)
			echo = false;
		/* keep the last bytes: perf's reason comes last */
		for (ssize_t i = 0; i < got; i++) {
			if (n + 1 >= errcap) {
				memmove(err, err + errcap / 2, n - errcap / 2);
				n -= errcap / 2;
			}
			err[n++] = buf[i];
		}
	}
	err[n] = '\0';
	close(efd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	perf_running = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
