// A copy into a stack buffer followed by a call to a function the pass
// cannot rely on (a weak definition: another body may run): the buffer does
// not escape, but the call might leave the frame (longjmp) while the copy
// still writes the stack, so the copy is synced before it (missed remark
// ConservativeSync says so).
#include <stdio.h>
#include <string.h>

__attribute__((noinline, weak)) void external_step(int i) { printf("step %d\n", i); }

__attribute__((noinline)) int stack_copy(const char *src, size_t n) {
  char buf[20000];
  if (n > sizeof buf)
    n = sizeof buf;
  memcpy(buf, src, n);
  external_step(1);
  return buf[n - 1];
}

int main(void) {
  static char src[20000];
  for (int i = 0; i < 20000; i++) src[i] = (char)(i % 33);
  printf("%d\n", stack_copy(src, 20000));
  return 0;
}
