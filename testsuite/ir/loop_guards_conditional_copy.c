// CFLAGS: -O2
// OPTFLAGS: -copiergen-max-narrow=0
// EXPECT-ASYNC: no
// protobuf-c's unpack loop: every iteration parses a member through a
// table, and only unknown members (none, in practice) get a fresh buffer
// from the allocator and a copy of run-time length. The function is
// planned coarsely (-copiergen-max-narrow=0 here; protobuf-c has more
// than 32 accesses), so the copy would need a whole-copy check before
// the member loads of every iteration, with its destination and length
// carried around the loop, on iterations that copy nothing. The
// allocation before it does not exempt it, since the copy runs on a
// branch of its iteration: it stays memcpy (missed remark LoopGuards).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct member { uint32_t tag; uint32_t len; const uint8_t *data; };
struct field { uint32_t tag; uint32_t offset; };
struct unknown { uint32_t tag; uint32_t len; uint8_t *data; };

__attribute__((noinline)) int unpack(const struct member *m, size_t n, const struct field *fields, size_t nf,
                                     uint8_t *msg, struct unknown *unknowns, size_t *n_unknown,
                                     void *(*alloc)(size_t)) {
  for (size_t i = 0; i < n; i++) {
    const struct field *f = m[i].tag < nf ? &fields[m[i].tag] : NULL;
    if (f == NULL) {
      struct unknown *u = &unknowns[(*n_unknown)++];
      u->tag = m[i].tag;
      u->len = m[i].len;
      u->data = alloc(m[i].len);
      if (u->data == NULL)
        return 0;
      memcpy(u->data, m[i].data, m[i].len);
      continue;
    }
    uint32_t v;
    memcpy(&v, m[i].data, 4);
    memcpy(msg + f->offset, &v, 4);
  }
  // Register work after the loop (a cycle without a sync: the window cost
  // model sees enough overlap on this path).
  uint32_t h = 1;
  for (size_t k = 0; k < n; k++)
    h = h * 31 + (uint32_t)(k ^ (h >> 7));
  return (int)(h | 1);
}

int main(void) {
  static uint8_t data[64][4];
  static struct member m[64];
  static struct field fields[8];
  static uint8_t msg[64];
  static struct unknown unknowns[64];
  for (int i = 0; i < 8; i++)
    fields[i] = (struct field){(uint32_t)i, (uint32_t)(4 * i)};
  for (int i = 0; i < 64; i++) {
    for (int k = 0; k < 4; k++)
      data[i][k] = (uint8_t)(i * 5 + k);
    m[i] = (struct member){(uint32_t)(i % 9), 4, data[i]};
  }
  size_t nu = 0;
  int ok = unpack(m, 64, fields, 8, msg, unknowns, &nu, malloc);
  uint32_t sum = 0;
  for (int i = 0; i < 64; i++)
    sum = sum * 31 + msg[i];
  for (size_t i = 0; i < nu; i++)
    sum = sum * 31 + unknowns[i].data[0] + unknowns[i].len;
  printf("%d %zu %u\n", ok != 0, nu, sum);
  return 0;
}
