// copier_submit with overlapping destination and source: only
// amemmove (COPIER_MOVE) allows overlap. Reported at the submit, with both
// ranges and the submit stack.
// EXPECT-STDERR: memory ranges [
// EXPECT-STDERR: overlap in [
// EXPECT-STDERR: submitted by thread T0 here:
#include "../common.h"
#include <copier.h>
static void done(void *arg) { (void)arg; }
int main(void) {
  size_t n = 1 << 20;
  char *a = filled(n + 4096, 'a');
  (void)done;
  copier_submit(a + 4096, a, n, 0, NULL, NULL); /* BUG: memcpy-param-overlap */
  csync_all();
  free(a);
  return 0;
}
