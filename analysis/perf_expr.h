/* perf's metric expression language (the MetricExpr of its JSON tables, as
 * `perf list --details` prints it), compiled once into a tree and evaluated
 * over values the caller gives for the names it references.
 *
 * The language, as perf 6.1 defines it:
 *   numbers        1, 0.5, 1e9
 *   names          INST_RETIRED.ANY, tma_fetch_latency, duration_time,
 *                  msr@tsc@ (an '@' stands for '/': msr/tsc/),
 *                  cpu@EXE_ACTIVITY.3_PORTS_UTIL\,umask\=0x80@ ('\' escapes),
 *                  INST_RETIRED.ANY:u (modifiers are part of the name)
 *   literals       #smt_on, #core_wide, #num_cpus, #num_cpus_online,
 *                  #num_cores, #num_dies, #num_packages, #slots,
 *                  #system_tsc_freq (any '#' name: the caller knows it or not)
 *   functions      min(a, b), max(a, b), d_ratio(a, b) (0 when b is 0),
 *                  source_count(NAME), has_event(NAME), strcmp_cpuid_str(NAME)
 *   conditionals   a if cond else b (Python style; the else part may be
 *                  another conditional)
 *   operators, loosest first: | ^ & (logical: a value is true when it is
 *                  not 0), < > == (1 or 0), + -, * / % (% on integers),
 *                  unary - and !
 * A plain '/' or '%' by zero gives no value (perf drops the metric);
 * d_ratio's gives 0. min(a, b) is a < b ? a : b and max(a, b) is a > b ? a
 * : b, as perf computes them. */
#ifndef TD_PERF_EXPR_H
#define TD_PERF_EXPR_H

#include <stdbool.h>
#include <stddef.h>

/* What a name in the expression is. */
enum perf_expr_id_kind {
	PERF_EXPR_NAME,          /* an event, or another metric */
	PERF_EXPR_LITERAL,       /* "#smt_on" */
	PERF_EXPR_SOURCE_COUNT,  /* the argument of source_count() */
	PERF_EXPR_HAS_EVENT,     /* the argument of has_event() */
	PERF_EXPR_CPUID_STR,     /* the argument of strcmp_cpuid_str() */
};

/* A value and where it came from. */
struct perf_expr_value {
	double v;
	int need;                /* the id of a missing input it depends on, -1: none */
	bool konst;              /* computed from numbers and literals only */
	bool divzero;            /* no value: a '/' or '%' by zero */
};

struct perf_expr;

/* Compiles text. NULL on a syntax error, described in err ("column 12:
 * ')' expected"). Nesting (about 125 levels of parentheses) and size (20,000 terms) are limited. */
struct perf_expr *perf_expr_compile(const char *text, char *err, size_t cap);
void perf_expr_free(struct perf_expr *e);

/* The distinct names the expression references, in first-use order, as
 * perf reads them ('@' as '/', escapes removed). */
int perf_expr_nids(const struct perf_expr *e);
const char *perf_expr_id(const struct perf_expr *e, int id);
enum perf_expr_id_kind perf_expr_id_kind(const struct perf_expr *e, int id);

/* The value, in[id] giving each name's (need = id when it is missing).
 * A missing input on a branch a constant condition does not take is not
 * needed, as perf does not count events there; any other missing input
 * leaves the result with need set and v NaN. */
struct perf_expr_value perf_expr_eval(const struct perf_expr *e, const struct perf_expr_value *in);

#endif
