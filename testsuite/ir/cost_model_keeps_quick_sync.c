// OPTFLAGS: -copiergen-min-overlap=16
// EXPECT-ASYNC: no
// The cost model (here -copiergen-min-overlap=16) keeps a copy
// synchronous when its whole-copy sync follows on every path after a few
// instructions, with no call and no loop in between, even across
// conditional branches and switches: protobuf-c's bytes-field unpack
// (return right after), a fill whose two paths both return at once, a
// switch on the copy's kind, a copy handed to fwrite at once. Each gets a
// missed remark NoOverlap naming the sync; nothing is rewritten.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bytes {
  size_t len;
  unsigned char *data;
};

// protobuf-c parse_required_member, PROTOBUF_C_TYPE_BYTES: the new buffer
// escapes into *bd, so the copy is waited for at the return.
__attribute__((noinline)) int unpack_bytes(struct bytes *bd, const unsigned char *data, size_t len,
                                           unsigned pref_len) {
  if (len > pref_len) {
    bd->data = malloc(len - pref_len);
    if (bd->data == NULL)
      return 0;
    memcpy(bd->data, data + pref_len, len - pref_len);
  } else {
    bd->data = NULL;
  }
  bd->len = len - pref_len;
  return 1;
}

// Two paths after the copy, both short: a first-byte fix-up or nothing.
__attribute__((noinline)) char *dup_terminated(const char *s, size_t n, int terminate) {
  char *p = malloc(n + 1);
  if (!p)
    return NULL;
  memcpy(p, s, n);
  if (terminate)
    p[n] = 0;
  else
    p[n] = '\n';
  return p;
}

// A switch after the copy: every case returns after a few instructions.
__attribute__((noinline)) size_t copy_kind(char *dst, const char *src, size_t n, int kind) {
  memcpy(dst, src, n);
  switch (kind) {
  case 0:
    return n;
  case 1:
    return n / 2 + 3;
  case 2:
    return n * 3 - 1;
  default:
    return (n ^ (size_t)kind) + 7;
  }
}

// The destination is written out at once.
__attribute__((noinline)) void emit(char *dst, const char *src, size_t n) {
  memcpy(dst, src, n);
  fwrite(dst, 1, 8, stdout);
}

int main(void) {
  size_t n = 50000;
  unsigned char *src = malloc(n);
  char *dst = malloc(n);
  for (size_t i = 0; i < n; i++)
    src[i] = (unsigned char)('a' + i % 26);
  struct bytes b;
  int ok = unpack_bytes(&b, src, n, 3);
  char *d = dup_terminated((const char *)src, n, 1);
  size_t k = copy_kind(dst, (const char *)src, n, 2);
  emit(dst, (const char *)src, n);
  printf("\n%d %zu %c %zu %c %zu\n", ok, b.len, b.data[n - 4], strlen(d), dst[n - 1], k);
  free(b.data);
  free(d);
  free(src);
  free(dst);
  return 0;
}
