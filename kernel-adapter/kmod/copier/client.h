/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A client of /dev/copier: one process (one mm) and its shared area.
 *
 * Lifetime: the file holds one reference (kref), a service thread serving
 * the client holds another for the round. The area and the mm reference
 * (mmgrab at open) are freed with the last reference; release only marks
 * the client dead and unlinks it, so a round in progress finishes safely.
 *
 * Fields under "scheduling" are protected by copier_sched_lock (sched.c);
 * fields under "service" belong to the one thread that holds @busy; the
 * shared area is read and written with single-copy atomic accesses only,
 * and nothing read from it is trusted (round.c validates every value).
 */
#ifndef COPIER_CLIENT_H
#define COPIER_CLIENT_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/copier.h>

struct copier_region;

/* The service's snapshot of the task at exec_pos (never re-read). */
struct copier_ktask {
	u64 dst;
	u64 src;
	u64 len;
	u32 nsegs;
	u32 seg_shift;
	u32 next_seg;	/* first segment the service has not tried yet */
	struct copier_region *region;	/* with COPIER_F_*_REGION: a reference */
	bool region_dst;		/* the region is the destination */
};

struct copier_client {
	struct kref ref;
	struct mm_struct *mm;		/* the only address space it copies in */
	u64 cgroup_id;			/* of the opener, for the log and limits */

	/* area: set once by COPIER_IOC_SETUP under @setup_lock */
	struct mutex setup_lock;
	bool ready;			/* area set up (read with acquire) */
	void *area;
	size_t map_len;
	struct copier_ring *copy_ring;
	struct copier_ring *sync_ring;
	struct copier_ring *handler_ring;
	struct copier_entry *entries;
	struct copier_handler_entry *handlers;
	struct copier_desc *descs;
	u32 nentries;			/* copy ring slots (power of two) */
	u32 nhandlers;			/* handler ring slots (power of two) */
	u32 abi_version;		/* copier_setup.version */

	/* shared regions (region.c) */
	struct mutex region_lock;	/* @regions, @nregions */
	struct list_head regions;	/* bound by this client */
	unsigned int nregions;
	struct xarray attached;		/* handle -> struct copier_region * (a reference) */

	/* scheduling (copier_sched_lock) */
	struct list_head node;		/* in the client list */
	bool dead;			/* file released */
	bool busy;			/* a service thread serves it */
	bool idle;			/* last round made no progress */
	u64 idle_head;			/* copy ring head seen by that round */
	u64 charge;			/* bytes copied, CFS-like virtual time */
	u64 max_round_bytes;		/* COPIER_IOC_LIMITS */

	/* service (the thread holding @busy) */
	bool mm_gone;			/* mm exited: nothing left to do */
	u64 exec_pos;			/* next position to execute */
	u64 tail;			/* oldest position not retired */
	u64 handler_head;		/* next handler ring position */
	bool cur_valid;			/* @cur holds the task at exec_pos */
	struct copier_ktask cur;

	struct copier_atcache *atc;	/* pinned-page cache, NULL when off */

	/* counters: written by the serving thread, read racily by STATS */
	struct copier_stats stats;

	wait_queue_head_t waitq;	/* COPIER_IOC_WAIT sleepers */
};

void copier_client_put(struct copier_client *c);

static inline struct copier_entry *copier_entry_at(struct copier_client *c, u64 pos)
{
	return &c->entries[pos & (c->nentries - 1)];
}

static inline struct copier_desc *copier_desc_at(struct copier_client *c, u64 pos)
{
	return &c->descs[pos & (c->nentries - 1)];
}

#endif /* COPIER_CLIENT_H */
