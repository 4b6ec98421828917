// tdkit test program: C++ names perf demangles (templates, namespaces,
// anonymous namespaces, operators, lambdas, std::function, std::map).
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace geo {
template <class T> struct Vec {
	T x, y;
	Vec operator+(const Vec &o) const { return {x + o.x, y + o.y}; }
	T dot(const Vec &o) const { return x * o.x + y * o.y; }
};
} // namespace geo

namespace {
struct Counter {
	std::map<std::string, long> seen;
	void operator()(const std::string &k) { seen[k]++; }
};
double accumulate_dots(int n)
{
	geo::Vec<double> acc{0, 0}, step{0.5, 0.25};
	double s = 0;
	for (int i = 0; i < n; i++) {
		acc = acc + step;
		s += acc.dot(step);
	}
	return s;
}
} // namespace

template <class F> long apply_n(F f, int n)
{
	long r = 0;
	for (int i = 0; i < n; i++)
		r += f(i);
	return r;
}

int main()
{
	Counter c;
	std::function<long(int)> sq = [](int i) { return (long)i * i % 7; };
	long total = 0;
	for (int round = 0; round < 60; round++) {
		for (int i = 0; i < 20000; i++)
			c(std::to_string(i % 500));
		total += apply_n(sq, 200000);
		total += (long)accumulate_dots(200000);
		std::vector<int> v(50000);
		for (size_t i = 0; i < v.size(); i++)
			v[i] = (int)((i * 2654435761u) % 100000);
		std::sort(v.begin(), v.end());
		total += v[v.size() / 2];
	}
	return (int)(total & 1);
}
