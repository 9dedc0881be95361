// OPT-LEVELS: -O0 -O1 -O2
// A variable-length array is the source of a pending copy when its loop
// scope ends (llvm.stackrestore frees it): the copy would read bytes the
// next iteration's array reuses.
// EXPECT-STDERR: END OF SCOPE of the stack variable [
// EXPECT-STDERR: in enqueue
// EXPECT-STDERR: is located 0 bytes inside the source [
#include "../common.h"
__attribute__((noinline)) static void enqueue(char *dst, int rounds, size_t n) {
  for (int r = 0; r < rounds; r++) {
    char msg[n];
    memset(msg, 'a' + r, n);
    use((long)msg);
    amemcpy(dst + r * n, msg, n);
  } /* BUG: scope-end-before-csync */
  csync(dst, rounds * n);
}
int main(int argc, char **argv) {
  (void)argv;
  size_t n = 32767 + (size_t)argc; /* not a constant */
  char *dst = malloc(4 * n);
  enqueue(dst, 4, n);
  printf("%c\n", dst[0]);
  return 0;
}
