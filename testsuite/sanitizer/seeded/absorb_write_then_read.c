// copier_write leaves the copy pending: the destination still needs its
// csync before the program reads it.
#include "../common.h"
#include <copier.h>
#include <unistd.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  int p[2];
  if (pipe(p) != 0)
    return 2;
  amemcpy(dst, src, n);
  if (copier_write(p[1], dst, 4096) != 4096)
    return 3;
  printf("%d\n", dst[7]); /* BUG: read-before-csync */
  return 0;
}
