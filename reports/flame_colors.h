/* Frame colours as flamegraph.pl picks them: a palette (hot, mem, io, ...)
 * whose shade comes from one of three sources — the name's hash (--hash),
 * a random draw (--random), or by default perl's srand/rand seeded with the
 * sum of the name's characters, which is random-looking but the same for a
 * name in every graph. Differential frames use a red/blue scale instead. */
#ifndef TD_FLAME_COLORS_H
#define TD_FLAME_COLORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum flame_shade { FLAME_SHADE_DEFAULT, FLAME_SHADE_HASH, FLAME_SHADE_RANDOM };

/* The palette's index, or -1 for an unknown name. */
int flame_palette(const char *name);
/* Comma-separated palette names, for messages. */
const char *flame_palette_names(void);

/* Background gradient colours for --bgcolors (NULL or "": the palette's
 * default); false for an unknown value. */
bool flame_background(const char *bgcolors, int palette, const char **c1, const char **c2);

struct flame_colors;
/* seed: the --random draws (any value; the same seed, the same colours). */
struct flame_colors *flame_colors_new(int palette, enum flame_shade shade, uint64_t seed);
void flame_colors_free(struct flame_colors *c);

/* "rgb(r,g,b)" for the frame named name (annotation suffix included) into
 * out (at least 20 bytes). */
void flame_color(struct flame_colors *c, const char *name, size_t len, char *out);
/* Differential: red for growth, blue for shrinkage, white for none;
 * saturation is |delta| / max_delta. */
void flame_color_delta(double delta, double max_delta, char *out);

/* Consistent palette (--cp): colours read from and written back to a file
 * of "name->rgb(...)" lines, so a name keeps its colour across graphs. */
struct flame_palette_map;
struct flame_palette_map *flame_palette_map_read(const char *path);
/* The name's colour from the map, or picked by c and added. */
void flame_palette_map_color(struct flame_palette_map *m, struct flame_colors *c, const char *name, size_t len, char *out);
/* Writes the map sorted by name; false (errno set) when it cannot. */
bool flame_palette_map_write(const struct flame_palette_map *m, const char *path);
void flame_palette_map_free(struct flame_palette_map *m);

#endif
