// CFLAGS: -O0
// EXPECT-ASYNC: no
// A constant zero-length copy stays synchronous (below the threshold, missed
// remark); -O0 keeps the call. Variable lengths that are zero at run time
// are covered by variable_length_copy.c.
#include <stdio.h>
#include <string.h>

char a[64], b[64];

__attribute__((noinline)) int zero_const(void) {
  memcpy(a, b, 0);
  return a[0];
}

int main(void) {
  b[0] = 5;
  a[0] = 9;
  printf("%d\n", zero_const());
  return 0;
}
