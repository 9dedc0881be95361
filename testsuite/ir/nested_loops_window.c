// A 2-D parse over the destination (rows of a matrix): the windowed guard
// in the inner loop keeps its window across rows.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long sum_matrix(int *dst, const int *src, size_t rows, size_t cols) {
  memcpy(dst, src, rows * cols * sizeof(int));
  long s = 0;
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) s += dst[r * cols + c] * (long)(c + 1);
  return s;
}

int main(void) {
  size_t rows = 300, cols = 257;
  int *src = malloc(rows * cols * sizeof(int)), *dst = malloc(rows * cols * sizeof(int));
  for (size_t i = 0; i < rows * cols; i++) src[i] = (int)(i % 1000) - 500;
  printf("%ld\n", sum_matrix(dst, src, rows, cols));
  free(src);
  free(dst);
  return 0;
}
