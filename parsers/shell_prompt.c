/* A command line's shell prompt (shell_prompt.h). */
#include <stdbool.h>
#include "shell_prompt.h"

static bool blank(char c) { return c == ' ' || c == '\t'; }

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	       c == '-';
}

/* The end of a USER or HOST word at s[i], or i when there is none. */
static size_t word_end(const char *s, size_t n, size_t i)
{
	while (i < n && word_char(s[i]))
		i++;
	return i;
}

/* USER@HOST from s[i]: the index after it, or 0. */
static size_t user_at_host(const char *s, size_t n, size_t i)
{
	size_t at = word_end(s, n, i);
	if (at == i || at >= n || s[at] != '@')
		return 0;
	size_t end = word_end(s, n, at + 1);
	return end == at + 1 ? 0 : end;
}

/* After the prompt's '$' or '#' at s[i]: the command's start, or 0 when no
 * blank follows or nothing after the blanks. */
static size_t command_start(const char *s, size_t n, size_t i)
{
	if (i >= n || (s[i] != '$' && s[i] != '#') || i + 1 >= n || !blank(s[i + 1]))
		return 0;
	i++;
	while (i < n && blank(s[i]))
		i++;
	return i < n ? i : 0;
}

size_t shell_prompt_len(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && blank(s[i]))
		i++;
	if (i < n && (s[i] == '$' || s[i] == '#'))
		return command_start(s, n, i);
	if (i < n && s[i] == '[') {              /* [USER@HOST DIR]$ */
		size_t j = user_at_host(s, n, i + 1);
		if (!j || j >= n || (s[j] != ' ' && s[j] != ']'))
			return 0;
		while (j < n && s[j] != ']' && s[j] != '[' && s[j] != '\'' && s[j] != '"')
			j++;
		return j < n && s[j] == ']' ? command_start(s, n, j + 1) : 0;
	}
	size_t j = user_at_host(s, n, i);        /* USER@HOST:DIR$ */
	if (!j || j >= n || s[j] != ':')
		return 0;
	j++;
	while (j < n && !blank(s[j]) && s[j] != '$' && s[j] != '#' && s[j] != '\'' && s[j] != '"')
		j++;
	if (j < n && s[j] == ' ')                /* "~/dev/x $ cmd" */
		j++;
	return command_start(s, n, j);
}
