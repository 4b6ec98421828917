/* td-collect's options and their checks (options.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "filters/td-collect/options.h"
#include "filters/td-collect/unit.h"
#include "store/store.h"

int collect_add_label(const char *arg, void *data)
{
	struct collect_options *o = data;
	const char *eq = strchr(arg, '=');
	const char *why = eq ? store_label_invalid(arg, (size_t)(eq - arg), eq + 1, strlen(eq + 1)) : "a label is key=value";
	if (why) {
		td_error("--label '%s': %s", arg, why);
		exit(TD_EXIT_BAD);
	}
	if (o->nlabels == COLLECT_MAX_LABELS) {
		td_error("--label: at most %d labels", COLLECT_MAX_LABELS);
		exit(TD_EXIT_BAD);
	}
	o->labels[o->nlabels++] = arg;
	return 0;
}

void collect_optional_store_arg(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--store") && (i + 1 == argc || argv[i + 1][0] == '-'))
			argv[i] = "--store=";
}

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

/* The last check's message: any length (it quotes the arguments), held
 * here until the next one. */
static char *message;

static const char *failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *failed(const char *fmt, ...)
{
	va_list ap;
	free(message);
	va_start(ap, fmt);
	if (vasprintf(&message, fmt, ap) < 0)
		td_die("out of memory");
	va_end(ap);
	return message;
}

/* The time option's seconds in *out (dflt when not given); NULL, or why
 * it is no time or shorter than min. */
static const char *time_option(const char *name, const char *value, double dflt, double min, double *out)
{
	*out = value ? parse_time(value) : dflt;
	if (value && *out < 0)
		return failed("--%s %s: a time is a number with s, ms, m or h (0.2s, 30s, 5m)", name, value);
	if (value && *out < min)
		return failed("--%s %s: at least %gs", name, value, min);
	return NULL;
}

const char *collect_options_job(const struct collect_options *o, char *const *cmd, int ncmd, struct collect_job *j,
				double *every_s)
{
	if (o->peaks && o->measure_peaks)
		return failed("give --peaks FILE or --measure-peaks, not both");
	int targets = (o->process != NULL) + (o->pid != NULL) + o->all + (ncmd > 0);
	if (targets != 1)
		return failed("%s", targets ? "give one target: --process, --pid, -a or -- CMD"
							 : "what to measure? --process NAME, --pid PID, -a or -- CMD ARGS");
	if (o->level < 1 || o->level > 6)
		return failed("--level is a Top-down level, 1 to 6, not %ld", o->level);
	if (o->passes < 1 || o->passes > 16)
		return failed("--passes is 1 to 16, not %ld", o->passes);
	if (o->count < 0 || (o->count && !o->every))
		return failed("--count N goes with --every (N at least 1)");
	if (ncmd > 0 && o->duration)
		return failed("--duration is for --process, --pid and -a; a command is counted for its life");
	if (o->process && !*o->process)
		return failed("--process needs a name");
	const char *why;
	if ((why = time_option("duration", o->duration, 30, 0.01, &j->duration_s)) ||
	    (why = time_option("interval", o->interval, 0, 0.01, &j->interval_s)) ||
	    (why = time_option("every", o->every, 0, 0.01, every_s)))
		return why;
	if (o->unit || o->install_unit) {
		const char *secret = o->store ? unit_secret_in(o->store) : NULL;
		if (secret)
			return failed("%s: a unit file must not; put TD_DB=... in /etc/tdkit/td-collect.env (mode 0600) "
				      "or the password in libpq's password file (~/.pgpass), and give --store without a URL", secret);
		if (!o->every)
			return failed("--systemd-unit: an agent repeats; give --every TIME");
	}
	j->level = (int)o->level;
	j->kind = o->process ? TARGET_PROCESS : o->pid ? TARGET_PIDS : o->all ? TARGET_SYSTEM : TARGET_COMMAND;
	j->process = o->process;
	j->pids = o->pid;
	j->cmd = cmd;
	j->ncmd = ncmd;
	j->labels = o->labels;
	j->nlabels = o->nlabels;
	j->git_labels = !o->no_git;
	j->store = o->store != NULL;
	j->db = o->store;
	return NULL;
}
