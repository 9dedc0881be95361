/* CopierSanitizer: printf-family interceptors (C, because they are
 * variadic). Each walks the format, checks every %s argument as a read of
 * the bytes printf will read, calls the real v* function found with
 * dlsym(RTLD_NEXT), and for the sprintf family checks the bytes written.
 * See mod.rs for how interception works. Compiled without builtins so the
 * compiler never turns these bodies into calls to themselves. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <wchar.h>

void __copier_san_intercept_check(const void *p, size_t n, int is_write, const char *name);

#define REAL(type, name)                                                   \
  static type real_##name;                                                 \
  if (!real_##name)                                                        \
    real_##name = (type)dlsym(RTLD_NEXT, #name);

/* Local string helpers: the library's own strlen/strchr are interceptors
 * and would report a pending string as their own access. Volatile reads keep
 * the compiler from turning the loops back into libc calls. */
static size_t __copier_san_strnlen(const char *s, size_t max) {
  size_t n = 0;
  while (n < max && ((const volatile char *)s)[n])
    n++;
  return n;
}
static int __copier_san_is_flag(char c) {
  return c == '-' || c == '+' || c == ' ' || c == '#' || c == '0' || c == '\'' || c == 'I';
}

/* Consume the arguments of `fmt` from `ap`, checking each %s string. Stops
 * at a positional argument (%1$s), which it does not follow. */
static void __copier_san_check_format(const char *name, const char *fmt, va_list ap) {
  for (const char *p = fmt; *p; p++) {
    if (*p != '%')
      continue;
    p++;
    if (*p == '%')
      continue;
    const char *q = p;
    while (*q >= '0' && *q <= '9')
      q++;
    if (*q == '$')
      return;
    while (*p && __copier_san_is_flag(*p))
      p++;
    if (*p == '*') {
      (void)va_arg(ap, int);
      p++;
    } else
      while (*p >= '0' && *p <= '9')
        p++;
    long prec = -1;
    if (*p == '.') {
      p++;
      if (*p == '*') {
        prec = va_arg(ap, int);
        p++;
      } else {
        prec = 0;
        while (*p >= '0' && *p <= '9')
          prec = prec * 10 + (*p++ - '0');
      }
    }
    int lng = 0, dbl_long = 0;
    for (;; p++) {
      if (*p == 'l')
        lng++;
      else if (*p == 'L' || *p == 'q')
        dbl_long = 1, lng = 2;
      else if (*p == 'h' || *p == 'j' || *p == 'z' || *p == 't')
        lng = (*p == 'h') ? lng : 2;
      else
        break;
    }
    switch (*p) {
    case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'c':
      if (lng >= 2 && *p != 'c')
        (void)va_arg(ap, long long);
      else
        (void)va_arg(ap, int);
      break;
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
      if (dbl_long)
        (void)va_arg(ap, long double);
      else
        (void)va_arg(ap, double);
      break;
    case 'p': case 'n': case 'S': case 'C':
      (void)va_arg(ap, void *);
      break;
    case 's': {
      const char *s = va_arg(ap, const char *);
      if (!s || lng)
        break;
      size_t n;
      if (prec >= 0) {
        n = __copier_san_strnlen(s, (size_t)prec);
        if (n < (size_t)prec)
          n++; /* the NUL was read too */
      } else
        n = __copier_san_strnlen(s, (size_t)-1) + 1;
      __copier_san_intercept_check(s, n, 0, name);
      break;
    }
    case 'm':
      break;
    case 0:
      return;
    default:
      return; /* unknown conversion: stop rather than misread arguments */
    }
  }
}

#define CHECK_FMT(name, fmt, ap)                                           \
  do {                                                                     \
    va_list aq;                                                            \
    va_copy(aq, ap);                                                       \
    __copier_san_check_format(name, fmt, aq);                                           \
    va_end(aq);                                                            \
  } while (0)

static void __copier_san_check_written(const char *name, char *s, size_t size, int r) {
  if (r < 0 || size == 0)
    return;
  size_t n = (size_t)r + 1;
  __copier_san_intercept_check(s, n < size ? n : size, 1, name);
}

typedef int (*vfprintf_t)(FILE *, const char *, va_list);
typedef int (*vprintf_t)(const char *, va_list);
typedef int (*vdprintf_t)(int, const char *, va_list);
typedef int (*vsprintf_t)(char *, const char *, va_list);
typedef int (*vsnprintf_t)(char *, size_t, const char *, va_list);
typedef int (*vfprintf_chk_t)(FILE *, int, const char *, va_list);
typedef int (*vprintf_chk_t)(int, const char *, va_list);
typedef int (*vdprintf_chk_t)(int, int, const char *, va_list);
typedef int (*vsprintf_chk_t)(char *, int, size_t, const char *, va_list);
typedef int (*vsnprintf_chk_t)(char *, size_t, int, size_t, const char *, va_list);

int vprintf(const char *fmt, va_list ap) {
  REAL(vprintf_t, vprintf);
  CHECK_FMT("vprintf", fmt, ap);
  return real_vprintf(fmt, ap);
}
int vfprintf(FILE *f, const char *fmt, va_list ap) {
  REAL(vfprintf_t, vfprintf);
  CHECK_FMT("vfprintf", fmt, ap);
  return real_vfprintf(f, fmt, ap);
}
int vdprintf(int fd, const char *fmt, va_list ap) {
  REAL(vdprintf_t, vdprintf);
  CHECK_FMT("vdprintf", fmt, ap);
  return real_vdprintf(fd, fmt, ap);
}
int vsprintf(char *s, const char *fmt, va_list ap) {
  REAL(vsprintf_t, vsprintf);
  CHECK_FMT("vsprintf", fmt, ap);
  int r = real_vsprintf(s, fmt, ap);
  __copier_san_check_written("vsprintf", s, (size_t)-1, r);
  return r;
}
int vsnprintf(char *s, size_t n, const char *fmt, va_list ap) {
  REAL(vsnprintf_t, vsnprintf);
  CHECK_FMT("vsnprintf", fmt, ap);
  int r = real_vsnprintf(s, n, fmt, ap);
  __copier_san_check_written("vsnprintf", s, n, r);
  return r;
}

#define VARIADIC(ret, decl, last, name, call_real)                          \
  ret decl {                                                               \
    va_list ap;                                                            \
    va_start(ap, last);                                                    \
    ret r = call_real;                                                     \
    va_end(ap);                                                            \
    return r;                                                              \
  }

static int __copier_san_do_vprintf(const char *name, const char *fmt, va_list ap) {
  REAL(vprintf_t, vprintf);
  CHECK_FMT(name, fmt, ap);
  return real_vprintf(fmt, ap);
}
static int __copier_san_do_vfprintf(const char *name, FILE *f, const char *fmt, va_list ap) {
  REAL(vfprintf_t, vfprintf);
  CHECK_FMT(name, fmt, ap);
  return real_vfprintf(f, fmt, ap);
}
static int __copier_san_do_vdprintf(const char *name, int fd, const char *fmt, va_list ap) {
  REAL(vdprintf_t, vdprintf);
  CHECK_FMT(name, fmt, ap);
  return real_vdprintf(fd, fmt, ap);
}
static int __copier_san_do_vsnprintf(const char *name, char *s, size_t n, const char *fmt, va_list ap) {
  REAL(vsnprintf_t, vsnprintf);
  CHECK_FMT(name, fmt, ap);
  int r = real_vsnprintf(s, n, fmt, ap);
  __copier_san_check_written(name, s, n, r);
  return r;
}
static int __copier_san_do_vsprintf(const char *name, char *s, const char *fmt, va_list ap) {
  REAL(vsprintf_t, vsprintf);
  CHECK_FMT(name, fmt, ap);
  int r = real_vsprintf(s, fmt, ap);
  __copier_san_check_written(name, s, (size_t)-1, r);
  return r;
}

VARIADIC(int, printf(const char *fmt, ...), fmt, "printf", __copier_san_do_vprintf("printf", fmt, ap))
VARIADIC(int, fprintf(FILE *f, const char *fmt, ...), fmt, "fprintf", __copier_san_do_vfprintf("fprintf", f, fmt, ap))
VARIADIC(int, dprintf(int fd, const char *fmt, ...), fmt, "dprintf", __copier_san_do_vdprintf("dprintf", fd, fmt, ap))
VARIADIC(int, sprintf(char *s, const char *fmt, ...), fmt, "sprintf", __copier_san_do_vsprintf("sprintf", s, fmt, ap))
VARIADIC(int, snprintf(char *s, size_t n, const char *fmt, ...), fmt, "snprintf", __copier_san_do_vsnprintf("snprintf", s, n, fmt, ap))

/* Fortified forms (-D_FORTIFY_SOURCE): check, then call the real _chk
 * function so its own checks still run. */
int __vprintf_chk(int flag, const char *fmt, va_list ap) {
  REAL(vprintf_chk_t, __vprintf_chk);
  CHECK_FMT("__vprintf_chk", fmt, ap);
  return real___vprintf_chk(flag, fmt, ap);
}
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap) {
  REAL(vfprintf_chk_t, __vfprintf_chk);
  CHECK_FMT("__vfprintf_chk", fmt, ap);
  return real___vfprintf_chk(f, flag, fmt, ap);
}
int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap) {
  REAL(vdprintf_chk_t, __vdprintf_chk);
  CHECK_FMT("__vdprintf_chk", fmt, ap);
  return real___vdprintf_chk(fd, flag, fmt, ap);
}
int __vsprintf_chk(char *s, int flag, size_t slen, const char *fmt, va_list ap) {
  REAL(vsprintf_chk_t, __vsprintf_chk);
  CHECK_FMT("__vsprintf_chk", fmt, ap);
  int r = real___vsprintf_chk(s, flag, slen, fmt, ap);
  __copier_san_check_written("__vsprintf_chk", s, slen, r);
  return r;
}
int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap) {
  REAL(vsnprintf_chk_t, __vsnprintf_chk);
  CHECK_FMT("__vsnprintf_chk", fmt, ap);
  int r = real___vsnprintf_chk(s, n, flag, slen, fmt, ap);
  __copier_san_check_written("__vsnprintf_chk", s, n, r);
  return r;
}
VARIADIC(int, __printf_chk(int flag, const char *fmt, ...), fmt, "__printf_chk", __vprintf_chk(flag, fmt, ap))
VARIADIC(int, __fprintf_chk(FILE *f, int flag, const char *fmt, ...), fmt, "__fprintf_chk", __vfprintf_chk(f, flag, fmt, ap))
VARIADIC(int, __dprintf_chk(int fd, int flag, const char *fmt, ...), fmt, "__dprintf_chk", __vdprintf_chk(fd, flag, fmt, ap))
VARIADIC(int, __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...), fmt, "__sprintf_chk", __vsprintf_chk(s, flag, slen, fmt, ap))
VARIADIC(int, __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...), fmt, "__snprintf_chk", __vsnprintf_chk(s, n, flag, slen, fmt, ap))
