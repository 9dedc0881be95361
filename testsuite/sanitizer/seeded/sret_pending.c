// OPT-LEVELS: -O0 -O1 -O2
// A struct returned by value into the destination of a pending copy is a
// write-before-csync at the assignment's line. (Clang returns into a
// temporary through sret and copies it to *dst here; a C++ placement new
// `new (dst) S(make())` passes dst itself as the sret argument, which the
// pass checks at the call site: seeded/sret_placement.cc.)
#include "../common.h"
#define N 64
struct S { long a[N]; };
__attribute__((noinline)) static struct S make(long v) {
  struct S s;
  for (int i = 0; i < N; i++)
    s.a[i] = v + i;
  return s;
}
int main(void) {
  struct S *src = (struct S *)filled(sizeof(struct S), 'a');
  struct S *dst = malloc(sizeof *dst);
  amemcpy(dst, src, sizeof *dst);
  *dst = make(3); /* BUG: write-before-csync */
  csync_all();
  use(dst->a[1]);
  return 0;
}
