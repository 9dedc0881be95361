// A lazy copy's destination went to the kernel (copier_write), but is
// freed without copier_drop or csync: the copy may still write it.
// CHECKED-BY: interceptor
#include "../common.h"
#include <copier.h>
#include <unistd.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  int p[2];
  if (pipe(p) != 0)
    return 2;
  amemcpy_lazy(dst, src, n);
  if (copier_write(p[1], dst, 4096) != 4096)
    return 3;
  free(dst); /* BUG: free-before-csync */
  return 0;
}
