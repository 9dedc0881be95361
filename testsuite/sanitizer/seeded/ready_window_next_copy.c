// OPT-LEVELS: -O0 -O2
// csync_ready_end's window (wider under the sanitizer than the bytes asked
// for, so window loops stay fast) never reaches into another copy: the
// byte after the first copy's destination belongs to a second pending copy.
#include "../common.h"
const void *csync_ready_end(const void *addr, size_t n);
int main(void) {
  size_t n = 100;
  char *src = filled(2 * n, 'a'), *dst = malloc(2 * n);
  amemcpy(dst, src, n);
  amemcpy(dst + n, src + n, n);
  const char *end = csync_ready_end(dst + n - 1, 1);
  long v = dst[n - 1];
  if (end != dst + n)
    printf("window end %+td\n", end - (dst + n));
  v += dst[n]; /* BUG: read-before-csync */
  use(v);
  csync_all();
  return 0;
}
