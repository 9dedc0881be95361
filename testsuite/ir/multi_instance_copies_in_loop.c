// A loop submits one copy per iteration into different chunks and nothing
// reads them inside the loop: several instances of the same copy may be
// pending at once, so the sync before the use and the return is csync_all.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long gather(char *dst, char *const *parts, size_t nparts, size_t part) {
  for (size_t i = 0; i < nparts; i++) memcpy(dst + i * part, parts[i], part);
  long s = 0;
  for (size_t i = 0; i < nparts * part; i += 1000) s += dst[i];
  return s;
}

int main(void) {
  size_t nparts = 8, part = 20000;
  char *parts[8];
  for (size_t i = 0; i < nparts; i++) {
    parts[i] = malloc(part);
    memset(parts[i], (int)(i + 1), part);
  }
  char *dst = malloc(nparts * part);
  printf("%ld\n", gather(dst, parts, nparts, part));
  for (size_t i = 0; i < nparts; i++) free(parts[i]);
  free(dst);
  return 0;
}
