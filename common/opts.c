#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "opts.h"

#ifndef TD_VERSION
#define TD_VERSION "0.1.0"
#endif
const char td_version[] = TD_VERSION;

static const struct td_option common_options[] = {
	{ 'o', "output", TD_OPT_STRING, NULL, "FILE", "write the output to FILE instead of stdout", NULL },
	{ 'q', "quiet", TD_OPT_FLAG, NULL, NULL, "no warnings on stderr (errors still print)", NULL },
	{ 'h', "help", TD_OPT_FLAG, NULL, NULL, "show this help and exit", NULL },
	{ 0, "version", TD_OPT_FLAG, NULL, NULL, "show the version and exit", NULL },
	TD_OPTS_END
};

static void print_option(FILE *f, const struct td_option *o)
{
	char left[64];
	int n = 0;
	if (o->short_name && o->long_name)
		n = snprintf(left, sizeof left, "-%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		n = snprintf(left, sizeof left, "-%c", o->short_name);
	else
		n = snprintf(left, sizeof left, "    --%s", o->long_name);
	if (o->arg_name && n > 0 && (size_t)n < sizeof left)
		snprintf(left + n, sizeof left - (size_t)n, o->long_name ? "=%s" : " %s", o->arg_name);
	if (strlen(left) > 26)
		fprintf(f, "  %s\n  %-26s %s\n", left, "", o->help);
	else
		fprintf(f, "  %-26s %s\n", left, o->help);
}

static void print_help(const struct td_cmd *cmd)
{
	printf("usage: %s %s\n%s\n\n", cmd->name, cmd->usage, cmd->summary);
	printf("%s\n\noptions:\n", cmd->input ? cmd->input
					      : "Reads FILEs in order (stdin when none or '-'); .gz and .zst are detected by content.");
	for (const struct td_option *o = cmd->options; o && o->type != TD_OPT_END; o++)
		print_option(stdout, o);
	for (const struct td_option *o = common_options; o->type != TD_OPT_END; o++)
		print_option(stdout, o);
	printf("\nExit status: 0 success, 1 a regression-style finding, 2 bad input or usage.\n"
	       "See %s(1).\n", cmd->name);
}

void td_usage_error(const struct td_cmd *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", cmd->name);
	exit(TD_EXIT_BAD);
}

static const struct td_option *find_long(const struct td_option *t, const char *name, size_t len)
{
	for (; t && t->type != TD_OPT_END; t++)
		if (t->long_name && strlen(t->long_name) == len && strncmp(t->long_name, name, len) == 0)
			return t;
	return NULL;
}

static const struct td_option *find_short(const struct td_option *t, char c)
{
	for (; t && t->type != TD_OPT_END; t++)
		if (t->short_name == c)
			return t;
	return NULL;
}

static bool takes_arg(const struct td_option *o)
{
	return o->type == TD_OPT_STRING || o->type == TD_OPT_INT ||
	       (o->type == TD_OPT_CALLBACK && o->arg_name);
}

static void apply_common(const struct td_cmd *cmd, const struct td_option *o, const char *arg)
{
	switch (o->short_name) {
	case 'o':
		if (!freopen(arg, "w", stdout)) {
			fprintf(stderr, "%s: %s: cannot write: %s\n", cmd->name, arg, strerror(errno));
			exit(TD_EXIT_BAD);
		}
		break;
	case 'q':
		td_quiet = 1;
		break;
	case 'h':
		print_help(cmd);
		exit(TD_EXIT_OK);
	default:
		printf("%s (tdkit) %s\n", cmd->name, td_version);
		exit(TD_EXIT_OK);
	}
}

static void apply(const struct td_cmd *cmd, const struct td_option *o, const char *arg, const char *spelled)
{
	if (o >= common_options && o < common_options + sizeof common_options / sizeof *o) {
		apply_common(cmd, o, arg);
		return;
	}
	switch (o->type) {
	case TD_OPT_FLAG:
		*(bool *)o->value = true;
		break;
	case TD_OPT_STRING:
		*(const char **)o->value = arg;
		break;
	case TD_OPT_INT: {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || end == arg || *end)
			td_usage_error(cmd, "option %s needs an integer, not '%s'", spelled, arg);
		*(long *)o->value = v;
		break;
	}
	case TD_OPT_CALLBACK:
		if (o->callback(arg, o->value) < 0)
			td_usage_error(cmd, "bad value for %s: '%s'", spelled, arg ? arg : "");
		break;
	default:
		break;
	}
}

static const struct td_option *lookup_long(const struct td_cmd *cmd, const char *name, size_t len)
{
	const struct td_option *o = find_long(cmd->options, name, len);
	return o ? o : find_long(common_options, name, len);
}

static const struct td_option *lookup_short(const struct td_cmd *cmd, char c)
{
	const struct td_option *o = find_short(cmd->options, c);
	return o ? o : find_short(common_options, c);
}

int td_parse_options(const struct td_cmd *cmd, int argc, char **argv)
{
	int nops = 0;
	bool options_done = false;
	td_progname = cmd->name;
	static char outbuf[1 << 17];      /* reports write many short pieces */
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (options_done || a[0] != '-' || a[1] == '\0') {
			argv[nops++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			options_done = true;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct td_option *o = lookup_long(cmd, name, len);
			if (!o)
				td_usage_error(cmd, "unknown option '--%.*s'", (int)len, name);
			const char *arg = NULL;
			if (takes_arg(o)) {
				if (eq)
					arg = eq + 1;
				else if (i + 1 < argc)
					arg = argv[++i];
				else
					td_usage_error(cmd, "option '--%s' needs %s", o->long_name, o->arg_name);
			} else if (eq) {
				td_usage_error(cmd, "option '--%s' takes no value", o->long_name);
			}
			apply(cmd, o, arg, a);
			continue;
		}
		for (char *c = a + 1; *c; c++) {
			const struct td_option *o = lookup_short(cmd, *c);
			char spelled[3] = { '-', *c, 0 };
			if (!o)
				td_usage_error(cmd, "unknown option '-%c'", *c);
			if (!takes_arg(o)) {
				apply(cmd, o, NULL, spelled);
				continue;
			}
			const char *arg = c[1] ? c + 1 : (i + 1 < argc ? argv[++i] : NULL);
			if (!arg)
				td_usage_error(cmd, "option '-%c' needs %s", *c, o->arg_name);
			apply(cmd, o, arg, spelled);
			break;
		}
	}
	argv[nops] = NULL;
	return nops;
}
