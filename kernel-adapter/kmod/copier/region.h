/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared regions (region.c): memory a client binds for other processes'
 * copies, and the attachments through which those name it. access.c holds
 * the ptrace check an attachment needs.
 */
#ifndef COPIER_REGION_H
#define COPIER_REGION_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

struct copier_client;
struct mm_struct;
struct task_struct;

/* Most regions one client binds, and most attachments one client holds. */
#define COPIER_MAX_REGIONS 256
#define COPIER_MAX_ATTACH 256

/**
 * struct copier_region - a range of its memory a client shares
 * @ref: the owner's list holds one, each attachment one, each task and
 *       each pinned piece that names it one; freed after an RCU grace
 *       period (lookups are under rcu_read_lock)
 * @token: its id in copier_regions (never 0, never reused while loaded)
 * @mm: the owner's mm (mmgrab); pages are pinned in it under mmget_not_zero
 * @addr: start in @mm
 * @len: bytes
 * @access: COPIER_REGION_*
 * @lock: @revoked and @users
 * @revoked: 0, or the errno of tasks that name it (EIDRM: unbound, ESRCH:
 *           the owner closed or exited)
 * @users: pieces holding pins in it; revocation waits until 0
 * @idle: woken when @users drops to 0 after revocation
 * @node: in the owner's @regions (its @region_lock)
 */
struct copier_region {
	struct kref ref;
	struct rcu_head rcu;
	u64 token;
	struct mm_struct *mm;
	u64 addr;
	u64 len;
	u32 access;
	spinlock_t lock;
	int revoked;
	unsigned int users;
	wait_queue_head_t idle;
	struct list_head node;
};

/* The ioctls (client.c dispatches; the caller's mm is the client's). */
long copier_ioc_bind(struct copier_client *c, void __user *arg);
long copier_ioc_unbind(struct copier_client *c, void __user *arg);
long copier_ioc_attach(struct copier_client *c, void __user *arg);
long copier_ioc_detach(struct copier_client *c, void __user *arg);

/* The client's file is released: revoke what it bound (ESRCH). May sleep. */
void copier_regions_release(struct copier_client *c);

/* The client is freed: drop its attachments. */
void copier_attachments_free(struct copier_client *c);

/* The region attached as handle, with a reference; NULL when none. */
struct copier_region *copier_region_get(struct copier_client *c, u32 handle);
void copier_region_put(struct copier_region *r);

/* Start pinning in r: 0, or -errno when revoked. Ends with _unuse. */
int copier_region_use(struct copier_region *r);
void copier_region_unuse(struct copier_region *r);

/* access.c: resolve the ptrace check at load; the checked mm of a task. */
void copier_access_init(void);
struct mm_struct *copier_access_mm(struct task_struct *task);

#endif /* COPIER_REGION_H */
