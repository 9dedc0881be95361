// Accesses reach the destination through pointer casts, GEPs with constant
// and variable offsets, and a struct member view: each is recognised as
// touching the destination (alias analysis follows the pointer arithmetic).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct header {
  uint32_t magic;
  uint16_t kind;
  uint16_t count;
};

__attribute__((noinline)) uint64_t decode(unsigned char *dst, const unsigned char *src, size_t n, size_t k) {
  memcpy(dst, src, n);
  const struct header *h = (const struct header *)dst;
  uint64_t v = h->magic;
  v += *(const uint16_t *)(dst + 4);
  v += ((const uint32_t *)(dst + 64))[k];
  v += *(const uint64_t *)(void *)(dst + n - 8);
  return v;
}

int main(void) {
  size_t n = 65536;
  unsigned char *src = malloc(n), *dst = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (unsigned char)(i * 13 + 1);
  printf("%llu\n", (unsigned long long)decode(dst, src, n, 100));
  free(src);
  free(dst);
  return 0;
}
