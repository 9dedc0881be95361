// Copy and csync at odd, unaligned offsets: bytes [3, 8) of the destination
// are synced; a 2-byte read at offset 7 covers synced byte 7 and pending
// byte 8, and must be reported (the shadow keeps every byte exact).
#include "../common.h"
#include <stdint.h>
int main(void) {
  size_t n = 20000;
  char *src = filled(n + 16, 'a'), *buf = malloc(n + 16);
  char *dst = buf + 1;
  amemcpy(dst, src + 3, n);
  csync(dst + 3, 5);
  long v = dst[3] + dst[7];
  uint16_t w;
  memcpy(&w, dst + 7, 2); /* BUG: read-before-csync */
  use(v + w);
  return 0;
}
