// OPT-LEVELS: -O0 -O1 -O2
// A copy into an alloca() buffer left pending when its function returns.
// The buffer's size is a run-time value, and it is the first of three
// allocations made in a loop (the last one, which the IR's SSA value names,
// is not pending): the check covers the function's whole dynamic stack
// area, from the lowest live allocation to the frame.
// EXPECT-STDERR: RETURN from the function (frame #0) whose stack frame holds [
// EXPECT-STDERR: in fill
// EXPECT-STDERR: is located 0 bytes inside the destination [
// EXPECT-STDERR: submitted by thread T0 here:
// EXPECT-STDERR: in fill
#include "../common.h"
#include <alloca.h>
__attribute__((noinline)) static long fill(const char *s, size_t n, int parts) {
  long sum = 0;
  for (int i = 0; i < parts; i++) {
    char *buf = alloca(n);
    if (i == 0)
      amemcpy(buf, s, n);
    else
      memset(buf, i, n);
    use((long)buf);
    sum += i;
  }
  return sum; /* BUG: return-before-csync */
}
__attribute__((noinline)) static long other(int k) {
  char tmp[65536];
  memset(tmp, k, sizeof tmp);
  use((long)tmp);
  return tmp[k];
}
int main(int argc, char **argv) {
  (void)argv;
  size_t n = 65535 + (size_t)argc; /* not a constant */
  char *s = filled(n, 'a');
  use(fill(s, n, 3));
  for (int i = 0; i < 8; i++)
    use(other(i));
  csync_all();
  return 0;
}
