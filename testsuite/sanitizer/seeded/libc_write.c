// write(2) reading a pending destination (interceptor).
// CHECKED-BY: interceptor
#include "../common.h"
#include <unistd.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  ssize_t r = write(1, dst, 16); /* BUG: read-before-csync */
  use(r);
  return 0;
}
