// B copies from A's pending destination (legal), A's source is reused
// after A's destination is synced, and everything is read after its csync.
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *a_src = filled(n, 'a'), *a_dst = malloc(n), *b_dst = malloc(n);
  amemcpy(a_dst, a_src, n);
  amemcpy(b_dst, a_dst, n);
  csync(a_dst, n);
  a_src[0] = 'q';
  csync(b_dst, n);
  a_dst[0] = 'r'; /* B has read a_dst completely: writing it is fine */
  printf("%d %d\n", b_dst[0] == 'a', a_dst[1] == b_dst[1]);
  return 0;
}
