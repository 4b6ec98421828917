// tdkit test program: C++ at -O2 without frame pointers (templates, lambdas,
// inlining, std algorithms) for --call-graph dwarf recordings.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace geo {
template <typename T> struct Vec {
	T x, y, z;
	Vec operator+(const Vec &o) const { return { x + o.x, y + o.y, z + o.z }; }
	T dot(const Vec &o) const { return x * o.x + y * o.y + z * o.z; }
};

template <typename T> T energy(const std::vector<Vec<T>> &pts)
{
	T e = 0;
	for (size_t i = 0; i < pts.size(); i++)
		for (size_t j = i + 1; j < pts.size(); j++)
			e += (pts[i] + pts[j]).dot(pts[j]);
	return e;
}
} // namespace geo

namespace {
struct Registry {
	std::map<std::string, int> counts;
	void bump(const std::string &k) { counts[k]++; }
};

__attribute__((noinline)) void fill_words(Registry &r, int n)
{
	char buf[32];
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof buf, "w%d", (i * 7919) % 997);
		r.bump(buf);
	}
}
} // namespace

__attribute__((noinline)) double run_lambdas(int n)
{
	std::vector<std::function<double(double)>> fs;
	double k = 1.5;
	fs.push_back([k](double v) { return v * k; });
	fs.push_back([](double v) { return v + 1.0; });
	double acc = 0;
	for (int i = 0; i < n; i++)
		acc = fs[i % 2](acc + i) / 1.0000001;
	return acc;
}

template <typename T> __attribute__((noinline)) T sorted_median(std::vector<T> v)
{
	std::sort(v.begin(), v.end(), [](const T &a, const T &b) { return a > b; });
	return v[v.size() / 2];
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	double total = 0;
	Registry reg;
	for (int r = 0; r < rounds; r++) {
		std::vector<geo::Vec<double>> pts;
		for (int i = 0; i < 700; i++)
			pts.push_back({ i * 0.5, r * 0.25, (i ^ r) * 0.125 });
		total += geo::energy(pts);
		fill_words(reg, 20000);
		total += run_lambdas(200000);
		std::vector<int> v;
		for (int i = 0; i < 100000; i++)
			v.push_back((i * 2654435761u) >> 7);
		total += sorted_median(v);
	}
	printf("%g %zu\n", total, reg.counts.size());
	return 0;
}
