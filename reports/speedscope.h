/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile whose samples are the distinct stacks, each weighted
 * by its count, with the frames shared by name. */
#ifndef TD_SPEEDSCOPE_H
#define TD_SPEEDSCOPE_H

#include <stdio.h>
#include "analysis/flame_tree.h"

/* name: the profile's name (e.g. the input file). */
void speedscope_write(FILE *out, struct flame_tree *t, const char *name, const char *exporter);

#endif
