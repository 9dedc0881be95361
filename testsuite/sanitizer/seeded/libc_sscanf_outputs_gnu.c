// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O2
// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 5
// EXPECT-STDOUT: converted=5
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: (in a call to __isoc23_sscanf)
// EXPECT-STDERR: WRITE of size 8 at
// EXPECT-STDERR: (in a call to __isoc99_sscanf)
// EXPECT-STDERR: WRITE of size 8 at
// EXPECT-STDERR: (in a call to sscanf)
// EXPECT-STDERR: WRITE of size 24 at
// EXPECT-STDERR: to the source of a pending copy
// EXPECT-STDERR: WRITE of size 12 at
// sscanf outputs, the other names and forms: C23's __isoc23_sscanf
// (glibc >= 2.38 headers; older libcs lack it and the interceptor falls
// back to __isoc99_vsscanf), %ms (stores a malloc'd pointer: 8 bytes),
// the pre-C99 `sscanf` symbol with GNU's %as (the same), wide %ls (the
// wide string and its NUL, 4 bytes a character) and %3lc (3 wide chars).
#include "../common.h"
#include <wchar.h>
int __isoc23_sscanf(const char *s, const char *fmt, ...);
int gnu89_sscanf(const char *s, const char *fmt, ...) __asm__("sscanf");
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  char text[] = "17 hello";
  amemcpy(dst, src, n);
  int k = 0;
  k += __isoc23_sscanf(text, "%d", (int *)(dst + 8)); /* BUG: write-before-csync */
  k += sscanf(text, "%*d %ms", (char **)(dst + 16));
  k += gnu89_sscanf(text, "%*d %as", (char **)(dst + 32));
  k += sscanf(text, "%*d %ls", (wchar_t *)(src + 64)); /* a pending source */
  k += sscanf(text, "%*d %3lc", (wchar_t *)(dst + 128));
  csync_all();
  /* The copy has now overwritten the outputs (the bug reported): the
   * pointers %ms/%as stored are gone, their blocks leak. */
  printf("converted=%d\n", k);
  return 0;
}
