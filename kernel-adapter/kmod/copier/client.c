// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/copier file operations: one client per open file, one client per
 * process.
 *
 * open makes a client bound to the opener's mm (mmgrab); a second open from
 * the same mm while the first file is open fails with -EBUSY, so a process
 * is one client for fairness and its threads share the file. Every ioctl
 * and mmap must come from that mm (-EPERM otherwise): a forked child or an
 * exec'd image inherits the descriptor but cannot use it (and the mapping
 * is not inherited across fork). After exec the old mm is gone and the
 * client only waits to be closed; open /dev/copier with O_CLOEXEC.
 */
#include <linux/cgroup.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "area.h"
#include "atcache.h"
#include "client.h"
#include "fops.h"
#include "region.h"
#include "round.h"
#include "sched.h"

/* Client objects allocated and not freed: what the VM test checks leaks by. */
static atomic_t copier_live_clients = ATOMIC_INIT(0);

static void client_free(struct kref *ref)
{
	struct copier_client *c = container_of(ref, struct copier_client, ref);

	if (c->cur_valid && c->cur.region)
		copier_region_put(c->cur.region);
	copier_attachments_free(c);
	copier_area_free(c);
	copier_atc_destroy(c->atc);
	mmdrop(c->mm);
	kfree(c);
	atomic_dec(&copier_live_clients);
}

void copier_client_put(struct copier_client *c)
{
	kref_put(&c->ref, client_free);
}

static int copier_open(struct inode *inode, struct file *file)
{
	struct copier_client *c;
	int ret;

	if (!current->mm)
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	atomic_inc(&copier_live_clients);
	kref_init(&c->ref);
	mutex_init(&c->setup_lock);
	mutex_init(&c->region_lock);
	INIT_LIST_HEAD(&c->regions);
	xa_init_flags(&c->attached, XA_FLAGS_ALLOC1);
	init_waitqueue_head(&c->waitq);
	INIT_LIST_HEAD(&c->node);
	c->mm = current->mm;
	mmgrab(c->mm);
	c->atc = copier_atc_create(c->mm);
#ifdef CONFIG_CGROUPS
	rcu_read_lock();
	c->cgroup_id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
#endif
	ret = copier_sched_add(c);
	if (ret)
		goto out_put;
	file->private_data = c;
	return 0;

out_put:
	copier_client_put(c);
	return ret;
}

static int copier_release(struct inode *inode, struct file *file)
{
	struct copier_client *c = file->private_data;

	copier_sched_remove(c);
	wake_up_all(&c->waitq);
	copier_regions_release(c);
	copier_client_put(c);
	return 0;
}

static long ioc_setup(struct copier_client *c, void __user *arg)
{
	struct copier_setup s;
	long ret;

	if (copy_from_user(&s, arg, sizeof(s)))
		return -EFAULT;
	mutex_lock(&c->setup_lock);
	if (c->ready) {
		ret = -EBUSY;
		goto out_unlock;
	}
	ret = copier_area_setup(c, &s);
	if (ret)
		goto out_unlock;
	if (copy_to_user(arg, &s, sizeof(s))) {
		copier_area_free(c);
		ret = -EFAULT;
		goto out_unlock;
	}
	smp_store_release(&c->ready, true);
out_unlock:
	mutex_unlock(&c->setup_lock);
	return ret;
}

static long ioc_limits(struct copier_client *c, void __user *arg)
{
	struct copier_limits l;
	unsigned int i;

	if (copy_from_user(&l, arg, sizeof(l)))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(l.reserved); i++)
		if (l.reserved[i])
			return -EINVAL;
	if (!l.max_bytes_per_round)
		return 0;
	if (l.max_bytes_per_round < PAGE_SIZE || l.max_bytes_per_round > COPIER_LIMIT_ROUND_MAX)
		return -EINVAL;
	copier_sched_set_limit(c, l.max_bytes_per_round);
	return 0;
}

/* COPIER_IOC_STATS of any version: the struct's size is in the number. */
static bool is_stats(unsigned int cmd)
{
	return _IOC_TYPE(cmd) == COPIER_IOC_MAGIC && _IOC_NR(cmd) == _IOC_NR(COPIER_IOC_STATS) &&
	       _IOC_DIR(cmd) == _IOC_READ && _IOC_SIZE(cmd) >= COPIER_STATS_SIZE_V1 &&
	       _IOC_SIZE(cmd) <= sizeof(struct copier_stats);
}

static long ioc_stats(struct copier_client *c, void __user *arg, size_t size)
{
	struct copier_stats s = {
		.tasks = READ_ONCE(c->stats.tasks),
		.bytes = READ_ONCE(c->stats.bytes),
		.bytes_dma = READ_ONCE(c->stats.bytes_dma),
		.faults = READ_ONCE(c->stats.faults),
		.rounds = READ_ONCE(c->stats.rounds),
	};

	if (c->atc) {
		struct copier_atc_stats a;

		copier_atc_get_stats(c->atc, &a);
		s.atc_hits = a.hits;
		s.atc_misses = a.misses;
		s.atc_invalidated = a.invalidated;
		s.atc_dma_hits = a.dma_hits;
		s.atc_dma_misses = a.dma_misses;
	}
	return copy_to_user(arg, &s, size) ? -EFAULT : 0;
}

static long ioc_wait(struct copier_client *c, void __user *arg)
{
	struct copier_wait w;
	unsigned int i;
	long ret;

	if (copy_from_user(&w, arg, sizeof(w)))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(w.reserved); i++)
		if (w.reserved[i])
			return -EINVAL;
	/* positions count up from 0 and never wrap */
	if (w.pos >= smp_load_acquire(&c->copy_ring->head))
		return -EINVAL;	/* not submitted */
	if (!w.timeout_ns) {
		ret = wait_event_interruptible(c->waitq, copier_task_settled(c, w.pos));
		return ret;
	}
	ret = wait_event_interruptible_timeout(c->waitq, copier_task_settled(c, w.pos),
					       nsecs_to_jiffies(w.timeout_ns));
	if (ret < 0)
		return ret;
	return ret ? 0 : -ETIMEDOUT;
}

static long copier_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct copier_client *c = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (current->mm != c->mm)
		return -EPERM;
	if (cmd == COPIER_IOC_SETUP)
		return ioc_setup(c, uarg);
	if (!smp_load_acquire(&c->ready))
		return cmd == COPIER_IOC_WAKE || cmd == COPIER_IOC_LIMITS ||
		       is_stats(cmd) || cmd == COPIER_IOC_WAIT ||
		       cmd == COPIER_IOC_BIND || cmd == COPIER_IOC_UNBIND ||
		       cmd == COPIER_IOC_ATTACH || cmd == COPIER_IOC_DETACH ? -ENODEV : -ENOTTY;
	if (is_stats(cmd))
		return ioc_stats(c, uarg, _IOC_SIZE(cmd));
	switch (cmd) {
	case COPIER_IOC_WAKE:
		copier_sched_wake(c);
		return 0;
	case COPIER_IOC_LIMITS:
		return ioc_limits(c, uarg);
	case COPIER_IOC_WAIT:
		return ioc_wait(c, uarg);
	case COPIER_IOC_BIND:
		return copier_ioc_bind(c, uarg);
	case COPIER_IOC_UNBIND:
		return copier_ioc_unbind(c, uarg);
	case COPIER_IOC_ATTACH:
		return copier_ioc_attach(c, uarg);
	case COPIER_IOC_DETACH:
		return copier_ioc_detach(c, uarg);
	default:
		return -ENOTTY;
	}
}

static int copier_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct copier_client *c = file->private_data;
	int ret;

	if (current->mm != c->mm)
		return -EPERM;
	mutex_lock(&c->setup_lock);
	ret = copier_area_mmap(c, vma);
	mutex_unlock(&c->setup_lock);
	return ret;
}

const struct file_operations copier_fops = {
	.owner = THIS_MODULE,
	.open = copier_open,
	.release = copier_release,
	.unlocked_ioctl = copier_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = copier_mmap,
	.llseek = noop_llseek,
};

static ssize_t clients_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&copier_live_clients));
}
static DEVICE_ATTR_RO(clients);

static struct attribute *copier_client_attrs[] = {
	&dev_attr_clients.attr,
	NULL,
};

const struct attribute_group copier_client_group = {
	.attrs = copier_client_attrs,
};
