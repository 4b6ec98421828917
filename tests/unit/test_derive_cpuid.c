/* Two derive engines in one process, reading two captures whose td-collect
 * headers name different CPUs, each keep their own CPU id: the header is
 * read into the engine's stat model, not into the process. The V2 capture
 * (8 slots: backend_bound 3e9 / (8 * 1e9) = 37.5%) and the same counts
 * under an N2 header (5 slots: 60%), read in turn and finished in the
 * other order; the same N2 capture read by a third engine after a file
 * without a header gives no CPU id (detection: 5 slots). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/derive.h"
#include "analysis/tma.h"
#include "tests/unit/tap.h"

struct seen {
	const char *model;
	int width;
	double backend;
};

static void on_set(void *ctx, const struct derive_set *s)
{
	struct seen *w = ctx;
	if (s->interval >= 0 || !s->tree)
		return;
	w->model = s->tree->model->id;
	w->width = s->tree->width;
	w->backend = tma_value(s->tree, "backend_bound");
}

static struct derive_engine *engine(struct seen *w)
{
	*w = (struct seen){ NULL, 0, NAN };
	struct derive_config c = { .no_header_metrics = true, .one_thread = false };
	struct derive_callbacks cb = { .set = on_set, .ctx = w };
	return derive_new(&c, &cb);
}

/* A copy of from with its cpuid header line set to cpuid (NULL: without
 * the header lines), in dir. */
static void copy_with_cpuid(const char *from, const char *to, const char *cpuid)
{
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");
	if (!in || !out) {
		perror(from);
		exit(2);
	}
	char line[512];
	while (fgets(line, sizeof line, in)) {
		if (!strncmp(line, "# tdkit-collect:", 16) && !cpuid)
			continue;
		if (!strncmp(line, "# tdkit-collect: cpuid=", 23))
			fprintf(out, "# tdkit-collect: cpuid=%s\n", cpuid);
		else
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
}

int main(void)
{
	const char *root = getenv("TD_ROOT") ? getenv("TD_ROOT") : ".";
	char v2[1024], n2[64], bare[64];
	snprintf(v2, sizeof v2, "%s/testdata/collect/collect-synthetic-neoverse-v2-header.csv", root);
	char dir[] = "/tmp/td-cpuid.XXXXXX";
	if (!mkdtemp(dir))
		return 2;
	snprintf(n2, sizeof n2, "%s/n2.csv", dir);
	snprintf(bare, sizeof bare, "%s/bare.csv", dir);
	copy_with_cpuid(v2, n2, "0x00000000410fd490");
	copy_with_cpuid(v2, bare, NULL);

	struct seen a, b, c;
	struct derive_engine *ea = engine(&a), *eb = engine(&b);
	derive_read(ea, v2, STAT_AUTO);
	derive_read(eb, n2, STAT_AUTO);
	derive_finish(eb);
	derive_finish(ea);
	ok(a.model && !strcmp(a.model, "arm-v2") && a.width == 8 && fabs(a.backend - 0.375) < 1e-9,
	   "engine 1, V2 header: arm-v2, 8 slots, backend_bound 37.5%");
	ok(b.model && !strcmp(b.model, "arm-n2") && b.width == 5 && fabs(b.backend - 0.6) < 1e-9,
	   "engine 2, same process, N2 header: arm-n2, 5 slots, backend_bound 60%");
	derive_free(ea);
	derive_free(eb);

	struct derive_engine *ec = engine(&c);
	derive_read(ec, bare, STAT_AUTO);
	derive_read(ec, v2, STAT_AUTO);
	derive_finish(ec);
	ok(c.model && c.width == 5 && fabs(c.backend - 0.6) < 1e-9,
	   "engine 3: a file without a header beside the V2 one: no CPU id, 5 slots assumed");
	derive_free(ec);
	unlink(n2);
	unlink(bare);
	rmdir(dir);
	return tap_done();
}
