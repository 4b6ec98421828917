/* td-fold: perf script callchains in, folded stacks out (flamegraph.pl input). */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/fold_threads.h"
#include "analysis/script_replay.h"
#include "common/diag.h"
#include "common/input.h"
#include "common/opts.h"

static struct fold_options fopts;
static const char *skip_after[64];
static bool opt_all, opt_inline, opt_context, opt_srcline;
static long opt_threads, opt_max_stack;
static struct replay_options replay;

static int add_skip_after(const char *arg, void *data)
{
	(void)data;
	if (fopts.nskip_after == (int)(sizeof skip_after / sizeof *skip_after) || !*arg)
		return -1;
	skip_after[fopts.nskip_after++] = arg;
	return 0;
}

static const struct td_option options[] = {
	{ 0, "pid", TD_OPT_FLAG, &fopts.pid, NULL, "root frame is comm-PID", NULL },
	{ 0, "tid", TD_OPT_FLAG, &fopts.tid, NULL, "root frame is comm-PID/TID", NULL },
	{ 0, "kernel", TD_OPT_FLAG, &fopts.kernel, NULL, "annotate kernel frames with _[k]", NULL },
	{ 0, "jit", TD_OPT_FLAG, &fopts.jit, NULL, "annotate /tmp/perf-PID.map frames with _[j]", NULL },
	{ 0, "all", TD_OPT_FLAG, &opt_all, NULL, "--kernel and --jit", NULL },
	{ 0, "addrs", TD_OPT_FLAG, &fopts.addrs, NULL, "keep the address of [unknown] frames", NULL },
	{ 0, "event-filter", TD_OPT_STRING, &fopts.event_filter, "EVENT", "keep samples of EVENT (default: the first event seen)", NULL },
	{ 0, "skip-after", TD_OPT_CALLBACK, NULL, "FUNC", "drop the callers of FUNC (repeatable)", add_skip_after },
	{ 0, "exact-comm", TD_OPT_FLAG, &fopts.exact_comm, NULL, "read comm from the right: keeps spaces in thread names", NULL },
	{ 0, "perl-compat", TD_OPT_FLAG, &fopts.perl_compat, NULL, "the bytes stackcollapse-perf.pl prints, its parsing bugs included (see td-fold(1))", NULL },
	{ 0, "symfs", TD_OPT_STRING, &replay.machine.symfs, "DIR", "perf.data input: look for binaries under DIR", NULL },
	{ 0, "kallsyms", TD_OPT_STRING, &replay.machine.kallsyms, "FILE", "perf.data input: kernel symbols from FILE", NULL },
	{ 0, "max-stack", TD_OPT_INT, &opt_max_stack, "N", "perf.data input: callchain entries kept (default 127, as perf script)", NULL },
	{ 'j', "threads", TD_OPT_INT, &opt_threads, "N", "worker threads (default: the number of CPUs); output is the same for any N", NULL },
	{ 0, "inline", TD_OPT_FLAG, &opt_inline, NULL, "(not supported: needs addr2line on the recording host)", NULL },
	{ 0, "context", TD_OPT_FLAG, &opt_context, NULL, "(not supported: needs addr2line on the recording host)", NULL },
	{ 0, "srcline", TD_OPT_FLAG, &opt_srcline, NULL, "(not supported yet)", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-fold", "[options] [FILE...]",
	"Fold perf script callchains into stacks for flamegraph.pl, byte-identical to stackcollapse-perf.pl.",
	options,
	NULL,
};

static void fold_script_line(void *ctx, const char *line, size_t len)
{
	struct fold *f = ctx;
	fold_line(f, line, len, NULL, 0);
}

/* Samples of one thread repeat their comm, tid and event: the header's
 * text is made and parsed once for them. */
static void fold_header(void *ctx, const struct replay_header *h)
{
	struct fold *f = ctx;
	if (h->has_tid && fold_cached_header(f, h->comm, h->tid, h->event, h->period))
		return;
	char short_text[1024];
	size_t room = replay_header_room(h);
	char *text = room <= sizeof short_text ? short_text : td_malloc(room);
	size_t n = replay_header_text(h, text, room <= sizeof short_text ? sizeof short_text : room);
	fold_line(f, text, n, NULL, 0);
	if (h->has_tid)
		fold_cache_header(f, h->comm, h->tid, h->event, text, n);
	if (text != short_text)
		free(text);
}

static void fold_frame(void *ctx, const struct machine_frame *fr)
{
	struct fold *f = ctx;
	fold_resolved_frame(f, fr->sym, fr->sym_off, fr->dso, fr->addr, fr->sym_id);
}

/* perf.data: replayed as the text perf script would print, folded alike
 * (callchain frames skip the text: they fold to the names it would give).
 * A plain file is read in place; stdin and compressed files are spooled. */
static void fold_perf_data(struct fold *f, const char *path, struct td_input *in, int nthreads)
{
	struct perf_data *d = strcmp(path, "-") ? perf_data_open(path) : perf_data_open_input(in);
	if (!d)
		return;
#ifdef M_MMAP_THRESHOLD
	/* Symbol tables are built in large arrays freed at once: mapped, they
	 * go back to the system when freed. glibc's default threshold rises
	 * to the largest block freed, and the next tables' arrays then come
	 * from the heap, whose freed room is seldom returned. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	replay.max_stack = opt_max_stack > 0 ? (unsigned)opt_max_stack : 0;
	if (!replay.machine.buildid_dir)
		replay.machine.buildid_dir = getenv("PERF_BUILDID_DIR");
	struct replay_sink fold_sink = { fold_script_line, fold_header, fold_frame, NULL, f };
	replay.threaded = nthreads > 1;       /* reading and folding here, resolving on a second thread */
	replay.unwind_threads = nthreads;     /* --call-graph dwarf stacks: unwound on nthreads more */
	script_replay(d, &replay, &fold_sink);
	fold_end_input(f, td_input_display_name(path), 0);
	perf_data_close(d);
}

static void fold_file(struct fold *f, const char *path, int nthreads)
{
	struct td_input *in = td_input_open(path);
	if (!in)
		return;
	if (td_input_is_perf_data(in)) {
		fold_perf_data(f, path, in, nthreads);
		td_input_close(in);
		return;
	}
	fold_input(f, in, &fopts, nthreads);
	td_input_close(in);
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	if (opt_inline || opt_context || opt_srcline)
		td_usage_error(&cmd, "--inline, --context and --srcline need addr2line on the recording host's "
			       "binaries and are not implemented; fold without them");
	if (opt_all)
		fopts.kernel = fopts.jit = true;
	fopts.skip_after = skip_after;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads = (int)(opt_threads > 0 ? opt_threads : cpus > 0 ? cpus : 1);
	if (nthreads > 64)
		nthreads = 64;
	fopts.threads = nthreads;
	struct fold *f = fold_new(&fopts);
	if (n == 0)
		fold_file(f, "-", nthreads);
	for (int i = 0; i < n; i++)
		fold_file(f, argv[i], nthreads);
	fold_write(f, stdout);
	fold_report(f);
	fold_free(f);
	return td_exit_code(TD_EXIT_OK);
}
