/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ATCache (atcache.c): per-client cache of pinned user pages, so that a
 * buffer a program copies from or into again and again is pinned once.
 * Invalidated by an mmu_interval_notifier on munmap, mremap, migration,
 * CoW, swap-out and exit.
 */
#ifndef COPIER_ATCACHE_H
#define COPIER_ATCACHE_H

#include <linux/types.h>

struct copier_atcache;
struct device;
struct mm_struct;
struct page;

/* The client's cache counters: pages, and DMA piece sides. */
struct copier_atc_stats {
	u64 hits;		/* pages found pinned in the cache */
	u64 misses;		/* pages pinned and cached */
	u64 invalidated;	/* cached pages dropped by the mmu notifier */
	u64 dma_hits;		/* copier_atc_dma() answers from cached mappings */
	u64 dma_misses;		/* ... that mapped at least one page first */
};

/*
 * Cache for the client of mm (which the caller keeps grabbed until
 * copier_atc_destroy). NULL when the cache is off (atc_pages=0) or on
 * -ENOMEM: the client then pins per copy.
 */
struct copier_atcache *copier_atc_create(struct mm_struct *mm);

/* Unpin and free everything; no copy may be in flight. May sleep. */
void copier_atc_destroy(struct copier_atcache *a);

/*
 * copier_atc_pin() - the pinned pages under [addr, addr + len)
 * @write: the pages are a copy's destination (pinned with FOLL_WRITE)
 * @pagesp: out: a kvmalloc'ed array of the pages, first one at addr
 * @np: out: its length
 *
 * Context: process context, the caller holds mmget on the mm and not its
 * mmap_lock. Returns 0, or -EOPNOTSUPP when the range is not cacheable
 * (not private anonymous memory, a page being invalidated, the cache full
 * of pages in use), -EFAULT when it cannot be pinned, -ENOMEM: the caller
 * then pins without the cache. On success the pages stay pinned until
 * copier_atc_release() of the same range.
 */
int copier_atc_pin(struct copier_atcache *a, u64 addr, u64 len, bool write,
		   struct page ***pagesp, unsigned long *np);

/* Give back what copier_atc_pin() returned (frees the array). May sleep. */
void copier_atc_release(struct copier_atcache *a, u64 addr, u64 len, struct page **pages);

/*
 * copier_atc_dma() - dev's address of [addr, addr + len), from the cache
 * @addr: in pages the caller holds through copier_atc_pin(), physically
 *        contiguous, within one 2 MiB block
 * @write: the range is a destination (its pages are write pins)
 * @dev: the DMA channel's device
 * @dma: out: the bus address of addr
 *
 * Maps the pages for dev once (dma_map_page, one page each;
 * DMA_BIDIRECTIONAL for write pins, DMA_TO_DEVICE for read pins, which the
 * device may not write) and keeps each mapping while the cache keeps the
 * page pinned: the mapping goes when the page does (unpinned after an
 * invalidation, eviction, or copier_atc_destroy), never while a copy
 * holds it. Returns false when it has no answer: the range spans two
 * blocks, a third device, a mapping that needs dma_sync calls (swiotlb,
 * a non-coherent device), mappings that are not contiguous for dev (an
 * IOMMU), or an error; the caller then maps the piece itself.
 * Context: process context (the service thread), not holding the cache.
 */
bool copier_atc_dma(struct copier_atcache *a, u64 addr, u64 len, bool write, struct device *dev,
		    dma_addr_t *dma);

void copier_atc_get_stats(struct copier_atcache *a, struct copier_atc_stats *s);

#endif /* COPIER_ATCACHE_H */
