/* csync_ready_end's window with copies still pending, including n == 0:
 * the returned end must stop at the first byte a pending copy writes or
 * reads. Run under COPIER_OPTIONS=spawn=0 (no service thread: the copies
 * stay pending until a wait executes them, so the check is deterministic).
 * Before the fix, csync_ready_end(p, 0) returned (void *)-1 while the
 * copies were still in the submission ring (nothing had ingested them).
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
  free(buf);
  free(want);
  if (!bad)
    printf("ok\n");
  return bad;
}
