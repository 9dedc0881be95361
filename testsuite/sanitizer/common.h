/* Shared helpers of the CopierSanitizer test programs. Each seeded program
 * marks the line where the sanitizer must report with a comment
 * "BUG: <kind>"; run.sh asserts the report's kind and SUMMARY line against
 * it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libcopier's C entry points: the header maps them to its reserved
 * symbols, which the pass knows as libcopier's (a hand-written declaration
 * of csync would be an ordinary call of the program's). */
#include <copier.h>

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
