/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The descriptor protocol on the kernel side: claim, complete, fault, as
 * documented for the in-process service (kernel-adapter service desc.rs):
 *
 * - claim: fetch_or on the claimed bitmap; the claimer owns the bits that
 *   were clear, then re-reads pos (claim-then-validate) and gives them back
 *   if the slot was reused;
 * - complete: fetch_or the done bits (after the copied bytes, so a reader
 *   that sees a bit sees the bytes), advance the completed prefix with a
 *   CAS loop, add to done_count;
 * - fault: set COPIER_D_FAULTED and give the claim back; user space
 *   re-executes those segments synchronously.
 *
 * The descriptor lives in memory user space writes: every value read is
 * bounded before use (word indices by COPIER_BITMAP_WORDS), and a wrong
 * value can only mislead the client about its own tasks.
 */
#ifndef COPIER_DESC_H
#define COPIER_DESC_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/copier.h>

/* Bits [lo, hi) of one word, 0 <= lo < hi <= 64. */
static inline u64 copier_word_mask(u32 lo, u32 hi)
{
	u64 m = hi - lo == 64 ? ~0ULL : (1ULL << (hi - lo)) - 1;

	return m << lo;
}

static inline atomic64_t *copier_claimed(struct copier_desc *d, u32 w)
{
	return (atomic64_t *)&d->words[w].claimed;
}

static inline atomic64_t *copier_done(struct copier_desc *d, u32 w)
{
	return (atomic64_t *)&d->words[w].done;
}

/*
 * Claim the first run of unclaimed segments in [lo, hi), at most max long
 * and within one word. Returns false when none is left or the slot no
 * longer holds the task at pos.
 */
static inline bool copier_claim_run(struct copier_desc *d, u64 pos, u32 lo, u32 hi,
				    u32 max, u32 *rlo, u32 *rhi)
{
	u32 s = lo;

	while (s < hi) {
		u32 w = s / 64, base = w * 64, end = min(hi, base + 64);
		u64 cur = atomic64_read(copier_claimed(d, w));
		u64 free = ~cur & copier_word_mask(s - base, end - base);
		u64 mask, got, keep;
		u32 first, run, g0, glen;

		if (!free) {
			s = end;
			continue;
		}
		first = __ffs64(free);
		/* consecutive free bits from first */
		run = ~(free >> first) ? __ffs64(~(free >> first)) : 64;
		run = min(run, max);
		mask = copier_word_mask(first, first + run);
		got = mask & ~(u64)atomic64_fetch_or(mask, copier_claimed(d, w));
		if (!got)
			continue;	/* raced with a helper: reload the word */
		g0 = __ffs64(got);
		glen = ~(got >> g0) ? __ffs64(~(got >> g0)) : 64;
		keep = copier_word_mask(g0, g0 + glen);
		if (got & ~keep)
			atomic64_andnot(got & ~keep, copier_claimed(d, w));
		/* claim-then-validate: fetch_or is fully ordered */
		if (READ_ONCE(d->pos) != pos) {
			atomic64_andnot(keep, copier_claimed(d, w));
			return false;
		}
		*rlo = base + g0;
		*rhi = base + g0 + glen;
		return true;
	}
	return false;
}

/* Give back claimed segments [lo, hi) of one word without completing them. */
static inline void copier_unclaim(struct copier_desc *d, u32 lo, u32 hi)
{
	u32 w = lo / 64;

	atomic64_andnot(copier_word_mask(lo - w * 64, hi - w * 64), copier_claimed(d, w));
}

static inline void copier_advance_prefix(struct copier_desc *d)
{
	u32 n = min_t(u32, READ_ONCE(d->nsegs), COPIER_MAX_SEGS);
	u32 p = smp_load_acquire(&d->prefix);

	for (;;) {
		u32 q = p, seen;

		while (q < n) {
			u64 bits = atomic64_read(copier_done(d, q / 64)) >> (q % 64);
			u32 ones = bits == ~0ULL ? 64 : __ffs64(~bits);

			ones = min(ones, 64 - q % 64);
			if (!ones)
				break;
			q = min(q + ones, n);
		}
		if (q <= p)
			return;
		seen = cmpxchg(&d->prefix, p, q);
		if (seen == p) {
			p = q;	/* others may have completed past q: loop */
			continue;
		}
		if (seen >= q)
			return;
		p = seen;
	}
}

/*
 * Mark claimed segments [lo, hi) (one word) done. The fully ordered
 * fetch_or orders the copied bytes before the done bits (pairs with the
 * waiters' acquire loads of the bitmap).
 */
static inline void copier_complete(struct copier_desc *d, u32 lo, u32 hi)
{
	u32 w = lo / 64;

	atomic64_fetch_or(copier_word_mask(lo - w * 64, hi - w * 64), copier_done(d, w));
	copier_advance_prefix(d);
	smp_mb__before_atomic();
	atomic_add(hi - lo, (atomic_t *)&d->done_count);
}

static inline void copier_desc_set_flags(struct copier_desc *d, u32 f)
{
	atomic_or(f, (atomic_t *)&d->flags);
}

#endif /* COPIER_DESC_H */
