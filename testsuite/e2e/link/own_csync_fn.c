// The program defines its own function `csync` with libcopier's type (a
// "cache sync" of its own). copiergen cc builds the program clang builds,
// without a warning: the user's csync is the one that runs, and the pass's
// waits are libcopier's `__copier_csync` (see var_csync.c).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int csync_calls = 0;

void csync(void *p, size_t n) {
  (void)p;
  (void)n;
  csync_calls++;
}

int main(int argc, char **argv) {
  (void)argv;
  size_t n = ((size_t)1 << 22) + (size_t)argc;
  unsigned char *src = malloc(n), *dst = malloc(n);
  if (!src || !dst)
    return 1;
  for (size_t i = 0; i < n; i++)
    src[i] = (unsigned char)(i * 7 + 1);
  memcpy(dst, src, n);
  unsigned long s = 0;
  for (size_t i = n; i-- > 0;)
    s = s * 31 + dst[i];
  csync(dst, n);
  printf("%lu %d\n", s, csync_calls);
  free(src);
  free(dst);
  return 0;
}
