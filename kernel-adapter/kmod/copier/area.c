// SPDX-License-Identifier: GPL-2.0
/*
 * The shared area of a client, in the UAPI layout of <linux/copier.h>:
 *
 *   [copy ring][copy entries][sync ring][sync entries]
 *   [handler ring][handler entries][descriptors]
 *
 * every part starting on a 64-byte line, the whole rounded up to pages.
 * It is zeroed vmalloc memory charged to the opener's memory cgroup
 * (__GFP_ACCOUNT, which vmalloc_user() does not take), mapped into the
 * client page by page (vm_insert_page, as remap_vmalloc_range() does); the
 * service reaches it through the kernel mapping, so its accesses never
 * fault.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "area.h"
#include "client.h"

#define COPIER_RING_MIN 2
#define COPIER_RING_MAX 65536

static bool ring_size_ok(u32 n)
{
	return n >= COPIER_RING_MIN && n <= COPIER_RING_MAX && is_power_of_2(n);
}

static void ring_init(struct copier_ring *r, u32 entries, u32 entry_size)
{
	r->entries = entries;
	r->entry_size = entry_size;
}

/*
 * COPIER_IOC_SETUP: validate the requested sizes, allocate and initialise
 * the area, and fill in the layout. Called once per client with
 * c->setup_lock held. Returns 0, -EINVAL for a bad argument, -E2BIG when
 * the area would exceed COPIER_AREA_MAX, -ENOMEM.
 */
int copier_area_setup(struct copier_client *c, struct copier_setup *s)
{
	size_t off = 0, copy_off, sync_off, handler_off, desc_off, len;
	void *area;
	u32 i;

	/* version 1 clients: no region flags (round.c) */
	if (s->version < 1 || s->version > COPIER_ABI_VERSION || s->flags || s->reserved)
		return -EINVAL;
	if (!ring_size_ok(s->copy_entries) || !ring_size_ok(s->sync_entries) ||
	    !ring_size_ok(s->handler_entries))
		return -EINVAL;

	copy_off = off;
	off += sizeof(struct copier_ring) + (size_t)s->copy_entries * sizeof(struct copier_entry);
	off = ALIGN(off, 64);
	sync_off = off;
	off += sizeof(struct copier_ring) + (size_t)s->sync_entries * sizeof(struct copier_sync_entry);
	off = ALIGN(off, 64);
	handler_off = off;
	off += sizeof(struct copier_ring) +
	       (size_t)s->handler_entries * sizeof(struct copier_handler_entry);
	off = ALIGN(off, 64);
	desc_off = off;
	off += (size_t)s->copy_entries * sizeof(struct copier_desc);
	len = PAGE_ALIGN(off);
	if (len > COPIER_AREA_MAX)
		return -E2BIG;

	/* charged to the opener's memory cgroup: SETUP runs in its context */
	area = __vmalloc(len, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!area)
		return -ENOMEM;

	c->area = area;
	c->map_len = len;
	c->copy_ring = area + copy_off;
	c->entries = area + copy_off + sizeof(struct copier_ring);
	c->sync_ring = area + sync_off;
	c->handler_ring = area + handler_off;
	c->handlers = area + handler_off + sizeof(struct copier_ring);
	c->descs = area + desc_off;
	c->nentries = s->copy_entries;
	c->nhandlers = s->handler_entries;
	c->abi_version = s->version;
	ring_init(c->copy_ring, s->copy_entries, sizeof(struct copier_entry));
	ring_init(c->sync_ring, s->sync_entries, sizeof(struct copier_sync_entry));
	ring_init(c->handler_ring, s->handler_entries, sizeof(struct copier_handler_entry));
	/* the service may be parked: submitters must wake it */
	c->copy_ring->waiters = 1;
	for (i = 0; i < s->copy_entries; i++)
		c->descs[i].pos = ~0ULL;

	s->map_len = len;
	s->copy_ring_off = copy_off;
	s->sync_ring_off = sync_off;
	s->handler_ring_off = handler_off;
	s->desc_off = desc_off;
	return 0;
}

void copier_area_free(struct copier_client *c)
{
	vfree(c->area);
	c->area = NULL;
}

/*
 * mmap of the whole area: offset 0, exactly map_len bytes, MAP_SHARED,
 * never executable. The mapping is not inherited by fork (VM_DONTCOPY: a
 * child is another mm and must not drive this client's rings), cannot grow
 * (VM_DONTEXPAND) and is left out of core dumps.
 */
int copier_area_mmap(struct copier_client *c, struct vm_area_struct *vma)
{
	size_t off;

	if (!smp_load_acquire(&c->ready))
		return -ENODEV;
	if (vma->vm_pgoff != 0 || vma->vm_end - vma->vm_start != c->map_len)
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	for (off = 0; off < c->map_len; off += PAGE_SIZE) {
		int ret = vm_insert_page(vma, vma->vm_start + off, vmalloc_to_page(c->area + off));

		if (ret)
			return ret;
	}
	return 0;
}
