// memmove within one buffer (overlapping ranges) becomes amemmove; reads of
// the moved region wait for it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long shift(char *buf, size_t n, size_t by) {
  memmove(buf + by, buf, n - by);
  long s = 0;
  for (size_t i = 0; i < n; i += 97) s += buf[i] * (long)i;
  return s;
}

__attribute__((noinline)) long shift_down(char *buf, size_t n, size_t by) {
  memmove(buf, buf + by, n - by);
  return buf[0] + buf[n - by - 1];
}

int main(void) {
  size_t n = 70000;
  char *buf = malloc(n);
  for (size_t i = 0; i < n; i++) buf[i] = (char)(i % 127);
  printf("%ld\n", shift(buf, n, 1000));
  printf("%ld\n", shift_down(buf, n, 333));
  free(buf);
  return 0;
}
