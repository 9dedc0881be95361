/* The executable of dso/ctor_lib.c: its instrumented exe_callback runs from
 * the library's constructor, before main and before the executable's
 * constructors. Prints 42; then a real copy checks the runtime still
 * tracks copies (a read of the pending destination is reported). */
#include "../common.h"
int lib_seen(void);
int exe_callback(const int *p) { return *p + 1; }
int main(int argc, char **argv) {
  printf("%d\n", lib_seen());
  if (argc > 1) {
    size_t n = 1 << 16;
    char *src = filled(n, 'a'), *dst = malloc(n);
    amemcpy(dst, src, n);
    use(dst[7]); /* BUG: read-before-csync */
    csync_all();
  }
  return 0;
}
