/* CopierSanitizer: interceptors of parsers that are C-variadic or return a
 * type Rust cannot spell (see num.rs for the rule of what they read).
 *
 * sscanf family: glibc's vsscanf sizes its input with rawmemchr(s, 0)
 * before it converts anything (libio/iovsscanf.c, _IO_str_init_static_internal
 * with size 0), so the whole string, NUL included, is read. The
 * destinations of the conversions are not checked. <stdio.h> is not
 * included: it renames sscanf to __isoc99_sscanf, which is defined here too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>

void __copier_san_intercept_check(const void *p, size_t n, int is_write, const char *name);
void __copier_san_parsed(const char *name, const char *s, char *end, char **endptr);

#define REAL(type, name)                                                   \
  static type real_##name;                                                 \
  if (!real_##name)                                                        \
    real_##name = (type)dlsym(RTLD_NEXT, #name);

static size_t __copier_san_scan_strlen(const char *s) {
  size_t n = 0;
  while (((const volatile char *)s)[n])
    n++;
  return n;
}

typedef long double (*strtold_t)(const char *, char **);
long double strtold(const char *s, char **endptr) {
  REAL(strtold_t, strtold);
  char *end = 0;
  long double r = real_strtold(s, &end);
  __copier_san_parsed("strtold", s, end, endptr);
  return r;
}

typedef int (*vsscanf_t)(const char *, const char *, va_list);
#define SCAN(name, vname)                                                  \
  int vname(const char *s, const char *fmt, va_list ap) {                  \
    REAL(vsscanf_t, vname);                                                \
    __copier_san_intercept_check(s, __copier_san_scan_strlen(s) + 1, 0, #vname); \
    return real_##vname(s, fmt, ap);                                       \
  }                                                                        \
  int name(const char *s, const char *fmt, ...) {                          \
    REAL(vsscanf_t, vname);                                                \
    __copier_san_intercept_check(s, __copier_san_scan_strlen(s) + 1, 0, #name); \
    va_list ap;                                                            \
    va_start(ap, fmt);                                                     \
    int r = real_##vname(s, fmt, ap);                                      \
    va_end(ap);                                                            \
    return r;                                                              \
  }

SCAN(sscanf, vsscanf)
SCAN(__isoc99_sscanf, __isoc99_vsscanf)
