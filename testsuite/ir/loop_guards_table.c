// CFLAGS: -O2
// EXPECT-ASYNC: no
// An LZ encoder's shape: every iteration looks a hash table up and copies
// a run of literals of run-time length (a few bytes in practice). The copy
// would need a ready-window check of every table access on every iteration
// (the table may alias the output, as far as the alias analysis knows): it
// stays memcpy (missed remark LoopGuards), and the loop has no guard.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) size_t encode(uint8_t *out, const uint8_t *in, size_t n, uint32_t *table) {
  size_t o = 0, i = 0;
  while (i + 9 <= n) {
    uint32_t v;
    memcpy(&v, in + i, 4);
    uint32_t h = (v * 2654435761u) >> 20;
    size_t run = (table[h] >> 12) + 1;
    if (run > n - i - 8)
      run = n - i - 8;
    table[h] = (uint32_t)i;
    memcpy(out + o, in + i, run);
    o += run;
    i += run + 1;
  }
  return o;
}

int main(void) {
  static uint8_t in[1 << 16], out[1 << 17];
  static uint32_t table[1 << 12];
  for (size_t i = 0; i < sizeof in; i++)
    in[i] = (uint8_t)(i * 7 + (i >> 5));
  size_t o = encode(out, in, sizeof in, table);
  uint32_t sum = 0;
  for (size_t i = 0; i < o; i++)
    sum = sum * 31 + out[i];
  printf("%zu %u\n", o, sum);
  return 0;
}
