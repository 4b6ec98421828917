/* The ELF symbol reader against perf's own symbols: perf script of a
 * recording made here prints each user frame as "vaddr sym+0xoff (dso)".
 * For every file on this machine with the recording's build id (from perf
 * buildid-list, kept beside the capture), every frame we resolve must
 * resolve as perf did; frames we cannot resolve (perf used debug symbols
 * this machine lacks) are counted, not failed. TAP; skips otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/input.h"
#include "parsers/elf_symbols.h"

#define MAX_DSOS 16

int main(int argc, char **argv)
{
	char fallback[4096];
	const char *root = getenv("TD_ROOT");
	snprintf(fallback, sizeof fallback, "%s/testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.script.txt.gz",
		 root ? root : ".");
	struct td_input *in = td_input_open(argc > 1 ? argv[1] : fallback);
	if (!in)
		return 1;
	const char *dso_path[MAX_DSOS] = { NULL };
	struct elf_symbols *dso[MAX_DSOS];
	unsigned long checked[MAX_DSOS] = { 0 }, agree[MAX_DSOS] = { 0 };
	int ndso = 0, n = 0, failed = 0;
	unsigned long resolved[MAX_DSOS] = { 0 };
	char ids[4096] = "";
	snprintf(fallback, sizeof fallback, "%s/testdata/fold/local-kvm_cpu-clock-g_gzip-perl_perf6.1.buildids.txt",
		 root ? root : ".");
	FILE *idf = fopen(argc > 2 ? argv[2] : fallback, "r");
	if (idf) {
		size_t got = fread(ids, 1, sizeof ids - 1, idf);
		ids[got] = '\0';
		fclose(idf);
	}
	const char *line;
	size_t len;
	while (td_input_next(in, &line, &len)) {
		char buf[4096], sym[1024], path[1024], ours[1100];
		unsigned long long vaddr;
		if (len >= sizeof buf || line[0] != '\t')
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		if (sscanf(buf, " %llx %1023s (%1023[^)])", &vaddr, sym, path) != 3 || path[0] != '/' || !strchr(sym, '+'))
			continue;
		int k = 0;
		while (k < ndso && strcmp(dso_path[k], path))
			k++;
		if (k == ndso) {
			if (ndso == MAX_DSOS)
				continue;
			dso_path[k] = strdup(path);
			dso[k] = elf_symbols_open(path);
			ndso++;
		}
		if (!dso[k])
			continue;
		checked[k]++;
		if (elf_symbols_lookup(dso[k], vaddr, ours, sizeof ours)) {
			resolved[k]++;
			agree[k] += !strcmp(ours, sym);
		}
	}
	td_input_close(in);
	for (int k = 0; k < ndso; k++) {
		if (!dso[k]) {
			printf("ok %d # skip %s: not on this machine\n", ++n, dso_path[k]);
			continue;
		}
		const char *id = elf_symbols_build_id(dso[k]);
		if (!id[0] || !strstr(ids, id)) {
			printf("ok %d # skip %s: build id %s is not the recording's\n", ++n, dso_path[k], id[0] ? id : "none");
			elf_symbols_close(dso[k]);
			continue;
		}
		bool ok = agree[k] == resolved[k] && resolved[k] > 0;
		failed += !ok;
		printf("%sok %d - %s: %lu of %lu resolved frames as perf printed them (%lu of %lu resolvable here)\n",
		       ok ? "" : "not ", ++n, dso_path[k], agree[k], resolved[k], resolved[k], checked[k]);
		elf_symbols_close(dso[k]);
	}
	printf("1..%d\n", n);
	for (int k = 0; k < ndso; k++)
		free((char *)dso_path[k]);
	return failed != 0;
}
