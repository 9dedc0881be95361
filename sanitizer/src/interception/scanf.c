/* CopierSanitizer: interceptors of parsers that are C-variadic or return a
 * type Rust cannot spell (see num.rs for the rule of what they read).
 *
 * scanf families: the string sscanf reads, and the outputs every member
 * stores. glibc's vsscanf sizes its input with rawmemchr(s, 0) before it
 * converts anything (libio/iovsscanf.c, _IO_str_init_static_internal with
 * size 0), so the whole string, NUL included, is read. A stream (scanf,
 * fscanf, vscanf, vfscanf and their __isoc99_/__isoc23_ names) reads from
 * its FILE's buffer, which is libc's own or a setvbuf/fmemopen buffer
 * checked when it was handed over. After the call the outputs are checked
 * as writes, as ASan's scanf interceptor does
 * (sanitizer_common_interceptors_format.inc): the format is parsed again,
 * and the first r assigning conversions (r = the real call's result; EOF
 * checks none) and the %n directives among them are checked over the
 * bytes they wrote — %d and friends by their length modifier, %c by its
 * width, %s and %[ by the string stored (NUL included; at most the width,
 * and for sscanf at most the input's length), %m/GNU %a by the pointer.
 * A positional (%1$d) or unknown directive stops the check there, as in
 * ASan. The wide-format families (wscanf, fwscanf, swscanf) are not
 * intercepted.
 * <stdio.h> is not included: it renames sscanf to __isoc99_sscanf, which is
 * defined here too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <locale.h>
#include <wchar.h>

void __copier_san_intercept_check(const void *p, size_t n, int is_write, const char *name);
void __copier_san_parsed(const char *name, const void *s, void *end, size_t unit, void *endptr);
size_t __copier_san_stored_len(const void *p, size_t unit, size_t max);

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

/* The long double parsers: fn(s, endptr[, loc]) over char or wchar_t. */
#define LDPARSER(name, ch, params, args)                                   \
  typedef long double (*name##_t) params;                                  \
  long double name params {                                                \
    REAL(name##_t, name);                                                  \
    ch *end = 0;                                                           \
    void *keep = endptr;                                                   \
    endptr = &end;                                                         \
    long double r = real_##name args;                                      \
    __copier_san_parsed(#name, s, end, sizeof(ch), keep);                  \
    return r;                                                              \
  }
LDPARSER(strtold, char, (const char *s, char **endptr), (s, endptr))
LDPARSER(strtold_l, char, (const char *s, char **endptr, locale_t loc), (s, endptr, loc))
LDPARSER(__strtold_l, char, (const char *s, char **endptr, locale_t loc), (s, endptr, loc))
LDPARSER(wcstold, wchar_t, (const wchar_t *s, wchar_t **endptr), (s, endptr))
LDPARSER(wcstold_l, wchar_t, (const wchar_t *s, wchar_t **endptr, locale_t loc), (s, endptr, loc))
LDPARSER(__wcstold_l, wchar_t, (const wchar_t *s, wchar_t **endptr, locale_t loc), (s, endptr, loc))

/* Bytes a scanf conversion stored through its argument: > 0 a fixed size,
 * SCAN_STR a char string (strlen + 1 after the call), SCAN_WSTR a wide one,
 * SCAN_BAD a directive the check does not understand. */
enum { SCAN_STR = -1, SCAN_WSTR = -2, SCAN_BAD = -3 };

struct scan_dir {
  int suppressed; /* '*': no argument */
  int positional; /* %n$ */
  long width;     /* -1 if none */
  char len[3];    /* length modifier: "", "h", "hh", "l", "ll", "L", "j", "z", "t", "q" */
  int alloc;      /* %m (or GNU %a before s, S, [): stores a malloc'd pointer */
  char conv;      /* conversion character */
};

/* Parse the directive after '%' at p into d; returns the character after
 * it, or 0 at a malformed end. */
static const char *__copier_san_scan_next(const char *p, struct scan_dir *d, int gnu_a) {
  d->suppressed = d->positional = d->alloc = 0;
  d->width = -1;
  d->len[0] = d->len[1] = d->len[2] = 0;
  const char *q = p;
  while (*q >= '0' && *q <= '9')
    q++;
  if (q != p && *q == '$') {
    d->positional = 1;
    p = q + 1;
  }
  if (*p == '*') {
    d->suppressed = 1;
    p++;
  }
  if (*p >= '0' && *p <= '9') {
    d->width = 0;
    while (*p >= '0' && *p <= '9')
      d->width = d->width * 10 + (*p++ - '0');
  }
  if (*p == 'm') {
    d->alloc = 1;
    p++;
  }
  if (gnu_a && *p == 'a' && (p[1] == 's' || p[1] == 'S' || p[1] == '[')) {
    d->alloc = 1;
    p++;
  }
  if (*p == 'h' || *p == 'l') {
    d->len[0] = *p++;
    if (*p == d->len[0])
      d->len[1] = *p++;
  } else if (*p == 'L' || *p == 'q' || *p == 'j' || *p == 'z' || *p == 't') {
    d->len[0] = *p++;
  }
  d->conv = *p;
  if (!*p)
    return 0;
  p++;
  if (d->conv == '[') {
    if (*p == '^')
      p++;
    if (*p == ']')
      p++;
    while (*p && *p != ']')
      p++;
    if (!*p)
      return 0;
    p++;
  }
  return p;
}

/* Bytes stored by directive d (see SCAN_*). */
static long __copier_san_scan_size(const struct scan_dir *d) {
  const char *l = d->len;
  int wide = l[0] == 'l' && !l[1];
  if (d->alloc)
    return d->conv == 's' || d->conv == 'S' || d->conv == '[' || d->conv == 'c' || d->conv == 'C' ? (long)sizeof(char *) : SCAN_BAD;
  switch (d->conv) {
  case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': case 'n': case 'b':
    if (l[0] == 'h')
      return l[1] ? 1 : 2;
    if (!l[0])
      return 4;
    return 8; /* l, ll, L, q, j, z, t on x86-64 */
  case 'a': case 'A': case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
    if (!l[0])
      return 4;
    if (l[0] == 'L' || (l[0] == 'l' && l[1]) || l[0] == 'q')
      return 10; /* x87 long double: fstpt stores 10 bytes */
    return 8;
  case 'p':
    return sizeof(void *);
  case 'c':
    return (d->width < 0 ? 1 : d->width) * (wide ? (long)sizeof(wchar_t) : 1);
  case 'C':
    return (d->width < 0 ? 1 : d->width) * (long)sizeof(wchar_t);
  case 's': case '[':
    return wide ? SCAN_WSTR : SCAN_STR;
  case 'S':
    return SCAN_WSTR;
  default:
    return SCAN_BAD;
  }
}

/* After a scanf-family call that returned r: check the outputs it stored
 * (arguments taken from ap). */
/* A stored string has at most in_len characters (each consumed at least
 * one input byte; SIZE_MAX for a stream) and at most the directive's
 * width: its length is measured within those bounds, and never past the
 * end of a pending destination it runs into (__copier_san_stored_len),
 * since a pending copy may overwrite a string stored into its destination
 * (the very bug reported) before it is measured. */
static void __copier_san_scan_outputs(const char *name, const char *fmt, va_list ap, int r, int gnu_a, size_t in_len) {
  long left = r;
  for (const char *p = fmt; p && *p;) {
    if (*p++ != '%')
      continue;
    if (*p == '%') {
      p++;
      continue;
    }
    struct scan_dir d;
    p = __copier_san_scan_next(p, &d, gnu_a);
    if (!p || d.positional)
      return;
    if (d.suppressed)
      continue;
    long size = __copier_san_scan_size(&d);
    if (size == SCAN_BAD)
      return;
    void *arg = va_arg(ap, void *);
    if (d.conv != 'n')
      left--;
    if (left < 0)
      return;
    size_t max = d.width >= 0 && (size_t)d.width < in_len ? (size_t)d.width : in_len;
    if (size == SCAN_STR)
      size = (long)__copier_san_stored_len(arg, 1, max) + 1;
    else if (size == SCAN_WSTR)
      size = (long)(__copier_san_stored_len(arg, sizeof(wchar_t), max) + 1) * (long)sizeof(wchar_t);
    __copier_san_intercept_check(arg, (size_t)size, 1, name);
  }
}

typedef int (*vsscanf_t)(const char *, const char *, va_list);
typedef int (*vfscanf_t)(void *, const char *, va_list);
/* glibc's stdin (<stdio.h> is not included, see above). */
extern void *stdin;

/* The real vname, resolved once into *slot; `fallback` if libc lacks vname
 * (the __isoc23 forms before glibc 2.38). */
static void *__copier_san_scan_real(void **slot, const char *vname, const char *fallback) {
  if (!*slot)
    *slot = dlsym(RTLD_NEXT, vname);
  if (!*slot)
    *slot = dlsym(RTLD_NEXT, fallback);
  return *slot;
}

/* VSSCAN(r, name, real, s, fmt, ap, gnu_a): r = vsscanf through `real`
 * on behalf of `name`: the input string is read (checked before), the
 * outputs are checked after. A macro, as VFSCAN: a function using va_copy
 * is never inlined, and with halt_on_error=0 a report is keyed by the
 * leading frames of its stack, which must reach the interceptor's caller. */
#define VSSCAN(r, name, real, s, fmt, ap, gnu_a)                           \
  do {                                                                     \
    size_t in_len_ = __copier_san_scan_strlen(s);                          \
    __copier_san_intercept_check(s, in_len_ + 1, 0, name);                 \
    va_list aq_;                                                           \
    va_copy(aq_, ap);                                                      \
    r = (real)(s, fmt, ap);                                                \
    __copier_san_scan_outputs(name, fmt, aq_, r, gnu_a, in_len_);          \
    va_end(aq_);                                                           \
  } while (0)

/* VFSCAN(r, name, real, f, fmt, ap, gnu_a): r = vfscanf through `real` on
 * behalf of `name`: a stream reads its FILE's buffer (libc's own, or a
 * setvbuf/fmemopen one checked when handed over); the outputs are checked
 * after, with no input length to bound a string. */
#define VFSCAN(r, name, real, f, fmt, ap, gnu_a)                           \
  do {                                                                     \
    va_list aq_;                                                           \
    va_copy(aq_, ap);                                                      \
    r = (real)(f, fmt, ap);                                                \
    __copier_san_scan_outputs(name, fmt, aq_, r, gnu_a, SIZE_MAX);         \
    va_end(aq_);                                                           \
  } while (0)

/* SCAN(name, vname, fallback, gnu_a): sscanf-style `name` and vsscanf-style
 * `vname`; gnu_a: %as is GNU's allocating %s (the pre-C99 names only). */
#define SCAN(name, vname, fallback, gnu_a)                                 \
  static void *__copier_san_real_##vname;                                  \
  static vsscanf_t __copier_san_get_##vname(void) {                        \
    return (vsscanf_t)__copier_san_scan_real(&__copier_san_real_##vname, #vname, #fallback); \
  }                                                                        \
  int vname(const char *s, const char *fmt, va_list ap) {                  \
    int r;                                                                 \
    VSSCAN(r, #vname, __copier_san_get_##vname(), s, fmt, ap, gnu_a);      \
    return r;                                                              \
  }                                                                        \
  int name(const char *s, const char *fmt, ...) {                          \
    int r;                                                                 \
    va_list ap;                                                            \
    va_start(ap, fmt);                                                     \
    VSSCAN(r, #name, __copier_san_get_##vname(), s, fmt, ap, gnu_a);       \
    va_end(ap);                                                            \
    return r;                                                              \
  }

SCAN(sscanf, vsscanf, vsscanf, 1)
SCAN(__isoc99_sscanf, __isoc99_vsscanf, __isoc99_vsscanf, 0)
SCAN(__isoc23_sscanf, __isoc23_vsscanf, __isoc99_vsscanf, 0)

/* FSCAN(f, s, vf, v, fallback, gnu_a): the stream family over the real
 * vfscanf-style `vf` (or `fallback`): fscanf-style `f`, scanf-style `s`
 * and vscanf-style `v` (stdin: glibc's scanf is vfscanf on stdin,
 * stdio-common/scanf.c), and `vf` itself. */
#define FSCAN(f, s, vf, v, fallback, gnu_a)                                \
  static void *__copier_san_real_##vf;                                     \
  static vfscanf_t __copier_san_get_##vf(void) {                           \
    return (vfscanf_t)__copier_san_scan_real(&__copier_san_real_##vf, #vf, #fallback); \
  }                                                                        \
  int vf(void *stream, const char *fmt, va_list ap) {                      \
    int r;                                                                 \
    VFSCAN(r, #vf, __copier_san_get_##vf(), stream, fmt, ap, gnu_a);       \
    return r;                                                              \
  }                                                                        \
  int v(const char *fmt, va_list ap) {                                     \
    int r;                                                                 \
    VFSCAN(r, #v, __copier_san_get_##vf(), stdin, fmt, ap, gnu_a);         \
    return r;                                                              \
  }                                                                        \
  int f(void *stream, const char *fmt, ...) {                              \
    int r;                                                                 \
    va_list ap;                                                            \
    va_start(ap, fmt);                                                     \
    VFSCAN(r, #f, __copier_san_get_##vf(), stream, fmt, ap, gnu_a);        \
    va_end(ap);                                                            \
    return r;                                                              \
  }                                                                        \
  int s(const char *fmt, ...) {                                            \
    int r;                                                                 \
    va_list ap;                                                            \
    va_start(ap, fmt);                                                     \
    VFSCAN(r, #s, __copier_san_get_##vf(), stdin, fmt, ap, gnu_a);         \
    va_end(ap);                                                            \
    return r;                                                              \
  }

FSCAN(fscanf, scanf, vfscanf, vscanf, vfscanf, 1)
FSCAN(__isoc99_fscanf, __isoc99_scanf, __isoc99_vfscanf, __isoc99_vscanf, __isoc99_vfscanf, 0)
FSCAN(__isoc23_fscanf, __isoc23_scanf, __isoc23_vfscanf, __isoc23_vscanf, __isoc99_vfscanf, 0)
