// A stack buffer is the source of a pending copy when its block scope ends
// (llvm.lifetime.end): the copy would read bytes the next scope reuses.
// OPT-LEVELS: -O1 -O2
// EXPECT-STDERR: END OF SCOPE of the stack variable [
// EXPECT-STDERR: in enqueue
// EXPECT-STDERR: is located 0 bytes inside the source [
#include "../common.h"
__attribute__((noinline)) static void enqueue(char *dst, int rounds) {
  for (int r = 0; r < rounds; r++) {
    char msg[32768];
    memset(msg, 'a' + r, sizeof msg);
    use((long)msg);
    amemcpy(dst + r * sizeof msg, msg, sizeof msg);
  } /* BUG: scope-end-before-csync */
  csync(dst, rounds * 32768);
}
int main(void) {
  char *dst = malloc(4 * 32768);
  enqueue(dst, 4);
  printf("%c\n", dst[0]);
  return 0;
}
