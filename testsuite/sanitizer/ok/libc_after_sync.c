// libc functions touch the buffers only after their csync.
#include "../common.h"
#include <unistd.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n), *out = malloc(n);
  src[30] = 0;
  amemcpy(dst, src, n);
  csync(dst, 31);
  printf("%zu %s\n", strlen(dst), dst);
  memcpy(out, dst, 31);
  fputs(out, stdout);
  fputs("\n", stdout);
  csync(dst, n);
  snprintf(dst, 64, "%s-%d", "x", 5);
  puts(dst);
  fflush(stdout);
  ssize_t w = write(1, "ok\n", 3);
  return w == 3 ? 0 : 1;
}
