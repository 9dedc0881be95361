// Number parsers on the synced part of a copy whose other bytes are still
// pending: each reads only up to (and including) the character it stopped
// at, so none of them may report. sscanf reads its whole string (glibc
// finds the NUL first): that string ends inside the synced range too.
#include "../common.h"
#include <stdlib.h>
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'z'), *dst = malloc(n);
  strcpy(src + 100, "  -42x");
  strcpy(src + 120, "0x1fg");
  strcpy(src + 140, "2.5e3;");
  memcpy(src + 160, "17 23", 6);
  amemcpy(dst, src, n);
  csync(dst, 200); /* bytes 200.. stay pending */
  char *end = NULL;
  long a = strtol(dst + 100, &end, 10);
  long b = (long)strtoul(dst + 120, NULL, 16);
  long c = atoi(dst + 100) + atol(dst + 100) + (long)atof(dst + 140);
  double d = strtod(dst + 140, NULL);
  int x = 0, y = 0;
  int k = sscanf(dst + 160, "%d %d", &x, &y);
  printf("%ld %ld %ld %.1f %d %d %d %c\n", a, b, c, d, k, x, y, *end);
  int good = a == -42 && b == 0x1f && d == 2500.0 && k == 2 && x == 17 && y == 23 && *end == 'x';
  csync_all();
  free(src);
  free(dst);
  return !good;
}
