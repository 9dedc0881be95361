// strspn/strcspn/strpbrk/strcasecmp/strncasecmp/strcoll/memrchr touch a
// copied buffer only after its csync, or only its csync'd part.
#define _GNU_SOURCE
#include "../common.h"
#include <strings.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n), *set = malloc(8), *other = malloc(16);
  src[200] = 'z';
  src[300] = 0;
  strcpy(set, "abcdefg");
  strcpy(other, "ABCDEFGH");
  amemcpy(dst, src, n);
  csync(dst, 301);
  /* Only the csync'd prefix is read (each stops at index <= 300). */
  long r = (long)strspn(dst, set) + (long)strcspn(dst, "z") + (long)(strpbrk(dst, "z") - dst);
  r += strcasecmp(dst, other) + strncasecmp(dst, other, 4) + strcoll(dst, "abc");
  r += (long)((char *)memrchr(dst, 'z', 301) - dst);
  csync_all();
  r += (long)((char *)memrchr(dst, 'b', n) - dst);
  printf("%ld\n", r);
  return 0;
}
