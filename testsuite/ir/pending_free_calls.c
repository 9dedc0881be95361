// A compressor's main loop in the shape of zlib's deflate_slow: per input
// position it calls a match finder that reads the window, and now and then
// a refill that copies the window's upper half down (a long copy of its
// own, synced before it returns). Both callees are guarded (main calls
// the compressor while its own copy into the window is pending), so every
// call tests the pending word. The loop submits nothing, so it gets a copy
// entered while nothing is pending at its entry, whose calls go to the
// unguarded callees without a test (remark PendingFreeCalls). The loop that
// makes a copy itself (hash_blocks) keeps a test per call.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WSIZE = 1 << 16 };

typedef struct {
  unsigned char *window;
  int lookahead;
  unsigned long sum;
} state;

__attribute__((noinline)) int longest_match(const state *s, int cur) {
  int best = 0;
  for (int prev = cur - 1; prev > cur - 64 && prev >= 0; prev -= 7) {
    int len = 0;
    while (len < 32 && cur + len < 2 * WSIZE && s->window[prev + len] == s->window[cur + len])
      len++;
    if (len > best)
      best = len;
  }
  return best;
}

__attribute__((noinline)) void fill_window(state *s, int more) {
  memcpy(s->window, s->window + WSIZE, (size_t)more);
  s->sum += s->window[more - 1];
  s->lookahead = more;
}

__attribute__((noinline)) unsigned long deflate_slow(state *s, int rounds, int more) {
  unsigned long h = 0;
  for (int r = 0; r < rounds; r++) {
    if (r % 3 == 2)
      fill_window(s, more);
    for (int cur = WSIZE; cur < WSIZE + 2048; cur += 3)
      h = h * 31 + (unsigned long)longest_match(s, cur);
  }
  return h + s->sum;
}

__attribute__((noinline)) unsigned long hash_blocks(state *s, unsigned char *out, int n, int len) {
  unsigned long h = 0;
  for (int k = 0; k < n; k++) {
    memcpy(out, s->window + k * 64, (size_t)len);
    h = h * 7 + (unsigned long)longest_match(s, WSIZE + k) + out[len - 1];
  }
  return h;
}

int main(int argc, char **argv) {
  (void)argv;
  state s = {malloc(2 * WSIZE), 0, 0};
  unsigned char *src = malloc(2 * WSIZE);
  unsigned char *out = malloc(WSIZE);
  for (int i = 0; i < 2 * WSIZE; i++)
    src[i] = (unsigned char)((i * 7) % 13 + (i >> 9));
  int more = WSIZE - 16 + argc;
  // Nothing pending: the loop's copy runs.
  memcpy(s.window, src, 2 * WSIZE);
  unsigned long a = deflate_slow(&s, 4, more);
  // The caller's copy into the window pending across the call.
  memcpy(s.window, src + 3, (size_t)(2 * WSIZE - 3 - argc));
  unsigned long b = deflate_slow(&s, 3, more);
  unsigned long c = hash_blocks(&s, out, 64, 20000 + argc);
  printf("%lu %lu %lu\n", a, b, c);
  free(out);
  free(src);
  free(s.window);
  return 0;
}
