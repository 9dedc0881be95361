// A copy into a stack buffer left pending when its function returns: the
// copy would land in a dead frame (the plain build crashes later, at pc 0).
// Reported when the frame dies, with the copy's submit stack.
// EXPECT-STDERR: RETURN from the function (frame #0) whose stack frame holds [
// EXPECT-STDERR: in fill
// EXPECT-STDERR: submitted by thread T0 here:
// EXPECT-STDERR: in fill
#include "../common.h"
__attribute__((noinline)) static void fill(const char *s) {
  char buf[65536];
  amemcpy(buf, s, sizeof buf);
} /* BUG: return-before-csync */
__attribute__((noinline)) static long other(int k) {
  char tmp[65536];
  memset(tmp, k, sizeof tmp);
  use((long)tmp);
  return tmp[k];
}
int main(void) {
  char *s = filled(65536, 'a');
  fill(s);
  for (int i = 0; i < 8; i++)
    use(other(i));
  csync_all();
  return 0;
}
