/* td-collect: measure the right events for this CPU with perf stat, on a
 * command, processes by name, PIDs or the whole system, and write a
 * self-describing capture (or keep it in td-store), once or as an agent. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "filters/td-collect/collect.h"
#include "filters/td-collect/detect.h"
#include "filters/td-collect/perf.h"
#include "filters/td-collect/plan.h"
#include "filters/td-collect/unit.h"
#include "common/diag.h"
#include "common/opts.h"
#include "store/store.h"

#define MAX_LABELS 64

static long opt_level = 1, opt_passes = 1, opt_count;
static const char *opt_duration, *opt_interval, *opt_store, *opt_process, *opt_pid, *opt_every, *opt_sysroot;
static bool opt_dry_run, opt_all, opt_unit, opt_install_unit, opt_no_git;
static const char *labels[MAX_LABELS];
static int nlabels;

static int add_label(const char *arg, void *data)
{
	(void)data;
	const char *eq = strchr(arg, '=');
	const char *why = eq ? store_label_invalid(arg, (size_t)(eq - arg), eq + 1, strlen(eq + 1)) : "a label is key=value";
	if (why) {
		td_error("--label '%s': %s", arg, why);
		exit(TD_EXIT_BAD);
	}
	if (nlabels == MAX_LABELS) {
		td_error("--label: at most %d labels", MAX_LABELS);
		exit(TD_EXIT_BAD);
	}
	labels[nlabels++] = arg;
	return 0;
}

static const struct td_option options[] = {
	{ 0, "level", TD_OPT_INT, &opt_level, "N", "Top-down level, 1 to 6 (default 1)", NULL },
	{ 0, "duration", TD_OPT_STRING, &opt_duration, "TIME", "how long to count a process or the system: 30s (default), 0.2s, 5m, 1h", NULL },
	{ 0, "interval", TD_OPT_STRING, &opt_interval, "TIME", "print counts every TIME as well (perf stat -I)", NULL },
	{ 0, "label", TD_OPT_CALLBACK, NULL, "K=V", "label the run (repeatable; kept in the capture's header and the store)", add_label },
	{ 0, "store", TD_OPT_STRING, &opt_store, "[DB]", "keep the run in td-store (DB: SQLite file or PostgreSQL URL; default $TD_DB, else td-store's)", NULL },
	{ 0, "passes", TD_OPT_INT, &opt_passes, "N", "up to N perf runs so that event groups do not share counters (default 1: perf multiplexes)", NULL },
	{ 0, "dry-run", TD_OPT_FLAG, &opt_dry_run, NULL, "print the perf command of each pass and exit", NULL },
	{ 0, "process", TD_OPT_STRING, &opt_process, "NAME", "count every process with this name (comm, or argv[0] or its base name)", NULL },
	{ 0, "pid", TD_OPT_STRING, &opt_pid, "PID[,PID...]", "count these processes", NULL },
	{ 'a', "all-cpus", TD_OPT_FLAG, &opt_all, NULL, "count the whole system", NULL },
	{ 0, "every", TD_OPT_STRING, &opt_every, "TIME", "agent: a run every TIME (SIGINT/SIGTERM stop after the current run)", NULL },
	{ 0, "count", TD_OPT_INT, &opt_count, "N", "agent: stop after N runs", NULL },
	{ 0, "systemd-unit", TD_OPT_FLAG, &opt_unit, NULL, "print a systemd unit running td-collect with these arguments", NULL },
	{ 0, "install-unit", TD_OPT_FLAG, &opt_install_unit, NULL, "write that unit to /etc/systemd/system (root) and print the systemctl commands", NULL },
	{ 0, "no-git-labels", TD_OPT_FLAG, &opt_no_git, NULL, "no git_branch/git_commit labels from the current directory's work tree", NULL },
	{ 0, "sysroot", TD_OPT_STRING, &opt_sysroot, "DIR", "detect the machine from DIR/proc and DIR/sys (a copied or synthetic tree)", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-collect", "[options] (--process NAME | --pid PID[,PID...] | -a | -- CMD [ARGS...])",
	"Count the Top-down, IPC, branch, cache and TLB events this CPU has with perf stat; write a capture td-derive, td-diff and td-store read.",
	options,
	"Runs perf (TD_PERF, else perf on PATH); the capture goes to stdout (-o FILE), the command's own output to stderr.",
};

/* "30s", "0.2s", "250ms", "5m", "1h", "2" (seconds): seconds, or -1. */
static double parse_time(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v >= 0) || isinf(v))
		return -1;
	if (!*end || !strcmp(end, "s"))
		return v;
	if (!strcmp(end, "ms"))
		return v / 1000;
	if (!strcmp(end, "m"))
		return v * 60;
	if (!strcmp(end, "h"))
		return v * 3600;
	return -1;
}

static double time_option(const char *name, const char *value, double min)
{
	double v = parse_time(value);
	if (v < 0)
		td_usage_error(&cmd, "--%s %s: a time is a number with s, ms, m or h (0.2s, 30s, 5m)", name, value);
	if (v < min)
		td_usage_error(&cmd, "--%s %s: at least %gs", name, value, min);
	return v;
}

/* --store takes its DB only when one follows: "--store" before another
 * option, "--" or the end is the default store. Rewritten as --store=. */
static void optional_store_arg(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--store") && (i + 1 == argc || argv[i + 1][0] == '-'))
			argv[i] = "--store=";
}

/* The command can start: a path that is an executable file, or a name on
 * PATH; else one line naming it. */
static bool command_runs(const char *c)
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

/* The arguments again, for the unit: the unit options left out. */
static int unit_args(int argc, char **argv, char **out)
{
	int n = 0;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--systemd-unit") && strcmp(argv[i], "--install-unit"))
			out[n++] = argv[i];
	return n;
}

int main(int argc, char **argv)
{
	optional_store_arg(argc, argv);
	char **original = td_malloc(sizeof(char *) * (size_t)(argc + 1));
	memcpy(original, argv, sizeof(char *) * (size_t)(argc + 1));
	int n = td_parse_options(&cmd, argc, argv);
	int targets = (opt_process != NULL) + (opt_pid != NULL) + opt_all + (n > 0);
	if (targets != 1)
		td_usage_error(&cmd, targets ? "give one target: --process, --pid, -a or -- CMD" :
				     "what to measure? --process NAME, --pid PID, -a or -- CMD ARGS");
	if (opt_level < 1 || opt_level > 6)
		td_usage_error(&cmd, "--level is a Top-down level, 1 to 6, not %ld", opt_level);
	if (opt_passes < 1 || opt_passes > 16)
		td_usage_error(&cmd, "--passes is 1 to 16, not %ld", opt_passes);
	if (opt_count < 0 || (opt_count && !opt_every))
		td_usage_error(&cmd, "--count N goes with --every (N at least 1)");
	if (n > 0 && opt_duration)
		td_usage_error(&cmd, "--duration is for --process, --pid and -a; a command is counted for its life");
	if (opt_process && !*opt_process)
		td_usage_error(&cmd, "--process needs a name");
	struct collect_job j = { 0 };
	j.duration_s = opt_duration ? time_option("duration", opt_duration, 0.01) : 30;
	j.interval_s = opt_interval ? time_option("interval", opt_interval, 0.01) : 0;
	double every = opt_every ? time_option("every", opt_every, 0.01) : 0;
	if (opt_unit || opt_install_unit) {
		const char *secret = opt_store ? unit_secret_in(opt_store) : NULL;
		if (secret)
			td_usage_error(&cmd, "%s: a unit file must not; put TD_DB=... in /etc/tdkit/td-collect.env (mode 0600) "
				       "or the password in libpq's password file (~/.pgpass), and give --store without a URL",
				       secret);
		if (!opt_every)
			td_usage_error(&cmd, "--systemd-unit: an agent repeats; give --every TIME");
		char exe[PATH_MAX];
		ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[len > 0 ? len : 0] = '\0';
		char **args = td_malloc(sizeof(char *) * (size_t)(argc + 1));
		int na = unit_args(argc, original, args);
		int rc = TD_EXIT_OK;
		char why[512];
		if (!opt_install_unit)
			unit_write(stdout, exe, args, na);
		else if (!unit_install(opt_sysroot ? opt_sysroot : "", exe, args, na, why, sizeof why))
			td_error("%s", why), rc = TD_EXIT_BAD;
		free(args);
		free(original);
		return rc;
	}

	if (n > 0 && !opt_dry_run && !command_runs(argv[0])) {
		free(original);
		return TD_EXIT_BAD;
	}
	struct machine_facts m;
	char why[1024], version[64];
	bool ready = false;
	if (!detect_machine(opt_sysroot, &m, why, sizeof why) || !perf_version(version, sizeof version, why, sizeof why))
		td_error("%s", why);
	else if (opt_all && !m.perfmon && m.paranoid > 0 && !opt_dry_run)
		td_error("-a counts every CPU: it needs kernel.perf_event_paranoid 0 or less (it is %d), CAP_PERFMON or "
			 "root ('sysctl kernel.perf_event_paranoid=0')", m.paranoid);
	else
		ready = true;
	if (!ready) {
		free(original);
		return TD_EXIT_BAD;
	}
	char *groups = perf_metric_groups(opt_sysroot ? m.cpuid : NULL);
	struct plan plan;
	struct plan_options po = { (int)opt_level, opt_all, (int)opt_passes, groups };
	plan_events(&m, &po, &plan);
	if (!plan.hardware)
		td_warn(NULL, 0, "no hardware counters: %s; counting the software events only (task-clock, cpu-clock, "
			"context switches, migrations, page faults)%s", plan.no_hardware, opt_store ? "; the run is still stored" : "");
	for (int i = 0; i < plan.nnotes; i++)
		td_warn(NULL, 0, "%s", plan.notes[i]);
	if (plan.passes_needed > plan.passes)
		td_warn(NULL, 0, "the event groups need %d passes to keep to the %d counters; in %d perf multiplexes them "
			"(--passes %d avoids it)", plan.passes_needed, plan.counters, plan.passes, plan.passes_needed);
	else if (plan.passes > 1)
		td_warn(NULL, 0, "%d passes: %s", plan.passes,
			n > 0 ? "the command runs once per pass, each pass counting its own event groups"
			      : "the event groups take turns over the duration");

	j.m = &m;
	j.plan = &plan;
	j.perf_version = version;
	j.level = (int)opt_level;
	j.kind = opt_process ? TARGET_PROCESS : opt_pid ? TARGET_PIDS : opt_all ? TARGET_SYSTEM : TARGET_COMMAND;
	j.process = opt_process;
	j.pids = opt_pid;
	j.cmd = argv;
	j.ncmd = n;
	j.labels = labels;
	j.nlabels = nlabels;
	j.git_labels = !opt_no_git;
	j.store = opt_store != NULL;
	j.db = opt_store;
	int rc = opt_dry_run ? collect_print(&j) : opt_every ? collect_agent(&j, every, opt_count) : collect_once(&j);
	free(groups);
	free(original);
	return rc ? rc : td_exit_code(TD_EXIT_OK);
}
