// A copy into a stack buffer, read before its csync.
#include "../common.h"
__attribute__((noinline)) static long parse(const char *src, size_t n) {
  char buf[32768];
  amemcpy(buf, src, n);
  long v = buf[3]; /* BUG: read-before-csync */
  csync(buf, n);
  return v;
}
int main(void) {
  char *src = filled(32768, 'a');
  use(parse(src, 32768));
  return 0;
}
