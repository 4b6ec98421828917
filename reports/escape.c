/* CSV quoting, JSON escaping, XML text (escape.h). */
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "reports/escape.h"

char *td_csv_quote(char *w, const char *s, size_t n)
{
	*w++ = '"';
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			*w++ = '"';
		*w++ = s[i];
	}
	*w++ = '"';
	return w;
}

/* The body of a JSON string (no quotes) at w; returns the end. */
static char *json_body(char *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\') {
			*w++ = '\\';
			*w++ = (char)ch;
		} else if (ch == '\n') {
			*w++ = '\\';
			*w++ = 'n';
		} else if (ch == '\t') {
			*w++ = '\\';
			*w++ = 't';
		} else if (ch < 0x20) {
			memcpy(w, "\\u00", 4);
			w[4] = hex[ch >> 4];
			w[5] = hex[ch & 15];
			w += 6;
		} else {
			*w++ = (char)ch;
		}
	}
	return w;
}

size_t td_json_escape(char *w, const char *s, size_t n)
{
	char *start = w;
	*w++ = '"';
	w = json_body(w, s, n);
	*w++ = '"';
	return (size_t)(w - start);
}

#define CHUNK 512

void td_json_string(FILE *f, const char *s)
{
	char buf[6 * CHUNK];
	size_t n = strlen(s);
	putc_unlocked('"', f);
	for (size_t at = 0; at < n; at += CHUNK) {
		size_t k = n - at < CHUNK ? n - at : CHUNK;
		fwrite_unlocked(buf, 1, (size_t)(json_body(buf, s + at, k) - buf), f);
	}
	putc_unlocked('"', f);
}

void td_csv_field(FILE *f, const char *s)
{
	size_t n = 0;
	while (s[n] && !td_csv_special((unsigned char)s[n]))
		n++;
	if (!s[n]) {
		fwrite_unlocked(s, 1, n, f);
		return;
	}
	n += strlen(s + n);
	char small[2 * CHUNK + 2], *buf = 2 * n + 2 <= sizeof small ? small : td_malloc(2 * n + 2);
	fwrite_unlocked(buf, 1, (size_t)(td_csv_quote(buf, s, n) - buf), f);
	if (buf != small)
		free(buf);
}

void td_xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs_unlocked("&lt;", f);
		else if (*s == '>')
			fputs_unlocked("&gt;", f);
		else if (*s == '&')
			fputs_unlocked("&amp;", f);
		else if (*s == '"')
			fputs_unlocked("&quot;", f);
		else
			putc_unlocked(*s, f);
	}
}
