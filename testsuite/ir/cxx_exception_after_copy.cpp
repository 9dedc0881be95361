// CFLAGS: -O1 -fexceptions
// C++ exceptions after a copy. guarded(): the destination is the caller's
// memory, which a throwing callee may reach: synced before the invoke.
// scratch(): a copy between private heap buffers no callee can reach: the
// invoke needs no sync; its unwind edge carries the pending copy to the
// landing pad, which syncs before the handler's own access.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

__attribute__((noinline)) void maybe_throw(int x) {
  if (x & 1)
    throw std::runtime_error("odd");
}

__attribute__((noinline)) int guarded(char *dst, const char *src, size_t n, int x) {
  std::memcpy(dst, src, n);
  int r = 0;
  try {
    maybe_throw(x);
    r = dst[1];
  } catch (const std::exception &) {
    r = dst[2] + 1000;
  }
  return r + dst[n - 1];
}

__attribute__((noinline)) int scratch(const char *src, size_t n, int x) {
  char *tmp = new char[n];
  for (size_t i = 0; i < n; i++) tmp[i] = static_cast<char>(src[i] + 1);
  char *buf = new char[n];
  std::memcpy(buf, tmp, n);
  int r = 0;
  try {
    maybe_throw(x);
    r = buf[3];
  } catch (const std::exception &) {
    r = buf[4] + 2000;
  }
  r += buf[n - 2];
  delete[] buf;
  delete[] tmp;
  return r;
}

int main() {
  size_t n = 40000;
  char *src = static_cast<char *>(std::malloc(n));
  char *dst = static_cast<char *>(std::malloc(n));
  for (size_t i = 0; i < n; i++) src[i] = static_cast<char>(i % 50);
  std::printf("%d %d\n", guarded(dst, src, n, 2), guarded(dst, src, n, 3));
  std::printf("%d %d\n", scratch(src, n, 2), scratch(src, n, 3));
  std::free(src);
  std::free(dst);
  return 0;
}
