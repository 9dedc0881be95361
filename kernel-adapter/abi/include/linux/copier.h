/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR Apache-2.0 */
/*
 * Copier's user/kernel ABI: the layouts that libcopier, the in-process
 * service and copier.ko (/dev/copier) share.
 *
 * A client maps one area per open file (mmap offset 0, length from
 * COPIER_IOC_SETUP):
 *
 *   [copy ring header][copy entries][sync ring header][sync entries]
 *   [handler ring header][handler entries][descriptors]
 *
 * Each ring is single-producer: positions are monotonically increasing
 * 64-bit counters, a slot is pos & (entries - 1), and entries is a power of
 * two. Copy entry i and descriptor i belong together: a descriptor is the
 * per-segment completion state of the task in copy slot i, and its `pos`
 * field is that task's ring position (its generation).
 *
 * Every field shared between threads is accessed with atomic operations of
 * its own width; the protocol (claim, complete, retire) is documented in
 * kernel-adapter/service/src/desc.rs.
 */
#ifndef _UAPI_LINUX_COPIER_H
#define _UAPI_LINUX_COPIER_H

#include <linux/types.h>
#include <linux/ioctl.h>

/*
 * Version 2 added shared regions (COPIER_IOC_BIND .. COPIER_IOC_DETACH,
 * COPIER_F_SRC_REGION, COPIER_F_DST_REGION, COPIER_D_ERROR); copier.ko
 * also accepts version 1 clients, for which those flags are unknown.
 */
#define COPIER_ABI_VERSION 2

/* Most segments one task may have: bits in each descriptor bitmap. */
#define COPIER_MAX_SEGS 1024
#define COPIER_BITMAP_WORDS (COPIER_MAX_SEGS / 64)

/*
 * copier_entry.flags, set by the submitter. copier.ko finishes a task whose
 * flags hold a bit outside COPIER_F_KNOWN, or whose reserved word is not 0,
 * with COPIER_D_FAULTED (the submitter then copies it itself), so bits can
 * be given a meaning later without old modules misreading them.
 */
#define COPIER_F_LAZY (1U << 0)      /* lazy copy: runs only when needed */
/*
 * The ranges may overlap (memmove). copier.ko does not execute overlapping
 * moves: it finishes them with COPIER_D_FAULTED for the submitter to run.
 */
#define COPIER_F_MOVE (1U << 1)
/*
 * Barrier: copies no byte; completes only once every earlier task of the
 * ring has retired, and no later task starts before it completes. It
 * orders copies submitted before a syscall against those after it.
 */
#define COPIER_F_BARRIER (1U << 2)
/*
 * Cross-process copies (version 2): the source (COPIER_F_SRC_REGION) or the
 * destination (COPIER_F_DST_REGION) is a region another process bound
 * (COPIER_IOC_BIND) and this client attached (COPIER_IOC_ATTACH): that
 * address field holds the offset into the region, copier_entry.region the
 * attachment handle. At most one of the two; not with LAZY, MOVE or BARRIER.
 * copier.ko never leaves such a task to the submitter: it copies it, or
 * finishes it with COPIER_D_ERROR and the errno in copier_desc.error.
 */
#define COPIER_F_SRC_REGION (1U << 3)
#define COPIER_F_DST_REGION (1U << 4)
#define COPIER_F_KNOWN (COPIER_F_LAZY | COPIER_F_MOVE | COPIER_F_BARRIER | \
			COPIER_F_SRC_REGION | COPIER_F_DST_REGION)

/* copier_desc.flags, set by executors and the tracker. */
#define COPIER_D_FAULTED (1U << 0)   /* a segment's copy faulted */
#define COPIER_D_INGESTED (1U << 1)  /* the tracker has computed its edges */
#define COPIER_D_DEPS_CLEAR (1U << 2) /* no pending dependency left */
#define COPIER_D_RETIRED (1U << 3)   /* removed from the tracker */
#define COPIER_D_DROPPED (1U << 4)   /* lazy task dropped unexecuted */
#define COPIER_D_FAILED (1U << 5)    /* finished with a fault, delivered */
/*
 * copier.ko finished a region task without copying all of it: every
 * segment is done and copier_desc.error holds the (positive) errno. Set
 * before the last segments complete, so a waiter that sees done_count ==
 * nsegs sees it.
 */
#define COPIER_D_ERROR (1U << 6)

/* One slot of the copy ring: a copy task (48 bytes). */
struct copier_entry {
	__u64 dst;      /* destination address in the client's address space */
	__u64 src;      /* source address */
	__u64 len;      /* bytes */
	__u64 handler;  /* void (*)(void *) run after completion, 0 for none */
	__u64 arg;      /* its argument */
	__u32 flags;    /* COPIER_F_* */
	__u32 region;   /* attachment handle with COPIER_F_*_REGION, else 0 */
};

/* One word of each bitmap: segments [64 w, 64 w + 64). */
struct copier_desc_words {
	__u64 claimed;  /* executor owns the segment */
	__u64 done;     /* segment copied */
};

/*
 * Per-task segment state (288 bytes). The submitter resets it (pos,
 * nsegs, seg_shift, zero flags, prefix, done_count and the task's bitmap
 * words) before it publishes the copy ring's head; executors then set
 * claim and done bits, prefix, done_count and flags. The header and word 0 of both
 * bitmaps fill the first 48 bytes, so a task of up to 64 segments keeps
 * its whole state on one cache line.
 */
struct copier_desc {
	__u64 pos;        /* generation: ring position, ~0 when never used */
	__u32 nsegs;      /* segments of the current task, 1..COPIER_MAX_SEGS */
	__u32 seg_shift;  /* a segment is 1 << seg_shift bytes; copier.ko takes 6..24
			   * and nsegs == DIV_ROUND_UP(len, 1 << seg_shift) */
	__u32 flags;      /* COPIER_D_* */
	__u32 prefix;     /* completed-prefix counter: leading done segments */
	__u32 done_count; /* done segments; reaching nsegs elects the retirer */
	__u32 error;      /* with COPIER_D_ERROR: the errno, written by copier.ko */
	struct copier_desc_words words[COPIER_BITMAP_WORDS];
};

/*
 * Ring header, one cache line per position so that producer and consumer
 * do not false-share (64-byte lines on x86-64).
 */
struct copier_ring {
	__u64 head;          /* next position the producer writes */
	__u8 pad0[56];
	__u64 tail;          /* oldest position not yet retired */
	__u8 pad1[56];
	__u64 ingested;      /* next position the consumer reads */
	__u8 pad2[56];
	__u32 entries;       /* slot count, a power of two */
	__u32 entry_size;    /* bytes per slot */
	__u32 waiters;       /* futex word: consumers parked on this ring */
	__u32 reserved;
	__u8 pad3[48];
};

/* One slot of the sync ring: a range a csync waits for (promotion). */
struct copier_sync_entry {
	__u64 addr;
	__u64 len;
};

/* One slot of the handler ring: a completion handler to run in user space. */
struct copier_handler_entry {
	__u64 handler;
	__u64 arg;
	__u64 dst;
	__u64 src;
	__u64 len;
};

/* COPIER_IOC_SETUP: sizes in, layout out. */
struct copier_setup {
	__u32 version;        /* in: COPIER_ABI_VERSION */
	__u32 flags;          /* in: 0 */
	__u32 copy_entries;   /* in: power of two, 2..65536 */
	__u32 sync_entries;   /* in: power of two, 2..65536 */
	__u32 handler_entries;/* in: power of two, 2..65536 */
	__u32 reserved;
	__u64 map_len;        /* out: bytes to mmap at offset 0 */
	__u64 copy_ring_off;  /* out: offsets of each part in the mapping */
	__u64 sync_ring_off;
	__u64 handler_ring_off;
	__u64 desc_off;
};

/* COPIER_IOC_LIMITS: per-client limits (0 keeps the current value). */
struct copier_limits {
	__u64 max_bytes_per_round;
	__u64 reserved[3];
};

/*
 * COPIER_IOC_STATS: counters of the client. The struct grows at the end
 * only: copier.ko answers the ioctl for any size from
 * COPIER_STATS_SIZE_V1 (version 1's struct) to sizeof(struct copier_stats)
 * (the size is in the ioctl number) and writes that many bytes.
 */
#define COPIER_STATS_SIZE_V1 64
struct copier_stats {
	__u64 tasks;          /* tasks executed */
	__u64 bytes;          /* bytes copied */
	__u64 bytes_dma;      /* of which by a DMA channel */
	__u64 faults;         /* tasks finished with a fault */
	__u64 rounds;         /* service rounds that served this client */
	__u64 atc_hits;       /* pages found pinned in the ATCache */
	__u64 atc_misses;     /* pages pinned into the ATCache */
	__u64 atc_invalidated;/* cached pages dropped by an mm change */
	/* version 2: */
	__u64 atc_dma_hits;   /* DMA piece sides whose address the ATCache had mapped */
	__u64 atc_dma_misses; /* DMA piece sides whose pages it mapped first */
};

/*
 * COPIER_IOC_WAIT: sleep until the task at ring position pos no longer
 * needs the service: retired, complete, faulted (COPIER_D_FAULTED: the
 * caller re-executes it) or lazy. For csync after a bounded spin on the
 * descriptor. Returns 0, -ETIMEDOUT after timeout_ns (0: no timeout),
 * -EINTR on a signal, -EINVAL when pos was not submitted.
 */
struct copier_wait {
	__u64 pos;
	__u64 timeout_ns;
	__u64 reserved[2];    /* 0 */
};

/* copier_bind.access: what other processes may do with the region. */
#define COPIER_REGION_READ (1U << 0)  /* copy from it (COPIER_F_SRC_REGION) */
#define COPIER_REGION_WRITE (1U << 1) /* copy into it (COPIER_F_DST_REGION) */

/*
 * COPIER_IOC_BIND: share [addr, addr + len) of the caller's memory with
 * processes allowed to ptrace it (PTRACE_MODE_ATTACH_REALCREDS). The range
 * must be mapped with the access's permissions now; its pages are pinned
 * only while a copy runs. Returns 0 and the token, -EINVAL (a bad field),
 * -EFAULT (not mapped so), -ENOSPC (too many regions bound).
 */
struct copier_bind {
	__u64 addr;     /* in: start in the caller's address space */
	__u64 len;      /* in: bytes, > 0 */
	__u32 access;   /* in: COPIER_REGION_*, not 0 */
	__u32 flags;    /* in: 0 */
	__u64 token;    /* out: the region's id, never 0 nor reused while loaded */
};

/*
 * COPIER_IOC_UNBIND: revoke a region the caller bound. Returns once no
 * copy uses its pages any more; later tasks naming it finish with EIDRM.
 * -ENOENT when the caller bound no such region.
 */
struct copier_unbind {
	__u64 token;
	__u64 reserved; /* 0 */
};

/*
 * COPIER_IOC_ATTACH: name the region `token` that process `pid` (in the
 * caller's pid namespace) bound. Allowed only when the caller may ptrace
 * that process (PTRACE_MODE_ATTACH_REALCREDS, checked now): -EPERM
 * otherwise, -ESRCH for no such process, -ENOENT for no such region of it,
 * -ENOSPC for too many attachments, -EOPNOTSUPP when this kernel lets the
 * module make no ptrace check.
 */
struct copier_attach {
	__s32 pid;      /* in: the owner */
	__u32 flags;    /* in: 0 */
	__u64 token;    /* in: the owner's COPIER_IOC_BIND token */
	__u32 handle;   /* out: for copier_entry.region, >= 1 */
	__u32 access;   /* out: the region's COPIER_REGION_* */
	__u64 len;      /* out: the region's length */
};

/* COPIER_IOC_DETACH: drop an attachment (-ENOENT when there is none). */
struct copier_detach {
	__u32 handle;
	__u32 reserved; /* 0 */
};

#define COPIER_IOC_MAGIC 0xC0
#define COPIER_IOC_SETUP _IOWR(COPIER_IOC_MAGIC, 1, struct copier_setup)
#define COPIER_IOC_WAKE _IO(COPIER_IOC_MAGIC, 2)
#define COPIER_IOC_LIMITS _IOW(COPIER_IOC_MAGIC, 3, struct copier_limits)
#define COPIER_IOC_STATS _IOR(COPIER_IOC_MAGIC, 4, struct copier_stats)
#define COPIER_IOC_WAIT _IOW(COPIER_IOC_MAGIC, 5, struct copier_wait)
#define COPIER_IOC_BIND _IOWR(COPIER_IOC_MAGIC, 6, struct copier_bind)
#define COPIER_IOC_UNBIND _IOW(COPIER_IOC_MAGIC, 7, struct copier_unbind)
#define COPIER_IOC_ATTACH _IOWR(COPIER_IOC_MAGIC, 8, struct copier_attach)
#define COPIER_IOC_DETACH _IOW(COPIER_IOC_MAGIC, 9, struct copier_detach)

#endif /* _UAPI_LINUX_COPIER_H */
