#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "common/diag.h"
#include "demangle.h"

static int hex_digit(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

/* OCaml native code: "caml" and a capitalized module path */
static char *ocaml_demangle(const char *name)
{
	if (strncmp(name, "caml", 4) != 0 || !isupper((unsigned char)name[4]))
		return NULL;
	char *out = td_malloc(strlen(name) + 1), *w = out;
	for (const char *p = name + 4; *p;) {
		if (p[0] == '_' && p[1] == '_') {
			*w++ = '.';
			p += 2;
		} else if (p[0] == '$' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
			*w++ = (char)(hex_digit(p[1]) << 4 | hex_digit(p[2]));
			p += 3;
		} else {
			*w++ = *p++;
		}
	}
	*w = '\0';
	return out;
}

char *td_demangle(const char *name)
{
	char *s = cplus_demangle(name, DMGL_NO_OPTS);
	return s ? s : ocaml_demangle(name);
}
