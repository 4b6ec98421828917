/* td-store add, in a child (store.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "filters/td-collect/store.h"
#include "filters/td-store/verbs.h"

bool store_capture(const char *db, const char *path, char *ids, size_t cap)
{
	int fd[2];
	ids[0] = '\0';
	if (pipe(fd) < 0)
		return false;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 1);
		close(fd[1]);
		char *argv[6];
		int n = 0;
		argv[n++] = "add";
		if (db && *db) {
			argv[n++] = "--db";
			argv[n++] = (char *)db;
		}
		argv[n++] = (char *)path;
		argv[n] = NULL;
		int rc = cmd_add(n, argv);
		fflush(stdout);
		_exit(rc);
	}
	close(fd[1]);
	size_t n = 0;
	ssize_t got;
	while ((got = read(fd[0], ids + n, cap - n - 1)) > 0 || (got < 0 && errno == EINTR))
		if (got > 0)
			n += (size_t)got;
	ids[n] = '\0';
	close(fd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
