/* td-collect: measure the right events for this CPU with perf stat, on a
 * command, processes by name, PIDs or the whole system, and write a
 * self-describing capture (or keep it in td-store), once or as an agent.
 * Its modules (filters/td-collect/) check the options, detect the machine,
 * plan the events and run perf. */
#include <stdlib.h>
#include <string.h>
#include "filters/td-collect/collect.h"
#include "filters/td-collect/detect.h"
#include "filters/td-collect/options.h"
#include "filters/td-collect/peaks.h"
#include "filters/td-collect/perf.h"
#include "filters/td-collect/plan.h"
#include "filters/td-collect/target.h"
#include "filters/td-collect/unit.h"
#include "common/diag.h"
#include "common/opts.h"

static struct collect_options o = { .level = 1, .passes = 1 };

static const struct td_option options[] = {
	{ 0, "level", TD_OPT_INT, &o.level, "N", "Top-down level, 1 to 6 (default 1)", NULL },
	{ 0, "duration", TD_OPT_STRING, &o.duration, "TIME", "how long to count a process or the system: 30s (default), 0.2s, 5m, 1h", NULL },
	{ 0, "interval", TD_OPT_STRING, &o.interval, "TIME", "print counts every TIME as well (perf stat -I)", NULL },
	{ 0, "label", TD_OPT_CALLBACK, &o, "K=V", "label the run (repeatable; kept in the capture's header and the store)", collect_add_label },
	{ 0, "store", TD_OPT_STRING, &o.store, "[DB]", "keep the run in td-store (DB: SQLite file or PostgreSQL URL; default $TD_DB, else td-store's)", NULL },
	{ 0, "passes", TD_OPT_INT, &o.passes, "N", "up to N perf runs so that event groups do not share counters (default 1: perf multiplexes)", NULL },
	{ 0, "dry-run", TD_OPT_FLAG, &o.dry_run, NULL, "print the perf command of each pass and exit", NULL },
	{ 0, "process", TD_OPT_STRING, &o.process, "NAME", "count every process with this name (comm, or argv[0] or its base name)", NULL },
	{ 0, "pid", TD_OPT_STRING, &o.pid, "PID[,PID...]", "count these processes", NULL },
	{ 'a', "all-cpus", TD_OPT_FLAG, &o.all, NULL, "count the whole system", NULL },
	{ 0, "every", TD_OPT_STRING, &o.every, "TIME", "agent: a run every TIME (SIGINT/SIGTERM stop after the current run)", NULL },
	{ 0, "count", TD_OPT_INT, &o.count, "N", "agent: stop after N runs", NULL },
	{ 0, "systemd-unit", TD_OPT_FLAG, &o.unit, NULL, "print a systemd unit running td-collect with these arguments", NULL },
	{ 0, "install-unit", TD_OPT_FLAG, &o.install_unit, NULL, "write that unit to /etc/systemd/system (root) and print the systemctl commands", NULL },
	{ 0, "no-git-labels", TD_OPT_FLAG, &o.no_git, NULL, "no git_branch/git_commit labels from the current directory's work tree", NULL },
	{ 0, "peaks", TD_OPT_STRING, &o.peaks, "FILE", "record the machine's roofs (peak_gflops, peak_gbs lines, as td-derive --peaks reads) in the capture's header", NULL },
	{ 0, "measure-peaks", TD_OPT_FLAG, &o.measure_peaks, NULL, "measure GFLOP/s (FMA) and GB/s (triad) on all CPUs first (a few hundred ms) and record them in the header", NULL },
	{ 0, "print-peaks", TD_OPT_FLAG, &o.print_peaks, NULL, "measure them and print them as a --peaks file; no capture, no target", NULL },
	{ 0, "sysroot", TD_OPT_STRING, &o.sysroot, "DIR", "detect the machine from DIR/proc and DIR/sys (a copied or synthetic tree)", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-collect", "[options] (--process NAME | --pid PID[,PID...] | -a | -- CMD [ARGS...])",
	"Count the Top-down, IPC, branch, cache and TLB events this CPU has with perf stat; write a capture td-derive, td-diff and td-store read.",
	options,
	"Runs perf (TD_PERF, else perf on PATH); the capture goes to stdout (-o FILE), the command's own output to stderr.",
};

/* --print-peaks: the measurement alone, as a peaks file on stdout. */
static int print_peaks(void)
{
	struct measured_peaks mp;
	char why[256];
	if (!peaks_measure(&mp, why, sizeof why)) {
		td_error("%s", why);
		return TD_EXIT_BAD;
	}
	peaks_print(stdout, &mp);
	return td_exit_code(TD_EXIT_OK);
}

/* original: argv as given (td_parse_options reorders argv), for the unit
 * file's command line. */
static int collect_main(int argc, char **argv, char **original)
{
	int n = td_parse_options(&cmd, argc, argv);
	struct collect_job j = { 0 };
	double every;
	if (o.print_peaks) {
		if (n > 0 || o.process || o.pid || o.all || o.peaks || o.measure_peaks)
			td_usage_error(&cmd, "--print-peaks measures and prints the peaks alone: no target, --peaks or --measure-peaks");
		return print_peaks();
	}
	const char *usage = collect_options_job(&o, argv, n, &j, &every);
	if (usage)
		td_usage_error(&cmd, "%s", usage);
	if (o.unit || o.install_unit)
		return unit_main(o.install_unit, o.sysroot ? o.sysroot : "", argc, original);
	if (n > 0 && !o.dry_run && !target_command_runs(argv[0]))
		return TD_EXIT_BAD;
	struct machine_facts m;
	char why[1024], version[64];
	bool ready = false;
	if (!detect_machine(o.sysroot, &m, why, sizeof why) || !perf_version(version, sizeof version, why, sizeof why))
		td_error("%s", why);
	else if (o.all && !m.perfmon && m.paranoid > 0 && !o.dry_run)
		td_error("-a counts every CPU: it needs kernel.perf_event_paranoid 0 or less (it is %d), CAP_PERFMON or "
			 "root ('sysctl kernel.perf_event_paranoid=0')", m.paranoid);
	else
		ready = true;
	if (!ready)
		return TD_EXIT_BAD;
	/* the roofs, before perf runs: the measurement must not share the CPUs with the target */
	struct roofline_peaks peaks;
	struct measured_peaks mp;
	char source[4200];
	if (o.peaks) {
		if (!roofline_peaks_load(o.peaks, &peaks))
			return td_exit_code(TD_EXIT_OK);
		snprintf(source, sizeof source, "td-collect --peaks %s", o.peaks);
		j.peaks = &peaks;
		j.peaks_source = source;
	} else if (o.measure_peaks && !o.dry_run) {
		if (!peaks_measure(&mp, why, sizeof why)) {
			td_error("%s", why);
			return TD_EXIT_BAD;
		}
		snprintf(source, sizeof source, "measured %s by td-collect --measure-peaks", mp.when);
		j.peaks = &mp.p;
		j.peaks_source = source;
		j.peaks_method = mp.how;
	}
	char *groups = perf_metric_groups(o.sysroot ? m.cpuid : NULL);
	struct plan plan;
	struct plan_options po = { (int)o.level, o.all, (int)o.passes, groups };
	plan_events(&m, &po, &plan);
	plan_warn(&plan, n > 0, o.store != NULL);
	j.m = &m;
	j.plan = &plan;
	j.perf_version = version;
	int rc = o.dry_run ? collect_print(&j) : o.every ? collect_agent(&j, every, o.count) : collect_once(&j);
	free(groups);
	return rc ? rc : td_exit_code(TD_EXIT_OK);
}

int main(int argc, char **argv)
{
	collect_optional_store_arg(argc, argv);
	char **original = td_malloc(sizeof(char *) * (size_t)(argc + 1));
	memcpy(original, argv, sizeof(char *) * (size_t)(argc + 1));
	int rc = collect_main(argc, argv, original);
	free(original);
	return rc;
}
