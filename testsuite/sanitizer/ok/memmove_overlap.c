// amemmove within one buffer (overlapping ranges), then csync and read.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *buf = filled(2 * n, 'a');
  amemmove(buf + 1000, buf, n);
  csync(buf + 1000, n);
  csync(buf, n);
  printf("%d\n", buf[1000] == 'a');
  free(buf);
  return 0;
}
