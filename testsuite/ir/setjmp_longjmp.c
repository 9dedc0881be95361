// CFLAGS: -O0
// RUN-LEVELS: -O0
// A copy into a stack buffer, then a call that may longjmp out of the
// frame: the pending copy is synced before the call (it may not return
// normally), so the dead frame is never written. -O0 only: clang-22 at -O2
// may drop writes between setjmp and longjmp (LLVM issue 57110).
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf env;

__attribute__((noinline)) void bail(int x) {
  if (x)
    longjmp(env, x);
}

__attribute__((noinline)) int work(const char *src, size_t n, int fail) {
  char local[32768];
  memcpy(local, src, n);
  bail(fail);
  return local[0] + local[n - 1];
}

int main(void) {
  size_t n = 32768;
  char *src = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (char)(i % 61);
  volatile int result = 0;
  int code = setjmp(env);
  if (code == 0) {
    result = work(src, n, 0);
    result += work(src, n, 7);
  }
  printf("%d %d\n", result, code);
  free(src);
  return 0;
}
