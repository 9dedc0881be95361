// memset (the llvm.memset intrinsic) over a pending destination.
#include "../common.h"
int main(int argc, char **argv) {
  size_t n = 64 * 1024;
  (void)argv;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  memset(dst + 1000, 0, 100 + argc); /* BUG: write-before-csync */
  return 0;
}
