// A C++ exception unwinds frames whose stack buffers a pending copy still
// writes: `work` has no cleanup (no landing pad, so no return check runs
// as it is unwound). The catch handler is reported, with the copy's stack,
// before the copy lands in stack the handler reuses.
// OPT-LEVELS: -O0 -O1 -O2
// EXPECT-STDERR: CATCH of an exception that unwound the stack frames that hold [
// EXPECT-STDERR: in main
// EXPECT-STDERR: is located 0 bytes inside the destination [
// EXPECT-STDERR: submitted by thread T0 here:
// EXPECT-STDERR: in work(char const*, int)
#include "../common.h"
#include <stdexcept>
__attribute__((noinline)) static void fail(int k) {
  if (k >= 0)
    throw std::runtime_error("stop");
}
__attribute__((noinline)) static void work(const char *s, int k) {
  char buf[65536];
  amemcpy(buf, s, sizeof buf);
  use((long)buf);
  fail(k);
}
__attribute__((noinline)) static long other(int k) {
  char tmp[65536];
  memset(tmp, k, sizeof tmp);
  use((long)tmp);
  return tmp[k];
}
int main(int argc, char **) {
  char *s = filled(65536, 'a');
  try {
    work(s, argc - 1); /* not a constant */
  } catch (const std::exception &e) { // BUG: return-before-csync
    for (int i = 0; i < 4; i++)
      use(other(i));
  }
  csync_all();
  return 0;
}
