// A size-profile (-fprofile-use) program: `copy_short` only ever copies
// 16 to 215 bytes, `copy_long` copies about 1 MiB. Each copy is followed by
// a parse of its destination, so without a profile both are rewritten.
// Built with -fprofile-generate, run, merged and rebuilt with -fprofile-use,
// `copy_short` stays memcpy (remark ProfiledBelowThreshold) and
// `copy_long` still goes asynchronous.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) unsigned long copy_short(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  unsigned long h = 0;
  for (size_t i = 0; i < n; i++)
    h = h * 31 + (unsigned char)dst[i];
  return h;
}

__attribute__((noinline)) unsigned long copy_long(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  unsigned long h = 0;
  for (size_t i = 0; i < n; i += 64)
    h = h * 31 + (unsigned char)dst[i];
  return h;
}

int main(void) {
  size_t big = 1 << 20;
  char *src = malloc(big), *dst = malloc(big);
  if (!src || !dst)
    return 1;
  for (size_t i = 0; i < big; i++)
    src[i] = (char)(i * 7 + 3);
  unsigned long h = 0;
  for (int i = 0; i < 20000; i++)
    h += copy_short(dst, src + (i % 64), 16 + (size_t)(i % 200));
  for (int i = 0; i < 40; i++)
    h += copy_long(dst, src, big - (size_t)i * 4096);
  printf("%lu\n", h);
  free(src);
  free(dst);
  return 0;
}
