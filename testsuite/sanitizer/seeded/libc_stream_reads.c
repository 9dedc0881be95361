// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O2
// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 13
// EXPECT-STDERR: WRITE of size 6 at
// EXPECT-STDERR: (in a call to fgets)
// EXPECT-STDERR: WRITE of size 10 at
// EXPECT-STDERR: to the source of a pending copy (in a call to fgets)
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: (in a call to fread)
// EXPECT-STDERR: WRITE of size 6 at
// EXPECT-STDERR: (in a call to
// EXPECT-STDERR: WRITE of size 8 at
// EXPECT-STDERR: to the source of a pending copy (in a call to
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: (in a call to getdelim)
// EXPECT-STDERR: WRITE of size 44 at
// EXPECT-STDERR: (in a call to fgetws)
// EXPECT-STDERR: WRITE of size 6 at
// EXPECT-STDERR: (in a call to fgets_unlocked)
// EXPECT-STDERR: WRITE of size 8 at
// EXPECT-STDERR: (in a call to readv)
// EXPECT-STDERR: WRITE of size 5 at
// EXPECT-STDERR: (in a call to pread)
// EXPECT-STDERR: WRITE of size 512 at
// EXPECT-STDERR: (in a call to setvbuf)
// EXPECT-STDERR: WRITE of size 7 at
// EXPECT-STDERR: (in a call to fgets)
// EXPECT-STDERR: WRITE of size 4 at
// EXPECT-STDERR: (in a call to fread_unlocked)
// Stream and descriptor input into a pending destination or source. The
// stream `f` is opened (and its buffer filled) before the copy is
// submitted, `g` after it; which stream, and when it was opened, does not
// matter: the interceptors check what each call stored, after the call
// (fgets/fgetws/getline/getdelim: the line and its NUL; fread/readv/pread:
// the count returned; getline's pointer slot when it changes). A setvbuf
// buffer is checked when handed over. Reads into bytes that are not
// pending (a local line, the synced head) and calls that store nothing
// (end of file) are not reported. (With optimization <stdio.h> inlines
// getline as __getdelim, which is what the report then names.) Each call is on its own line
// (halt_on_error=0 reports a line once).
#define _GNU_SOURCE
#include "../common.h"
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>
#include <wchar.h>
/* A stream over a temporary file holding text (no orientation yet). */
static FILE *lines(const char *text) {
  FILE *f = tmpfile();
  if (!f || write(fileno(f), text, strlen(text)) != (ssize_t)strlen(text) || lseek(fileno(f), 0, SEEK_SET))
    abort();
  return f;
}
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  char local[64];
  FILE *f = lines("alpha\nbeta\nabcdefgh\ngamma\ndelta\n");
  FILE *w = lines("wide line\n");
  int fd = open("/proc/self/exe", O_RDONLY);
  char **slot = (char **)(src + 4096);
  size_t *cap = (size_t *)(src + 4104);
  *slot = NULL;
  *cap = 0;
  fgets(local, sizeof local, f); /* "alpha\n", before the copy: f's buffer is full */
  char *line = malloc(256);
  amemcpy(dst, src, n);
  long k = 0;
  k += !!fgets(dst + 100, 64, f); /* BUG: write-before-csync */
  k += !!fgets(src + 100, 64, f);              /* "abcdefgh\n" and NUL */
  rewind(f);
  k += fread(dst + 200, 1, 4, f);              /* "alph" */
  k += !!fgets(local, sizeof local, f);        /* "a\n" into a local: fine */
  char *at = dst + 300;
  size_t at_cap = 64;
  k += getline(&at, &at_cap, f);               /* "beta\n" and NUL */
  k += getline(slot, cap, f);                  /* allocates: the slots in src change */
  free(*slot);
  k += getdelim(&at, &at_cap, 'm', f);         /* "gam" and NUL */
  k += !!fgetws((wchar_t *)(dst + 400), 16, w); /* L"wide line\n" and NUL */
  rewind(f);
  k += !!fgets_unlocked(dst + 500, 6, f);      /* n = 6: "alpha" and NUL */
  struct iovec iov[2] = {{local, 2}, {dst + 600, 8}};
  k += readv(fd, iov, 2);                      /* 2 bytes into local, 8 pending */
  k += pread(fd, dst + 700, 5, 0);
  FILE *g = lines("later\n");
  k += setvbuf(g, dst + 1024, _IOFBF, 512);
  FILE *h = lines("after\nmore");
  k += !!fgets(dst + 800, 64, h);              /* "after\n" and NUL */
  volatile size_t four = 4; /* not a constant: <stdio.h> would inline it */
  k += fread_unlocked(dst + 900, 1, four, h);  /* "more" */
  k += !!fgets(dst + 1000, 64, h);             /* end of file: stores nothing */
  k += !!fgets(line, 256, f);                  /* not pending */
  csync_all();
  use(k);
  return 0;
}
