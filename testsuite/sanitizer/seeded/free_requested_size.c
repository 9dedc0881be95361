// CHECKED-BY: interceptor
// EXPECT-STDERR: ERROR: CopierSanitizer: free-before-csync on address
// EXPECT-STDERR: (1048577 bytes) in thread T0
// EXPECT-STDERR: FREE of 1048577 bytes at
// EXPECT-STDERR: HINT: csync the source (0x
// EXPECT-STDERR: , 1048577) or the copy's destination
// A free report states the size the program asked for (1 MiB + 1, an
// mmap'd chunk whose usable size is 1052656), as ASan's reports do.
#include "../common.h"
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n + 1, 'c'), *dst = malloc(n + 1);
  amemcpy(dst, src, n + 1);
  free(src); /* BUG: free-before-csync */
  csync_all();
  return 0;
}
