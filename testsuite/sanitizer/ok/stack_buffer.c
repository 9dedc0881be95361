// A copy into a stack buffer, synced before the frame returns.
#include "../common.h"
__attribute__((noinline)) static long parse(const char *src, size_t n) {
  char buf[32768];
  amemcpy(buf, src, n);
  csync(buf, n);
  long v = 0;
  for (size_t i = 0; i < n; i += 100)
    v += buf[i];
  return v;
}
int main(void) {
  char *src = filled(32768, 'a');
  long v = 0;
  for (int i = 0; i < 4; i++)
    v += parse(src, 32768);
  printf("%ld\n", v);
  return 0;
}
