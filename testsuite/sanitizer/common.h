/* Shared helpers of the CopierSanitizer test programs. Each seeded program
 * marks the line where the sanitizer must report with a comment
 * "BUG: <kind>"; run.sh asserts the report's kind and SUMMARY line against
 * it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libcopier's C entry points (runtime/include/copier.h). */
#ifdef __cplusplus
extern "C" {
#endif
void *amemcpy(void *dst, const void *src, size_t n);
void *amemmove(void *dst, const void *src, size_t n);
void csync(const void *addr, size_t n);
void csync_all(void);
#ifdef __cplusplus
}
#endif

/* A heap buffer of n bytes filled with a byte pattern (not all zero, so a
 * copy is observable). */
static inline char *filled(size_t n, char c) {
  char *p = (char *)malloc(n);
  if (!p)
    abort();
  for (size_t i = 0; i < n; i++)
    p[i] = (char)(c + (i % 7));
  return p;
}

/* Keeps the compiler from deleting a read whose value is otherwise unused. */
static inline void use(long v) { __asm__ volatile("" : : "r"(v) : "memory"); }
