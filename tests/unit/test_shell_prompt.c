/* parsers/shell_prompt.h: the prompts of the command lines pasted into the
 * captures (testdata, ../shared/testdata) come off; a command without a
 * prompt keeps every byte. */
#include <stdio.h>
#include <string.h>
#include "parsers/shell_prompt.h"
#include "tests/unit/tap.h"

int main(void)
{
	static const char *const prompted[][2] = {
		{ "$ perf stat -e cycles ./app", "perf stat -e cycles ./app" },
		{ "  $ perf stat -M TopdownL1 perf bench mem memcpy", "perf stat -M TopdownL1 perf bench mem memcpy" },
		{ "$\tperf stat -a", "perf stat -a" },
		{ "# perf stat -x, -I1000 --interval-count 1 --summary", "perf stat -x, -I1000 --interval-count 1 --summary" },
		{ "# ./toplev.py --core S0-C0 --no-desc -l1 taskset -c 0 ./a", "./toplev.py --core S0-C0 --no-desc -l1 taskset -c 0 ./a" },
		{ "[root@R820-04 pmu-tools-master]# ./toplev -l10 --pid $(pgrep mysqld$) -S sleep 5",
		  "./toplev -l10 --pid $(pgrep mysqld$) -S sleep 5" },
		{ "[me@box ~]$ perf stat ls", "perf stat ls" },
		{ "[me@box]$  perf stat ls", "perf stat ls" },
		{ "user@host:~$ sudo perf stat -a -- sleep 10", "sudo perf stat -a -- sleep 10" },
		{ "brandonneway@raspberrypi:~/dev/transformers/ggml-neon-opt $ sudo perf stat --delay 500 -e inst_retired",
		  "sudo perf stat --delay 500 -e inst_retired" },
		{ "root@web-1.example.com:/srv/app# perf stat -p 42", "perf stat -p 42" },
	};
	static const char *const bare[] = {
		"taskset -c 2 ./external/llama.cpp/build/bin/llama-bench -m models/tinyllama.gguf -t 1",
		"perf stat -x, -- ./Main 1000000 > /dev/null",
		"system wide",
		"$HOME/bin/app --threads 4",
		"$perf stat -x, --topdown -- ./workload",
		"#!/bin/sh",
		"ssh me@host:22 ls",
		"me@host:22 ls",
		"a@b:c$d",
		"[1]$ jobs",
		"[me@box ~ perf stat",
		"x=$(cmd) # comment",
		"echo '$ not a prompt'",
		"$",
		"$ ",
		"# ",
		"",
	};
	for (size_t i = 0; i < sizeof prompted / sizeof *prompted; i++) {
		const char *s = prompted[i][0];
		size_t at = shell_prompt_len(s, strlen(s));
		char what[200];
		snprintf(what, sizeof what, "prompt off: '%s'", s);
		ok(!strcmp(s + at, prompted[i][1]), what);
	}
	for (size_t i = 0; i < sizeof bare / sizeof *bare; i++) {
		char what[200];
		snprintf(what, sizeof what, "no prompt, nothing cut: '%s'", bare[i]);
		ok(shell_prompt_len(bare[i], strlen(bare[i])) == 0, what);
	}
	/* only the n bytes given are read */
	ok(shell_prompt_len("$ perf", 1) == 0 && shell_prompt_len("$ perf", 2) == 0 &&
	   shell_prompt_len("$ perf", 3) == 2, "the length bounds the read");
	return tap_done();
}
