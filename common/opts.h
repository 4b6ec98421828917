/* Command-line options from one table per tool; the same table prints --help.
 * Every tool gets -h/--help, --version, -o FILE and -q for free. */
#ifndef TD_OPTS_H
#define TD_OPTS_H

#include <stdbool.h>

enum td_opt_type {
	TD_OPT_FLAG,      /* bool *: set to true */
	TD_OPT_STRING,    /* const char **: the argument */
	TD_OPT_INT,       /* long *: a decimal integer */
	TD_OPT_CALLBACK,  /* callback(arg, data): repeatable, returns 0 or -1 */
	TD_OPT_END
};

struct td_option {
	char short_name;          /* 0 for none */
	const char *long_name;    /* NULL for none */
	enum td_opt_type type;
	void *value;
	const char *arg_name;     /* NULL: no argument (FLAG, or CALLBACK taking none) */
	const char *help;
	int (*callback)(const char *arg, void *data);
};

#define TD_OPTS_END { 0, NULL, TD_OPT_END, NULL, NULL, NULL, NULL }

struct td_cmd {
	const char *name;         /* "td-fold" */
	const char *usage;        /* "[options] [FILE...]" */
	const char *summary;      /* one line */
	const struct td_option *options;
	const char *input;        /* what it reads, for --help; NULL: FILEs, stdin, .gz/.zst */
};

/* Parses argv in place; returns the number of operands left in argv[0..n).
 * Handles --help/--version (exit 0), -o FILE (stdout redirected), -q,
 * "--" (ends options), "-" (stdin operand). Usage errors exit 2. */
int td_parse_options(const struct td_cmd *cmd, int argc, char **argv);

void td_usage_error(const struct td_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

extern const char td_version[];

#endif
