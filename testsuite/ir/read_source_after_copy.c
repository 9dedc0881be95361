// Reading the source of a pending memcpy needs no sync: memcpy's source
// and destination do not overlap, so a read proven inside [src, src + n)
// (ScalarEvolution: the loop index stays below n) cannot see a byte the
// copy writes, even when alias analysis cannot tell the two pointers apart
// (both are arguments). The checksum loop over the source overlaps the
// copy; the later read of the destination and the write to the source
// still sync. A memmove may overlap: reading its source still syncs.
// (Snapshot at -O1: the -O2 body is unrolled, whose exit test counts with
// another induction variable, and ScalarEvolution cannot bound the reads.)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long copy_and_checksum(char *dst, char *src, size_t n) {
  memcpy(dst, src, n);
  long s = 0;
  for (size_t i = 0; i < n; i++) s = s * 31 + src[i];
  s += dst[n / 2];
  src[0] = 'x';
  return s;
}

__attribute__((noinline)) long move_and_checksum(char *dst, const char *src, size_t n) {
  memmove(dst, src, n);
  long s = 0;
  for (size_t i = 0; i < n; i++) s = s * 31 + src[i];
  return s;
}

int main(void) {
  size_t n = 50000;
  char *buf = malloc(2 * n), *dst = malloc(n);
  for (size_t i = 0; i < 2 * n; i++) buf[i] = (char)(i % 101);
  long a = copy_and_checksum(dst, buf, n);
  long b = dst[0] + buf[0];
  /* Overlapping move: the source's second half is the destination's first. */
  long c = move_and_checksum(buf, buf + n / 2, n);
  printf("%ld %ld %ld\n", a, b, c);
  free(buf);
  free(dst);
  return 0;
}
