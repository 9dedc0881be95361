/* zlib `deflate` of a whole file in memory, the paper's zlib workload
 * (bench/programs/README.md).
 *
 *   zlib_deflate FILE LEVEL ROUNDS
 *
 * Reads FILE, then ROUNDS times: deflateInit2 (LEVEL, zlib format, 15-bit
 * window, memLevel 8), one deflate(Z_FINISH) of the whole input into a
 * deflateBound-sized buffer, deflateEnd. Prints
 * "ns_per_round=<n> out_bytes=<n> adler=<hex>" (the Adler-32 of the
 * compressed bytes, the same for every correct build). Linked against the
 * libz.a of the zlib tree under test; exit status 1 on an error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: zlib_deflate FILE LEVEL ROUNDS\n");
    return 2;
  }
  int level = atoi(argv[2]), rounds = atoi(argv[3]);
  FILE *f = fopen(argv[1], "rb");
  if (!f || level < 0 || level > 9 || rounds < 1) {
    fprintf(stderr, "zlib_deflate: cannot read %s, or LEVEL not 0..9, or ROUNDS below 1\n", argv[1]);
    return 2;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  unsigned char *in = malloc((size_t)n + 1);
  if (!in || fread(in, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "zlib_deflate: cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(f);
  z_stream s = {0};
  if (deflateInit(&s, level) != Z_OK)
    return 1;
  uLong cap = deflateBound(&s, (uLong)n);
  deflateEnd(&s);
  unsigned char *out = malloc(cap);
  uLong out_len = 0;
  uint64_t t0 = now_ns();
  for (int r = 0; r < rounds; r++) {
    z_stream z = {0};
    if (deflateInit2(&z, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      return 1;
    z.next_in = in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
      fprintf(stderr, "zlib_deflate: deflate did not finish\n");
      return 1;
    }
    out_len = z.total_out;
    deflateEnd(&z);
  }
  uint64_t t1 = now_ns();
  printf("ns_per_round=%llu out_bytes=%lu adler=%08lx\n", (unsigned long long)((t1 - t0) / (uint64_t)rounds),
         out_len, adler32(1, out, (uInt)out_len));
  return 0;
}
