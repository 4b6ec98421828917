/* A tool's work in a child process. The child's stdout and stderr are
 * memory files (memfd) read once it has exited, so a child writing much
 * never blocks on a pipe the parent is not reading. The parent waits
 * polling the transport's fd, so a cancellation (stdio: a notification
 * line; HTTP: the client hanging up) kills the child at once.
 *
 * In-flight requests are kept by key (the request id) so that
 * notifications/cancelled, which may arrive on another HTTP connection,
 * finds the child to kill. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "common/diag.h"
#include "filters/td-mcp/mcp.h"

#define MAX_INFLIGHT 64
#define MAX_CAPTURE (64u << 20)      /* a child's stdout kept at most; more is a failure */

static struct inflight {
	char key[128];
	pid_t pid;
	bool cancelled;
} inflight[MAX_INFLIGHT];
static pthread_mutex_t inflight_lock = PTHREAD_MUTEX_INITIALIZER;

static int track(const char *key, pid_t pid)
{
	pthread_mutex_lock(&inflight_lock);
	int slot = -1;
	for (int i = 0; i < MAX_INFLIGHT && slot < 0; i++)
		if (!inflight[i].pid)
			slot = i;
	if (slot >= 0) {
		snprintf(inflight[slot].key, sizeof inflight[slot].key, "%s", key ? key : "");
		inflight[slot].pid = pid;
		inflight[slot].cancelled = false;
	}
	pthread_mutex_unlock(&inflight_lock);
	return slot;
}

static bool untrack(int slot)
{
	if (slot < 0)
		return false;
	pthread_mutex_lock(&inflight_lock);
	bool cancelled = inflight[slot].cancelled;
	inflight[slot].pid = 0;
	pthread_mutex_unlock(&inflight_lock);
	return cancelled;
}

bool worker_cancel(const char *key)
{
	bool found = false;
	pthread_mutex_lock(&inflight_lock);
	for (int i = 0; i < MAX_INFLIGHT; i++)
		if (inflight[i].pid && key && !strcmp(inflight[i].key, key)) {
			inflight[i].cancelled = true;
			kill(inflight[i].pid, SIGKILL);
			found = true;
		}
	pthread_mutex_unlock(&inflight_lock);
	return found;
}

static char *slurp(int fd, size_t *len)
{
	struct stat st;
	*len = 0;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size > MAX_CAPTURE) {
		char *s = td_malloc(1);
		s[0] = 0;
		*len = (size_t)-1;
		return s;
	}
	size_t n = (size_t)st.st_size;
	char *s = td_malloc(n + 1);
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, s + got, n - got, (off_t)got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	s[got] = 0;
	*len = got;
	return s;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void worker_run(int (*fn)(void *arg), void *arg, const char *key, const struct mcp_cancel *cancel, double timeout_s,
		struct worker_result *r)
{
	memset(r, 0, sizeof *r);
	int out = memfd_create("td-mcp-out", MFD_CLOEXEC), err = memfd_create("td-mcp-err", MFD_CLOEXEC);
	if (out < 0 || err < 0) {
		r->status = WORKER_FAILED;
		r->err = td_strndup(strerror(errno), strlen(strerror(errno)));
		r->out = td_strndup("", 0);
		if (out >= 0)
			close(out);
		if (err >= 0)
			close(err);
		return;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		/* stdin is the protocol's on stdio: the child must not read it */
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(out, 1);
		dup2(err, 2);
		signal(SIGPIPE, SIG_DFL);
		sigset_t none;            /* the HTTP server blocks SIGINT/SIGTERM; what the child runs must not inherit that */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int rc = fn(arg);
		fflush(stdout);
		fflush(stderr);
		_exit(rc);
	}
	if (pid < 0) {
		r->status = WORKER_FAILED;
		r->err = td_strndup("cannot start a worker process", 29);
		r->out = td_strndup("", 0);
		close(out);
		close(err);
		return;
	}
	int slot = track(key, pid);
	double deadline = now_s() + timeout_s;
	/* a pidfd wakes the wait the moment the child exits; without one
	 * (kernels before 5.3) the wait polls with a growing interval */
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int status = 0, wait_ms = 1;
	bool killed_by_us = false;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (!killed_by_us && now_s() > deadline) {
			kill(pid, SIGKILL);
			killed_by_us = true;
			r->status = WORKER_TIMEOUT;
		}
		struct pollfd p[2] = { { cancel && cancel->fd >= 0 ? cancel->fd : -1, POLLIN | POLLRDHUP, 0 }, { pidfd, POLLIN, 0 } };
		int k = poll(p, 2, pidfd >= 0 ? 100 : wait_ms);
		if (wait_ms < 20)
			wait_ms *= 2;
		if (k > 0 && p[0].revents && !killed_by_us && cancel->cancelled && cancel->cancelled(cancel->ctx)) {
			kill(pid, SIGKILL);
			killed_by_us = true;
			r->status = WORKER_CANCELLED;
		} else if (k > 0 && p[0].revents && !p[1].revents) {
			usleep(2000);          /* readable, but not a cancellation: do not spin */
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	if (untrack(slot) && !killed_by_us)
		r->status = WORKER_CANCELLED;
	if (r->status == WORKER_DONE && WIFEXITED(status))
		r->exit_code = WEXITSTATUS(status);
	else if (r->status == WORKER_DONE)
		r->status = WORKER_FAILED;
	size_t elen;
	r->out = slurp(out, &r->out_len);
	r->err = slurp(err, &elen);
	if (r->out_len == (size_t)-1) {
		r->out_len = 0;
		if (r->status == WORKER_DONE)
			r->status = WORKER_FAILED;
		free(r->err);
		r->err = td_strndup("the result is larger than 64 MiB", 32);
	} else if (r->status == WORKER_FAILED && !r->err[0] && WIFSIGNALED(status)) {
		free(r->err);
		char msg[64];
		snprintf(msg, sizeof msg, "the worker died of signal %d", WTERMSIG(status));
		r->err = td_strndup(msg, strlen(msg));
	}
	close(out);
	close(err);
}

void worker_result_free(struct worker_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}
