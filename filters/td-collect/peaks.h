/* td-collect --measure-peaks: the machine's roofs, measured here in a few
 * hundred milliseconds, for the roofline td-derive draws.
 *
 *   GB/s:    a STREAM-like triad a[i] = b[i] + s * c[i] over three arrays
 *            of doubles, each 4x the last-level cache (sysfs, else
 *            sysconf), split across one thread per online CPU; 24 bytes
 *            per element (write-allocate traffic not counted, as STREAM);
 *            the best of a few passes after one that touches the pages.
 *   GFLOP/s: independent chains of fused multiply-adds on double vectors
 *            (12 chains: more than an FMA's latency times its issue rate),
 *            one thread per online CPU, 2 FLOPs per lane; the widest kernel
 *            this CPU runs (x86: AVX-512F, else AVX2+FMA, else SSE2 mul+add,
 *            chosen at run time with __builtin_cpu_supports; aarch64: NEON
 *            FMA), the best of a few runs long enough to time.
 *
 * Achieved single-run figures on this machine at this moment: not vendor
 * peaks; turbo, frequency scaling and other tenants move them. */
#ifndef TD_COLLECT_PEAKS_H
#define TD_COLLECT_PEAKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "analysis/roofline.h"

struct measured_peaks {
	struct roofline_peaks p;   /* gflops, gbs; no levels */
	char when[32];             /* UTC, 2026-11-26T02:50:00Z */
	char how[400];             /* kernels, threads, vector width, sizes */
};

/* Measures; false with why when threads or memory are not to be had. */
bool peaks_measure(struct measured_peaks *m, char *why, size_t cap);

/* The peaks as a file td-derive --peaks and td-collect --peaks read. */
void peaks_print(FILE *f, const struct measured_peaks *m);

#endif
