// Short constant-length comparisons of synced bytes right beside bytes of
// the same copy that are still pending (the inline shadow test reads past
// the compared bytes; the runtime's exact check must find them clean).
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  csync(dst, 17);
  long r = memcmp(dst + 2, src + 2, 15) + memcmp(dst + 1, src + 1, 16) + memcmp(dst, src, 8);
  r += memcmp(dst + 9, "bcdefga", 8) != 0; /* a bcmp */
  csync_all();
  use(r);
  return r == 1 ? 0 : 1;
}
