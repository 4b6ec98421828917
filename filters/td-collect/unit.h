/* The systemd unit that runs a td-collect agent with the same arguments.
 * It never holds a secret: a database URL with a password is refused; the
 * unit reads TD_DB from an EnvironmentFile= (mode 0600) instead, or libpq
 * finds the password in its own password file. */
#ifndef TD_COLLECT_UNIT_H
#define TD_COLLECT_UNIT_H

#include <stdbool.h>
#include <stdio.h>

/* Why a database URL may not go into a unit (it holds a password), or NULL. */
const char *unit_secret_in(const char *db);

/* Writes the unit for exe and its arguments (args[0..n), the unit
 * options already taken out). */
void unit_write(FILE *f, const char *exe, char *const *args, int n);

/* --install-unit: writes the unit to DIR/etc/systemd/system/td-collect.service
 * (DIR: "" for /) and prints the systemctl commands; false with why. */
bool unit_install(const char *root, const char *exe, char *const *args, int n, char *why, size_t whylen);

/* --systemd-unit (install false: the unit on stdout) or --install-unit
 * (under root, "" for /) for this executable, with td-collect's arguments
 * argv[1..argc) less the unit options. Returns the exit code: 0, or 2
 * after one message. */
int unit_main(bool install, const char *root, int argc, char *const *argv);

#endif
