/* filters/td-collect/peaks.h: every FMA kernel this CPU runs computes what a
 * scalar loop computes (the contract in peaks.h), lane by lane and iteration
 * by iteration, and counts the FLOPs that loop does. Built natively by make,
 * and for aarch64 (the NEON kernel) by tests/collect-peaks-aarch64.t, which
 * runs it under qemu with --measure (the whole measurement, threads and all). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "filters/td-collect/peaks.h"
#include "tests/unit/tap.h"

/* The contract's value, and its FLOPs counted as the loop runs (every lane
 * of a chain takes the same values, so one is run and counted lanes times). */
static double reference(int lanes, int chains, long n, double x, double *flops)
{
	double s = 0;
	*flops = 0;
	for (int c = 0; c < chains; c++) {
		double v = x + c;
		for (long i = 0; i < n; i++) {
			double p = v * PEAKS_GROWTH;
			v = v + p;
			*flops += 2.0 * lanes;
		}
		s += lanes * v;
	}
	return s;
}

/* Equal but for the order of the final sum (a few ulps). */
static int near(double a, double b) { return fabs(a - b) <= 1e-13 * fabs(b); }

int main(int argc, char **argv)
{
	struct peaks_kernel k[8];
	int nk = peaks_kernels(k, 8);
	ok(nk >= 1, "at least one kernel");
	ok(strstr(k[nk - 1].name, "no FMA") != NULL, "the portable multiply-and-add kernel is the last resort");
#if defined(__aarch64__)
	ok(k[0].lanes == 2 && k[0].chains == PEAKS_CHAINS_NEON && strstr(k[0].name, "NEON FMA") != NULL,
	   "the NEON FMA kernel is the one measured, 16 chains (aarch64)");
#elif defined(__x86_64__)
	__builtin_cpu_init();
	int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	int lanes = __builtin_cpu_supports("avx512f") ? 8 : avx2 ? 4 : 2;
	ok(k[0].lanes == lanes, "the widest kernel this CPU runs is the one measured (x86)");
#endif
	static const long iters[] = { 0, 1, 2, 7, 1000, 65537 };
	for (int i = 0; i < nk; i++) {
		char what[200];
		int value = 1, flops = 1, sensitive = 1;
		for (size_t j = 0; j < sizeof iters / sizeof *iters; j++)
			for (double x = 1; x <= 3; x += 2) {
				double f, f1;
				double want = reference(k[i].lanes, k[i].chains, iters[j], x, &f);
				double next = reference(k[i].lanes, k[i].chains, iters[j] + 1, x, &f1);
				double got = k[i].fn(iters[j], x);
				if (!near(got, want)) {
					value = 0;
					printf("# %s: n=%ld x=%g: %.17g, the loop %.17g\n", k[i].name, iters[j], x, got, want);
				}
				flops &= peaks_kernel_flops(&k[i], iters[j]) == f;
				sensitive &= !near(next, want);
			}
		snprintf(what, sizeof what, "%s: the value of the scalar loop, n from 0 to 65537", k[i].name);
		ok(value, what);
		snprintf(what, sizeof what, "%s: one iteration more would differ beyond the tolerance", k[i].name);
		ok(sensitive, what);
		snprintf(what, sizeof what, "%s: FLOPs a call = %d chains x %d lanes x 2 x n, as the loop counts",
			 k[i].name, k[i].chains, k[i].lanes);
		ok(flops, what);
		double f;
		double big = reference(k[i].lanes, k[i].chains, 1L << 20, 1, &f);
		snprintf(what, sizeof what, "%s: 2^20 iterations, finite and equal", k[i].name);
		ok(isfinite(big) && near(k[i].fn(1L << 20, 1), big), what);
	}
	if (argc > 1 && !strcmp(argv[1], "--measure")) {
		struct measured_peaks m;
		char why[200] = "";
		int good = peaks_measure(&m, why, sizeof why);
		if (good)
			printf("# %s\n# peak_gflops %.1f\n# peak_gbs %.1f\n", m.how, m.p.gflops, m.p.gbs);
		else
			printf("# %s\n", why);
		ok(good && m.p.gflops > 0 && m.p.gbs > 0 && strstr(m.how, k[0].name),
		   "the whole measurement: positive figures, with the widest kernel");
	}
	return tap_done();
}
