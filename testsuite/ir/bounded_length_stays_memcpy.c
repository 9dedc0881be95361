// Variable-length copies whose value range stays below the threshold
// (16 KiB) stay memcpy (missed remark BelowThreshold, naming the bound):
// a length masked to 10 bits, one a dominating condition bounds, one a
// narrow type bounds. An unbounded length is rewritten, and split at the
// call site: below the threshold while nothing is pending, the inline copy.
#include <stddef.h>
#include <string.h>

long sum(const char *p, size_t n);

long masked(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n & 1023);
  return sum(dst, 64);
}

long guarded_by_condition(char *dst, const char *src, size_t n) {
  if (n > 4096)
    return -1;
  memcpy(dst, src, n);
  return sum(dst, 64);
}

long narrow_type(char *dst, const char *src, unsigned short n) {
  memcpy(dst, src, n / 8);
  return sum(dst, 64);
}

long unbounded(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  return sum(dst, 64);
}
