/* perf's metric expression language (analysis/perf_expr.h): every
 * construct, its precedence, perf's division rules, the names it reads,
 * and what a missing input does; and the metric table read from a perf
 * list listing (analysis/perf_metric_table.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/metrics.h"
#include "analysis/perf_expr.h"
#include "analysis/perf_metric_table.h"
#include "common/diag.h"
#include "tests/unit/tap.h"

/* Inputs by name for the tests: a=2 b=3 c=0 X=10 Y=4; #smt_on=1; any
 * other name is missing. */
static struct perf_expr_value input_of(const char *name, enum perf_expr_id_kind kind, int id)
{
	static const struct {
		const char *name;
		double v;
	} known[] = { { "a", 2 }, { "b", 3 }, { "c", 0 }, { "X", 10 }, { "Y", 4 }, { "msr/tsc/", 7 },
		      { "cpu_core/INST_RETIRED.ANY/", 11 }, { "cpu/EXE_ACTIVITY.3_PORTS_UTIL,umask=0x80/", 13 },
		      { "INST_RETIRED.ANY:u", 17 }, { "duration_time", 19 } };
	struct perf_expr_value v = { NAN, -1, false, false };
	if (kind == PERF_EXPR_SOURCE_COUNT) {
		v.need = id;
		return v;
	}
	if (kind == PERF_EXPR_LITERAL) {
		v.konst = true;
		if (!strcmp(name, "#smt_on"))
			v.v = 1;
		else
			v.need = id;
		return v;
	}
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (!strcmp(known[i].name, name))
			v.v = known[i].v;
	if (isnan(v.v))
		v.need = id;
	return v;
}

static struct perf_expr_value run(const char *text, bool *compiled)
{
	char err[128];
	struct perf_expr *e = perf_expr_compile(text, err, sizeof err);
	struct perf_expr_value r = { NAN, -1, false, false };
	*compiled = e != NULL;
	if (!e)
		return r;
	struct perf_expr_value in[64];
	for (int i = 0; i < perf_expr_nids(e) && i < 64; i++)
		in[i] = input_of(perf_expr_id(e, i), perf_expr_id_kind(e, i), i);
	r = perf_expr_eval(e, in);
	perf_expr_free(e);
	return r;
}

static void is(const char *text, double want)
{
	bool compiled;
	struct perf_expr_value r = run(text, &compiled);
	char what[256];
	snprintf(what, sizeof what, "%s = %g (got %g)", text, want, r.v);
	ok(compiled && fabs(r.v - want) <= 1e-12 * fabs(want) + 1e-15 && r.need < 0, what);
}

static void none(const char *text, bool divzero, const char *why)
{
	bool compiled;
	struct perf_expr_value r = run(text, &compiled);
	char what[256];
	snprintf(what, sizeof what, "%s: no value (%s)", text, why);
	ok(compiled && isnan(r.v) && r.divzero == divzero && (divzero ? r.need < 0 : r.need >= 0), what);
}

static void bad(const char *text, const char *why)
{
	char err[128], what[256];
	struct perf_expr *e = perf_expr_compile(text, err, sizeof err);
	snprintf(what, sizeof what, "'%s' does not compile: %s (%s)", text, why, err);
	ok(e == NULL && err[0], what);
	perf_expr_free(e);
}

static void names(const char *text, const char *want)
{
	char err[128], got[512] = "";
	struct perf_expr *e = perf_expr_compile(text, err, sizeof err);
	for (int i = 0; e && i < perf_expr_nids(e); i++) {
		size_t n = strlen(got);
		snprintf(got + n, sizeof got - n, "%s%s", i ? "|" : "", perf_expr_id(e, i));
	}
	char what[700];
	snprintf(what, sizeof what, "%s reads %s (got %s)", text, want, got);
	ok(e && !strcmp(got, want), what);
	perf_expr_free(e);
}

static void language(void)
{
	/* literals and arithmetic */
	is("1", 1);
	is("0.5", 0.5);
	is("1e3", 1000);
	is("2.5e-1", 0.25);
	is("a + b * X", 32);
	is("(a + b) * X", 50);
	is("X - b - a", 5);                    /* left associative */
	is("X / a / 5", 1);
	is("X % b", 1);
	is("-a * b", -6);                      /* unary minus binds tightest */
	is("- -a", 2);
	is("!c", 1);
	is("!a", 0);
	/* comparisons and logic: 1 or 0; looser than + and * */
	is("a < b", 1);
	is("a > b", 0);
	is("a + 1 > b", 0);
	is("a == 2", 1);
	is("a < b | c", 1);
	is("a < b & c", 0);
	is("a ^ c", 1);
	is("a ^ b", 0);
	is("c | c", 0);
	is("a | c & c", 1);                    /* & binds tighter than | */
	is("a ^ b & c", 1);                    /* & tighter than ^ */
	/* functions */
	is("min(a, b)", 2);
	is("max(a, b)", 3);
	is("min(a + X, b * Y)", 12);
	is("d_ratio(X, Y)", 2.5);
	is("d_ratio(X, c)", 0);                /* d_ratio by zero is 0 */
	/* conditionals */
	is("X if a > b else Y", 4);
	is("X if a < b else Y", 10);
	is("X if c else Y if a else b", 4);     /* the else part chains */
	is("X if c else Y if c else b", 3);
	is("(X if a else Y) + 1", 11);
	is("min(X if c else Y, b)", 3);
	is("a + b if a else X", 5);            /* if is the loosest */
	/* names */
	is("msr@tsc@", 7);
	is("cpu_core@INST_RETIRED.ANY@", 11);
	is("cpu@EXE_ACTIVITY.3_PORTS_UTIL\\,umask\\=0x80@", 13);
	is("INST_RETIRED.ANY:u", 17);
	is("duration_time / 1e9", 19e-9);
	is("#smt_on", 1);
	is("X / 2 if #smt_on else X", 5);
	/* division by zero drops the metric; a missing input leaves it without a value */
	none("X / c", true, "a '/' by zero");
	none("X % c", true, "a '%' by zero");
	none("a + Z", false, "Z is missing");
	none("d_ratio(Z, a)", false, "Z is missing");
	none("X if Z > 1 else Y", false, "the condition reads a missing name");
	none("#num_cpus_online * a", false, "an unknown literal");
	none("source_count(X)", false, "perf's output does not say how many PMUs it merged");
	/* a constant condition: the branch not taken is not counted by perf */
	is("X if #smt_on else Z", 10);
	is("Z if 0 else Y", 4);
	is("X / c if c else Y", 4);            /* perf takes the other branch */
	/* what the expression reads */
	names("a + b * a", "a|b");
	names("msr@tsc@ / duration_time", "msr/tsc/|duration_time");
	names("cstate_core@c6\\-residency@", "cstate_core/c6-residency/");
	names("min(a, #smt_on) if has_event(Q) else source_count(R)", "a|#smt_on|Q|R");
	names("(1 - tma_core_bound / tma_ports_utilization if tma_core_bound < tma_ports_utilization else 1) "
	      "if SMT_2T_Utilization > 0.5 else 0",
	      "tma_core_bound|tma_ports_utilization|SMT_2T_Utilization");
	/* syntax errors */
	bad("", "empty");
	bad("a +", "an operand missing");
	bad("(a + b", "a parenthesis not closed");
	bad("a + b)", "text after the end");
	bad("min(a)", "min takes two arguments");
	bad("a if b", "if without else");
	bad("a $ b", "a character outside the language");
	bad("if", "a keyword where a value goes");
	bad("source_count(1)", "source_count takes a name");
	char deep[4000];
	size_t n = 0;
	for (int i = 0; i < 1500; i++)
		deep[n++] = '(';
	deep[n++] = '1';
	deep[n] = '\0';
	bad(deep, "nested too deep, and not closed");
}

/* A listing as perf list --details prints it. */
static const char listing[] =
	"List of pre-defined events (to be used in -e):\n"
	"  cycles OR cpu-cycles                               [Hardware event]\n"
	"\n"
	"Metric Groups:\n"
	"\n"
	"TopdownL1:\n"
	"  tma_backend_bound\n"
	"       [This category represents fraction of slots where no uops are being delivered due to a lack of required resources]\n"
	"       [topdown\\-be\\-bound / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + topdown\\-retiring + topdown\\-be\\-bound)]\n"
	"TopdownL2:\n"
	"  tma_core_bound\n"
	"       [Core non-memory issues]\n"
	"       [max(0, tma_backend_bound - tma_memory_bound)]\n"
	"  tma_memory_bound\n"
	"       [Memory subsystem]\n"
	"       [topdown\\-mem\\-bound / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + topdown\\-retiring + topdown\\-be\\-bound)]\n"
	"tma_backend_bound_group:\n"
	"  tma_core_bound\n"
	"       [Core non-memory issues]\n"
	"       [max(0, tma_backend_bound - tma_memory_bound)]\n"
	"  tma_memory_bound\n"
	"       [Memory subsystem]\n"
	"       [topdown\\-mem\\-bound / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + topdown\\-retiring + topdown\\-be\\-bound)]\n"
	"Summary:\n"
	"  CORE_CLKS\n"
	"       [Core clocks]\n"
	"       [(CPU_CLK_UNHALTED.THREAD_ANY / 2 if #smt_on else CLKS)]\n"
	"  CLKS\n"
	"       [clocks]\n"
	"       [CPU_CLK_UNHALTED.THREAD]\n"
	"  IPC\n"
	"       [Instructions per cycle. Unit: cpu_core ]\n"
	"       [INST_RETIRED.ANY / CLKS]\n"
	"  Broken\n"
	"       [does not compile]\n"
	"       [a + ]\n"
	"  Kernel_Utilization\n"
	"       [kernel cycles share]\n"
	"       [CPU_CLK_UNHALTED.THREAD_P:k / CPU_CLK_UNHALTED.THREAD]\n"
	"  Zero\n"
	"       [a division by zero]\n"
	"       [INST_RETIRED.ANY / (CLKS - CLKS)]\n";

static void table(void)
{
	char path[] = "/tmp/td-perf-expr-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		ok(0, "a temporary file");
		return;
	}
	fputs(listing, f);
	fclose(f);
	td_quiet = 1;
	struct perf_metric_table *t = perf_metric_table_load(path);
	unlink(path);
	ok(t != NULL, "the listing is read");
	if (!t)
		return;
	ok(t->n == 9, "nine metrics, each once (tma_core_bound listed under two groups)");
	int core = perf_metric_find(t, "tma_core_bound", "");
	ok(core >= 0 && t->m[core].level == 2 && t->m[core].parent && !strcmp(t->m[core].parent, "tma_backend_bound"),
	   "tma_core_bound: level 2 from TopdownL2, parent from tma_backend_bound_group");
	ok(core >= 0 && !strcmp(t->m[core].groups, "TopdownL2;tma_backend_bound_group"), "its groups, in order");
	int ipc = perf_metric_find(t, "IPC", "cpu_core");
	ok(ipc >= 0 && !strcmp(t->m[ipc].pmu, "cpu_core"), "IPC's PMU from 'Unit: cpu_core'");
	ok(t->nbad == 1, "one expression does not compile");
	struct counter_set s;
	counter_set_init(&s, -1, "", "");
	counter_set_add(&s, "topdown-be-bound", 40, 100, NAN);
	counter_set_add(&s, "topdown-fe-bound", 20, 100, NAN);
	counter_set_add(&s, "topdown-bad-spec", 10, 100, NAN);
	counter_set_add(&s, "topdown-retiring", 30, 100, NAN);
	counter_set_add(&s, "cycles", 1000, 100, NAN);
	struct perf_metric_result r[16];
	perf_metric_table_eval(t, &s, r);
	int be = perf_metric_find(t, "tma_backend_bound", "");
	ok(fabs(r[be].value - 0.4) < 1e-12, "tma_backend_bound from the topdown events");
	int mem = perf_metric_find(t, "tma_memory_bound", "");
	ok(isnan(r[mem].value) && !strcmp(r[mem].needs, "topdown-mem-bound"), "tma_memory_bound needs topdown-mem-bound");
	ok(isnan(r[core].value) && !strcmp(r[core].needs, "topdown-mem-bound"),
	   "tma_core_bound, through its reference, needs topdown-mem-bound: never the backend alone");
	int cc = perf_metric_find(t, "CORE_CLKS", "");
	ok(r[cc].value == 1000, "CORE_CLKS: #smt_on unknown, the counted events choose CLKS");
	int kern = perf_metric_find(t, "Kernel_Utilization", "");
	ok(isnan(r[kern].value) && strstr(r[kern].needs, ":k"),
	   "an event with a modifier (:k) is not the unmodified count tdkit holds: not computable, never 1.0");
	int zero = perf_metric_find(t, "Zero", "");
	ok(isnan(r[zero].value) && (r[zero].divzero || r[zero].needs[0]), "a metric with a division by zero has no value");
	counter_set_add(&s, "topdown-mem-bound", 25, 100, NAN);
	counter_set_add(&s, "cpu_clk_unhalted.thread_any", 1800, 100, NAN);
	perf_metric_table_eval(t, &s, r);
	ok(fabs(r[core].value - 0.15) < 1e-12, "tma_core_bound = backend - memory once both are counted");
	ok(isnan(r[cc].value) && r[cc].ambiguous, "CORE_CLKS: both branches counted, #smt_on unknown: no value");
	perf_metric_table_set_literal(t, "#smt_on", 1);
	perf_metric_table_eval(t, &s, r);
	ok(r[cc].value == 900, "CORE_CLKS with #smt_on set: THREAD_ANY / 2");
	counter_set_free(&s);
	perf_metric_table_free(t);
}

int main(void)
{
	language();
	table();
	return tap_done();
}
