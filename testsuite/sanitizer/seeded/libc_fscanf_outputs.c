// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O2
// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 9
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: (in a call to __isoc99_fscanf)
// EXPECT-STDERR: WRITE of size 6 at
// EXPECT-STDERR: to the source of a pending copy (in a call to __isoc99_fscanf)
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: WRITE of size 3 at
// EXPECT-STDERR: WRITE of size 8 at
// EXPECT-STDERR: (in a call to __isoc99_vfscanf)
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: WRITE of size 1 at
// EXPECT-STDERR: (in a call to __isoc99_scanf)
// EXPECT-STDERR: WRITE of size 8 at
// EXPECT-STDERR: to the source of a pending copy (in a call to __isoc99_vscanf)
// EXPECT-STDERR: WRITE of size 2 at
// EXPECT-STDERR: (in a call to __isoc99_fscanf)
// The outputs of the stream scanf family (fscanf, vfscanf, scanf, vscanf;
// <stdio.h> names them __isoc99_*) are writes, checked after the call as
// for sscanf: each call below stores one output into a pending destination
// or source. %d 4 bytes; %s the string and its NUL (no width: measured to
// its NUL; it goes into the source, which the copy does not overwrite);
// %3s at most 3 characters and the NUL (into the destination: the width
// bounds the measure); %3c 3; vfscanf's %ld 8; %n 4; scanf (stdin) %hhd
// 1; vscanf %lf 8; %hn 2. Conversions that did not happen (a matching
// failure, end of file) and suppressed ones are not checked; the stream
// was opened before the copy.
// Each call is on its own line (halt_on_error=0 reports a line once).
#include "../common.h"
#include <stdarg.h>
#include <unistd.h>
static int vscan(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vfscanf(f, fmt, ap);
  va_end(ap);
  return r;
}
static int vscan_stdin(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vscanf(fmt, ap);
  va_end(ap);
  return r;
}
static FILE *text(const char *s, char *path) {
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
    abort();
  close(fd);
  FILE *f = fopen(path, "r");
  if (!f)
    abort();
  return f;
}
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  char path[] = "/tmp/copier-san-fscanf-XXXXXX", in[] = "/tmp/copier-san-scanf-XXXXXX";
  FILE *f = text("17 hello abcdefgh xyz 123456789 x 42 word", path);
  fclose(text("7 2.5 y", in));
  if (!freopen(in, "r", stdin))
    abort();
  char local[16];
  amemcpy(dst, src, n);
  int k = 0;
  k += fscanf(f, "%d", (int *)(dst + 8)); /* BUG: write-before-csync */
  k += fscanf(f, "%s", src + 200);
  k += fscanf(f, "%3s", dst + 100);              /* "abc" and NUL */
  k += fscanf(f, "%3c", dst + 200);              /* "def" */
  k += fscanf(f, "%*s %*s");                     /* suppressed: nothing stored */
  k += vscan(f, "%ld", (long *)(dst + 300));
  k += fscanf(f, " x%n", (int *)(dst + 400));
  k += scanf("%hhd", (signed char *)(dst + 500));
  k += vscan_stdin("%lf", (double *)(src + 600));
  k += fscanf(f, "%d%hn", (int *)local, (short *)(dst + 700));
  k += fscanf(f, "%d", (int *)(dst + 800));     /* "word": matching failure */
  k += fscanf(f, "%*s");                         /* "word" */
  k += fscanf(f, "%s", dst + 900);               /* end of file: nothing stored */
  k += scanf("%*s");                             /* "y" */
  k += scanf("%s", dst + 1000);                  /* end of file */
  csync_all();
  unlink(path);
  unlink(in);
  use(k);
  return 0;
}
