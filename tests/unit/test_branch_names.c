/* brstacksym's names on recordings made here (no branch stacks: this VM
 * has no LBR, but every address goes through the same lookup): every
 * callchain entry is named by branches_symbol_name() both as a kernel and
 * as a user address, so each lookup either hits at once or takes perf's
 * fallback to the mode its address belongs to (thread__find_symbol_fb),
 * and both names must be the "sym+0xoff" perf script printed for the frame
 * in the rendering committed beside the recording: the system-wide one
 * with the committed kallsyms (user binaries unreadable: [unknown]), the
 * C++ demo with its binary under the committed symfs (kernel: none). No
 * perf needed. TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/branches_perf_data.h"
#include "analysis/ordered_records.h"
#include "common/input.h"
#include "tests/unit/tap.h"

struct check {
	struct machine *m;
	struct td_input *ref;
	unsigned long frames, same, named, user_fallbacks, kernel_fallbacks;
	char first_diff[512];
};

/* The next frame's name in perf's text: "\t    ADDR NAME (DSO)". */
static bool next_ref_name(struct check *c, char *name, size_t cap)
{
	const char *line;
	size_t len;
	while (td_input_next(c->ref, &line, &len)) {
		if (len == 0 || line[0] != '\t')
			continue;
		size_t i = 1;
		while (i < len && line[i] == ' ')
			i++;
		while (i < len && line[i] != ' ')
			i++;
		i++;
		size_t end = len, depth = 0;     /* the dso: the balanced (...) at the end */
		while (end > i) {
			char ch = line[--end];
			depth += ch == ')';
			if (ch == '(' && --depth == 0)
				break;
		}
		if (end <= i + 1 || line[end - 1] != ' ')
			return false;
		snprintf(name, cap, "%.*s", (int)(end - 1 - i), line + i);
		return true;
	}
	return false;
}

static void frame(struct check *c, int32_t pid, int context, uint64_t ip)
{
	char want[4096], as_kernel[4096], as_user[4096];
	if (!next_ref_name(c, want, sizeof want))
		return;
	c->frames++;
	branches_symbol_name(c->m, pid, PERF_RECORD_MISC_KERNEL, ip, as_kernel, sizeof as_kernel);
	branches_symbol_name(c->m, pid, PERF_RECORD_MISC_USER, ip, as_user, sizeof as_user);
	bool same = strcmp(as_kernel, want) == 0 && strcmp(as_user, want) == 0;
	c->same += same;
	c->named += strcmp(want, "[unknown]") != 0;
	c->user_fallbacks += context == PERF_RECORD_MISC_KERNEL;
	c->kernel_fallbacks += context == PERF_RECORD_MISC_USER;
	if (!same && !c->first_diff[0])
		snprintf(c->first_diff, sizeof c->first_diff, "frame %lu, %#llx: perf %.150s, as kernel %.150s, as user %.150s", c->frames,
			 (unsigned long long)ip, want, as_kernel, as_user);
}

static void play(void *ctx, const struct pd_record *rec)
{
	struct check *c = ctx;
	if (rec->type != PERF_RECORD_SAMPLE) {
		machine_apply(c->m, rec);
		return;
	}
	const struct pd_sample *s = &rec->u.sample;
	if (!rec->decoded || !(s->sample_type & PERF_SAMPLE_CALLCHAIN))
		return;
	int context = PERF_RECORD_MISC_USER;
	unsigned entries = 0;                     /* perf script's --max-stack: 127 entries */
	for (uint64_t i = 0; i < s->nr_callchain && entries < 127; i++) {
		uint64_t ip;
		memcpy(&ip, &s->callchain[i], sizeof ip);
		if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
			context = PERF_RECORD_MISC_KERNEL;
		else if (ip == (uint64_t)PERF_CONTEXT_USER)
			context = PERF_RECORD_MISC_USER;
		else if (!pd_is_context(ip) && ++entries)
			frame(c, (int32_t)s->pid, context, ip);
	}
}

/* One recording against its committed rendering; symfs and kallsyms as
 * that rendering was made (NULL: the file beside the recording). */
static void check_recording(const char *root, const char *name, const char *symfs, const char *kallsyms,
			    const char *ref_kind, unsigned long min_named)
{
	char data[4096], ksyms[4096], ref[4096], fs[4096];
	snprintf(data, sizeof data, "%s/testdata/perfdata/%s.perf.data", root, name);
	snprintf(ksyms, sizeof ksyms, "%s/testdata/perfdata/%s.kallsyms.zst", root, name);
	snprintf(fs, sizeof fs, "%s/testdata/perfdata/%s.symfs", root, name);
	snprintf(ref, sizeof ref, "%s/testdata/perfdata/%s.%s-script.txt.gz", root, name, ref_kind);
	struct perf_data *d = perf_data_open(data);
	struct check c = { .ref = td_input_open(ref) };
	char what[1024];
	snprintf(what, sizeof what, "%s: the recording and its perf script rendering open", name);
	ok(d && c.ref, what);
	if (!d || !c.ref)
		return;
	struct machine_options mo = { symfs ? symfs : fs, kallsyms ? kallsyms : ksyms, "/nonexistent" };
	c.m = machine_new(d, &mo);
	struct ordered_records *q = ordered_new(d, play, &c);
	const struct pd_record *rec;
	while (perf_data_next(d, &rec) > 0)
		ordered_add(q, rec);
	ordered_finish(q);
	ordered_free(q);
	char rest[512];
	bool left = next_ref_name(&c, rest, sizeof rest);
	snprintf(what, sizeof what, "%s: %lu of %lu frames named as perf named them, looked up as kernel and as user "
		 "addresses%s%s%s", name, c.same, c.frames, left ? "; perf printed more frames" : "",
		 c.first_diff[0] ? "; first difference " : "", c.first_diff);
	ok(c.frames > 1000 && c.same == c.frames && !left, what);
	snprintf(what, sizeof what, "%s: %lu frames with a symbol; %lu kernel frames found from user mode, %lu user "
		 "frames from kernel mode", name, c.named, c.user_fallbacks, c.kernel_fallbacks);
	ok(c.named >= min_named && c.kernel_fallbacks > 0, what);
	machine_free(c.m);
	td_input_close(c.ref);
	perf_data_close(d);
}

int main(void)
{
	const char *root = getenv("TD_ROOT") ? getenv("TD_ROOT") : ".";
	/* system-wide: kernel frames of every process, named from the kallsyms beside it */
	check_recording(root, "local-kvm_cpu-clock-g-a_find-gzip_perf6.1", "/nonexistent", NULL, "kallsyms", 40000);
	/* user frames: the C++ demo's binary under its symfs, demangled names */
	check_recording(root, "local-kvm_cpu-clock-g_cxx-demo_perf6.1", NULL, "/dev/null", "symfs", 1000);
	return tap_done();
}
