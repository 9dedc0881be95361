// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O2
// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 9
// EXPECT-STDERR: READ of size 24 at
// EXPECT-STDERR: (in a call to wcstol)
// EXPECT-STDERR: READ of size 20 at
// EXPECT-STDERR: (in a call to wcstoull)
// EXPECT-STDERR: READ of size 24 at
// EXPECT-STDERR: (in a call to wcstod)
// EXPECT-STDERR: READ of size 16 at
// EXPECT-STDERR: (in a call to wcstold)
// EXPECT-STDERR: READ of size 16 at
// EXPECT-STDERR: (in a call to wcstof)
// EXPECT-STDERR: READ of size 12 at
// EXPECT-STDERR: (in a call to wcstol_l)
// EXPECT-STDERR: READ of size 4 at
// EXPECT-STDERR: (in a call to strtol_l)
// EXPECT-STDERR: READ of size 5 at
// EXPECT-STDERR: (in a call to strtod_l)
// EXPECT-STDERR: READ of size 4 at
// EXPECT-STDERR: (in a call to strtold_l)
// Wide-string parsers and the parsers with an explicit locale read a
// pending destination. Each reads [s, end] (the character it stopped at
// included), in wchar_t units for the wide ones: L"  -42x" is 6
// characters, 24 bytes.
#define _GNU_SOURCE
#include "../common.h"
#include <locale.h>
#include <wchar.h>
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  wcscpy((wchar_t *)(src + 64), L"  -42x");
  wcscpy((wchar_t *)(src + 128), L"0x1fg");
  wcscpy((wchar_t *)(src + 192), L"2.5e3;");
  wcscpy((wchar_t *)(src + 256), L"1.5 ");
  wcscpy((wchar_t *)(src + 320), L"3.5");
  wcscpy((wchar_t *)(src + 384), L"99 ");
  strcpy(src + 448, "123z");
  strcpy(src + 512, "4.25!");
  strcpy(src + 576, "7e1,");
  locale_t loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  memcpy(dst, src, n); /* the same bytes whether or not the copy ran yet */
  amemcpy(dst, src, n);
  wchar_t *we = NULL;
  char *e = NULL;
  long double s = 0;
  s += wcstol((wchar_t *)(dst + 64), &we, 10); /* BUG: read-before-csync */
  s += wcstoull((wchar_t *)(dst + 128), NULL, 16);
  s += wcstod((wchar_t *)(dst + 192), NULL);
  s += wcstold((wchar_t *)(dst + 256), NULL);
  s += wcstof((wchar_t *)(dst + 320), NULL);
  s += wcstol_l((wchar_t *)(dst + 384), NULL, 10, loc);
  s += strtol_l(dst + 448, &e, 10, loc);
  s += strtod_l(dst + 512, NULL, loc);
  s += strtold_l(dst + 576, NULL, loc);
  csync_all();
  use((long)s + (long)(we != NULL) + (long)(e != NULL));
  freelocale(loc);
  return 0;
}
