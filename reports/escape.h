/* The one CSV quoting rule and the one JSON string escaping of tdkit's
 * reports (and XML text for the SVG charts). Every writer of CSV or JSON
 * goes through these, so a field is quoted the same in every tool.
 *
 * CSV (RFC 4180): a field holding a comma, a double quote, CR or LF is
 * written in double quotes, its quotes doubled; any other is written as
 * it is. JSON: '"' and '\' backslash-escaped, LF and TAB as \n and \t,
 * other bytes below 0x20 as \u00XX, everything else (UTF-8 included) as
 * it is. */
#ifndef TD_ESCAPE_H
#define TD_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A byte that makes a CSV field need quotes. */
static inline bool td_csv_special(unsigned char ch) { return ch == ',' || ch == '"' || ch == '\n' || ch == '\r'; }

/* s (n bytes) quoted at w (room for 2n + 2 bytes); returns the end. Only
 * for a field that needs it. */
char *td_csv_quote(char *w, const char *s, size_t n);

/* s (n bytes) as a JSON string, quotes included, at w (room for 6n + 2
 * bytes); returns the length written. */
size_t td_json_escape(char *w, const char *s, size_t n);

/* The same, written to f. */
void td_csv_field(FILE *f, const char *s);
void td_json_string(FILE *f, const char *s);
/* Text for an XML (SVG) element or attribute: < > & " escaped. */
void td_xml_text(FILE *f, const char *s);

#endif
