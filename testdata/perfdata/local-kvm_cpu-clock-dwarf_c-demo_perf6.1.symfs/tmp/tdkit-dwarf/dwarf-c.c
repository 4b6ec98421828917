/* tdkit test program: plain C for --call-graph dwarf recordings (built -O2 -g, no frame pointers). */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long mix(unsigned long long x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 29;
	return x;
}

static inline unsigned long long fold_in(unsigned long long acc, unsigned long long v)
{
	return mix(acc + v);
}

__attribute__((noinline)) unsigned long long leaf_work(unsigned long long seed, int n)
{
	unsigned long long acc = seed;
	for (int i = 0; i < n; i++)
		acc = fold_in(acc, (unsigned long long)i);
	return acc;
}

__attribute__((noinline)) unsigned long long recurse(unsigned long long seed, int depth)
{
	if (depth == 0)
		return leaf_work(seed, 20000);
	return recurse(seed * 3 + 1, depth - 1) ^ (unsigned long long)depth;
}

__attribute__((noinline)) unsigned long long sort_work(int n)
{
	unsigned long long *v = malloc(sizeof *v * (size_t)n);
	for (int i = 0; i < n; i++)
		v[i] = mix((unsigned long long)i);
	for (int i = 1; i < n; i++) {       /* insertion sort: a hot inner loop */
		unsigned long long x = v[i];
		int j = i - 1;
		while (j >= 0 && v[j] > x) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
	unsigned long long r = v[n / 2];
	free(v);
	return r;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
	unsigned long long acc = 0;
	for (int r = 0; r < rounds; r++) {
		acc ^= recurse((unsigned long long)r, 1 + r % 6);
		if (r % 50 == 0)
			acc ^= sort_work(6000);
	}
	printf("%llx\n", acc);
	return 0;
}
