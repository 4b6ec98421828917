/* kallsyms' 16-byte symbols: ends more than 4 GiB past their start (kept
 * aside) and ordinary ones give the same answers, in the kernel proper and
 * in a module, before and after a relocation. The table is synthetic,
 * written to a temporary file. TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "parsers/kallsyms.h"
#include "tap.h"

static const char table[] =
	"0000000000001000 D fixed_percpu_data\n"     /* reaches to _text: far past 4 GiB */
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t small_one\n"
	"ffffffff81000180 W weak_one\n"
	"ffffffff81002000 B last_bss\n"
	"ffffffffc0000000 t mod_fn\t[mod_a]\n"
	"ffffffffc0000040 t mod_fn2\t[mod_a]\n";

static int is(const char *got, const char *want) { return got && strcmp(got, want) == 0; }

int main(void)
{
	char path[] = "/tmp/td-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, table, sizeof table - 1) != (ssize_t)(sizeof table - 1))
		return 1;
	close(fd);
	struct kallsyms *k = kallsyms_load(path);
	unlink(path);
	ok(k != NULL, "the table loads");
	if (!k)
		return tap_done();
	uint64_t start = 0;
	ok(is(kallsyms_find(k, NULL, 0x1000 + 0x123456789ULL, &start), "fixed_percpu_data") && start == 0x1000,
	   "an address 4 GiB past a symbol whose end is farther still finds it");
	ok(is(kallsyms_find(k, NULL, 0xffffffff80ffffffULL, &start), "fixed_percpu_data"),
	   "the wide symbol reaches up to the next one");
	ok(is(kallsyms_find(k, NULL, 0xffffffff81000000ULL, &start), "_stext"), "of two at one address the later line wins");
	ok(is(kallsyms_find(k, NULL, 0xffffffff8100017fULL, &start), "small_one") && start == 0xffffffff81000100ULL,
	   "an ordinary symbol ends where the next begins");
	ok(is(kallsyms_find(k, NULL, 0xffffffff81002fffULL, &start), "last_bss") &&
		   !kallsyms_find(k, NULL, 0xffffffff81003000ULL, &start),
	   "the kernel's last symbol ends at the end of the page after its own");
	ok(kallsyms_kernel_end(k) == 0xffffffff81003000ULL, "kernel_end is that end");
	ok(is(kallsyms_find(k, "mod_a", 0xffffffffc0000041ULL, &start), "mod_fn2") &&
		   !kallsyms_find(k, NULL, 0xffffffffc0000041ULL, &start),
	   "module symbols are found in their module only");
	kallsyms_relocate(k, 0x1000);
	ok(is(kallsyms_find(k, NULL, 0x123456789ULL, &start), "fixed_percpu_data") && start == 0,
	   "a relocation moves the wide symbol and its end");
	ok(is(kallsyms_find(k, NULL, 0xffffffff80ffefffULL, &start), "fixed_percpu_data") &&
		   is(kallsyms_find(k, NULL, 0xffffffff80fff000ULL, &start), "_stext"),
	   "the wide symbol's end moves with it");
	ok(kallsyms_kernel_end(k) == 0xffffffff81002000ULL, "so does kernel_end");
	kallsyms_free(k);
	return tap_done();
}
