/* The roofline point of a capture: floating-point operations and DRAM
 * traffic from the events each vendor counts them with, one table per
 * vendor (roofline.c), and where the point sits under the machine's roofs.
 *
 *   FLOPs:      Intel fp_arith_inst_retired.{scalar,128b,256b,512b}_*
 *               (each count is 1, 2, 4, 8 or 16 operations; FMA counts
 *               twice in the event itself); AMD fp_ret_sse_avx_ops.all
 *               (counts FLOPs); Arm fp_fixed_ops_spec + fp_scale_ops_spec
 *               (the scalable count is per 128 bits of vector length).
 *   DRAM bytes: Intel uncore_imc_N/cas_count_{read,write}/ (perf prints MiB),
 *               unc_m_cas_count.* (bytes); AMD dram_channel_data_controller_*
 *               (MiB); else a proxy of 64 B per last-level miss (Intel
 *               LLC-load-misses + LLC-store-misses, Arm ll_cache_miss_rd or
 *               l3d_cache_refill), said as a proxy.
 *
 * Counting is a scan of the counters against the tables: no state. */
#ifndef TD_ROOFLINE_H
#define TD_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include "analysis/metrics.h"

/* The machine's roofs (td-derive --peaks FILE): lines "key value", '#'
 * comments, blank lines. peak_gflops and peak_gbs (DRAM) are the roofline;
 * peak_gbs_NAME (peak_gbs_l1, peak_gbs_l3 ...) adds a roof per level. */
#define ROOFLINE_MAX_LEVELS 6
struct roofline_peaks {
	double gflops;               /* NaN: not given */
	double gbs;                  /* DRAM; NaN: not given */
	int nlevels;
	char level[ROOFLINE_MAX_LEVELS][24];    /* "l1", "l3" */
	double level_gbs[ROOFLINE_MAX_LEVELS];
};
/* False after a message (tool: FILE:LINE: what is wrong) when the file
 * cannot be read or a line is not "key number" with a known key. */
bool roofline_peaks_load(const char *path, struct roofline_peaks *p);
/* One "key value" of a peaks file (or of a td-collect header: the same
 * keys): false with why filled when value is no positive number or key
 * is unknown. p starts as { .gflops = NAN, .gbs = NAN }. */
bool roofline_peaks_fact(struct roofline_peaks *p, const char *key, const char *value, char *why, size_t cap);
/* Both peak_gflops and peak_gbs given. */
bool roofline_peaks_complete(const struct roofline_peaks *p);

/* The peaks the td-collect headers of a capture's files recorded
 * (td-collect --peaks or --measure-peaks): header facts peak_gflops=,
 * peak_gbs=, peak_gbs_LEVEL= (read by roofline_peaks_fact) and
 * peaks_source=, what they are. A bad value is reported where it stands
 * (tool: FILE:LINE:) and the file's peaks are not used; the capture has
 * peaks only when every file gave the same complete ones. Zeroed: no
 * file yet. */
struct roofline_header_peaks {
	struct roofline_peaks file, capture;
	char file_source[256], source[256];
	char file_name[256];
	unsigned long file_line;     /* the file's first peaks fact */
	unsigned files, with_peaks;
	bool file_any, file_bad, unusable;
};
/* Another file of the capture starts (NULL: the capture ends): the last
 * file's peaks are checked and joined to the capture's. */
void roofline_header_file(struct roofline_header_peaks *h, const char *file);
/* A header fact; false when key is none of the peaks'. */
bool roofline_header_fact(struct roofline_header_peaks *h, const char *key, const char *value, const char *file,
			  unsigned long line);
/* After roofline_header_file(h, NULL): the capture's peaks and *source
 * (peaks_source, "" when not said), or NULL. */
const struct roofline_peaks *roofline_header_peaks(const struct roofline_header_peaks *h, const char **source);

struct roofline_point {
	double flops;                /* operations */
	double bytes;                /* DRAM bytes; NaN: no memory event */
	bool proxy;                  /* bytes are 64 per last-level miss, not DRAM's own count */
	const char *vendor;          /* "Intel", "AMD", "Arm" */
	const char *flop_events;     /* a literal naming what was summed */
	const char *byte_events;
};

/* The FLOPs of s (false: no FP event of any table counted). */
bool roofline_flops(const struct counter_set *s, struct roofline_point *p);
/* Adds the DRAM bytes s counts to p (sets of other PMUs: an uncore
 * counter is in a set of its own); false when s has none. */
bool roofline_add_bytes(const struct counter_set *s, struct roofline_point *p);

/* Under the roofs: the attainable GFLOP/s at intensity ai (FLOP/B), and
 * whether the point is left of the ridge (memory-bound). */
double roofline_attainable(const struct roofline_peaks *k, double ai);
bool roofline_memory_bound(const struct roofline_peaks *k, double ai);

#endif
