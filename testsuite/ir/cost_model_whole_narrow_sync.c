// OPTFLAGS: -copiergen-min-overlap=16
// EXPECT-ASYNC: no
// RUN-LEVELS: -O1 -O2
// The cost model counts a narrow sync over the whole destination (or
// source) as a whole-copy sync: memcmp (bcmp) or memchr over the copy's
// own pointer and length right after it wait for all of it, so the copy
// stays memcpy (missed remark NoOverlap before the call). (A write there
// reads the copy's source instead, absorb_write_pipe.c.) At -O0 the
// call's pointer is reloaded from its stack slot (another SSA value), so
// only -O1 and -O2 are run.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int copy_equals(char *dst, const char *src, const char *ref, size_t n) {
  memcpy(dst, src, n);
  return memcmp(dst, ref, n) == 0;
}

__attribute__((noinline)) long copy_out(int fd, const char *src, size_t n) {
  char *buf = malloc(n);
  if (!buf)
    return -1;
  memcpy(buf, src, n);
  const char *z = memchr(buf, fd + 'a', n);
  long w = z ? z - buf : -1;
  free(buf);
  return w;
}

int main(void) {
  size_t n = 50000;
  char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++)
    src[i] = (char)('a' + i % 26);
  int eq = copy_equals(dst, src, src, n);
  fflush(stdout);
  long w = copy_out(1, src, 26);
  printf("\n%d %ld %c\n", eq, w, dst[n - 1]);
  free(src);
  free(dst);
  return 0;
}
