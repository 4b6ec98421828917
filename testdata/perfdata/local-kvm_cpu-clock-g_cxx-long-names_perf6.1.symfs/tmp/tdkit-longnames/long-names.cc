// Functions whose demangled names run past 1 KiB and 4 KiB: perf prints
// them whole, and so must everything that reads the recording.
// Written for tdkit's tests.
#include <cstdlib>
#include <string>

template <class A, class B> struct pair_of {};
using level1 = pair_of<std::string, std::string>;
using level2 = pair_of<level1, level1>;
using level3 = pair_of<level2, level2>;
using level4 = pair_of<level3, level3>;   // about 1.4 KiB demangled
using level5 = pair_of<level4, level4>;
using level6 = pair_of<level5, level5>;   // about 5.6 KiB demangled

static volatile unsigned long sink;

template <class T> __attribute__((noinline)) unsigned long spin(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

template <class T, class Inner> __attribute__((noinline)) unsigned long outer(unsigned long n)
{
	return spin<T>(n) + spin<Inner>(n / 2);
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], 0, 10) : 200;
	for (unsigned long r = 0; r < rounds; r++) {
		sink += outer<level6, level4>(1000000);
		sink += outer<level4, level1>(1000000);
	}
	return 0;
}
