// A page insert in the shape of sqlite3's insertCell: one copy of run-time
// length into a page, then header updates and a memmove of the cell index,
// each access of which may touch the copy's destination. The function gets
// a copy of its body without checks, entered while nothing is pending at
// its entry: there the copy is `len >= threshold` and the inline copy, and
// no access after it loads the pending word. A long cell (20000 bytes)
// bails into the checked body, which submits the copy and syncs the
// accesses after it; a call made while the caller's own copy is pending
// runs the checked body from the start.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  unsigned char *data;
  int free_end;
  int ncell;
  unsigned short *index;
} page;

__attribute__((noinline)) int insert_cell(page *p, int i, const unsigned char *cell, int sz) {
  int idx = p->free_end - sz;
  p->free_end = idx;
  memcpy(&p->data[idx], cell, sz);
  memmove(p->index + i + 1, p->index + i, sizeof(unsigned short) * (p->ncell - i));
  p->index[i] = (unsigned short)(idx / 4);
  p->ncell++;
  if (++p->data[0] == 0)
    p->data[1]++;
  return p->data[idx] + p->data[idx + sz - 1];
}

int main(void) {
  enum { PAGE = 1 << 20, CELLS = 256 };
  page p = {malloc(PAGE), PAGE, 0, calloc(CELLS + 1, sizeof(unsigned short))};
  memset(p.data, 0, PAGE);
  unsigned char *cell = malloc(20000);
  unsigned char *held = malloc(40000);
  unsigned long h = 0;
  for (int k = 0; k < CELLS; k++) {
    int sz = k % 17 == 5 ? 20000 : 8 + k % 40;
    for (int j = 0; j < sz; j++)
      cell[j] = (unsigned char)(k * 13 + j);
    if (k % 31 == 7) {
      // A copy of the caller's, pending across the call.
      memcpy(held, p.data + p.free_end, 40000 < PAGE - p.free_end ? 40000 : PAGE - p.free_end);
      h = h * 7 + insert_cell(&p, k / 2, cell, sz);
      h += held[k];
    } else {
      h = h * 31 + insert_cell(&p, k / 2, cell, sz);
    }
    if (p.free_end < 40000)
      p.free_end = PAGE;
  }
  for (int k = 0; k < p.ncell; k++)
    h = h * 3 + p.index[k] + p.data[p.index[k] * 4];
  printf("%lu %d %d\n", h, p.data[0], p.data[1]);
  free(held);
  free(cell);
  free(p.index);
  free(p.data);
  return 0;
}
