// OPT-LEVELS: -O0 -O2
// A read past the end csync_ready_end returned is reported.
#include "../common.h"
const void *csync_ready_end(const void *addr, size_t n);
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  const char *end = csync_ready_end(dst, 1);
  long v = 0;
  for (const char *p = dst; p < end; p++)
    v += *p;
  v += *end; /* BUG: read-before-csync */
  use(v);
  csync_all();
  return 0;
}
