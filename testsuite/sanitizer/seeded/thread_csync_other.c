// A thread that csyncs another thread's pending copy before reading it:
// libcopier's csync waits for the calling thread's own copies only, so the
// read may see bytes the copy has not written yet. The csync releases
// nothing there, and the HINT names the submitting thread.
// EXPECT-THREAD: nonzero
// EXPECT-STDERR: HINT: csync the copy's destination in thread T0, which submitted it
#include "../common.h"
#include <pthread.h>
static void *reader(void *p) {
  char *d = p;
  csync(d + 123, 1);
  long v = d[123]; /* BUG: read-before-csync */
  use(v);
  return NULL;
}
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  pthread_t t;
  pthread_create(&t, NULL, reader, dst);
  pthread_join(t, NULL);
  csync(dst, n);
  return 0;
}
