// OPT-LEVELS: -O0 -O1 -O2
// C++17 guaranteed copy elision: `new (dst) S(make(3))` passes dst itself
// as make's sret argument, so the callee writes the pending destination on
// the call's behalf. The pass checks the sret argument at the call site:
// write-before-csync at the new-expression's line.
#include <new>
#include "../common.h"
struct S { long a[64]; };
__attribute__((noinline)) static S make(long v) {
  S s;
  for (int i = 0; i < 64; i++)
    s.a[i] = v + i;
  return s;
}
int main() {
  S *src = reinterpret_cast<S *>(filled(sizeof(S), 'a'));
  void *dst = malloc(sizeof(S));
  amemcpy(dst, src, sizeof(S));
  S *p = new (dst) S(make(3)); /* BUG: write-before-csync */
  csync_all();
  use(p->a[1]);
  return 0;
}
