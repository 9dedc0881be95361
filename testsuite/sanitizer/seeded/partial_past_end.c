// A partial csync covers [0, 100): the byte just past it is still pending.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  csync(dst, 100);
  long v = 0;
  for (int i = 0; i < 100; i++)
    v += dst[i];
  v += dst[100]; /* BUG: read-before-csync */
  use(v);
  return 0;
}
