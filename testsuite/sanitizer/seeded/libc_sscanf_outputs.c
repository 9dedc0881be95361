// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O2
// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 10
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: (in a call to __isoc99_sscanf)
// EXPECT-STDERR: WRITE of size 6 at
// EXPECT-STDERR: to the source of a pending copy
// EXPECT-STDERR: WRITE of size 5 at
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: WRITE of size 8 at
// EXPECT-STDERR: WRITE of size 1 at
// EXPECT-STDERR: WRITE of size 8 at
// EXPECT-STDERR: (in a call to __isoc99_vsscanf)
// EXPECT-STDERR: WRITE of size 2 at
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: to the source of a pending copy
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: to the source of a pending copy (in a call to __isoc99_sscanf)
// The outputs of the sscanf family are writes (as ASan's scanf
// interceptor checks them): each call below stores one output into a
// pending destination or source, from a string that is not pending
// (strings go into the source: the copy does not overwrite them before
// the check measures them). Each output is checked over the bytes it stored: %d
// 4, %s the string and its NUL, %5c 5, %n 4, %lf 8, %hhd 1, vsscanf's %ld
// 8, %hn 2, %[ the string and its NUL. Conversions that did not happen
// (after the first failure) and suppressed ones (%*d) are not checked.
// Each call is on its own line (halt_on_error=0 reports a line once).
#include "../common.h"
#include <stdarg.h>
static int vscan(const char *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsscanf(s, fmt, ap);
  va_end(ap);
  return r;
}
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  /*           0  3     9        18  22 24        34 */
  char text[] = "17 hello abcdefgh 2.5 9 123456789 xyz,rest";
  char local[16];
  amemcpy(dst, src, n);
  int k = 0;
  k += sscanf(text, "%d", (int *)(dst + 8)); /* BUG: write-before-csync */
  k += sscanf(text, "%*d %s", src + 200);
  k += sscanf(text + 9, "%5c", dst + 200);
  k += sscanf(text, "%*d%n", (int *)(dst + 300));
  k += sscanf(text + 18, "%lf", (double *)(dst + 400));
  k += sscanf(text + 22, "%hhd", (signed char *)(dst + 500));
  k += vscan(text + 24, "%ld", (long *)(dst + 600));
  k += sscanf(text + 34, "%[a-z]%hn", local, (short *)(dst + 900));
  k += sscanf(text + 34, "%[a-z]", src + 300);
  k += sscanf(text + 34, "%[a-z],%d", src + 100, (int *)(dst + 1000)); /* %d fails: not checked */
  k += sscanf(text, "%*d %d", (int *)(dst + 1100)); /* fails: nothing stored */
  k += sscanf(text + 34, "%3c%n", local, (int *)(local + 4)); /* not pending */
  csync_all();
  use(k);
  return 0;
}
