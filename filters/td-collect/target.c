/* Targets by name or PID (target.h). */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/diag.h"
#include "filters/td-collect/target.h"

static bool read_proc(int pid, const char *what, char *buf, size_t cap, size_t *len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", pid, what);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	*len = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[*len] = '\0';
	return true;
}

static bool matches(int pid, const char *name)
{
	char buf[4096];
	size_t n;
	if (read_proc(pid, "comm", buf, sizeof buf, &n)) {
		buf[strcspn(buf, "\n")] = '\0';
		/* the kernel keeps 15 bytes of a comm */
		if (!strcmp(buf, name) || (strlen(name) > 15 && strlen(buf) == 15 && !strncmp(buf, name, 15)))
			return true;
	}
	if (read_proc(pid, "cmdline", buf, sizeof buf, &n) && n) {
		const char *argv0 = buf, *base = strrchr(argv0, '/');
		if (!strcmp(argv0, name) || (base && !strcmp(base + 1, name)))
			return true;
	}
	return false;
}

int target_find_process(const char *name, char *out, size_t cap)
{
	DIR *d = opendir("/proc");
	int found = 0;
	size_t used = 0;
	out[0] = '\0';
	if (!d)
		return 0;
	struct dirent *e;
	int self = getpid();
	int pids[4096], n = 0;
	while ((e = readdir(d)) && n < 4096) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		int pid = atoi(e->d_name);
		if (pid != self && matches(pid, name))
			pids[n++] = pid;
	}
	closedir(d);
	/* /proc lists in PID order already on Linux; sort anyway for stable output */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && pids[j - 1] > pids[j]; j--) {
			int t = pids[j];
			pids[j] = pids[j - 1];
			pids[j - 1] = t;
		}
	for (int i = 0; i < n && used + 12 < cap; i++) {
		used += (size_t)snprintf(out + used, cap - used, "%s%d", found ? "," : "", pids[i]);
		found++;
	}
	return found;
}

int target_check_pids(const char *list, char *out, size_t cap, char *why, size_t whylen)
{
	int alive = 0;
	size_t used = 0;
	out[0] = '\0';
	const char *p = list;
	while (*p) {
		char *end;
		long pid = strtol(p, &end, 10);
		if (end == p || pid <= 0 || pid > 0x3fffffff || (*end && *end != ',')) {
			snprintf(why, whylen, "--pid %s: '%.*s' is not a process id", list, (int)strcspn(p, ","), p);
			return -1;
		}
		char path[64];
		snprintf(path, sizeof path, "/proc/%ld", pid);
		if (access(path, F_OK) == 0 && used + 12 < cap) {
			used += (size_t)snprintf(out + used, cap - used, "%s%ld", alive ? "," : "", pid);
			alive++;
		}
		p = *end ? end + 1 : end;
	}
	if (!alive)
		snprintf(why, whylen, "--pid %s: no such process", list);
	return alive;
}

bool target_command_runs(const char *c)
{
	struct stat st;
	if (strchr(c, '/')) {
		if (stat(c, &st) < 0)
			td_error("%s: cannot run: %s", c, strerror(errno));
		else if (!S_ISREG(st.st_mode) || access(c, X_OK) < 0)
			td_error("%s: cannot run: not an executable file", c);
		else
			return true;
		return false;
	}
	const char *path = getenv("PATH");
	char dir[4096];
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(dir, sizeof dir, "%.*s/%s", (int)n, n ? p : ".", c);
		if (stat(dir, &st) == 0 && S_ISREG(st.st_mode) && access(dir, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	td_error("%s: cannot run: no such command on PATH", c);
	return false;
}
