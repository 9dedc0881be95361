// C++ exceptions thrown and caught while copies are pending into memory
// the unwinding does not abandon (the catching frame's own array, an
// array of its caller, the heap), and copies into the unwound frames that
// were synced before the throw; a rethrow (`throw;`) caught further up;
// an exception that unwinds through a frame with a cleanup. Only the
// stack between the throw and the handler dies. None may report.
#include "../common.h"
#include <stdexcept>
#include <string>
__attribute__((noinline)) static void deep(char *heap, const char *s, int depth) {
  char scratch[8192];
  amemcpy(scratch, s, sizeof scratch);
  csync(scratch, sizeof scratch); /* synced before the throw */
  amemcpy(heap, scratch, sizeof scratch);
  csync(scratch, sizeof scratch); /* the source is free again; heap stays pending */
  std::string guard(scratch, 16); /* a cleanup: this frame has a landing pad */
  if (depth == 0)
    throw std::runtime_error(guard);
  deep(heap + 8192, s, depth - 1);
}
__attribute__((noinline)) static long middle(char *outer, const char *s, char *heap) {
  char mine[16384];
  amemcpy(mine, s, sizeof mine); /* pending across the unwinding to here */
  amemcpy(outer, s, 16384);      /* into the caller's frame */
  long got = 0;
  try {
    try {
      deep(heap, s, 3);
    } catch (const std::exception &) {
      throw; /* rethrown, caught below */
    }
  } catch (const std::exception &e) {
    got = (long)std::string(e.what()).size();
  }
  csync(mine, sizeof mine);
  return got + mine[7];
}
int main() {
  char *s = filled(65536, 'e'), *heap = (char *)malloc(4 * 8192);
  char outer[16384];
  long v = middle(outer, s, heap);
  csync_all();
  int good = v == 16 + s[7] && outer[100] == s[100] && heap[3 * 8192 + 5] == s[5];
  printf("%ld %s\n", v, good ? "ok" : "wrong");
  free(s);
  free(heap);
  return !good;
}
