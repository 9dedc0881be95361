/* Differential fuzzer for libcopier (stage 20): random amemcpy, amemmove,
 * amemcpy_lazy, amemcpy_handler, copier_submit (+ copier_query/copier_wait
 * on its handle), csync, csync_ready_end (also n == 0), csync_all and plain
 * stores after a csync, over "arenas" (mmap'd between PROT_NONE guard pages,
 * half of them flush against the end guard; lengths 0, 1, around the
 * threshold, page multiples, whole arena; offsets at page edges), each with
 * a reference buffer updated with memmove at submit time. Every byte read
 * after a covering csync must equal the reference. Arenas are reallocated
 * (csync, munmap, mmap) and handed between threads after a csync or
 * csync_all (README's rule); threads exit with copies pending elsewhere.
 * Each completion handler must run exactly once by the final csync_all.
 * On a mismatch it prints the arena's recent operations touching the byte
 * and aborts.
 *
 * usage: fuzz SEED NTHREADS OPS [NARENAS]
 * env: FUZZ_SHARED=W  one mapping, thread t owns bytes [t*W, t*W+W) (odd W:
 *                     threads' copies share segments and pages)
 *      FUZZ_NOSYNC=1  hand arenas over WITHOUT csync (exposes the open
 *                     cross-thread ordering issue, INBOX; not in stage 20)
 *      FUZZ_V=1       trace every operation on stderr */
#include <copier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PG 4096
static int verbose;

struct oprec { char k; int tid; size_t d, s, l; };
struct arena {
  struct oprec hist[256]; unsigned nh;
  unsigned char *real, *ref;
  size_t n;      /* bytes */
  size_t mapped; /* bytes mapped incl guards */
  unsigned char *map;
  int id;
};

static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s;
}

static void arena_alloc(struct arena *a, uint64_t *s) {
  size_t sizes[] = {PG, 3 * PG, 64 << 10, (256 << 10) + 123, 1 << 20, 4 << 20};
  size_t n = sizes[rnd(s) % 6];
  size_t pages = (n + PG - 1) / PG;
  a->mapped = (pages + 2) * PG;
  a->map = mmap(NULL, a->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (a->map == MAP_FAILED) { perror("mmap"); exit(2); }
  mprotect(a->map, PG, PROT_NONE);
  mprotect(a->map + (pages + 1) * PG, PG, PROT_NONE);
  /* put the arena flush against the end guard half the time */
  if (rnd(s) & 1) a->real = a->map + PG + pages * PG - n;
  else a->real = a->map + PG;
  a->n = n;
  if (verbose) fprintf(stderr, "a%d alloc %zu %zu\n", a->id, n, (size_t)(a->real - a->map));
  a->ref = malloc(n);
  for (size_t i = 0; i < n; i++) a->real[i] = a->ref[i] = (unsigned char)(rnd(s));
}

static void arena_free(struct arena *a) {
  csync(a->real, a->n);
  munmap(a->map, a->mapped);
  free(a->ref);
  a->real = a->ref = NULL;
}

static __thread int my_tid;
static void rec(struct arena *a, char k, size_t d, size_t s, size_t l) {
  struct oprec *r = &a->hist[a->nh++ % 256]; r->k = k; r->tid = my_tid; r->d = d; r->s = s; r->l = l;
}
static void fail(struct arena *a, const char *what, size_t off, size_t len) {
  size_t i;
  for (i = 0; i < len; i++)
    if (a->real[off + i] != a->ref[off + i]) break;
  size_t bad = off + i;
  unsigned start = a->nh > 256 ? a->nh - 256 : 0;
  for (unsigned j = start; j < a->nh; j++) {
    struct oprec *r = &a->hist[j % 256];
    int touches = (r->k == 'C' || r->k == 'M' || r->k == 'L' || r->k == 'H' || r->k == 'P') ? ((bad >= r->d && bad < r->d + r->l) || (bad >= r->s && bad < r->s + r->l)) : (bad >= r->d && bad < r->d + r->l);
    if (touches || r->k == 'G' || r->k == 'N' || r->k == 'A')
      fprintf(stderr, "  op %u: %c t%d d=%zu s=%zu l=%zu%s\n", j, r->k, r->tid, r->d, r->s, r->l, touches ? " *" : "");
  }
  fprintf(stderr, "MISMATCH %s arena %d (n=%zu) range [%zu,+%zu) first bad byte %zu: real %02x ref %02x\n",
          what, a->id, a->n, off, len, off + i, a->real[off + i], a->ref[off + i]);
  abort();
}

static void check(struct arena *a, size_t off, size_t len, const char *what) {
  if (memcmp(a->real + off, a->ref + off, len)) fail(a, what, off, len);
}

static size_t pick_len(uint64_t *s, size_t max) {
  size_t r = rnd(s) % 16, l;
  switch (r) {
  case 0: l = 0; break;
  case 1: l = 1; break;
  case 2: l = rnd(s) % 64; break;
  case 3: l = rnd(s) % 20000; break;
  case 4: l = PG; break;
  case 5: l = 16384 + rnd(s) % 3 - 1; break;
  case 6: l = max; break;
  case 7: l = max / 2; break;
  default: l = rnd(s) % (max + 1); break;
  }
  return l > max ? max : l;
}

static size_t pick_off(uint64_t *s, size_t n, size_t len) {
  size_t room = n - len;
  switch (rnd(s) % 6) {
  case 0: return 0;
  case 1: return room;
  case 2: { size_t o = (rnd(s) % (n / PG + 1)) * PG; if (o > room) o = room; return o; } /* page aligned */
  case 3: { size_t o = (rnd(s) % (n / PG + 1)) * PG; o = o ? o - 1 : 0; if (o > room) o = room; return o; }
  default: return room ? rnd(s) % (room + 1) : 0;
  }
}

static atomic_long handlers_run, handlers_want;
static void h_count(void *arg) { (void)arg; atomic_fetch_add(&handlers_run, 1); }

/* mailbox of arenas handed between threads */
static pthread_mutex_t mbox_lock = PTHREAD_MUTEX_INITIALIZER;
static struct arena *mbox[4096];
static int nmbox;

static struct arena *take(uint64_t *s) {
  pthread_mutex_lock(&mbox_lock);
  struct arena *a = NULL;
  if (nmbox) {
    int i = rnd(s) % nmbox;
    a = mbox[i];
    mbox[i] = mbox[--nmbox];
  }
  pthread_mutex_unlock(&mbox_lock);
  return a;
}
static void give(struct arena *a) {
  pthread_mutex_lock(&mbox_lock);
  mbox[nmbox++] = a;
  pthread_mutex_unlock(&mbox_lock);
}

static long ops;
static int shared; /* FUZZ_SHARED=W: one mapping, thread t owns stripe t of W bytes (odd widths: stripes share segments) */
static unsigned long seed0;

static void one_op(struct arena *a, uint64_t *s, copier_desc *last, size_t *ldoff, size_t *ldlen, unsigned char **lsnap) {
  size_t n = a->n;
  unsigned r = rnd(s) % 100;
  if (r < 45) { /* copy */
    size_t len = pick_len(s, n);
    size_t so = pick_off(s, n, len), dof = pick_off(s, n, len);
    int overlap = len && so < dof + len && dof < so + len;
    unsigned kind = rnd(s) % 8;
    unsigned char *d = a->real + dof, *sp = a->real + so;
    if (overlap && kind != 1 && kind != 6) kind = 1;
    if (verbose) fprintf(stderr, "a%d C %u %zu %zu %zu\n", a->id, kind, dof, so, len);
    *last = 0;
    rec(a, "CMLHPPMP"[kind], dof, so, len);
    switch (kind) {
    case 0: case 5: if (amemcpy(d, sp, len) != d) abort(); break;
    case 1: if (amemmove(d, sp, len) != d) abort(); break;
    case 2: if (amemcpy_lazy(d, sp, len) != d) abort(); break;
    case 3: atomic_fetch_add(&handlers_want, 1); if (amemcpy_handler(d, sp, len, h_count, NULL) != d) abort(); break;
    case 4: case 6: case 7: {
      uint32_t fl = kind == 6 ? COPIER_MOVE : (rnd(s) & 1 ? COPIER_LAZY : 0);
      if (verbose) fprintf(stderr, "a%d F %u\n", a->id, fl);
      copier_desc h = copier_submit(d, sp, len, fl, NULL, NULL);
      *last = h; *ldoff = dof; *ldlen = len;
      free(*lsnap);
      *lsnap = malloc(len + 1);
      memmove(a->ref + dof, a->ref + so, len);
      memcpy(*lsnap, a->ref + dof, len);
      return;
    }
    }
    memmove(a->ref + dof, a->ref + so, len);
    return;
  }
  if (r < 70) { /* csync + check */
    size_t len = pick_len(s, n), off = pick_off(s, n, len);
    if (verbose) fprintf(stderr, "a%d S %zu %zu\n", a->id, off, len);
    rec(a, 'S', off, 0, len);
    csync(a->real + off, len);
    check(a, off, len, "csync");
    return;
  }
  if (r < 78) { /* csync_ready_end */
    size_t len = pick_len(s, n), off = pick_off(s, n, len);
    if (verbose) fprintf(stderr, "a%d R %zu %zu\n", a->id, off, len);
    const unsigned char *e = csync_ready_end(a->real + off, len);
    if (e < a->real + off + len) { fprintf(stderr, "ready_end too small\n"); abort(); }
    size_t upto = e > a->real + n ? n : (size_t)(e - a->real);
    check(a, off, upto - off, "csync_ready_end");
    return;
  }
  if (r < 84) { /* wait on last handle, check if still current */
    if (*last && *ldlen) {
      size_t o = rnd(s) % (*ldlen + 1), l = rnd(s) % (*ldlen - o + 1);
      int q = copier_query(*last, o, l);
      if (q < 0) { fprintf(stderr, "query -1\n"); abort(); }
      if (copier_wait(*last, o, l) != 0) { fprintf(stderr, "wait != 0\n"); abort(); }
      if (memcmp(a->real + *ldoff + o, *lsnap + o, l)) {
        fprintf(stderr, "MISMATCH copier_wait arena %d dst %zu +%zu (sub %zu +%zu)\n", a->id, *ldoff, *ldlen, o, l);
        abort();
      }
      if (copier_query(*last, o, l) != 1) { fprintf(stderr, "query after wait != 1\n"); abort(); }
    }
    return;
  }
  if (r < 94) { /* store after csync */
    size_t len = pick_len(s, n) % 5000, off = pick_off(s, n, len);
    csync(a->real + off, len);
    check(a, off, len, "pre-store");
    unsigned char v = rnd(s);
    rec(a, 'W', off, v, len);
    if (verbose) fprintf(stderr, "a%d W %zu %zu %u\n", a->id, off, len, v);
    memset(a->real + off, v, len);
    memset(a->ref + off, v, len);
    *last = 0;
    return;
  }
  if (r < 97) { rec(a, 'A', 0, 0, 0); }
  if (r < 97) { if (verbose) fprintf(stderr, "a%d A\n", a->id); csync_all(); check(a, 0, n, "csync_all"); return; }
  if (shared) { csync(a->real, n); check(a, 0, n, "shared csync"); return; }
  /* reallocate arena */
  if (verbose) fprintf(stderr, "a%d N\n", a->id);
  arena_free(a);
  arena_alloc(a, s);
  rec(a, 'N', 0, 0, a->n);
  *last = 0;
}

static void *worker(void *arg) {
  long t = (long)arg;
  uint64_t s = seed0 * 1000003 + t * 7919 + 1;
  my_tid = (int)t;
  copier_desc last = 0; size_t ldoff = 0, ldlen = 0; unsigned char *lsnap = NULL;
  struct arena *a = take(&s);
  if (!a) return NULL;
  for (long i = 0; i < ops; i++) {
    one_op(a, &s, &last, &ldoff, &ldlen, &lsnap);
    if (!shared && rnd(&s) % 50 == 0) { /* hand over (csync first unless FUZZ_NOSYNC: README's rule) */
      if (!getenv("FUZZ_NOSYNC")) { if (rnd(&s) & 1) csync(a->real, a->n); else csync_all(); }
      rec(a, 'G', 0, 0, 0);
      give(a);
      a = take(&s);
      if (a) rec(a, 'T', 0, 0, 0);
      last = 0;
    }
  }
  free(lsnap);
  if (!getenv("FUZZ_NOSYNC")) { rec(a, 'G', 0, 0, 0); if (rnd(&s) & 1) csync(a->real, a->n); else csync_all(); }
  give(a); /* exit (with other copies of this thread possibly pending) */
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: fuzz SEED NTHREADS OPS [NARENAS]\n"); return 2; }
  seed0 = strtoul(argv[1], 0, 0);
  int nt = atoi(argv[2]);
  ops = atol(argv[3]);
  int na = argc > 4 ? atoi(argv[4]) : nt + 2;
  verbose = getenv("FUZZ_V") != NULL;
  uint64_t s = seed0 * 31 + 17;
  static struct arena arenas[4096];
  shared = getenv("FUZZ_SHARED") ? atoi(getenv("FUZZ_SHARED")) : 0;
  if (shared) {
    na = nt;
    size_t total = (size_t)shared * nt;
    unsigned char *m = mmap(NULL, total + PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < na; i++) {
      struct arena *a = &arenas[i];
      a->id = i; a->n = shared; a->real = m + 7 + (size_t)i * shared; a->ref = malloc(shared); a->map = NULL;
      for (size_t j = 0; j < a->n; j++) a->real[j] = a->ref[j] = (unsigned char)rnd(&s);
      give(a);
    }
  } else
  for (int i = 0; i < na; i++) { arenas[i].id = i; arena_alloc(&arenas[i], &s); give(&arenas[i]); }
  pthread_t *th = calloc(nt, sizeof *th);
  for (long t = 0; t < nt; t++)
    if (pthread_create(&th[t], NULL, worker, (void *)t)) { perror("pthread_create"); return 2; }
  for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
  /* every arena: per-range csync check from the main thread (other threads' copies) */
  for (int i = 0; i < nmbox; i++) {
    struct arena *a = mbox[i];
    for (size_t off = 0; off < a->n; off += 8192) {
      size_t l = a->n - off < 8192 ? a->n - off : 8192;
      csync(a->real + off, l);
      check(a, off, l, "final csync");
    }
  }
  csync_all();
  if (atomic_load(&handlers_run) != atomic_load(&handlers_want)) {
    fprintf(stderr, "handlers run %ld want %ld\n", atomic_load(&handlers_run), atomic_load(&handlers_want));
    return 1;
  }
  return 0;
}
