/* The agent's systemd unit (unit.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/diag.h"
#include "filters/td-collect/unit.h"

const char *unit_secret_in(const char *db)
{
	if (!db)
		return NULL;
	if (!strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11)) {
		const char *rest = strstr(db, "://") + 3;
		const char *at = strchr(rest, '@'), *slash = strchr(rest, '/');
		const char *colon = strchr(rest, ':');
		if (at && (!slash || at < slash) && colon && colon < at)
			return "the database URL holds a password";
		if (strstr(db, "password="))
			return "the database URL holds a password";
		return NULL;
	}
	return strstr(db, "password=") ? "the database connection string holds a password" : NULL;
}

/* systemd's quoting: a word with a blank, quote or backslash goes in double quotes. */
static void word(FILE *f, const char *w)
{
	if (*w && !strpbrk(w, " \t\"'\\$%;")) {
		fputs(w, f);
		return;
	}
	fputc('"', f);
	for (const char *p = w; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		if (*p == '$' || *p == '%')
			fputc(*p, f);        /* $$ and %% are a literal $ and % */
		fputc(*p, f);
	}
	fputc('"', f);
}

void unit_write(FILE *f, const char *exe, char *const *args, int n)
{
	fprintf(f, "# td-collect agent; written by td-collect --systemd-unit.\n"
		   "# No secret belongs here: give a PostgreSQL password through TD_DB in the\n"
		   "# EnvironmentFile below (create it with mode 0600: TD_DB=postgresql://user:pass@host/db)\n"
		   "# or libpq's password file (~/.pgpass, PGPASSFILE), and --store without a URL.\n"
		   "[Unit]\n"
		   "Description=tdkit td-collect agent (perf stat runs kept with labels)\n"
		   "After=network-online.target\n"
		   "Wants=network-online.target\n"
		   "\n"
		   "[Service]\n"
		   "Type=simple\n"
		   "EnvironmentFile=-/etc/tdkit/td-collect.env\n"
		   "ExecStart=");
	word(f, exe);
	for (int i = 0; i < n; i++) {
		fputc(' ', f);
		word(f, args[i]);
	}
	fprintf(f, "\n"
		   "KillSignal=SIGTERM\n"
		   "TimeoutStopSec=infinity\n"
		   "Restart=on-failure\n"
		   "RestartSec=30s\n"
		   "\n"
		   "[Install]\n"
		   "WantedBy=multi-user.target\n");
}

bool unit_install(const char *root, const char *exe, char *const *args, int n, char *why, size_t whylen)
{
	if (geteuid() != 0) {
		snprintf(why, whylen, "--install-unit writes to /etc/systemd/system: run it as root");
		return false;
	}
	char dir[600], path[700];
	snprintf(dir, sizeof dir, "%s/etc/systemd/system", root);
	snprintf(path, sizeof path, "%s/td-collect.service", dir);
	struct stat st;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s: no such folder (is this a systemd machine?)", dir);
		return false;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(why, whylen, "%s: cannot write: %s", path, strerror(errno));
		return false;
	}
	unit_write(f, exe, args, n);
	if (fclose(f)) {
		snprintf(why, whylen, "%s: cannot write: %s", path, strerror(errno));
		return false;
	}
	printf("wrote %s\nnow run:\n  systemctl daemon-reload\n  systemctl enable --now td-collect.service\n"
	       "  journalctl -u td-collect.service -f    # its messages\n", path);
	return true;
}

/* The arguments again, for the unit: the unit options left out. */
static int unit_args(int argc, char *const *argv, char **out)
{
	int n = 0;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--systemd-unit") && strcmp(argv[i], "--install-unit"))
			out[n++] = argv[i];
	return n;
}

int unit_main(bool install, const char *root, int argc, char *const *argv)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[len > 0 ? len : 0] = '\0';
	char **args = td_malloc(sizeof(char *) * (size_t)(argc + 1));
	int na = unit_args(argc, argv, args);
	int rc = TD_EXIT_OK;
	char why[512];
	if (!install)
		unit_write(stdout, exe, args, na);
	else if (!unit_install(root, exe, args, na, why, sizeof why))
		td_error("%s", why), rc = TD_EXIT_BAD;
	free(args);
	return rc;
}
