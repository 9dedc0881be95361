// CHECKED-BY: interceptor
// OPT-LEVELS: -O0 -O2
// RUN-ENV: COPIER_OPTIONS=halt_on_error=0
// EXPECT-REPORTS: 7
// EXPECT-STDERR: READ of size 100 at
// EXPECT-STDERR: (in a call to fmemopen)
// EXPECT-STDERR: WRITE of size 200 at
// EXPECT-STDERR: to the source of a pending copy (in a call to fmemopen)
// EXPECT-STDERR: WRITE of size 300 at
// EXPECT-STDERR: (in a call to fmemopen)
// EXPECT-STDERR: WRITE of size 512 at
// EXPECT-STDERR: (in a call to setvbuf)
// EXPECT-STDERR: WRITE of size 8192 at
// EXPECT-STDERR: (in a call to setbuf)
// EXPECT-STDERR: WRITE of size 256 at
// EXPECT-STDERR: (in a call to setbuffer)
// EXPECT-STDERR: WRITE of size 8 at
// EXPECT-STDERR: (in a call to open_memstream)
// A stream that uses a buffer still pending reads or writes it later,
// inside libc, where no check sees it: the buffer is checked when it is
// handed to the stream. fmemopen "r" reads (a pending source may be
// read), "w"/"a"/"+" also write; setvbuf/setbuf/setbuffer buffers are
// written; open_memstream's pointer slot is written at each fflush.
// Handing over a null buffer, _IONBF, or a buffer not pending is fine.
#define _GNU_SOURCE
#include "../common.h"
int main(void) {
  size_t n = 64 * 1024;
  char *src = filled(n, 'a'), *dst = malloc(n);
  amemcpy(dst, src, n);
  FILE *r = fmemopen(dst + 100, 100, "r"); /* BUG: read-before-csync */
  FILE *rs = fmemopen(src + 100, 100, "r"); /* reading a pending source: fine */
  FILE *w = fmemopen(src + 1000, 200, "w");
  FILE *a = fmemopen(dst + 2000, 300, "a+");
  FILE *o = fmemopen(NULL, 64, "w+");
  FILE *d1 = fopen("/dev/null", "w"), *d2 = fopen("/dev/null", "w"), *d3 = fopen("/dev/null", "w");
  char local[512];
  setvbuf(d1, dst + 4096, _IOFBF, 512);
  setvbuf(d2, NULL, _IOLBF, 0);
  setvbuf(d2, dst + 4096, _IONBF, 512);
  setbuf(d2, dst + 16384);
  setbuffer(d3, dst + 32768, 256);
  setvbuf(d3, local, _IOFBF, sizeof local);
  char **slot = (char **)(dst + 40000);
  size_t len = 0;
  FILE *m = open_memstream(slot, &len);
  char **ok_slot = malloc(sizeof *ok_slot);
  FILE *m2 = open_memstream(ok_slot, &len);
  csync_all();
  FILE *all[] = {r, rs, w, a, o, d1, d2, d3, m, m2};
  for (int i = 0; i < 10; i++)
    if (all[i])
      fclose(all[i]);
  free(*slot);
  free(*ok_slot);
  free(ok_slot);
  return 0;
}
