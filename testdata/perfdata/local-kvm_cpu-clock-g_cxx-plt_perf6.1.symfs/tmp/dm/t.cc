#include <vector>
#include <map>
#include <string>
namespace ns { template<class T> struct Box { T v; T get(int k) const { volatile T x=v; for(int i=0;i<k;i++) x = x+v; return x; } }; }
std::map<std::string,int> m;
__attribute__((noinline)) long work(int n){ long s=0; ns::Box<long> b{3}; for(int i=0;i<n;i++){ s+=b.get(1000); m[std::to_string(i%100)]++; } return s; }
int main(){ return (int)work(200000) & 1; }
