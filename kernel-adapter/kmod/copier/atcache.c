// SPDX-License-Identifier: GPL-2.0
/*
 * ATCache: a per-client cache of pinned user pages.
 *
 * Layout: the client's address space is cut into 2 MiB-aligned blocks
 * (an xarray indexed by address >> 21). A block holds one slot per page,
 * each empty, valid (pinned, and writable when pinned with FOLL_WRITE) or
 * dead (pinned but no longer mapped there), and one mmu_interval_notifier
 * over its 2 MiB.
 *
 * Coherence (the mmu_interval_notifier protocol, mm/mmu_notifier.c and
 * Documentation/mm/hmm.rst): a miss reads the notifier sequence
 * (mmu_interval_read_begin), pins with pin_user_pages_remote under
 * mmap_read_lock, then installs the pages under the cache lock only if
 * mmu_interval_read_retry says no invalidation ran meanwhile (else it
 * drops the pins and retries). The notifier's invalidate turns the valid
 * slots of its range dead under the same lock: munmap, mremap, migration,
 * CoW, mprotect, swap-out, THP split/collapse and exit all invalidate, so
 * a hit is a page the address still maps. A dead slot is never returned.
 *
 * Unpinning never happens in the notifier (it may run with the page locked
 * by migration, and unpin_user_pages_dirty_lock locks pages): dead pages
 * are unpinned by a work item, or by the next miss in their block, once no
 * copy uses the block (@users, one per copier_atc_pin until its release). A copy racing with munmap of its own
 * buffer writes into the old page, as a DMA engine would: the program's
 * race, not the service's.
 *
 * Scope: private anonymous memory only (malloc, stacks, anonymous mmap).
 * Pinned file pages would defeat writeback, so other ranges are pinned per
 * copy by the caller (-EOPNOTSUPP). Destination pages are marked dirty
 * when unpinned: a pinned anonymous page cannot be reclaimed, and reclaim
 * first invalidates (try_to_unmap), which unpins it.
 *
 * Bound: at most atc_pages pinned pages per client (module parameter),
 * and cached pins are long-term pins: they are charged to the mm's
 * pinned_vm (VmPin in /proc/<pid>/status) and bounded by the opener's
 * RLIMIT_MEMLOCK unless it had CAP_IPC_LOCK, as RDMA's ib_umem charges
 * them. A miss that would exceed either evicts least recently used blocks
 * that no copy uses, or gives up (-EOPNOTSUPP, the caller pins per copy,
 * for that copy only).
 *
 * DMA addresses (copier_atc_dma): a block keeps, per DMA device (at most
 * ATC_DMA_DEVS), one dma_map_page mapping per cached page (the device may
 * write only pages pinned writable: DMA_BIDIRECTIONAL for those,
 * DMA_TO_DEVICE for read pins, so the direction follows @writable), made at the
 * first DMA piece that uses the page and unmapped only with its pin
 * (reap_some, block_free, a read pin replaced by a write pin): an
 * invalidated (dead) page keeps its mapping until no copy uses its block,
 * so a DMA in flight never loses its address. Only mappings that need no
 * dma_sync calls are kept (dma-direct on a coherent device, an IOMMU).
 * atc_dma_mapped (read-only parameter) counts the live ones.
 *
 * Concurrency: one service thread serves a client at a time, so lookups,
 * misses, releases and evictions are single-threaded per cache; the lock
 * orders them against the notifier and the reap work.
 */
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "atcache.h"

#define ATC_BLOCK_SHIFT 21
#define ATC_BLOCK_BYTES (1UL << ATC_BLOCK_SHIFT)
#define ATC_BLOCK_PAGES (ATC_BLOCK_BYTES >> PAGE_SHIFT)
#define ATC_RETRIES 4
#define ATC_REAP_BATCH 64

static unsigned int atc_pages = 16384;
module_param(atc_pages, uint, 0444);
MODULE_PARM_DESC(atc_pages, "ATCache: most pinned pages cached per client (default 16384; 0: no cache)");

/* Cached DMA mappings of all clients (a read-only parameter: leak checks). */
static atomic_long_t atc_dma_live = ATOMIC_LONG_INIT(0);

static int dma_mapped_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&atc_dma_live));
}

static const struct kernel_param_ops dma_mapped_ops = {
	.get = dma_mapped_get,
};
module_param_cb(atc_dma_mapped, &dma_mapped_ops, NULL, 0444);
MODULE_PARM_DESC(atc_dma_mapped, "read only: DMA mappings of cached pages, all clients");

#define ATC_DMA_DEVS 2

/* One device's mappings of a block's pages (a page each, slot_dir()). */
struct atc_dma {
	struct device *dev;
	bool uncacheable;		/* its mappings need dma_sync calls */
	DECLARE_BITMAP(mapped, ATC_BLOCK_PAGES);
	dma_addr_t addr[ATC_BLOCK_PAGES];
};

struct atc_block {
	struct mmu_interval_notifier mni;
	struct copier_atcache *a;
	unsigned long base;
	struct list_head lru;		/* in a->lru, least recently used first */
	struct list_head reap;		/* in a->reap while it has dead slots */
	bool on_reap;
	bool evicted;			/* leaving: the notifier must not requeue it */
	unsigned int users;		/* copies between pin and release */
	unsigned int npages;		/* slots holding a page, valid or dead */
	DECLARE_BITMAP(valid, ATC_BLOCK_PAGES);
	DECLARE_BITMAP(writable, ATC_BLOCK_PAGES);
	DECLARE_BITMAP(dead, ATC_BLOCK_PAGES);
	struct page *pages[ATC_BLOCK_PAGES];
	struct atc_dma *dma[ATC_DMA_DEVS];	/* set under the cache lock */
};

/* The direction of slot i's mappings: the device writes only write pins. */
static enum dma_data_direction slot_dir(struct atc_block *b, unsigned long i)
{
	return test_bit(i, b->writable) ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
}

/*
 * Unmap slot i's DMA mappings, before its pin (and @writable) changes. The caller holds the
 * lock or the block is unreachable; dma_unmap_page may run atomically.
 */
static void slot_unmap(struct atc_block *b, unsigned long i)
{
	unsigned int k;

	for (k = 0; k < ATC_DMA_DEVS && b->dma[k]; k++) {
		struct atc_dma *m = b->dma[k];

		if (__test_and_clear_bit(i, m->mapped)) {
			dma_unmap_page(m->dev, m->addr[i], PAGE_SIZE, slot_dir(b, i));
			atomic_long_dec(&atc_dma_live);
		}
	}
}

/**
 * struct copier_atcache - one client's cache
 * @mm: the client's mm (grabbed by the client)
 * @lock: slots, @users, the lists, @npinned and the counters
 * @blocks: block index -> struct atc_block (service thread only)
 * @npinned: pages held by slots (valid and dead), each charged to
 *	@mm->pinned_vm
 * @limit: most pages held
 * @memlock: most pages of @mm->pinned_vm (the opener's RLIMIT_MEMLOCK in
 *	pages; ULONG_MAX with CAP_IPC_LOCK or an infinite limit)
 */
struct copier_atcache {
	struct mm_struct *mm;
	spinlock_t lock;
	struct xarray blocks;
	struct list_head lru;
	struct list_head reap;
	unsigned long npinned;
	unsigned long limit;
	unsigned long memlock;
	struct work_struct reap_work;
	struct copier_atc_stats stats;
};

static bool atc_invalidate(struct mmu_interval_notifier *mni,
			   const struct mmu_notifier_range *range, unsigned long cur_seq)
{
	struct atc_block *b = container_of(mni, struct atc_block, mni);
	struct copier_atcache *a = b->a;
	unsigned long s = max(range->start, b->base);
	unsigned long e = min(range->end, b->base + ATC_BLOCK_BYTES);
	unsigned long i, last, n = 0;
	bool kick = false;

	spin_lock(&a->lock);
	mmu_interval_set_seq(mni, cur_seq);
	i = s < e ? (s - b->base) >> PAGE_SHIFT : 0;
	last = s < e ? DIV_ROUND_UP(e - b->base, PAGE_SIZE) : 0;
	for (; i < last; i++)
		if (__test_and_clear_bit(i, b->valid)) {
			__set_bit(i, b->dead);
			n++;
		}
	if (n) {
		a->stats.invalidated += n;
		if (!b->on_reap && !b->evicted) {
			list_add_tail(&b->reap, &a->reap);
			b->on_reap = true;
		}
		kick = !b->users;
	}
	spin_unlock(&a->lock);
	if (kick)
		schedule_work(&a->reap_work);
	return true;
}

static const struct mmu_interval_notifier_ops atc_ops = {
	.invalidate = atc_invalidate,
};

/* Charge n cached pins to the mm's pinned_vm; false (nothing charged) when
 * that would exceed the client's RLIMIT_MEMLOCK. */
static bool pins_charge(struct copier_atcache *a, unsigned long n)
{
	if (a->memlock == ULONG_MAX) {
		atomic64_add(n, &a->mm->pinned_vm);
		return true;
	}
	if (atomic64_add_return(n, &a->mm->pinned_vm) > a->memlock) {
		atomic64_sub(n, &a->mm->pinned_vm);
		return false;
	}
	return true;
}

static void pins_uncharge(struct copier_atcache *a, unsigned long n)
{
	if (n)
		atomic64_sub(n, &a->mm->pinned_vm);
}

/* Unpin a block's pages and free it; its notifier is removed first. */
static void block_free(struct atc_block *b)
{
	unsigned long i;

	mmu_interval_notifier_remove(&b->mni);
	for (i = 0; i < ATC_BLOCK_PAGES; i++) {
		if (!b->pages[i])
			continue;
		slot_unmap(b, i);
		unpin_user_pages_dirty_lock(&b->pages[i], 1, test_bit(i, b->writable));
	}
	for (i = 0; i < ATC_DMA_DEVS; i++)
		kfree(b->dma[i]);
	kfree(b);
}

/*
 * Unpin up to ATC_REAP_BATCH dead pages of b, which no copy uses; the caller
 * holds the lock, which this drops. Returns whether dead pages remain.
 */
static bool reap_some(struct copier_atcache *a, struct atc_block *b)
	__releases(&a->lock)
{
	struct page *batch[ATC_REAP_BATCH];
	bool dirty[ATC_REAP_BATCH], more;
	unsigned int n = 0;
	unsigned long i;

	for_each_set_bit(i, b->dead, ATC_BLOCK_PAGES) {
		if (n == ATC_REAP_BATCH)
			break;
		slot_unmap(b, i);
		batch[n] = b->pages[i];
		dirty[n] = test_bit(i, b->writable);
		n++;
		b->pages[i] = NULL;
		__clear_bit(i, b->dead);
		__clear_bit(i, b->writable);
		b->npages--;
		a->npinned--;
	}
	pins_uncharge(a, n);
	more = !bitmap_empty(b->dead, ATC_BLOCK_PAGES);
	if (!more && b->on_reap) {
		list_del(&b->reap);
		b->on_reap = false;
	}
	spin_unlock(&a->lock);
	for (i = 0; i < n; i++)
		unpin_user_pages_dirty_lock(&batch[i], 1, dirty[i]);
	return more;
}

/* Work: unpin dead pages of blocks no copy uses. */
static void atc_reap(struct work_struct *w)
{
	struct copier_atcache *a = container_of(w, struct copier_atcache, reap_work);

	for (;;) {
		struct atc_block *b, *found = NULL;

		spin_lock(&a->lock);
		list_for_each_entry(b, &a->reap, reap)
			if (!b->users) {
				found = b;
				break;
			}
		if (!found) {
			spin_unlock(&a->lock);
			return;
		}
		reap_some(a, found);
	}
}

struct copier_atcache *copier_atc_create(struct mm_struct *mm)
{
	struct copier_atcache *a;

	if (!atc_pages)
		return NULL;
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return NULL;
	a->mm = mm;
	spin_lock_init(&a->lock);
	xa_init(&a->blocks);
	INIT_LIST_HEAD(&a->lru);
	INIT_LIST_HEAD(&a->reap);
	INIT_WORK(&a->reap_work, atc_reap);
	a->limit = atc_pages;
	/* the opener's limit: the service thread that pins is not the opener */
	if (capable(CAP_IPC_LOCK) || rlimit(RLIMIT_MEMLOCK) == RLIM_INFINITY)
		a->memlock = ULONG_MAX;
	else
		a->memlock = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	return a;
}

void copier_atc_destroy(struct copier_atcache *a)
{
	struct atc_block *b;
	unsigned long idx;

	if (!a)
		return;
	spin_lock(&a->lock);
	xa_for_each(&a->blocks, idx, b) {
		WARN_ON_ONCE(b->users);
		b->evicted = true;
	}
	INIT_LIST_HEAD(&a->reap);
	spin_unlock(&a->lock);
	cancel_work_sync(&a->reap_work);
	pins_uncharge(a, a->npinned);
	xa_for_each(&a->blocks, idx, b)
		block_free(b);
	xa_destroy(&a->blocks);
	kfree(a);
}

/* The block at base, created (with its notifier) when missing. */
static struct atc_block *block_get(struct copier_atcache *a, unsigned long base)
{
	struct atc_block *b = xa_load(&a->blocks, base >> ATC_BLOCK_SHIFT);
	int ret;

	if (b)
		return b;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return NULL;
	b->a = a;
	b->base = base;
	INIT_LIST_HEAD(&b->reap);
	ret = mmu_interval_notifier_insert(&b->mni, a->mm, base, ATC_BLOCK_BYTES, &atc_ops);
	if (ret) {
		kfree(b);
		return NULL;
	}
	if (xa_insert(&a->blocks, base >> ATC_BLOCK_SHIFT, b, GFP_KERNEL)) {
		mmu_interval_notifier_remove(&b->mni);
		kfree(b);
		return NULL;
	}
	spin_lock(&a->lock);
	list_add_tail(&b->lru, &a->lru);
	spin_unlock(&a->lock);
	return b;
}

/* Unlink an unused block from the cache; the caller holds the lock. */
static void block_unlink(struct copier_atcache *a, struct atc_block *b)
{
	b->evicted = true;
	list_del(&b->lru);
	if (b->on_reap)
		list_del(&b->reap);
	a->npinned -= b->npages;
	pins_uncharge(a, b->npages);
	xa_erase(&a->blocks, b->base >> ATC_BLOCK_SHIFT);
}

/*
 * Evict unused blocks (never keep) until need more pages fit under both
 * bounds; on success need pages are charged (pins_charge), which the
 * caller settles with pins_uncharge for those it does not keep.
 */
static bool make_room(struct copier_atcache *a, struct atc_block *keep, unsigned long need)
{
	for (;;) {
		struct atc_block *b, *victim = NULL;

		spin_lock(&a->lock);
		if (a->npinned + need <= a->limit && pins_charge(a, need)) {
			spin_unlock(&a->lock);
			return true;
		}
		list_for_each_entry(b, &a->lru, lru)
			if (!b->users && b != keep) {
				victim = b;
				break;
			}
		if (!victim) {
			spin_unlock(&a->lock);
			return false;
		}
		block_unlink(a, victim);
		spin_unlock(&a->lock);
		block_free(victim);
	}
}

/* Drop a block that caches nothing and no copy uses (after a failed pin). */
static void block_drop_if_empty(struct copier_atcache *a, struct atc_block *b)
{
	bool drop;

	spin_lock(&a->lock);
	drop = !b->npages && !b->users;
	if (drop)
		block_unlink(a, b);
	spin_unlock(&a->lock);
	if (drop)
		block_free(b);
}

/* Private anonymous memory all along [va, end)? The caller holds mmap_lock. */
static bool range_cacheable(struct mm_struct *mm, unsigned long va, unsigned long end)
{
	while (va < end) {
		struct vm_area_struct *vma = vma_lookup(mm, va);

		if (!vma || !vma_is_anonymous(vma) ||
		    vma->vm_flags & (VM_SHARED | VM_IO | VM_PFNMAP | VM_MIXEDMAP))
			return false;
		va = vma->vm_end;
	}
	return true;
}

static int gup(struct mm_struct *mm, unsigned long va, unsigned long n, bool write,
	       struct page **out)
{
	unsigned long got = 0;

	while (got < n) {
		long ret = pin_user_pages_remote(mm, va + got * PAGE_SIZE, n - got,
						 write ? FOLL_WRITE : 0, out + got, NULL, NULL);

		if (ret <= 0) {
			if (got)
				unpin_user_pages(out, got);
			return ret ? (int)ret : -EFAULT;
		}
		got += ret;
	}
	return 0;
}

/* Pages [i0, i0 + n) of block b into out; takes one @users on success. */
static int pin_part(struct copier_atcache *a, struct atc_block *b, unsigned long i0,
		    unsigned long n, bool write, struct page **out)
{
	unsigned long va = b->base + (i0 << PAGE_SHIFT), i;
	int tries, ret;

	for (tries = 0; tries < ATC_RETRIES; tries++) {
		unsigned long need = 0, nextra = 0, fresh = 0, added = 0;
		struct page **extra;
		bool upgrade = false;
		unsigned long seq;

		spin_lock(&a->lock);
		if (!b->users && !bitmap_empty(b->dead, ATC_BLOCK_PAGES)) {
			/* unpin what the notifier killed now, not when the work runs */
			while (reap_some(a, b))
				spin_lock(&a->lock);
			spin_lock(&a->lock);
		}
		for (i = i0; i < i0 + n; i++) {
			if (test_bit(i, b->dead))
				break;
			if (!test_bit(i, b->valid)) {
				need++;
			} else if (write && !test_bit(i, b->writable)) {
				need++;
				upgrade = true;
			}
		}
		if (i < i0 + n || (upgrade && b->users)) {
			/* a dead slot, or a read pin another copy still uses */
			spin_unlock(&a->lock);
			return -EOPNOTSUPP;
		}
		if (!need) {
			memcpy(out, &b->pages[i0], n * sizeof(*out));
			b->users++;
			a->stats.hits += n;
			list_move_tail(&b->lru, &a->lru);
			spin_unlock(&a->lock);
			return 0;
		}
		spin_unlock(&a->lock);

		if (!make_room(a, b, need))
			return -EOPNOTSUPP;
		/* pins installed twice or replaced, unpinned after the lock */
		extra = kmalloc_array(n, sizeof(*extra), GFP_KERNEL);
		if (!extra) {
			pins_uncharge(a, need);
			return -ENOMEM;
		}
		seq = mmu_interval_read_begin(&b->mni);
		mmap_read_lock(a->mm);
		ret = range_cacheable(a->mm, va, va + (n << PAGE_SHIFT)) ?
			gup(a->mm, va, n, write, out) : -EOPNOTSUPP;
		mmap_read_unlock(a->mm);
		if (ret) {
			pins_uncharge(a, need);
			kfree(extra);
			return ret;
		}

		spin_lock(&a->lock);
		if (mmu_interval_read_retry(&b->mni, seq)) {
			spin_unlock(&a->lock);
			pins_uncharge(a, need);
			unpin_user_pages(out, n);
			kfree(extra);
			continue;
		}
		for (i = i0; i < i0 + n; i++) {
			struct page **slot = &b->pages[i];
			struct page *p = out[i - i0];

			if (test_bit(i, b->valid) && (!write || test_bit(i, b->writable))) {
				/* already cached: no invalidation ran, so the same page */
				WARN_ON_ONCE(*slot != p);
				extra[nextra++] = p;
			} else if (test_bit(i, b->valid)) {
				extra[nextra++] = *slot;	/* the read pin, unused (users 0) */
				slot_unmap(b, i);
				*slot = p;
				__set_bit(i, b->writable);
				fresh++;
			} else {
				*slot = p;
				__set_bit(i, b->valid);
				if (write)
					__set_bit(i, b->writable);
				b->npages++;
				a->npinned++;
				added++;
				fresh++;
			}
		}
		/* an upgraded read pin or a page cached meanwhile: no new slot */
		pins_uncharge(a, need - added);
		b->users++;
		a->stats.misses += fresh;
		a->stats.hits += n - fresh;
		list_move_tail(&b->lru, &a->lru);
		spin_unlock(&a->lock);
		if (nextra)
			unpin_user_pages(extra, nextra);
		kfree(extra);
		return 0;
	}
	return -EOPNOTSUPP;
}

static void release_blocks(struct copier_atcache *a, unsigned long start, unsigned long end)
{
	unsigned long base;
	bool kick = false;

	for (base = start & ~(ATC_BLOCK_BYTES - 1); base < end; base += ATC_BLOCK_BYTES) {
		struct atc_block *b = xa_load(&a->blocks, base >> ATC_BLOCK_SHIFT);

		if (WARN_ON_ONCE(!b))
			continue;
		spin_lock(&a->lock);
		if (!WARN_ON_ONCE(!b->users) && !--b->users && b->on_reap)
			kick = true;
		spin_unlock(&a->lock);
	}
	if (kick)
		schedule_work(&a->reap_work);
}

int copier_atc_pin(struct copier_atcache *a, u64 addr, u64 len, bool write,
		   struct page ***pagesp, unsigned long *np)
{
	unsigned long start = addr & PAGE_MASK, end = PAGE_ALIGN(addr + len), va;
	unsigned long n = (end - start) >> PAGE_SHIFT;
	struct page **pages;
	int ret = 0;

	if (!len || end < start)
		return -EINVAL;
	/* not cacheable: no block (and notifier) for it; pin_part checks again */
	mmap_read_lock(a->mm);
	ret = range_cacheable(a->mm, start, end) ? 0 : -EOPNOTSUPP;
	mmap_read_unlock(a->mm);
	if (ret)
		return ret;
	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (va = start; va < end;) {
		unsigned long base = va & ~(ATC_BLOCK_BYTES - 1);
		unsigned long stop = min(end, base + ATC_BLOCK_BYTES);
		struct atc_block *b = block_get(a, base);

		ret = b ? pin_part(a, b, (va - base) >> PAGE_SHIFT, (stop - va) >> PAGE_SHIFT,
				   write, pages + ((va - start) >> PAGE_SHIFT)) :
			  -ENOMEM;
		if (ret) {
			if (b)
				block_drop_if_empty(a, b);
			break;
		}
		va = stop;
	}
	if (ret) {
		if (va > start)
			release_blocks(a, start, va);
		kvfree(pages);
		return ret;
	}
	*pagesp = pages;
	*np = n;
	return 0;
}

void copier_atc_release(struct copier_atcache *a, u64 addr, u64 len, struct page **pages)
{
	release_blocks(a, addr & PAGE_MASK, PAGE_ALIGN(addr + len));
	kvfree(pages);
}

/* b's mappings for dev, created when missing; NULL when no room. */
static struct atc_dma *block_dma(struct copier_atcache *a, struct atc_block *b,
				 struct device *dev)
{
	struct atc_dma *m;
	unsigned int k;

	for (k = 0; k < ATC_DMA_DEVS && b->dma[k]; k++)
		if (b->dma[k]->dev == dev)
			return b->dma[k];
	if (k == ATC_DMA_DEVS)
		return NULL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	m->dev = dev;
	spin_lock(&a->lock);
	b->dma[k] = m;
	spin_unlock(&a->lock);
	return m;
}

bool copier_atc_dma(struct copier_atcache *a, u64 addr, u64 len, bool write, struct device *dev,
		    dma_addr_t *dma)
{
	unsigned long start = addr & PAGE_MASK, end = PAGE_ALIGN(addr + len);
	unsigned long base = start & ~(ATC_BLOCK_BYTES - 1), i, i0, i1;
	bool ok = true, mapped = false;
	struct atc_block *b;
	struct atc_dma *m;

	if (!a || !len || end < start || end > base + ATC_BLOCK_BYTES)
		return false;
	b = xa_load(&a->blocks, base >> ATC_BLOCK_SHIFT);
	m = b ? block_dma(a, b, dev) : NULL;
	if (!m || READ_ONCE(m->uncacheable))
		return false;
	i0 = (start - base) >> PAGE_SHIFT;
	i1 = (end - base) >> PAGE_SHIFT;
	spin_lock(&a->lock);
	for (i = i0; i < i1; i++) {
		/* the caller holds the pin, a write pin for a destination */
		if (WARN_ON_ONCE(!b->pages[i] || (write && !test_bit(i, b->writable)))) {
			ok = false;
			break;
		}
		if (!test_bit(i, m->mapped)) {
			dma_addr_t d = dma_map_page(dev, b->pages[i], 0, PAGE_SIZE, slot_dir(b, i));

			if (dma_mapping_error(dev, d)) {
				ok = false;
				break;
			}
			if (dma_need_sync(dev, d)) {
				/* a kept mapping would need syncs around every use */
				dma_unmap_page(dev, d, PAGE_SIZE, slot_dir(b, i));
				m->uncacheable = true;
				ok = false;
				break;
			}
			m->addr[i] = d;
			__set_bit(i, m->mapped);
			atomic_long_inc(&atc_dma_live);
			mapped = true;
		}
		if (i > i0 && m->addr[i] != m->addr[i - 1] + PAGE_SIZE) {
			ok = false;	/* not one range for dev: the piece is mapped whole */
			break;
		}
	}
	if (ok) {
		*dma = m->addr[i0] + offset_in_page(addr);
		if (mapped)
			a->stats.dma_misses++;
		else
			a->stats.dma_hits++;
	}
	spin_unlock(&a->lock);
	return ok;
}

void copier_atc_get_stats(struct copier_atcache *a, struct copier_atc_stats *s)
{
	spin_lock(&a->lock);
	*s = a->stats;
	spin_unlock(&a->lock);
}
