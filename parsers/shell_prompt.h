/* The shell prompt in front of a command line pasted into a capture's notes
 * ("$ perf stat -e cycles ./app", "[root@R820-04 pmu-tools]# ./toplev -l3 ..."),
 * so that a run's command is the command alone.
 *
 * A prompt is, after any indentation, one of
 *	$ CMD   # CMD                    (a bare prompt; the '#' of a root shell,
 *	                                  or a '#' comment line holding a command)
 *	[USER@HOST DIR]$ CMD             (Red Hat's default, DIR optional; '#' for root)
 *	USER@HOST:DIR$ CMD               (Debian's default, DIR may end in a space)
 * with USER and HOST words of letters, digits, '.', '_', '-', DIR without
 * blanks or quotes, and at least one blank after the '$' or '#'. The rule is
 * narrow on purpose: a command that does not start so ("taskset -c 2 ./a",
 * "$HOME/bin/app", "ssh me@host:22 ls", "system wide") is never cut. */
#ifndef TD_SHELL_PROMPT_H
#define TD_SHELL_PROMPT_H

#include <stddef.h>

/* The bytes of s[0..n) before the command: its indentation, prompt and the
 * blanks after it; 0 when s does not start with a prompt. */
size_t shell_prompt_len(const char *s, size_t n);

#endif
