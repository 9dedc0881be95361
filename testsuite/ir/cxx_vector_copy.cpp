// C++ containers: a std::vector<char> copy (a memmove/memcpy inside
// libstdc++'s inline code) and std::copy into a vector, then iteration.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

__attribute__((noinline)) long clone_and_sum(const std::vector<char> &in) {
  std::vector<char> copy(in);
  return std::accumulate(copy.begin(), copy.end(), 0L);
}

__attribute__((noinline)) long copy_into(std::vector<int> &out, const std::vector<int> &in) {
  std::copy(in.begin(), in.end(), out.begin());
  long s = 0;
  for (int v : out) s += v;
  return s;
}

int main() {
  std::vector<char> a(70000);
  for (size_t i = 0; i < a.size(); i++) a[i] = static_cast<char>(i % 101);
  std::vector<int> x(30000), y(30000);
  std::iota(x.begin(), x.end(), -15000);
  std::printf("%ld %ld\n", clone_and_sum(a), copy_into(y, x));
  return 0;
}
