/* td-collect --measure-peaks: the machine's roofs, measured here in a few
 * hundred milliseconds, for the roofline td-derive draws.
 *
 *   GB/s:    a STREAM-like triad a[i] = b[i] + s * c[i] over three arrays
 *            of doubles, each 4x the last-level cache (sysfs, else
 *            sysconf), split across one thread per online CPU; 24 bytes
 *            per element (write-allocate traffic not counted, as STREAM);
 *            the best of a few passes after one that touches the pages.
 *   GFLOP/s: independent chains of fused multiply-adds on double vectors
 *            (PEAKS_CHAINS: an FMA's latency times the FMAs a cycle, or more),
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

/* The FMA kernels, for their test (tests/unit/test_peaks_kernels.c, also
 * cross-built for aarch64 and run under qemu by tests/collect-peaks-aarch64.t).
 *
 * fn(n, x) runs n iterations over chains independent vectors of lanes
 * doubles and returns the sum of all their lanes afterwards, where every
 * lane of chain c starts at x + c and each iteration does
 *	v = v + v * PEAKS_GROWTH
 * (one multiply and one add a lane, fused where the kernel says FMA).
 * PEAKS_GROWTH is a power of two, so the product is exact and fused or not
 * the lanes take the same values, which a scalar loop reproduces; over the
 * longest run (2^40 iterations) a lane grows by e^128 at most, never to an
 * infinity or a subnormal. The accumulator is the addend, as an aarch64
 * FMLA and an x86 VFMADD231 want it: no register copy in the loop. */
#define PEAKS_GROWTH 0x1p-33

/* Chains a kernel runs: so many FMAs in flight that the FP pipes never
 * wait, an FMA's latency times the FMAs a core starts a cycle, each chain
 * in a register. x86: 12 (latency 4 or 5, two FMA pipes; 13 of 16 AVX2
 * registers). aarch64: 16 (latency 4, and Neoverse V1 and V2 start four
 * 128-bit FMLAs a cycle, N1 and N2 two; 17 of 32 registers). */
#define PEAKS_CHAINS 12
#define PEAKS_CHAINS_NEON 16

struct peaks_kernel {
	double (*fn)(long n, double x);
	int lanes;                 /* doubles per vector */
	int chains;
	const char *name;
};

/* The kernels this CPU runs, widest first (the one measured); how many,
 * at most cap. */
int peaks_kernels(struct peaks_kernel *out, int cap);

/* The floating-point operations of one call fn(n, x). */
double peaks_kernel_flops(const struct peaks_kernel *k, long n);

#endif
