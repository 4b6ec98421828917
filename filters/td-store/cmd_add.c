/* td-store add: each file's runs, as the derive engine sees them, kept with
 * the user's labels and the capture's own. Files are committed in batches
 * (group commit: one transaction, so one wait for the disk, per batch of
 * files rather than per file); a file is derived, and so checked, before
 * any of its rows is sent, so a bad file is rejected alone. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>
#include <zstd.h>
#include "analysis/derive.h"
#include "common/diag.h"
#include "common/grow.h"
#include "common/opts.h"
#include "filters/td-store/verbs.h"

#define MAX_LABELS 64
#define MAX_STARTS 64
#define AUTO_LABELS 6
/* A batch ends at whichever comes first: so many files, so many ms since
 * it began (what a killed add can lose), or so many bytes of captures
 * (kept until the commit, in case the batch must be added again). */
#define BATCH_FILES 256
#define BATCH_MS 100
#define BATCH_BYTES (16 << 20)

static struct store_label user_labels[MAX_LABELS];
static int nuser_labels;
static const char *opt_time, *opt_format;
static bool opt_relabel, opt_async_commit;

static int add_label(const char *arg, void *data)
{
	(void)data;
	const char *eq = strchr(arg, '=');
	const char *why = eq ? store_label_invalid(arg, (size_t)(eq - arg), eq + 1, strlen(eq + 1))
			     : "a label is key=value";
	if (why) {
		td_error("--label '%s': %s", arg, why);
		return -1;
	}
	if (nuser_labels == MAX_LABELS) {
		td_error("--label: at most %d labels", MAX_LABELS);
		return -1;
	}
	for (int i = 0; i < nuser_labels; i++)
		if (strlen(user_labels[i].key) == (size_t)(eq - arg) && !strncmp(user_labels[i].key, arg, (size_t)(eq - arg))) {
			user_labels[i].value = eq + 1;   /* the last one given wins */
			return 0;
		}
	user_labels[nuser_labels++] = (struct store_label){ td_strndup(arg, (size_t)(eq - arg)), eq + 1 };
	return 0;
}

static const struct td_option options[] = {
	{ 0, "label", TD_OPT_CALLBACK, NULL, "K=V", "label every run of the files (repeatable; the value is taken whole)", add_label },
	{ 0, "time", TD_OPT_STRING, &opt_time, "ISO8601", "the runs' time (default: perf's '# started on', else now)", NULL },
	{ 0, "relabel", TD_OPT_FLAG, &opt_relabel, NULL, "a run already stored takes the new value of a label it has", NULL },
	{ 0, "format", TD_OPT_STRING, &opt_format, "csv|json|text", "input layout (default: detected)", NULL },
	{ 0, "async-commit", TD_OPT_FLAG, &opt_async_commit, NULL, "PostgreSQL: do not wait for each file's commit to reach the disk (a server crash may lose the last files added, never half of one)", NULL },
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store add", "[options] FILE...",
	"Keep perf stat captures (any layout td-derive reads) as runs; prints each run's id.",
	options,
	"Reads perf stat output in any layout td-derive reads: FILEs, - for stdin, .gz/.zst by content.",
};

struct capture_file {
	char *bytes;
	size_t len;
	const char *name;          /* as given, "<stdin>" for - */
	char starts[MAX_STARTS][32];   /* "# started on" times, in order */
	int nstarts;
	struct store_label header[MAX_LABELS];   /* its td-collect header's labels */
	int nheader;
};

static int read_all(FILE *f, struct capture_file *cf)
{
	size_t cap = 1 << 16;
	cf->bytes = td_malloc(cap);
	cf->len = 0;
	for (;;) {
		if (cf->len == cap)
			cf->bytes = td_realloc(cf->bytes, cap *= 2);
		size_t got = fread(cf->bytes + cf->len, 1, cap - cf->len, f);
		cf->len += got;
		if (got == 0)
			break;
	}
	return ferror(f) ? -1 : 0;
}

/* perf's "# started on Wed Nov 25 15:08:12 2026" lines, one per run. */
static void find_starts(struct capture_file *cf)
{
	static const char mark[] = "# started on ";
	const char *p = cf->bytes, *end = cf->bytes + cf->len;
	while (p < end && cf->nstarts < MAX_STARTS) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		size_t n = (size_t)(line_end - p);
		if (n > sizeof mark - 1 && !memcmp(p, mark, sizeof mark - 1)) {
			char when[64];
			snprintf(when, sizeof when, "%.*s", (int)(n - (sizeof mark - 1)), p + sizeof mark - 1);
			if (store_time_from_perf(when, cf->starts[cf->nstarts], sizeof cf->starts[0]))
				cf->nstarts++;
		}
		p = line_end + 1;
	}
}

/* A run kept: its id and whether it was stored already, told once the
 * batch's transaction commits (an id is final only then). */
struct kept {
	char id[STORE_ID_LEN];
	int index;
	bool existed;
};

/* A file being added: derived (again, if its batch must be) from its
 * bytes, kept until its batch commits. */
struct add_ctx {
	struct td_store *store;
	struct capture_file cf[1];
	struct store_capture capture[1];
	char now[32];
	int runs, failed;          /* failed: store_add_*'s -1 or STORE_RETRY */
	bool begun;                /* its capture sent: at the first run, once the layout is known */
	struct kept *kept;
	size_t cap;
};

static enum stat_format opt_fmt;

/* The open batch: its files that hold runs, in order. */
static struct add_ctx *batch[BATCH_FILES];
static int nbatch;
static size_t batch_bytes;
static struct timespec batch_start;

static const char *vendor_of(const char *model)
{
	return !strncmp(model, "intel", 5) ? "intel" : !strncmp(model, "amd", 3) ? "amd" : !strncmp(model, "arm", 3) ? "arm" : "";
}

static void keep_run(void *ctx, const struct derive_run *d)
{
	struct add_ctx *a = ctx;
	if (a->failed)
		return;
	if (!a->begun) {
		a->capture->layout = d->layout;
		if ((a->failed = store_add_begin(a->store, a->capture)) < 0)
			return;
		a->begun = true;
	}
	struct store_run r = { 0 };
	const char *t = opt_time ? opt_time : d->index < a->cf->nstarts ? a->cf->starts[d->index] : a->now;
	snprintf(r.time, sizeof r.time, "%s", t);
	r.run_index = d->index;
	r.source = a->cf->name;
	r.duration_s = d->elapsed_s;
	r.command = d->command[0] ? d->command : NULL;
	r.cpu = d->model[0] ? d->model : NULL;
	r.summary = d->summary;
	r.host = capture_header_label(a->cf->header, a->cf->nheader, "host");
	r.perf_version = capture_header_label(a->cf->header, a->cf->nheader, "perf_version");

	/* the user's labels, then the capture's own where the user set none:
	 * its td-collect header's, then what the engine derived */
	struct store_label labels[2 * MAX_LABELS + AUTO_LABELS];
	int n = 0;
	for (int i = 0; i < nuser_labels; i++)
		labels[n++] = user_labels[i];
	for (int i = 0; i < a->cf->nheader; i++) {
		bool set = false;
		for (int j = 0; j < n; j++)
			set |= !strcmp(labels[j].key, a->cf->header[i].key);
		if (!set)
			labels[n++] = a->cf->header[i];
	}
	char level[16];
	snprintf(level, sizeof level, "%d", d->deepest_level);
	const struct store_label automatic[AUTO_LABELS] = {
		{ "command", d->command }, { "vendor", vendor_of(d->model) }, { "model", d->model },
		{ "tma_level", d->deepest_level ? level : "" }, { "events", d->events }, { "layout", d->layout },
	};
	for (int i = 0; i < AUTO_LABELS; i++) {
		bool set = false;
		for (int j = 0; j < n; j++)
			set |= !strcmp(labels[j].key, automatic[i].key);
		if (!set && automatic[i].value[0] && strlen(automatic[i].value) <= STORE_LABEL_VALUE_MAX)
			labels[n++] = automatic[i];
	}
	r.labels = labels;
	r.nlabels = n;

	verb_rows_of(d, &r);
	if ((size_t)a->runs == a->cap) {
		size_t cap = td_alloc_nr(a->cap, (size_t)a->runs + 1, sizeof *a->kept);
		a->kept = td_realloc_array(a->kept, cap, sizeof *a->kept);
		TD_SET_CAP(a->cap, cap);
	}
	struct kept *k = &a->kept[a->runs];
	k->index = d->index;
	if ((a->failed = store_add_run(a->store, a->capture, &r, opt_relabel, k->id, &k->existed)) == 0)
		a->runs++;
	verb_rows_free(&r);
}

/* One compression context for every file: its tables are allocated once. */
static ZSTD_CCtx *zstd_ctx;

static void capture_of(const struct capture_file *cf, struct store_capture *c, const char *layout)
{
	XXH128_hash_t h = XXH3_128bits(cf->bytes, cf->len);
	snprintf(c->hash, sizeof c->hash, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
	c->layout = layout;
	c->size = cf->len;
	size_t bound = ZSTD_compressBound(cf->len);
	void *z = td_malloc(bound);
	size_t zn = ZSTD_compressCCtx(zstd_ctx, z, bound, cf->bytes, cf->len, 3);
	if (ZSTD_isError(zn))
		td_die("zstd: %s", ZSTD_getErrorName(zn));
	c->zstd = z;
	c->zstd_len = zn;
}

/* Derives a's file and sends its runs into the open batch: 0, or
 * STORE_RETRY (the batch was rolled back, to be sent again). */
static int derive_into_batch(struct add_ctx *a)
{
	a->runs = 0;
	a->begun = false;
	a->failed = 0;
	struct derive_options o = { opt_fmt, NULL, true };
	derive_memory(a->cf->bytes, a->cf->len, a->cf->name, &o, keep_run, a);
	if (!a->failed && a->runs)
		a->failed = store_add_end(a->store, true);
	if (a->failed == STORE_RETRY)
		return STORE_RETRY;
	if (a->failed)
		verb_store_failed(a->store);
	return 0;
}

static void free_file(struct add_ctx *a)
{
	free(a->cf->bytes);
	free((void *)a->capture->zstd);
	for (int i = 0; i < a->cf->nheader; i++)
		free((void *)a->cf->header[i].key), free((void *)a->cf->header[i].value);
	free(a->kept);
	free(a);
}

/* Its messages were printed when the file was first derived. */
static void discard_line(void *ctx, const struct td_diag_record *r)
{
	(void)ctx, (void)r;
}

/* Sends every file of the batch again, after a rollback for STORE_RETRY
 * (their runs are looked up this time). */
static void resend_batch(void)
{
	td_diag_capture(discard_line, NULL);
	for (int i = 0; i < nbatch; i++)
		if (derive_into_batch(batch[i]) == STORE_RETRY)
			i = -1;                     /* from the start, again */
	td_diag_capture(NULL, NULL);
}

/* Commits the open batch (sending its files again while the commit says
 * so), then prints each run's id. */
static void commit_batch(struct td_store *s)
{
	int rc;
	while ((rc = store_batch_commit(s)) == STORE_RETRY)
		resend_batch();
	if (rc < 0)
		verb_store_failed(s);
	for (int f = 0; f < nbatch; f++) {
		struct add_ctx *a = batch[f];
		for (int i = 0; i < a->runs; i++) {
			printf("%s\n", a->kept[i].id);
			if (a->kept[i].existed)
				td_warn(a->cf->name, 0, "run %d is stored already as %s%s", a->kept[i].index + 1,
					a->kept[i].id, nuser_labels ? " (labels added)" : "");
		}
		free_file(a);
	}
	nbatch = 0;
	batch_bytes = 0;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* One file: derive it, send its runs into the batch (committed when the
 * batch is full). 0 kept (or nothing new), -1 bad input. */
static int add_file(struct td_store *s, const char *arg)
{
	struct add_ctx *a = td_calloc(1, sizeof *a);
	struct capture_file *cf = a->cf;
	a->store = s;
	cf->name = strcmp(arg, "-") ? arg : "<stdin>";
	FILE *f = strcmp(arg, "-") ? fopen(arg, "rb") : stdin;
	if (!f) {
		td_error("%s: cannot open: %s", arg, strerror(errno));
		free(a);
		return -1;
	}
	int rc = read_all(f, cf);
	if (f != stdin)
		fclose(f);
	if (rc < 0) {
		td_error("%s: cannot read: %s", cf->name, strerror(errno));
		free(cf->bytes);
		free(a);
		return -1;
	}
	find_starts(cf);
	cf->nheader = capture_header_labels(cf->bytes, cf->len, cf->header, MAX_LABELS);
	capture_of(cf, a->capture, "");
	store_time_now(a->now, sizeof a->now);
	if (nbatch == 0) {
		store_batch_begin(s);
		clock_gettime(CLOCK_MONOTONIC, &batch_start);
	}
	batch[nbatch++] = a;
	if (derive_into_batch(a) == STORE_RETRY)
		resend_batch();
	if (a->runs == 0) {          /* nothing of it was sent */
		td_bad_input(cf->name, 0, "no perf stat counters found: nothing stored");
		free_file(a);
		nbatch--;
		rc = -1;
	} else {
		batch_bytes += cf->len + a->capture->zstd_len;
	}
	if (nbatch == BATCH_FILES || batch_bytes >= BATCH_BYTES || (nbatch && ms_since(&batch_start) >= BATCH_MS))
		commit_batch(s);
	return rc;
}

int cmd_add(int argc, char **argv)
{
	int n = verb_start(&cmd, argc, argv, VERB_OPERANDS);
	if (n == 0)
		td_usage_error(&cmd, "no file to add (use - for stdin)");
	enum stat_format fmt = STAT_AUTO;
	if (opt_format)
		fmt = !strcmp(opt_format, "csv") ? STAT_CSV : !strcmp(opt_format, "json") ? STAT_JSON
			: !strcmp(opt_format, "text") ? STAT_TEXT : (td_usage_error(&cmd, "--format: csv, json or text"), STAT_AUTO);
	if (opt_time) {
		char iso[32], err[256];
		if (store_filter_set_time(iso, sizeof iso, opt_time, err, sizeof err) < 0)
			td_usage_error(&cmd, "--time: %s", err);
		opt_time = td_strndup(iso, strlen(iso));
	}
	struct td_store *s = verb_open();
	/* each batch's commit waits for its WAL flush (a few ms on a VM's disk)
	 * unless told: this session's commits then return before the flush;
	 * a server crash loses the last of them whole (a transaction is never
	 * half there). SQLite in WAL mode does not sync each commit anyway. */
	if (opt_async_commit && s->b->dialect == STORE_POSTGRES &&
	    s->b->ops->exec(s->b, "SET synchronous_commit = off", NULL, 0, NULL, NULL) < 0)
		verb_store_failed(s);
	if (!(zstd_ctx = ZSTD_createCCtx()))
		td_die("zstd: out of memory");
	int bad = 0;
	opt_fmt = fmt;
	for (int i = 0; i < n; i++)
		bad |= add_file(s, argv[i]) < 0;
	commit_batch(s);
	ZSTD_freeCCtx(zstd_ctx);
	store_close(s);
	return td_exit_code(bad ? TD_EXIT_BAD : TD_EXIT_OK);
}
