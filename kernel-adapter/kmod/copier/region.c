// SPDX-License-Identifier: GPL-2.0
/*
 * Shared regions: cross-process copies.
 *
 * An owner binds a range of its memory (COPIER_IOC_BIND) and gets a token,
 * a key in the module-wide copier_regions. Another client attaches it
 * (COPIER_IOC_ATTACH: owner pid + token), which is where permission is
 * decided: in the caller's context, the caller must be allowed to ptrace
 * the owner (access.c), as /proc/<pid>/mem decides at open; the token is
 * an id, not a secret. The attachment is a small handle in the caller's
 * client, which copy entries name (copier_entry.region, with
 * COPIER_F_SRC_REGION or COPIER_F_DST_REGION).
 *
 * The service pins the owner's pages per piece (round.c): under
 * copier_region_use() (refused once revoked), mmget_not_zero() of the
 * owner's mm (fails once the owner exited or exec'd), mmap_read_lock and
 * pin_user_pages_remote(). Unbind and the owner's release revoke a region
 * and wait until no piece holds pins in it, so after COPIER_IOC_UNBIND
 * returns the module no longer touches that memory. References keep the
 * object (and the mm_struct, mmgrab) alive for every holder, so a revoked
 * region's tasks finish with an errno, never a use after free.
 */
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "client.h"
#include "region.h"

/* token -> region, every region bound and not revoked */
static DEFINE_XARRAY(copier_regions);
static atomic64_t copier_next_token = ATOMIC64_INIT(0);

static void region_free(struct kref *ref)
{
	struct copier_region *r = container_of(ref, struct copier_region, ref);

	mmdrop(r->mm);
	kfree_rcu(r, rcu);
}

void copier_region_put(struct copier_region *r)
{
	kref_put(&r->ref, region_free);
}

int copier_region_use(struct copier_region *r)
{
	int err;

	spin_lock(&r->lock);
	err = r->revoked;
	if (!err)
		r->users++;
	spin_unlock(&r->lock);
	return -err;
}

void copier_region_unuse(struct copier_region *r)
{
	bool wake;

	spin_lock(&r->lock);
	wake = !--r->users && r->revoked;
	spin_unlock(&r->lock);
	if (wake)
		wake_up_all(&r->idle);
}

static bool region_idle(struct copier_region *r)
{
	bool idle;

	spin_lock(&r->lock);
	idle = !r->users;
	spin_unlock(&r->lock);
	return idle;
}

/* Revoke r (the owner's list reference, unlinked by the caller) and drop it. */
static void region_revoke(struct copier_region *r, int err)
{
	spin_lock(&r->lock);
	r->revoked = err;
	spin_unlock(&r->lock);
	xa_erase(&copier_regions, r->token);
	/* pieces pinned before the revocation finish in bounded time */
	wait_event(r->idle, region_idle(r));
	copier_region_put(r);
}

/* Mapped along [addr, addr + len) with access's permissions, pinnable? */
static int range_mapped(struct mm_struct *mm, u64 addr, u64 len, u32 access)
{
	unsigned long va = addr, end = addr + len;
	int err = 0;

	mmap_read_lock(mm);
	while (va < end) {
		struct vm_area_struct *vma = vma_lookup(mm, va);

		if (!vma || vma->vm_flags & (VM_IO | VM_PFNMAP) ||
		    ((access & COPIER_REGION_READ) && !(vma->vm_flags & VM_READ)) ||
		    ((access & COPIER_REGION_WRITE) && !(vma->vm_flags & VM_WRITE))) {
			err = -EFAULT;
			break;
		}
		va = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return err;
}

long copier_ioc_bind(struct copier_client *c, void __user *arg)
{
	struct copier_bind b;
	struct copier_region *r;
	int err;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	if (b.flags || !b.access || (b.access & ~(COPIER_REGION_READ | COPIER_REGION_WRITE)) ||
	    !b.len || b.addr + b.len < b.addr || b.addr + b.len > TASK_SIZE_MAX)
		return -EINVAL;
	err = range_mapped(c->mm, b.addr, b.len, b.access);
	if (err)
		return err;
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	kref_init(&r->ref);
	spin_lock_init(&r->lock);
	init_waitqueue_head(&r->idle);
	r->mm = c->mm;
	mmgrab(r->mm);
	r->addr = b.addr;
	r->len = b.len;
	r->access = b.access;
	r->token = atomic64_inc_return(&copier_next_token);

	mutex_lock(&c->region_lock);
	if (c->nregions >= COPIER_MAX_REGIONS) {
		err = -ENOSPC;
		goto out_unlock;
	}
	err = xa_insert(&copier_regions, r->token, r, GFP_KERNEL);
	if (err)
		goto out_unlock;
	list_add(&r->node, &c->regions);
	c->nregions++;
	mutex_unlock(&c->region_lock);

	b.token = r->token;
	if (copy_to_user(arg, &b, sizeof(b))) {
		mutex_lock(&c->region_lock);
		list_del(&r->node);
		c->nregions--;
		mutex_unlock(&c->region_lock);
		region_revoke(r, EIDRM);
		return -EFAULT;
	}
	return 0;

out_unlock:
	mutex_unlock(&c->region_lock);
	copier_region_put(r);
	return err;
}

long copier_ioc_unbind(struct copier_client *c, void __user *arg)
{
	struct copier_region *r, *found = NULL;
	struct copier_unbind u;

	if (copy_from_user(&u, arg, sizeof(u)))
		return -EFAULT;
	if (u.reserved)
		return -EINVAL;
	mutex_lock(&c->region_lock);
	list_for_each_entry(r, &c->regions, node) {
		if (r->token == u.token) {
			found = r;
			list_del(&r->node);
			c->nregions--;
			break;
		}
	}
	mutex_unlock(&c->region_lock);
	if (!found)
		return -ENOENT;
	region_revoke(found, EIDRM);
	return 0;
}

void copier_regions_release(struct copier_client *c)
{
	struct copier_region *r, *tmp;
	LIST_HEAD(list);

	mutex_lock(&c->region_lock);
	list_splice_init(&c->regions, &list);
	c->nregions = 0;
	mutex_unlock(&c->region_lock);
	list_for_each_entry_safe(r, tmp, &list, node) {
		list_del(&r->node);
		region_revoke(r, ESRCH);
	}
}

/* The region token of the process with mm, with a reference; NULL when none. */
static struct copier_region *region_find(u64 token, struct mm_struct *mm)
{
	struct copier_region *r;

	rcu_read_lock();
	r = xa_load(&copier_regions, token);
	if (r && (r->mm != mm || READ_ONCE(r->revoked) || !kref_get_unless_zero(&r->ref)))
		r = NULL;
	rcu_read_unlock();
	return r;
}

long copier_ioc_attach(struct copier_client *c, void __user *arg)
{
	struct copier_attach a;
	struct copier_region *r;
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *pid;
	u32 handle;
	int err;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.flags || a.pid <= 0 || !a.token || a.handle || a.access || a.len)
		return -EINVAL;
	pid = find_get_pid(a.pid);
	task = pid ? get_pid_task(pid, PIDTYPE_TGID) : NULL;
	put_pid(pid);
	if (!task)
		return -ESRCH;
	/* permission first: without it, whether the token exists is not told */
	mm = copier_access_mm(task);
	put_task_struct(task);
	if (IS_ERR(mm))
		return PTR_ERR(mm);
	r = region_find(a.token, mm);
	mmput(mm);
	if (!r)
		return -ENOENT;
	err = xa_alloc(&c->attached, &handle, r, XA_LIMIT(1, COPIER_MAX_ATTACH), GFP_KERNEL);
	if (err) {
		copier_region_put(r);
		return err == -EBUSY ? -ENOSPC : err;
	}
	a.handle = handle;
	a.access = r->access;
	a.len = r->len;
	if (copy_to_user(arg, &a, sizeof(a))) {
		xa_erase(&c->attached, handle);
		copier_region_put(r);
		return -EFAULT;
	}
	return 0;
}

long copier_ioc_detach(struct copier_client *c, void __user *arg)
{
	struct copier_region *r;
	struct copier_detach d;

	if (copy_from_user(&d, arg, sizeof(d)))
		return -EFAULT;
	if (d.reserved || !d.handle)
		return -EINVAL;
	r = xa_erase(&c->attached, d.handle);
	if (!r)
		return -ENOENT;
	copier_region_put(r);
	return 0;
}

struct copier_region *copier_region_get(struct copier_client *c, u32 handle)
{
	struct copier_region *r;

	rcu_read_lock();
	r = xa_load(&c->attached, handle);
	if (r && !kref_get_unless_zero(&r->ref))
		r = NULL;
	rcu_read_unlock();
	return r;
}

void copier_attachments_free(struct copier_client *c)
{
	struct copier_region *r;
	unsigned long idx;

	xa_for_each(&c->attached, idx, r)
		copier_region_put(r);
	xa_destroy(&c->attached);
}
