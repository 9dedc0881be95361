// Wide and locale parsers on the csync'd part of copies whose other bytes
// are still pending: each stops at a character that is the last synced
// one (a wide NUL in bytes 196..199, a NUL at 199), so none may report.
#define _GNU_SOURCE
#include "../common.h"
#include <locale.h>
#include <wchar.h>
int main(void) {
  size_t n = 1 << 20;
  char *src = filled(n, 'z'), *dst = malloc(n);
  char *src2 = filled(n, 'z'), *dst2 = malloc(n);
  wcscpy((wchar_t *)(src + 180), L"  77"); /* 180..195, NUL 196..199 */
  strcpy(src2 + 196, "9.5");               /* 196..198, NUL 199 */
  locale_t loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  amemcpy(dst, src, n);
  amemcpy(dst2, src2, n);
  csync(dst, 200); /* bytes 200.. stay pending */
  csync(dst2, 200);
  wchar_t *we = NULL;
  long a = wcstol((wchar_t *)(dst + 180), &we, 10);
  long double b = wcstold((wchar_t *)(dst + 180), NULL);
  long c = wcstoll_l((wchar_t *)(dst + 180), NULL, 10, loc);
  double d = strtod_l(dst2 + 196, NULL, loc);
  long double e = strtold_l(dst2 + 196, NULL, loc);
  long f = strtoul_l(dst2 + 196, NULL, 10, loc);
  printf("%ld %.1Lf %ld %.1f %.1Lf %ld\n", a, b, c, d, e, f);
  int good = a == 77 && b == 77 && c == 77 && d == 9.5 && e == 9.5 && f == 9 && *we == 0;
  csync_all();
  freelocale(loc);
  free(src);
  free(dst);
  free(src2);
  free(dst2);
  return !good;
}
