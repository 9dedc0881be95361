// Variable-length copies that what is left of their destination's or
// source's object bounds below the threshold (16 KiB) stay memcpy (missed
// remark BelowThreshold, naming the object bound): into a 2 KiB stack
// buffer, into the upper half of it, out of a 4 KiB constant table. A
// 64 KiB global destination does not bound the copy below the threshold:
// rewritten, as is a copy between heap buffers of unknown size.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char table[4096] = {1, 2, 3};
static char big[1 << 16];

__attribute__((noinline)) long sum(const char *p, size_t n) {
  long s = 0;
  for (size_t i = 0; i < n; i++)
    s += p[i];
  return s;
}

long into_stack(const char *src, size_t n) {
  char buf[2048];
  memcpy(buf, src, n);
  return sum(buf, 64);
}

long into_stack_half(const char *src, size_t n) {
  char buf[2048];
  memset(buf, 0, 1024);
  memcpy(buf + 1024, src, n);
  return sum(buf, 1088);
}

long out_of_table(char *dst, size_t n) {
  memcpy(dst, table, n);
  return sum(dst, 64);
}

long into_global(const char *src, size_t n) {
  memcpy(big, src, n);
  return sum(big, 64);
}

long heap(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  return sum(dst, 64);
}

int main(int argc, char **argv) {
  (void)argv;
  size_t n = 1 << 17;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++)
    src[i] = (char)(i * 13 + 1);
  size_t k = 1000 + (size_t)argc;
  long s = into_stack(src, k) + into_stack_half(src + 1, k) + out_of_table(dst, 4096) +
           into_global(src + 2, sizeof big) + heap(dst, src + 3, n - 3);
  printf("%ld\n", s);
  free(src);
  free(dst);
  return 0;
}
