/* csync_ready_end's window with copies still pending, including n == 0:
 * the returned end must stop at the first byte a pending copy writes or
 * reads. Run under COPIER_OPTIONS=spawn=0 (no service thread: the copies
 * stay pending until a wait executes them, so the check is deterministic).
 * Exit 0 on success. */
#include <copier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 20)

static int check(const char *what, unsigned char *buf, size_t at, size_t n, size_t first_pending) {
  const unsigned char *e = csync_ready_end(buf + at, n);
  if (e < buf + at + n || e > buf + first_pending) {
    fprintf(stderr, "%s: csync_ready_end(buf+%zu, %zu) = buf%+td, want in [buf+%zu, buf+%zu]\n", what, at, n,
            (const unsigned char *)e - buf, at + n, first_pending);
    return 1;
  }
  return 0;
}

int main(void) {
  unsigned char *buf = malloc(N), *want = malloc(N);
  int bad = 0;
  for (size_t i = 0; i < N; i++)
    buf[i] = (unsigned char)(i * 7 + 1);
  for (int round = 0; round < 4; round++) {
    memcpy(want, buf, N);
    /* one copy reading [512k, 612k) and writing [600k+..., ...) */
    size_t src = 524288, dst = 700000, len = 100000;
    const char *what = round == 0 ? "amemcpy" : round == 1 ? "amemcpy_lazy" : round == 2 ? "amemmove" : "copier_submit";
    if (round == 0)
      amemcpy(buf + dst, buf + src, len);
    else if (round == 1)
      amemcpy_lazy(buf + dst, buf + src, len);
    else if (round == 2)
      amemmove(buf + dst, buf + src, len);
    else
      copier_submit(buf + dst, buf + src, len, 0, NULL, NULL);
    memmove(want + dst, want + src, len);
    bad |= check(what, buf, 100, 0, src);
    bad |= check(what, buf, 100, 1, src);
    bad |= check(what, buf, 100, 4096, src);
    bad |= check(what, buf, 650000, 0, dst);
    csync(buf, N);
    if (memcmp(buf, want, N) != 0) {
      fprintf(stderr, "%s: bytes differ from memmove\n", what);
      bad = 1;
    }
  }
  /* Nothing pending from the range on, but a copy below it: not
   * (void *)-1, which says that nothing is pending at all (CopierGen's
   * guards then take the window as open below the range too). */
  {
    memcpy(want, buf, N);
    amemcpy(buf + 500000, buf + 100000, 200000);
    memmove(want + 500000, want + 100000, 200000);
    const unsigned char *e = csync_ready_end(buf + 800000, 4096);
    if (e == (const void *)-1 || e < buf + 804096) {
      fprintf(stderr, "copy below: csync_ready_end(buf+800000, 4096) = %p, want a finite end >= buf+804096\n", (const void *)e);
      bad = 1;
    }
    csync(buf, N);
    if (memcmp(buf, want, N) != 0) {
      fprintf(stderr, "copy below: bytes differ from memmove\n");
      bad = 1;
    }
  }
  /* A walk from a copy's end to its start: one request waits for its
   * segment only; from the third request in a row going down, the whole
   * destination (the window the pass keeps starts at the address asked
   * for, so every access of the walk would miss until the copy is done). */
  {
    size_t len = N / 2;
    unsigned char *d = malloc(len);
    amemcpy(d, buf, len);
    const unsigned char *e = csync_ready_end(d + len - 1, 1);
    if (e == (const void *)-1) {
      fprintf(stderr, "backward walk: the first request completed the whole copy\n");
      bad = 1;
    }
    csync_ready_end(d + len - 2, 1);
    e = csync_ready_end(d + len - 3, 1);
    if (e != (const void *)-1) {
      fprintf(stderr, "backward walk: csync_ready_end = d%+td after three requests going down, want (void *)-1\n",
              (const unsigned char *)e - d);
      bad = 1;
    }
    csync(d, len);
    if (memcmp(d, buf, len) != 0) {
      fprintf(stderr, "backward walk: bytes differ from memcpy\n");
      bad = 1;
    }
    free(d);
  }
  /* Scattered reads: the same from the third request in a row that is
   * not a forward step (at most 64 KiB past one of the last requests). */
  {
    size_t len = N / 2;
    unsigned char *d = malloc(len);
    amemcpy(d, buf, len);
    const unsigned char *e = csync_ready_end(d + 300000, 1);
    if (e == (const void *)-1) {
      fprintf(stderr, "scattered reads: the first request completed the whole copy\n");
      bad = 1;
    }
    csync_ready_end(d + 10, 1);
    e = csync_ready_end(d + 200000, 1);
    if (e != (const void *)-1) {
      fprintf(stderr, "scattered reads: csync_ready_end = d%+td after three scattered requests, want (void *)-1\n",
              (const unsigned char *)e - d);
      bad = 1;
    }
    csync(d, len);
    if (memcmp(d, buf, len) != 0) {
      fprintf(stderr, "scattered reads: bytes differ from memcpy\n");
      bad = 1;
    }
    free(d);
  }
  free(buf);
  free(want);
  if (!bad)
    printf("ok\n");
  return bad;
}
