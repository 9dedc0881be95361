// Copies in a loop that reuse one buffer: each iteration's copy is synced
// (narrowly) by the reads of that iteration; the next copy into the same
// buffer is ordered by libcopier itself.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long checksum_chunks(const char *src, size_t total, size_t chunk) {
  char *buf = malloc(chunk);
  long sum = 0;
  for (size_t off = 0; off + chunk <= total; off += chunk) {
    memcpy(buf, src + off, chunk);
    for (size_t i = 0; i < chunk; i += 64) sum = sum * 31 + buf[i];
  }
  free(buf);
  return sum;
}

int main(void) {
  size_t total = 1 << 20, chunk = 32768;
  char *src = malloc(total);
  for (size_t i = 0; i < total; i++) src[i] = (char)(i ^ (i >> 9));
  printf("%ld\n", checksum_chunks(src, total, chunk));
  free(src);
  return 0;
}
