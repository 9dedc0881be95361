// Lazy copies whose destination only goes to the kernel: amemcpy_lazy (and
// an amemcpy made lazy by copier_write) dropped with copier_drop before
// the free, and a plain memcpy + write + free that CopierGen turns into
// the same (LazyCopy); nothing reads a destination before its csync or
// frees one before its copier_drop.
#include "../common.h"
#include <copier.h>
#include <unistd.h>
__attribute__((noinline)) static long copy_write_free(int fd, const char *src, size_t n) {
  char *b = malloc(n);
  memcpy(b, src, n);
  long r = write(fd, b, n);
  free(b);
  return r;
}
static long drain(int fd, size_t n) {
  static char got[1 << 16];
  long sum = 0;
  size_t off = 0;
  while (off < n) {
    ssize_t r = read(fd, got, n - off > sizeof got ? sizeof got : n - off);
    if (r <= 0)
      exit(3);
    for (ssize_t i = 0; i < r; i++)
      sum += got[i];
    off += (size_t)r;
  }
  return sum;
}
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a');
  int p[2];
  if (pipe(p) != 0)
    return 2;
  long sum = 0, sent = 0;
  for (int round = 0; round < 3; round++) {
    char *dst = malloc(n);
    amemcpy_lazy(dst, src, n);
    sent += copier_write(p[1], dst, n);
    sum += drain(p[0], n);
    copier_drop(dst, n);
    free(dst);
    dst = malloc(n);
    amemcpy(dst, src, n);
    sent += copier_write(p[1], dst, n);
    sum += drain(p[0], n);
    copier_drop(dst, n);
    free(dst);
    sent += copy_write_free(p[1], src, n);
    sum += drain(p[0], n);
  }
  printf("%ld %ld\n", sent, sum);
  free(src);
  return 0;
}
