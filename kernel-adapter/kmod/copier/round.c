// SPDX-License-Identifier: GPL-2.0
/*
 * One service round: retire, execute, retire, for one client.
 *
 * 1. Retire: advance the ring's tail over the oldest tasks that are
 *    complete (done_count == nsegs) or dropped, queueing their completion
 *    handlers in the handler ring (a full handler ring stops retirement
 *    until user space consumes it).
 * 2. Execute up to the client's byte budget: snapshot the task at exec_pos
 *    and validate it; claim runs of its segments (claim-then-validate, so a
 *    csync that helps in user space never runs a segment twice); pin each
 *    run's source and destination pages in the client's mm
 *    (pin_user_pages_remote, FOLL_WRITE for destinations: this faults them
 *    in and breaks CoW); then run the batch through exec.h and mark the
 *    segments done as the engines report them.
 * 3. Retire again, publish tail and ingested, wake COPIER_IOC_WAIT sleepers.
 *
 * Tasks the service does not copy:
 * - COPIER_F_LAZY: left to user space (runs only when a csync needs it);
 * - invalid tasks (bad nsegs/seg_shift, address overflow, a descriptor not
 *   reset for this position) and overlapping COPIER_F_MOVE tasks: marked
 *   COPIER_D_FAULTED, so the client re-executes them synchronously, which
 *   gives the program exactly memcpy's/memmove's behaviour;
 * - a range that cannot be pinned (unmapped, no permission, a userfaultfd
 *   range: remote GUP without FAULT_FLAG_ALLOW_RETRY gets SIGBUS there
 *   instead of blocking the thread): the failing run is given back and the
 *   task marked COPIER_D_FAULTED; the service moves on.
 * A COPIER_F_BARRIER task completes once every earlier task of the ring is
 * retired, and no later task starts before it: the ring executes in order
 * around barriers even when user space finishes faulted tasks late.
 *
 * A region task (COPIER_F_SRC_REGION / COPIER_F_DST_REGION, region.c) has
 * one side in another process's bound region: the service pins that side
 * in the owner's mm. User space cannot re-execute such a task, so the
 * service never hands it back faulted: it copies it, or finishes it with
 * COPIER_D_ERROR and the errno in the descriptor (task_error).
 *
 * The mm is held by mmget_not_zero() for the round; a client whose mm is
 * gone (exit, exec) is never served again and only waits to be released.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "atcache.h"
#include "client.h"
#include "desc.h"
#include "exec.h"
#include "region.h"
#include "round.h"

/* Pieces pinned per round, and bytes per piece unless one segment is more. */
#define COPIER_ROUND_PIECES 64
#define COPIER_PIECE_BYTES (512U << 10)
/* The entry flags of ABI version 1. */
#define COPIER_F_KNOWN_V1 (COPIER_F_LAZY | COPIER_F_MOVE | COPIER_F_BARRIER)
#define COPIER_F_REGION (COPIER_F_SRC_REGION | COPIER_F_DST_REGION)
/* Segment sizes the service accepts: 64 B .. 16 MiB. */
#define COPIER_SEG_SHIFT_MIN 6
#define COPIER_SEG_SHIFT_MAX 24

/* A pinned run of segments [lo, hi) of the task at pos. */
struct copier_piece {
	struct copier_client *c;
	struct copier_desc *d;
	u64 pos;
	u32 lo, hi;
	u64 len;
	struct page **dst_pages;
	struct page **src_pages;
	unsigned long ndst, nsrc;
	u64 dst_addr, src_addr;
	bool dst_cached, src_cached;	/* pinned through the ATCache */
	struct copier_region *region;	/* a reference and a use, for a region task */
	struct copier_span span;
};

static void stat_add(u64 *field, u64 v)
{
	WRITE_ONCE(*field, READ_ONCE(*field) + v);
}

/* Pin the pages under [addr, addr + len) of mm; the caller holds mmap_lock. */
static int pin_range(struct mm_struct *mm, u64 addr, u64 len, bool write,
		     struct page ***pagesp, unsigned long *np)
{
	unsigned long start = addr & PAGE_MASK;
	unsigned long n = (PAGE_ALIGN(addr + len) - start) >> PAGE_SHIFT;
	unsigned int flags = write ? FOLL_WRITE : 0;
	struct page **pages;
	unsigned long got = 0;

	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	while (got < n) {
		long ret = pin_user_pages_remote(mm, start + got * PAGE_SIZE, n - got, flags,
						 pages + got, NULL, NULL);
		if (ret <= 0) {
			if (got)
				unpin_user_pages(pages, got);
			kvfree(pages);
			return ret ? (int)ret : -EFAULT;
		}
		got += ret;
	}
	*pagesp = pages;
	*np = n;
	return 0;
}

/*
 * Pin one side of a piece: through the client's ATCache when it has one
 * and the range is cacheable, else per copy under mmap_read_lock.
 */
static int pin_side(struct copier_client *c, struct mm_struct *mm, u64 addr, u64 len,
		    bool write, struct page ***pagesp, unsigned long *np, bool *cached)
{
	int ret;

	*cached = false;
	if (c->atc) {
		ret = copier_atc_pin(c->atc, addr, len, write, pagesp, np);
		if (!ret) {
			*cached = true;
			return 0;
		}
		if (ret == -EINVAL)
			return ret;
	}
	mmap_read_lock(mm);
	ret = pin_range(mm, addr, len, write, pagesp, np);
	mmap_read_unlock(mm);
	return ret;
}

static void piece_free(struct copier_piece *p)
{
	if (p->dst_pages && p->dst_cached) {
		copier_atc_release(p->c->atc, p->dst_addr, p->len, p->dst_pages);
	} else if (p->dst_pages) {
		unpin_user_pages_dirty_lock(p->dst_pages, p->ndst, true);
		kvfree(p->dst_pages);
	}
	if (p->src_pages && p->src_cached) {
		copier_atc_release(p->c->atc, p->src_addr, p->len, p->src_pages);
	} else if (p->src_pages) {
		unpin_user_pages(p->src_pages, p->nsrc);
		kvfree(p->src_pages);
	}
	if (p->region) {
		/* after the unpin: a revocation waits for this */
		copier_region_unuse(p->region);
		copier_region_put(p->region);
	}
	kfree(p);
}

/* A region task failed with errno err: say so before segments complete. */
static void task_set_error(struct copier_client *c, struct copier_desc *d, int err)
{
	WRITE_ONCE(d->error, err);
	copier_desc_set_flags(d, COPIER_D_ERROR);
	stat_add(&c->stats.faults, 1);
}

/*
 * Finish a region task that failed with errno err: every segment not
 * claimed yet completes uncopied (the claim's fully ordered fetch_or
 * orders the error before the done bits).
 */
static void task_error(struct copier_client *c, struct copier_desc *d, u64 pos, u32 nsegs,
		       int err)
{
	u32 lo, hi;

	task_set_error(c, d, err);
	while (copier_claim_run(d, pos, 0, nsegs, 64, &lo, &hi))
		copier_complete(d, lo, hi);
}

/* exec.h completion: mark the run done (or faulted) and unpin it. */
static void piece_complete(struct copier_exec *x, void *cookie, int err)
{
	struct copier_piece *p = cookie;
	struct copier_client *c = p->c;

	if (err && p->region) {
		/* no re-execution in user space: complete the run in error */
		task_set_error(c, p->d, -err);
		copier_complete(p->d, p->lo, p->hi);
	} else if (err) {
		copier_desc_set_flags(p->d, COPIER_D_FAULTED);
		copier_unclaim(p->d, p->lo, p->hi);
		stat_add(&c->stats.faults, 1);
	} else {
		copier_complete(p->d, p->lo, p->hi);
		stat_add(&c->stats.bytes, p->len);
	}
	piece_free(p);
}

/* exec.h dma_addr: the ATCache's mapping of a cached side of a piece. */
static bool piece_dma_addr(struct copier_exec *x, void *cookie, bool dst, size_t off, size_t len,
			   struct device *dev, dma_addr_t *addr)
{
	struct copier_piece *p = cookie;

	if (!(dst ? p->dst_cached : p->src_cached))
		return false;
	return copier_atc_dma(p->c->atc, (dst ? p->dst_addr : p->src_addr) + off, len, dst, dev,
			      addr);
}

/* Mark a task faulted: user space re-executes what the service did not. */
static void task_fault(struct copier_client *c, struct copier_desc *d)
{
	copier_desc_set_flags(d, COPIER_D_FAULTED);
	stat_add(&c->stats.faults, 1);
}

/* Claim and complete every segment of a task that copies nothing. */
static void task_complete_empty(struct copier_desc *d, u64 pos, u32 nsegs)
{
	u32 lo, hi;

	while (copier_claim_run(d, pos, 0, nsegs, 64, &lo, &hi))
		copier_complete(d, lo, hi);
}

static bool task_done(struct copier_client *c, u64 pos)
{
	struct copier_desc *d = copier_desc_at(c, pos);
	u32 nsegs;

	if (READ_ONCE(d->pos) != pos)
		return true;
	if (smp_load_acquire(&d->flags) & COPIER_D_DROPPED)
		return true;
	nsegs = READ_ONCE(d->nsegs);
	return smp_load_acquire(&d->done_count) >= nsegs;
}

bool copier_task_settled(struct copier_client *c, u64 pos)
{
	struct copier_desc *d = copier_desc_at(c, pos);

	if ((s64)(pos - READ_ONCE(c->tail)) < 0 || READ_ONCE(c->mm_gone))
		return true;
	if (task_done(c, pos))
		return true;
	/* a lazy region task is not the caller's: the service fails it (EINVAL) */
	return smp_load_acquire(&d->flags) & COPIER_D_FAULTED ||
	       (READ_ONCE(copier_entry_at(c, pos)->flags) & (COPIER_F_LAZY | COPIER_F_REGION)) ==
		       COPIER_F_LAZY;
}

/* Step 1 and 3: retire complete tasks in ring order. */
static bool retire(struct copier_client *c)
{
	struct copier_ring *hr = c->handler_ring;
	bool progress = false;

	while (c->tail != c->exec_pos) {
		u64 pos = c->tail;
		struct copier_entry *e = copier_entry_at(c, pos);
		struct copier_desc *d = copier_desc_at(c, pos);
		u64 handler;

		if (!task_done(c, pos))
			break;
		handler = READ_ONCE(e->handler);
		if (handler) {
			struct copier_handler_entry *h;

			if (c->handler_head - smp_load_acquire(&hr->tail) >= c->nhandlers)
				break;	/* user space drains the handler ring first */
			h = &c->handlers[c->handler_head & (c->nhandlers - 1)];
			WRITE_ONCE(h->handler, handler);
			WRITE_ONCE(h->arg, READ_ONCE(e->arg));
			WRITE_ONCE(h->dst, READ_ONCE(e->dst));
			WRITE_ONCE(h->src, READ_ONCE(e->src));
			WRITE_ONCE(h->len, READ_ONCE(e->len));
			c->handler_head++;
			smp_store_release(&hr->head, c->handler_head);
		}
		if (READ_ONCE(d->pos) == pos)
			copier_desc_set_flags(d, COPIER_D_RETIRED);
		c->tail++;
		progress = true;
	}
	if (progress)
		smp_store_release(&c->copy_ring->tail, c->tail);
	return progress;
}

/* A task's segment geometry as the descriptor states it is the task's. */
static bool task_segs_valid(u64 len, u32 nsegs, u32 shift)
{
	return shift >= COPIER_SEG_SHIFT_MIN && shift <= COPIER_SEG_SHIFT_MAX &&
	       nsegs == DIV_ROUND_UP_ULL(len, 1ULL << shift);
}

/* Make the validated task at exec_pos the current one (r: its region, with
 * the reference the task holds, or NULL). */
static void task_start(struct copier_client *c, u64 dst, u64 src, u64 len, u32 nsegs, u32 shift,
		       struct copier_region *r, bool to_region)
{
	c->cur.dst = dst;
	c->cur.src = src;
	c->cur.len = len;
	c->cur.nsegs = nsegs;
	c->cur.seg_shift = shift;
	c->cur.next_seg = 0;
	c->cur.region = r;
	c->cur.region_dst = to_region;
	c->cur_valid = true;
	stat_add(&c->stats.tasks, 1);
}

/*
 * Validate a region task whose descriptor holds 1..COPIER_MAX_SEGS
 * segments. Returns true when the service executes it (c->cur is set and
 * holds a reference on the region); false when it was finished (with an
 * error, or empty) and exec_pos moved on.
 */
static bool region_task_load(struct copier_client *c, struct copier_desc *d, u64 pos,
			     const struct copier_entry *e, u32 nsegs, u32 shift)
{
	u64 dst = READ_ONCE(e->dst), src = READ_ONCE(e->src), len = READ_ONCE(e->len);
	u32 flags = READ_ONCE(e->flags), handle = READ_ONCE(e->region);
	bool to_region = flags & COPIER_F_DST_REGION;
	u64 local = to_region ? src : dst, off = to_region ? dst : src;
	struct copier_region *r = NULL;
	int err;

	if ((flags & COPIER_F_REGION) == COPIER_F_REGION ||
	    (flags & (COPIER_F_LAZY | COPIER_F_MOVE | COPIER_F_BARRIER)))
		err = EINVAL;
	else if (!len)
		err = 0;
	else if (!task_segs_valid(len, nsegs, shift))
		err = EINVAL;
	else if (local + len < local || local + len > TASK_SIZE_MAX)
		err = EFAULT;
	else if (!(r = copier_region_get(c, handle)))
		err = EBADF;
	else if (!(r->access & (to_region ? COPIER_REGION_WRITE : COPIER_REGION_READ)))
		err = EACCES;
	else if (off + len < off || off + len > r->len)
		err = ERANGE;
	else
		err = READ_ONCE(r->revoked);
	if (err || !len) {
		if (r)
			copier_region_put(r);
		if (err)
			task_error(c, d, pos, nsegs, err);
		else
			task_complete_empty(d, pos, nsegs);
		c->exec_pos++;
		return false;
	}
	task_start(c, dst, src, len, nsegs, shift, r, to_region);
	return true;
}

/*
 * Snapshot and validate the task at exec_pos. Returns true when the
 * service executes it (c->cur is set); false when it was dealt with
 * (skipped, completed, faulted) and exec_pos moved on, or, with *stop, when
 * the ring must wait (a barrier behind unretired tasks).
 */
static bool task_load(struct copier_client *c, bool have_pieces, bool *stop)
{
	u64 pos = c->exec_pos;
	struct copier_entry *e = copier_entry_at(c, pos);
	struct copier_desc *d = copier_desc_at(c, pos);
	u64 dst = READ_ONCE(e->dst), src = READ_ONCE(e->src), len = READ_ONCE(e->len);
	u32 flags = READ_ONCE(e->flags);
	u32 nsegs = READ_ONCE(d->nsegs), shift = READ_ONCE(d->seg_shift);
	u32 known = c->abi_version >= 2 ? COPIER_F_KNOWN : COPIER_F_KNOWN_V1;

	*stop = false;
	if (READ_ONCE(d->pos) != pos) {
		/* descriptor not reset for this task: nothing to report in */
		c->exec_pos++;
		return false;
	}
	if (nsegs < 1 || nsegs > COPIER_MAX_SEGS || (flags & ~known) ||
	    (!(flags & COPIER_F_REGION) && READ_ONCE(e->region))) {
		/* unknown flags or a region word without a region: hand it back */
		task_fault(c, d);
		c->exec_pos++;
		return false;
	}
	if (flags & COPIER_F_REGION)
		return region_task_load(c, d, pos, e, nsegs, shift);
	if (flags & COPIER_F_BARRIER) {
		if (have_pieces || c->tail != pos) {
			*stop = true;
			return false;
		}
		task_complete_empty(d, pos, nsegs);
		c->exec_pos++;
		return false;
	}
	if (flags & COPIER_F_LAZY) {
		c->exec_pos++;
		return false;
	}
	if (len == 0) {
		task_complete_empty(d, pos, nsegs);
		c->exec_pos++;
		return false;
	}
	if (!task_segs_valid(len, nsegs, shift) ||
	    dst + len < dst || src + len < src ||
	    dst + len > TASK_SIZE_MAX || src + len > TASK_SIZE_MAX ||
	    ((flags & COPIER_F_MOVE) && dst < src + len && src < dst + len)) {
		task_fault(c, d);
		c->exec_pos++;
		return false;
	}
	task_start(c, dst, src, len, nsegs, shift, NULL, false);
	return true;
}

/* The current task is finished from the service's side. */
static void task_leave(struct copier_client *c)
{
	if (c->cur.region) {
		copier_region_put(c->cur.region);
		c->cur.region = NULL;
	}
	c->cur_valid = false;
	c->exec_pos++;
}

/*
 * Pin a region task's piece: the region's side in the owner's mm, per copy
 * (the ATCache is the client's own mm's), the other side as any task's.
 * Returns 0 or the -errno the task finishes with.
 */
static int region_pin(struct copier_client *c, struct mm_struct *mm, struct copier_piece *p,
		      struct copier_region *r, bool to_region)
{
	u64 *raddr = to_region ? &p->dst_addr : &p->src_addr;
	int ret;

	ret = copier_region_use(r);
	if (ret)
		return ret;
	kref_get(&r->ref);
	p->region = r;
	/* an offset until now, checked against r->len by region_task_load */
	*raddr += r->addr;
	if (!mmget_not_zero(r->mm))
		return -ESRCH;	/* the owner exited or exec'd */
	mmap_read_lock(r->mm);
	if (to_region)
		ret = pin_range(r->mm, *raddr, p->len, true, &p->dst_pages, &p->ndst);
	else
		ret = pin_range(r->mm, *raddr, p->len, false, &p->src_pages, &p->nsrc);
	mmap_read_unlock(r->mm);
	mmput(r->mm);
	if (!ret && to_region)
		ret = pin_side(c, mm, p->src_addr, p->len, false, &p->src_pages, &p->nsrc,
			       &p->src_cached);
	else if (!ret)
		ret = pin_side(c, mm, p->dst_addr, p->len, true, &p->dst_pages, &p->ndst,
			       &p->dst_cached);
	return ret && ret != -ENOMEM ? -EFAULT : ret;
}

/*
 * Claim and pin the next run of the current task, at most budget bytes
 * (at least one segment). Returns the piece, or NULL when the task has no
 * unclaimed segment left or faulted (the task is then left).
 */
static struct copier_piece *piece_next(struct copier_client *c, struct mm_struct *mm, u64 budget)
{
	struct copier_ktask *t = &c->cur;
	struct copier_desc *d = copier_desc_at(c, c->exec_pos);
	u64 seg = 1ULL << t->seg_shift, off, end;
	u32 max = clamp_t(u64, min_t(u64, budget, COPIER_PIECE_BYTES) >> t->seg_shift, 1, 64);
	struct copier_piece *p;
	u32 lo, hi;
	int ret;

	if (!copier_claim_run(d, c->exec_pos, t->next_seg, t->nsegs, max, &lo, &hi)) {
		task_leave(c);
		return NULL;
	}
	t->next_seg = hi;
	off = lo * seg;
	end = min(hi * seg, t->len);

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		ret = -ENOMEM;
		goto fault;
	}
	p->c = c;
	p->d = d;
	p->pos = c->exec_pos;
	p->lo = lo;
	p->hi = hi;
	p->len = end - off;
	p->src_addr = t->src + off;
	p->dst_addr = t->dst + off;
	if (t->region) {
		ret = region_pin(c, mm, p, t->region, t->region_dst);
	} else {
		ret = pin_side(c, mm, p->src_addr, p->len, false, &p->src_pages, &p->nsrc,
			       &p->src_cached);
		if (!ret)
			ret = pin_side(c, mm, p->dst_addr, p->len, true, &p->dst_pages, &p->ndst,
				       &p->dst_cached);
	}
	if (ret) {
		piece_free(p);
		goto fault;
	}
	p->span.dst_pages = p->dst_pages;
	p->span.src_pages = p->src_pages;
	p->span.dst_off = offset_in_page(p->dst_addr);
	p->span.src_off = offset_in_page(p->src_addr);
	p->span.len = p->len;
	p->span.cookie = p;
	if (t->next_seg >= t->nsegs)
		task_leave(c);
	return p;

fault:
	copier_unclaim(d, lo, hi);
	if (t->region)
		task_error(c, d, c->exec_pos, t->nsegs, -ret);	/* completes [lo, hi) too */
	else
		task_fault(c, d);
	task_leave(c);
	return NULL;
}

void copier_round(struct copier_client *c, struct copier_round_result *r)
{
	struct copier_piece *pieces[COPIER_ROUND_PIECES];
	struct mm_struct *mm = c->mm;
	u64 head, start_pos, budget, planned = 0;
	unsigned int n = 0, i;
	struct copier_exec x;
	bool stop = false;

	r->bytes = 0;
	r->progress = false;
	r->head = head = smp_load_acquire(&c->copy_ring->head);
	if (!mmget_not_zero(mm)) {
		WRITE_ONCE(c->mm_gone, true);
		wake_up_all(&c->waitq);
		return;
	}
	budget = max_t(u64, READ_ONCE(c->max_round_bytes), 1);
	/* a head behind exec_pos or beyond a full ring is clamped, not trusted */
	if ((s64)(head - c->exec_pos) < 0)
		head = c->exec_pos;
	if (head - c->tail > c->nentries)
		head = c->tail + c->nentries;

	r->progress |= retire(c);
	start_pos = c->exec_pos;
	while (n < COPIER_ROUND_PIECES && planned < budget && !stop) {
		struct copier_piece *p;

		if (!c->cur_valid) {
			if (c->exec_pos == head)
				break;
			if (!task_load(c, n > 0, &stop))
				continue;
		}
		p = piece_next(c, mm, budget - planned);
		if (p) {
			pieces[n++] = p;
			planned += p->len;
		}
	}
	if (c->exec_pos != start_pos || n)
		r->progress = true;
	smp_store_release(&c->copy_ring->ingested, c->exec_pos);

	if (n) {
		x.complete = piece_complete;
		x.ctx = c;
		x.dma_addr = piece_dma_addr;
		copier_exec_begin(&x);
		for (i = 0; i < n; i++)
			copier_exec_add(&x, &pieces[i]->span);
		copier_exec_end(&x);
		r->bytes = x.bytes_cpu + x.bytes_dma;
		stat_add(&c->stats.bytes_dma, x.bytes_dma);
	}
	r->progress |= retire(c);
	stat_add(&c->stats.rounds, 1);
	mmput(mm);
	if (wq_has_sleeper(&c->waitq))
		wake_up_all(&c->waitq);
}
