// Variable lengths, including 0 and 1, go to amemcpy (the runtime copies
// short ones inline); the result is the same for every length.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) unsigned copy_and_hash(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  unsigned h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)dst[i]) * 16777619u;
  return h;
}

int main(void) {
  size_t lens[] = {0, 1, 7, 64, 4095, 4096, 4097, 65536, 100003};
  char *src = malloc(100003), *dst = malloc(100003);
  for (size_t i = 0; i < 100003; i++) src[i] = (char)(i * 3);
  for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
    memset(dst, 0, 100003);
    printf("%zu %u\n", lens[k], copy_and_hash(dst, src, lens[k]));
  }
  free(src);
  free(dst);
  return 0;
}
