// OPT-LEVELS: -O1 -O2
// REWRITE: copiergen
// EXPECT-STDERR: memcpy: memory ranges [
// EXPECT-STDERR: overlap in [
// The program's own memcpy between overlapping ranges, which CopierGen
// made asynchronous: reported as that memcpy, at its line in main (not at
// the runtime's site entry point, not as an amemcpy the program never
// wrote), as the same bug in a hand-written amemcpy is (overlap_amemcpy.c).
#include "../common.h"
int main(int argc, char **argv) {
  (void)argv;
  size_t n = 1 << 20;
  char *b = filled(n + 4096, 'a');
  char *d = b + 1000 * argc;
  memcpy(d, b, n); /* BUG: memcpy-param-overlap */
  printf("%d\n", d[5]);
  free(b);
  return 0;
}
