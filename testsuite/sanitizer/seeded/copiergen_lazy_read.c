// OPT-LEVELS: -O1 -O2
// REWRITE: copiergen
// As copiergen_chain_read.c where the memcpy's destination only goes to
// write() and is freed: CopierGen makes it a lazy copy (amemcpy_lazy,
// copier_write, copier_drop, as in ok/lazy_drop.c); its read of the
// program's pending destination is still the program's bug.
#include "../common.h"
#include <unistd.h>
__attribute__((noinline)) static long copy_write_free(int fd, const char *src, size_t n) {
  char *b = malloc(n);
  memcpy(b, src, n); /* BUG: read-before-csync */
  long r = write(fd, b, n);
  free(b);
  return r;
}
int main(void) {
  size_t n = 1 << 20, m = 64 * 1024;
  char *s = filled(n, 5), *d = calloc(n, 1);
  int p[2];
  if (pipe(p) != 0)
    return 2;
  amemcpy(d, s, n);
  if (copy_write_free(p[1], d, m) != (long)m)
    return 3;
  char got[16];
  if (read(p[0], got, sizeof got) != sizeof got)
    return 4;
  printf("%d\n", got[15]);
  csync_all();
  return 0;
}
