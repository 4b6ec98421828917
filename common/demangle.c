#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "common/diag.h"
#include "common/plain.h"
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

/* Whether name is C++ to libiberty: "_Z" and not possibly a legacy Rust
 * name ("_ZN" ... "17h" + 16 hex digits + "E", and a suffix such as
 * ".llvm.N" may follow; Rust's v0 names start "_R"). cplus_demangle tries
 * Rust first, which reads the whole name before it gives up on a C++ one,
 * then the C++ demangler: a C++ name goes to that one directly, with the
 * options cplus_demangle would pass (its default style, auto). */
static bool cxx_only(const char *name)
{
	return name[0] == '_' && name[1] == 'Z' && (name[2] != 'N' || !strstr(name + 3, "17h"));
}

char *td_demangle(const char *name)
{
	char *s = cxx_only(name) && !td_plain() ? cplus_demangle_v3(name, DMGL_NO_OPTS | DMGL_AUTO)
					   : cplus_demangle(name, DMGL_NO_OPTS);
	return s ? s : ocaml_demangle(name);
}
