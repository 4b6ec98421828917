/* td_demangle's C++ path against libiberty's cplus_demangle, which perf
 * calls: every .dynsym and .symtab name of the C++ libraries found here
 * (libstdc++ and whatever else is installed), and names shaped like Rust's
 * legacy and v0 ones, C++ names that end like a Rust hash, and special
 * names. The same bytes or both NULL; OCaml names are td_demangle's own. TAP. */
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libiberty/demangle.h>
#include "common/demangle.h"
#include "tap.h"

static size_t checked, differ;

static void check(const char *name)
{
	char *want = cplus_demangle(name, DMGL_NO_OPTS);
	char *got = td_demangle(name);
	bool ocaml = !want && strncmp(name, "caml", 4) == 0;
	if (!ocaml && (!want != !got || (want && strcmp(want, got) != 0))) {
		if (differ++ < 5)
			printf("# %s: td_demangle %s, cplus_demangle %s\n", name, got ? got : "NULL", want ? want : "NULL");
	}
	checked++;
	free(want);
	free(got);
}

/* Every symbol name of path's symbol tables; false when it is not there. */
static bool check_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			if (gelf_getsym(data, (int)i, &sym) && (name = elf_strptr(elf, sh.sh_link, sym.st_name)) && *name)
				check(name);
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return true;
}

int main(void)
{
	static const char *const names[] = {
		"_ZN4core3fmt5write17h0123456789abcdefE",                 /* Rust legacy */
		"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17hc5e8a6d1bd0aa3e9E",
		"_ZN4core3ptr13drop_in_place17h0123456789abcdeE",          /* hash one digit short */
		"_ZN4core3ptr13drop_in_place17h0123456789abcdefgE",
		"_ZN3foo17h0123456789abcdefE.llvm.123",
		"_RNvCs15kBYyAo9fc_7mycrate4main",                         /* Rust v0 */
		"_RNvNtCs1234_7mycrate3foo3bar",
		"_ZN2ns3BoxIlE3getEv", "_ZN2ns3BoxIlEC2Ev", "_ZN2ns3BoxIlEC1Ev", "_ZNKSt6vectorIiSaIiEE4sizeEv",
		"_ZN3abc17h0123456789abcdefEi", "_ZN1a17habcdefabcdefabcdE", "_ZN1a2b17h0123456789ABCDEFE",
		"_Z3fooi", "_Z1fv.cold", "_ZZ4mainE1x", "_ZTV3Foo", "_ZThn8_N3Foo3barEv", "_ZGVZ4mainE1x",
		"_GLOBAL__sub_I_main.cpp", "_Z", "_ZN", "_ZNE", "_R", "_", "", "main", "camlFoo__bar_12", "__Z3fooi",
		"ZN3foo3barE", "_ZN9__gnu_cxx13new_allocatorIcED2Ev@@GLIBCXX_3.4",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		check(names[i]);
	size_t fixed = checked;
	ok(differ == 0, "names shaped like Rust's, C++ and special ones: as cplus_demangle gives them");
	static const char *const libs[] = {
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/aarch64-linux-gnu/libstdc++.so.6",
		"/usr/lib64/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
		"/usr/lib/x86_64-linux-gnu/libicuuc.so.72", "/usr/lib/x86_64-linux-gnu/libdw.so.1",
	};
	elf_version(EV_CURRENT);
	int files = 0;
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++)
		files += check_file(libs[i]);
	printf("# %zu names from %d libraries\n", checked - fixed, files);
	ok(differ == 0 && (files == 0 || checked > fixed), "every symbol name of the C++ libraries here: as cplus_demangle");
	return tap_done();
}
