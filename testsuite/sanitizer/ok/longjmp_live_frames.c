// Copies left pending across a longjmp into memory the jump does not
// abandon: the setjmp caller's own array (live after the jump, synced
// there), an array of a frame above it, and the heap; and copies into
// the abandoned frames that were synced before the jump. Only
// [stack pointer at the jump, stack pointer at the setjmp) dies. None may
// report.
#include "../common.h"
#include <setjmp.h>
static jmp_buf env;
__attribute__((noinline)) static void deep(char *heap, const char *s, int depth) {
  char scratch[8192];
  amemcpy(scratch, s, sizeof scratch);
  csync(scratch, sizeof scratch); /* synced before the jump */
  amemcpy(heap, scratch, sizeof scratch);
  csync(scratch, sizeof scratch); /* the source is free again; heap stays pending */
  if (depth == 0)
    longjmp(env, 1);
  deep(heap + 8192, s, depth - 1);
}
__attribute__((noinline)) static long middle(char *outer, const char *s, char *heap) {
  char mine[16384];
  amemcpy(mine, s, sizeof mine);      /* pending across the jump back to here */
  amemcpy(outer, s, 16384);           /* into the caller's frame */
  if (setjmp(env) == 0)
    deep(heap, s, 3);
  csync(mine, sizeof mine);
  return mine[7];
}
int main(void) {
  char *s = filled(65536, 'j'), *heap = malloc(4 * 8192);
  char outer[16384];
  long v = middle(outer, s, heap);
  csync_all();
  int good = v == s[7] && outer[100] == s[100] && heap[3 * 8192 + 5] == s[5];
  printf("%ld %s\n", v, good ? "ok" : "wrong");
  free(s);
  free(heap);
  return !good;
}
