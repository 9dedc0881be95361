// read(2) into the source of a pending copy (interceptor):
// CHECKED-BY: interceptor
// source-write-before-csync.
#include "../common.h"
#include <fcntl.h>
#include <unistd.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  int fd = open("/dev/zero", O_RDONLY);
  amemcpy(dst, src, n);
  ssize_t r = read(fd, src + 10, 10); /* BUG: source-write-before-csync */
  use(r);
  return 0;
}
