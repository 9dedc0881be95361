/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/*
 * User-space side of /dev/copier: open and map a client, submit copy
 * tasks, and wait for them (csync). The one place the VM tests talk to the
 * device; a libcopier kernel backend mirrors these calls.
 *
 * Single producer: one thread submits on a struct cu_client (its ring is
 * single-producer, as the in-process service's per-thread queues).
 */
#ifndef COPIER_USER_H
#define COPIER_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/copier.h>

struct cu_client {
	int fd;
	void *map;
	size_t map_len;
	struct copier_ring *copy;
	struct copier_ring *handler;
	struct copier_entry *entries;
	struct copier_handler_entry *handlers;
	struct copier_desc *descs;
	uint32_t nentries;
	uint32_t nhandlers;
	uint64_t head;		/* producer-private copy ring head */
	uint64_t handler_tail;	/* consumer-private handler ring tail */
};

/* Open /dev/copier and map a client with `entries` copy slots; 0 or -errno. */
int cu_open(struct cu_client *c, uint32_t entries);
/* cu_open with another copier_setup.version (ABI compatibility tests). */
int cu_open_version(struct cu_client *c, uint32_t entries, uint32_t version);
void cu_close(struct cu_client *c);

/*
 * Submit a copy of len bytes; returns its ring position, or -EAGAIN when
 * every slot holds an unretired task. flags are COPIER_F_*; handler/arg go
 * to the handler ring when the task retires (0: none).
 */
int64_t cu_submit_full(struct cu_client *c, void *dst, const void *src, size_t len,
		       uint32_t flags, uint64_t handler, uint64_t arg);
static inline int64_t cu_submit(struct cu_client *c, void *dst, const void *src, size_t len)
{
	return cu_submit_full(c, dst, src, len, 0, 0, 0);
}

/*
 * Submit a region task: len bytes between local memory and offset off of
 * the region attached as handle; to_region copies local -> region, else
 * region -> local. extra_flags are more COPIER_F_* bits (tests of bad
 * combinations). Returns as cu_submit_full.
 */
int64_t cu_submit_region(struct cu_client *c, void *local, uint32_t handle, uint64_t off,
			 size_t len, bool to_region, uint32_t extra_flags);

/*
 * Wait for a region task: 0 when it copied, the positive errno it finished
 * with (COPIER_D_ERROR), or -errno (-EPROTO: the module handed it back).
 */
int cu_wait_error(struct cu_client *c, uint64_t pos);

/* The region ioctls (copier.h); 0 or -errno. */
int cu_bind(struct cu_client *c, void *addr, size_t len, uint32_t access, uint64_t *token);
int cu_unbind(struct cu_client *c, uint64_t token);
int cu_attach(struct cu_client *c, int pid, uint64_t token, uint32_t *handle, uint64_t *len);
int cu_detach(struct cu_client *c, uint32_t handle);

/* True when every segment of the task at pos is done (or it retired). */
bool cu_done(struct cu_client *c, uint64_t pos);

/*
 * csync of the task at pos: spin on its descriptor, then sleep in
 * COPIER_IOC_WAIT. A faulted or lazy task is re-executed here with
 * memmove, as the in-process csync does (so a bad range faults in the
 * caller, like memcpy). Returns 0, or 1 when this thread executed some
 * segments itself.
 */
int cu_wait(struct cu_client *c, uint64_t pos);

/*
 * Wait until the service is done with the task at pos, without executing
 * anything: 0 when it completed, 1 when it is faulted or lazy (the caller
 * must finish it), -errno on a device error.
 */
int cu_settle(struct cu_client *c, uint64_t pos);

/*
 * Finish a faulted task without copying (COPIER_D_FAILED), for a caller that
 * recovered from the fault instead of re-executing.
 */
void cu_fail(struct cu_client *c, uint64_t pos);

/* Oldest unretired position (the kernel's tail). */
uint64_t cu_tail(struct cu_client *c);

/*
 * cu_submit_full without handler, waiting for the oldest task while the
 * ring is full (-EAGAIN); other errors are returned as is.
 */
int64_t cu_submit_retry(struct cu_client *c, void *dst, const void *src, size_t len, uint32_t flags);

/* Pop one handler ring entry; false when empty. */
bool cu_pop_handler(struct cu_client *c, struct copier_handler_entry *out);

/* Tell the service the client changed something it waits on. */
void cu_wake(struct cu_client *c);

/* The descriptor flags of the task at pos (COPIER_D_*). */
uint32_t cu_desc_flags(struct cu_client *c, uint64_t pos);

#endif /* COPIER_USER_H */
