/* The readers take a path: a fuzz input is written to one file per target
 * and process, reused for every input. Returns the path, or NULL when the
 * file cannot be written. */
#ifndef TD_FUZZ_INPUT_H
#define TD_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static inline const char *fuzz_input_file(const char *target, const uint8_t *data, size_t size)
{
	static char path[96];
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/td-fuzz-%s-%d", target, (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	fwrite(data, 1, size, f);
	fclose(f);
	return path;
}

#endif
