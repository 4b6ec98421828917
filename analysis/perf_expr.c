/* perf_expr.h: a recursive-descent parser into an array of nodes, and a
 * tree walk over them. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/perf_expr.h"
#include "common/diag.h"

static char *dup_s(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(td_malloc(n), s, n);
}

#define MAX_DEPTH 1000          /* parser frames: about 125 levels of parentheses */
#define MAX_NODES 20000

enum op {
	OP_NUM, OP_ID, OP_NEG, OP_NOT, OP_OR, OP_XOR, OP_AND, OP_LT, OP_GT, OP_EQ, OP_ADD, OP_SUB, OP_MUL, OP_DIV,
	OP_MOD, OP_MIN, OP_MAX, OP_DRATIO, OP_IF,
};

struct node {
	enum op op;
	int a, b, c;             /* operands (node indexes); OP_IF: a if b else c */
	double num;              /* OP_NUM */
	int id;                  /* OP_ID */
};

struct id {
	char *name;
	enum perf_expr_id_kind kind;
};

struct perf_expr {
	struct node *n;
	int nn, cap;
	struct id *ids;
	int nids, idcap;
	int root;
};

struct parser {
	const char *s, *p;
	struct perf_expr *e;
	char *err;
	size_t errcap;
	bool failed;
	int depth;
	/* the token ahead */
	enum tok { T_END, T_NUM, T_NAME, T_LIT, T_OP, T_BAD } tok;
	char op[3];
	double num;
	char *name;              /* T_NAME, T_LIT: normalized, owned */
	const char *tok_at;
};

static void fail(struct parser *ps, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	int w = snprintf(ps->err, ps->errcap, "column %d: ", (int)(ps->tok_at - ps->s) + 1);
	va_list ap;
	va_start(ap, fmt);
	if (w >= 0 && (size_t)w < ps->errcap)
		vsnprintf(ps->err + w, ps->errcap - (size_t)w, fmt, ap);
	va_end(ap);
}

/* The characters of a name, as perf's lexer takes them ('\' escapes the next). */
static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':' || c == '@' || c == '?' || c == '#' ||
	       c == '\\';
}

/* Length of the name at p ('\' and the character it escapes count). */
static size_t name_len(const char *p)
{
	size_t n = 0;
	while (p[n] && name_char(p[n])) {
		if (p[n] == '\\') {
			if (!p[n + 1])
				break;
			n++;
		}
		n++;
	}
	return n;
}

/* Length of the number at p: digits, a point, digits, an exponent. */
static size_t number_len(const char *p)
{
	size_t n = 0;
	while (isdigit((unsigned char)p[n]))
		n++;
	if (p[n] == '.')
		for (n++; isdigit((unsigned char)p[n]); n++)
			;
	if (n == 0 || (n == 1 && p[0] == '.'))
		return 0;
	if (p[n] == 'e' || p[n] == 'E') {
		size_t k = n + 1;
		if (p[k] == '-' || p[k] == '+')
			k++;
		if (isdigit((unsigned char)p[k])) {
			while (isdigit((unsigned char)p[k]))
				k++;
			n = k;
		}
	}
	return n;
}

/* perf's reading of a name: '\' dropped before the character it escapes,
 * '@' read as '/'. */
static char *normalize(const char *p, size_t n)
{
	char *out = td_malloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\\' && i + 1 < n)
			out[k++] = p[++i];
		else
			out[k++] = p[i] == '@' ? '/' : p[i];
	}
	out[k] = '\0';
	return out;
}

static void next(struct parser *ps)
{
	free(ps->name);
	ps->name = NULL;
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
	ps->tok_at = ps->p;
	char c = *ps->p;
	if (!c) {
		ps->tok = T_END;
		return;
	}
	size_t nl = name_len(ps->p), num = number_len(ps->p);
	if (num && num >= nl) {          /* the longer match wins, a number on a tie (as flex) */
		char buf[64];
		size_t k = num < sizeof buf ? num : sizeof buf - 1;
		memcpy(buf, ps->p, k);
		buf[k] = '\0';
		ps->num = strtod(buf, NULL);
		ps->p += num;
		ps->tok = T_NUM;
		return;
	}
	if (nl) {
		ps->name = normalize(ps->p, nl);
		ps->p += nl;
		ps->tok = ps->name[0] == '#' ? T_LIT : T_NAME;
		return;
	}
	if (c == '=' && ps->p[1] == '=') {
		memcpy(ps->op, "==", 3);
		ps->p += 2;
		ps->tok = T_OP;
		return;
	}
	if (strchr("+-*/%<>|&^(),!", c)) {
		ps->op[0] = c;
		ps->op[1] = '\0';
		ps->p++;
		ps->tok = T_OP;
		return;
	}
	ps->tok = T_BAD;
}

static bool is_op(const struct parser *ps, const char *op) { return ps->tok == T_OP && !strcmp(ps->op, op); }
static bool is_word(const struct parser *ps, const char *w) { return ps->tok == T_NAME && !strcmp(ps->name, w); }

static void expect(struct parser *ps, const char *op)
{
	if (!is_op(ps, op))
		fail(ps, "'%s' expected", op);
	else
		next(ps);
}

static int add_node(struct parser *ps, struct node n)
{
	struct perf_expr *e = ps->e;
	if (e->nn == MAX_NODES) {
		fail(ps, "more than %d terms", MAX_NODES);
		return 0;
	}
	if (e->nn == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 16;
		e->n = td_realloc(e->n, (size_t)e->cap * sizeof(*e->n));
	}
	e->n[e->nn] = n;
	return e->nn++;
}

static int add_id(struct parser *ps, const char *name, enum perf_expr_id_kind kind)
{
	struct perf_expr *e = ps->e;
	for (int i = 0; i < e->nids; i++)
		if (e->ids[i].kind == kind && !strcmp(e->ids[i].name, name))
			return add_node(ps, (struct node){ .op = OP_ID, .id = i });
	if (e->nids == e->idcap) {
		e->idcap = e->idcap ? 2 * e->idcap : 8;
		e->ids = td_realloc(e->ids, (size_t)e->idcap * sizeof(*e->ids));
	}
	e->ids[e->nids] = (struct id){ dup_s(name), kind };
	return add_node(ps, (struct node){ .op = OP_ID, .id = e->nids++ });
}

static int if_expr(struct parser *ps);
static int binary(struct parser *ps, int level);

/* f '(' a ',' b ')' */
static int two_args(struct parser *ps, enum op op)
{
	next(ps);
	expect(ps, "(");
	int a = if_expr(ps);
	expect(ps, ",");
	int b = if_expr(ps);
	expect(ps, ")");
	return add_node(ps, (struct node){ .op = op, .a = a, .b = b });
}

/* f '(' NAME ')' */
static int name_arg(struct parser *ps, enum perf_expr_id_kind kind)
{
	next(ps);
	expect(ps, "(");
	if (ps->tok != T_NAME) {
		fail(ps, "a name expected");
		return 0;
	}
	int id = add_id(ps, ps->name, kind);
	next(ps);
	expect(ps, ")");
	return id;
}

static int primary(struct parser *ps)
{
	if (ps->failed)
		return 0;
	if (++ps->depth > MAX_DEPTH) {
		fail(ps, "nested too deep");
		return 0;
	}
	int r = 0;
	if (ps->tok == T_NUM) {
		r = add_node(ps, (struct node){ .op = OP_NUM, .num = ps->num });
		next(ps);
	} else if (is_op(ps, "-") || is_op(ps, "!")) {
		enum op op = is_op(ps, "-") ? OP_NEG : OP_NOT;
		next(ps);
		int a = primary(ps);
		r = add_node(ps, (struct node){ .op = op, .a = a });
	} else if (is_op(ps, "(")) {
		next(ps);
		r = if_expr(ps);
		expect(ps, ")");
	} else if (is_word(ps, "min")) {
		r = two_args(ps, OP_MIN);
	} else if (is_word(ps, "max")) {
		r = two_args(ps, OP_MAX);
	} else if (is_word(ps, "d_ratio")) {
		r = two_args(ps, OP_DRATIO);
	} else if (is_word(ps, "source_count")) {
		r = name_arg(ps, PERF_EXPR_SOURCE_COUNT);
	} else if (is_word(ps, "has_event")) {
		r = name_arg(ps, PERF_EXPR_HAS_EVENT);
	} else if (is_word(ps, "strcmp_cpuid_str")) {
		r = name_arg(ps, PERF_EXPR_CPUID_STR);
	} else if (is_word(ps, "if") || is_word(ps, "else")) {
		fail(ps, "'%s' where a value was expected", ps->name);
	} else if (ps->tok == T_NAME || ps->tok == T_LIT) {
		r = add_id(ps, ps->name, ps->tok == T_LIT ? PERF_EXPR_LITERAL : PERF_EXPR_NAME);
		next(ps);
	} else if (ps->tok == T_END) {
		fail(ps, "the expression ends where a value was expected");
	} else if (ps->tok == T_BAD) {
		fail(ps, "'%c' is not part of the language", *ps->tok_at);
	} else {
		fail(ps, "'%s' where a value was expected", ps->op);
	}
	ps->depth--;
	return r;
}

/* Binary operators by level, loosest first; all associate to the left. */
static const struct {
	const char *op;
	int level;
	enum op code;
} binops[] = {
	{ "|", 0, OP_OR }, { "^", 1, OP_XOR }, { "&", 2, OP_AND }, { "<", 3, OP_LT }, { ">", 3, OP_GT },
	{ "==", 3, OP_EQ }, { "+", 4, OP_ADD }, { "-", 4, OP_SUB }, { "*", 5, OP_MUL }, { "/", 5, OP_DIV },
	{ "%", 5, OP_MOD },
};
#define TOP_LEVEL 5

static int binary(struct parser *ps, int level)
{
	if (level > TOP_LEVEL)
		return primary(ps);
	if (++ps->depth > MAX_DEPTH) {
		fail(ps, "nested too deep");
		return 0;
	}
	int a = binary(ps, level + 1);
	for (;;) {
		int k = -1;
		for (size_t i = 0; ps->tok == T_OP && i < sizeof binops / sizeof *binops; i++)
			if (binops[i].level == level && !strcmp(binops[i].op, ps->op))
				k = (int)i;
		if (k < 0 || ps->failed)
			break;
		next(ps);
		int b = binary(ps, level + 1);
		a = add_node(ps, (struct node){ .op = binops[k].code, .a = a, .b = b });
	}
	ps->depth--;
	return a;
}

static int if_expr(struct parser *ps)
{
	if (++ps->depth > MAX_DEPTH) {
		fail(ps, "nested too deep");
		return 0;
	}
	int a = binary(ps, 0);
	if (is_word(ps, "if")) {
		next(ps);
		int cond = binary(ps, 0);
		if (!is_word(ps, "else"))
			fail(ps, "'else' expected");
		else
			next(ps);
		int b = if_expr(ps);
		a = add_node(ps, (struct node){ .op = OP_IF, .a = a, .b = cond, .c = b });
	}
	ps->depth--;
	return a;
}

struct perf_expr *perf_expr_compile(const char *text, char *err, size_t cap)
{
	struct perf_expr *e = td_calloc(1, sizeof(*e));
	struct parser ps = { .s = text, .p = text, .e = e, .err = err, .errcap = cap };
	if (cap)
		err[0] = '\0';
	next(&ps);
	e->root = if_expr(&ps);
	if (!ps.failed && ps.tok != T_END)
		fail(&ps, ps.tok == T_OP ? "'%s' after the end of the expression" : "unexpected text after the expression",
		     ps.op);
	free(ps.name);
	if (ps.failed) {
		perf_expr_free(e);
		return NULL;
	}
	return e;
}

void perf_expr_free(struct perf_expr *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nids; i++)
		free(e->ids[i].name);
	free(e->ids);
	free(e->n);
	free(e);
}

int perf_expr_nids(const struct perf_expr *e) { return e->nids; }
const char *perf_expr_id(const struct perf_expr *e, int id) { return e->ids[id].name; }
enum perf_expr_id_kind perf_expr_id_kind(const struct perf_expr *e, int id) { return e->ids[id].kind; }

/* ---- evaluation ------------------------------------------------------- */

static struct perf_expr_value val(double v, bool konst) { return (struct perf_expr_value){ v, -1, konst, false }; }

/* a op b's provenance: missing if either is, constant if both are. */
static struct perf_expr_value join(struct perf_expr_value a, struct perf_expr_value b, double v)
{
	struct perf_expr_value r = val(v, a.konst && b.konst);
	r.need = a.need >= 0 ? a.need : b.need;
	r.divzero = a.divzero || b.divzero;
	return r;
}

static bool truth(double v) { return v != 0; }        /* NaN is true, as perf's fpclassify test */

static struct perf_expr_value eval(const struct perf_expr *e, int i, const struct perf_expr_value *in)
{
	const struct node *n = &e->n[i];
	struct perf_expr_value a, b, c;
	switch (n->op) {
	case OP_NUM:
		return val(n->num, true);
	case OP_ID:
		return in[n->id];
	case OP_NEG:
		a = eval(e, n->a, in);
		a.v = -a.v;
		return a;
	case OP_NOT:
		a = eval(e, n->a, in);
		a.v = !truth(a.v);
		return a;
	case OP_IF:
		c = eval(e, n->b, in);
		a = eval(e, n->a, in);
		b = eval(e, n->c, in);
		if (c.need < 0 && c.konst)        /* perf counts only the branch taken */
			return truth(c.v) ? a : b;
		{
			struct perf_expr_value r = truth(c.v) ? a : b;
			struct perf_expr_value all = join(join(c, a, 0), b, 0);
			r.need = all.need;
			r.konst = all.konst;
			return r;
		}
	default:
		break;
	}
	a = eval(e, n->a, in);
	b = eval(e, n->b, in);
	double x = a.v, y = b.v, v = 0;
	switch (n->op) {
	case OP_OR: v = truth(x) || truth(y); break;
	case OP_XOR: v = truth(x) != truth(y); break;
	case OP_AND: v = truth(x) && truth(y); break;
	case OP_LT: v = x < y; break;
	case OP_GT: v = x > y; break;
	case OP_EQ: v = x == y; break;
	case OP_ADD: v = x + y; break;
	case OP_SUB: v = x - y; break;
	case OP_MUL: v = x * y; break;
	case OP_DIV:
	case OP_MOD: {
		bool zero = n->op == OP_DIV ? y == 0 : (isfinite(y) && fabs(y) < 9.2e18 && (long long)y == 0);
		if (zero) {
			struct perf_expr_value r = join(a, b, NAN);
			r.divzero = r.need < 0;
			return r;
		}
		if (n->op == OP_DIV)
			v = x / y;
		else if (isfinite(x) && isfinite(y) && fabs(x) < 9.2e18 && fabs(y) < 9.2e18)
			v = (double)((long long)x % (long long)y);
		else
			v = NAN;
		break;
	}
	case OP_MIN: v = x < y ? x : y; break;
	case OP_MAX: v = x > y ? x : y; break;
	case OP_DRATIO: v = y == 0 ? 0 : x / y; break;
	default: v = NAN; break;
	}
	struct perf_expr_value r = join(a, b, v);
	if (r.need >= 0)
		r.v = NAN;
	return r;
}

struct perf_expr_value perf_expr_eval(const struct perf_expr *e, const struct perf_expr_value *in)
{
	struct perf_expr_value r = eval(e, e->root, in);
	if (r.need >= 0 || r.divzero)
		r.v = NAN;
	return r;
}
