/* The machine's roofs, measured (peaks.h). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "filters/td-collect/peaks.h"
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#define FLOP_RUNS 3
#define TRIAD_PASSES 3         /* after one that writes every page */
#define MIN_RUN_S 0.02         /* an FMA run at least this long is timed */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- the FMA kernels (peaks.h), one body for every vector width: V is a
 * GCC vector of doubles and STEP(v, k) its v + v * k (an FMA where the
 * target has one). The loops over the chains are unrolled, so each chain
 * lives in a register of its own and the array is never in memory; the
 * sum makes the result one the compiler cannot drop ---- */
typedef double (*fma_kernel)(long n, double x);

#define FMA_KERNEL(NAME, TARGET, V, STEP, CHAINS)                                           \
	TARGET static double NAME(long n, double x)                                         \
	{                                                                                   \
		V acc[CHAINS], k = (V){ 0 } + PEAKS_GROWTH;                                 \
		_Pragma("GCC unroll 64") for (int c = 0; c < CHAINS; c++)                   \
			acc[c] = (V){ 0 } + (x + c);                                        \
		for (long i = 0; i < n; i++)                                                \
			_Pragma("GCC unroll 64") for (int c = 0; c < CHAINS; c++)           \
				acc[c] = STEP(acc[c], k);                                   \
		double s = 0;                                                               \
		_Pragma("GCC unroll 64") for (int c = 0; c < CHAINS; c++)                   \
			_Pragma("GCC unroll 8") for (size_t l = 0; l < sizeof(V) / sizeof(double); l++) \
				s += acc[c][l];                                             \
		return s;                                                                   \
	}

#if defined(__x86_64__) || defined(__i386__)
#define STEP_AVX512(v, k) _mm512_fmadd_pd(v, k, v)
#define STEP_AVX2(v, k) _mm256_fmadd_pd(v, k, v)
FMA_KERNEL(fma_avx512, __attribute__((target("avx512f"))), __m512d, STEP_AVX512, PEAKS_CHAINS)
FMA_KERNEL(fma_avx2, __attribute__((target("avx2,fma"))), __m256d, STEP_AVX2, PEAKS_CHAINS)
#elif defined(__aarch64__)
#define STEP_NEON(v, k) vfmaq_f64(v, v, k)
FMA_KERNEL(fma_neon, , float64x2_t, STEP_NEON, PEAKS_CHAINS_NEON)
#endif
/* Any CPU: a multiply, then an add */
typedef double v2d __attribute__((vector_size(16)));
#define STEP_MUL_ADD(v, k) ((v) + (v) * (k))
FMA_KERNEL(mul_add_v2, , v2d, STEP_MUL_ADD, PEAKS_CHAINS)

int peaks_kernels(struct peaks_kernel *out, int cap)
{
	struct peaks_kernel all[3];
	int n = 0;
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		all[n++] = (struct peaks_kernel){ fma_avx512, sizeof(__m512d) / sizeof(double), PEAKS_CHAINS, "AVX-512F FMA, 8 doubles wide" };
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		all[n++] = (struct peaks_kernel){ fma_avx2, sizeof(__m256d) / sizeof(double), PEAKS_CHAINS, "AVX2 FMA, 4 doubles wide" };
#elif defined(__aarch64__)
	all[n++] = (struct peaks_kernel){ fma_neon, sizeof(float64x2_t) / sizeof(double), PEAKS_CHAINS_NEON, "NEON FMA, 2 doubles wide" };
#endif
	all[n++] = (struct peaks_kernel){ mul_add_v2, sizeof(v2d) / sizeof(double), PEAKS_CHAINS, "multiply and add (no FMA), 2 doubles wide" };
	n = n < cap ? n : cap;
	memcpy(out, all, (size_t)n * sizeof *out);
	return n;
}

double peaks_kernel_flops(const struct peaks_kernel *k, long n)
{
	return 2.0 * k->chains * k->lanes * (double)n;
}

/* ---- threads: each runs its share between two barriers ---- */
struct team {
	int n;                     /* threads started */
	pthread_mutex_t lock;      /* the gate: threads wait until every one is started */
	pthread_cond_t open;
	bool gate;
	pthread_barrier_t start, end;
	/* the job of the round */
	enum { JOB_TOUCH, JOB_TRIAD, JOB_FMA, JOB_QUIT } job;
	fma_kernel fn;
	long iters;
	double *a, *b, *c;
	size_t elems;
	volatile double sink;
};

struct worker {
	struct team *t;
	int id;
};

static void triad(double *restrict a, const double *restrict b, const double *restrict c, size_t n)
{
	typedef double v4 __attribute__((vector_size(32), aligned(8)));
	const double s = 3.0;
	size_t i = 0;
	for (; i + 4 <= n; i += 4)
		*(v4 *)(a + i) = *(const v4 *)(b + i) + s * *(const v4 *)(c + i);
	for (; i < n; i++)
		a[i] = b[i] + s * c[i];
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct team *t = w->t;
	pthread_mutex_lock(&t->lock);
	while (!t->gate)
		pthread_cond_wait(&t->open, &t->lock);
	pthread_mutex_unlock(&t->lock);
	if (t->job == JOB_QUIT)
		return NULL;
	for (;;) {
		pthread_barrier_wait(&t->start);
		if (t->job == JOB_QUIT)
			return NULL;
		if (t->job == JOB_FMA) {
			double r = t->fn(t->iters, 1.0 + w->id);
			if (r == 42.0)
				t->sink = r;
		} else {
			size_t per = t->elems / (size_t)t->n, from = per * (size_t)w->id;
			size_t to = w->id == t->n - 1 ? t->elems : from + per;
			if (t->job == JOB_TOUCH)   /* each page written by the thread that uses it */
				for (size_t i = from; i < to; i++)
					t->a[i] = 0, t->b[i] = 1, t->c[i] = 2;
			else
				triad(t->a + from, t->b + from, t->c + from, to - from);
		}
		pthread_barrier_wait(&t->end);
	}
}

/* One round on every thread; its wall time in seconds. */
static double round_s(struct team *t)
{
	double t0 = now_s();
	pthread_barrier_wait(&t->start);
	pthread_barrier_wait(&t->end);
	return now_s() - t0;
}

/* The last-level cache in bytes: the highest level sysfs lists for cpu0,
 * else sysconf's; 0: unknown. */
static size_t llc_bytes(void)
{
	size_t best = 0;
	int best_level = 0;
	for (int i = 0; i < 16; i++) {
		char path[96], buf[64];
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		int level = fgets(buf, sizeof buf, f) ? atoi(buf) : 0;
		fclose(f);
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		char *end;
		size_t size = fgets(buf, sizeof buf, f) ? strtoul(buf, &end, 10) : 0;
		fclose(f);
		if (size && *end == 'K')
			size <<= 10;
		else if (size && *end == 'M')
			size <<= 20;
		if (level >= best_level && size) {
			best_level = level;
			best = size;
		}
	}
#ifdef _SC_LEVEL3_CACHE_SIZE
	if (!best) {
		long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
		best = l3 > 0 ? (size_t)l3 : l2 > 0 ? (size_t)l2 : 0;
	}
#endif
	return best;
}

bool peaks_measure(struct measured_peaks *m, char *why, size_t cap)
{
	*m = (struct measured_peaks){ .p = { .gflops = NAN, .gbs = NAN } };
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int n = online > 0 && online <= 4096 ? (int)online : 1;
	size_t llc = llc_bytes();
	size_t array = 4 * (llc ? llc : (size_t)8 << 20);
	if (array < (size_t)32 << 20)
		array = (size_t)32 << 20;
	if (array > (size_t)1 << 30)
		array = (size_t)1 << 30;
	double *mem = mmap(NULL, 3 * array, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		snprintf(why, cap, "--measure-peaks: cannot map 3 arrays of %zu MiB", array >> 20);
		return false;
	}
	struct team t = { .lock = PTHREAD_MUTEX_INITIALIZER, .open = PTHREAD_COND_INITIALIZER, .job = JOB_TOUCH };
	t.elems = array / sizeof(double);
	t.a = mem;
	t.b = mem + t.elems;
	t.c = mem + 2 * t.elems;
	pthread_t *tid = calloc((size_t)n, sizeof *tid);
	struct worker *w = calloc((size_t)n, sizeof *w);
	int started = 0;
	for (; tid && w && started < n; started++) {
		w[started] = (struct worker){ &t, started };
		if (pthread_create(&tid[started], NULL, work, &w[started]))
			break;
	}
	bool good = started == n;
	t.n = started;
	if (good) {
		pthread_barrier_init(&t.start, NULL, (unsigned)n + 1);
		pthread_barrier_init(&t.end, NULL, (unsigned)n + 1);
	} else {
		t.job = JOB_QUIT;
		snprintf(why, cap, "--measure-peaks: cannot start %d threads", n);
	}
	pthread_mutex_lock(&t.lock);
	t.gate = true;
	pthread_cond_broadcast(&t.open);
	pthread_mutex_unlock(&t.lock);
	if (good) {
		/* GB/s */
		round_s(&t);
		t.job = JOB_TRIAD;
		double best = INFINITY;
		for (int p = 0; p < TRIAD_PASSES; p++)
			best = fmin(best, round_s(&t));
		m->p.gbs = 3.0 * (double)t.elems * sizeof(double) / best / 1e9;
		/* GFLOP/s: iterations doubled until a run is long enough to time */
		struct peaks_kernel k;
		peaks_kernels(&k, 1);
		t.job = JOB_FMA;
		t.fn = k.fn;
		t.iters = 1 << 14;
		double s;
		while ((s = round_s(&t)) < MIN_RUN_S && t.iters < (1L << 40))
			t.iters *= 2;
		best = s;
		for (int r = 1; r < FLOP_RUNS; r++)
			best = fmin(best, round_s(&t));
		m->p.gflops = peaks_kernel_flops(&k, t.iters) * n / best / 1e9;
		/* to a tenth, as printed: the header and a printed file say the same */
		m->p.gflops = round(m->p.gflops * 10) / 10;
		m->p.gbs = round(m->p.gbs * 10) / 10;
		snprintf(m->how, sizeof m->how,
			 "GFLOP/s: %d chains of %s, %d threads, 2 FLOPs a lane, best of %d runs of %.0f ms; "
			 "GB/s: triad a=b+s*c over 3 arrays of %zu MiB (last-level cache %zu KiB), 24 B an element, "
			 "%d threads, best of %d passes",
			 k.chains, k.name, n, FLOP_RUNS, best * 1e3, array >> 20, llc >> 10, n, TRIAD_PASSES);
		t.job = JOB_QUIT;
		pthread_barrier_wait(&t.start);
	}
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (good) {
		pthread_barrier_destroy(&t.start);
		pthread_barrier_destroy(&t.end);
	}
	free(tid);
	free(w);
	munmap(mem, 3 * array);
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(m->when, sizeof m->when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (good && !(isfinite(m->p.gflops) && m->p.gflops > 0 && isfinite(m->p.gbs) && m->p.gbs > 0)) {
		snprintf(why, cap, "--measure-peaks: the measurement gave no positive finite figures");
		good = false;
	}
	return good;
}

void peaks_print(FILE *f, const struct measured_peaks *m)
{
	fprintf(f, "# measured %s by td-collect --measure-peaks: achieved on this machine, not vendor peaks\n",
		m->when);
	fprintf(f, "# %s\n", m->how);
	fprintf(f, "peak_gflops %.1f\npeak_gbs %.1f\n", m->p.gflops, m->p.gbs);
}
