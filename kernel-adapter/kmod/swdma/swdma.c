// SPDX-License-Identifier: GPL-2.0
/*
 * copier_swdma.ko: a software dmaengine provider with DMA_MEMCPY channels,
 * so that copier.ko's DMA path runs on machines without I/OAT or DSA (as
 * DPDK's skeleton dmadev, drivers/dma/skeleton, stands in for hardware).
 *
 * The "hardware" of each channel is a kthread. A client prepares
 * descriptors (device_prep_dma_memcpy), submits them (tx_submit assigns a
 * cookie and queues them as submitted), and issue_pending moves the
 * submitted ones to the channel's hardware queue and wakes the kthread.
 * The kthread copies each descriptor in order, completes its cookie and
 * calls the client's callback with bottom halves disabled (the context a
 * real driver's tasklet gives it).
 *
 * Addresses: the channels belong to a platform device with a 64-bit DMA
 * mask and no IOMMU domain, so dma_map_page() on it is dma-direct and a
 * dma_addr_t is a physical address (dma_to_phys undoes any memory
 * encryption bit; swiotlb bounce buffers are physical memory too). The
 * kthread copies through phys_to_virt(). This is only valid without an
 * IOMMU translating for the device: probe refuses a device that an IOMMU
 * maps. An address that is not RAM fails the descriptor with
 * DMA_TRANS_READ_FAILED / DMA_TRANS_WRITE_FAILED instead of being touched.
 * For tests, fail_every fails every Nth descriptor and stall_every never
 * completes every Nth one (until terminate_all), as broken hardware would.
 *
 * Descriptors come from a fixed pool per channel (module parameter
 * descs); prep returns NULL when the pool is empty, as hardware rings do.
 * A completed descriptor returns to the pool at once: DMA_CTRL_REUSE is not
 * supported (descriptor_reuse is false).
 *
 * The cookie helpers are small copies of drivers/dma/dmaengine.h, which is
 * private to drivers/dma.
 */
#include <linux/delay.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#define SWDMA_NAME "copier_swdma"
#define SWDMA_MAX_CHANS 16

static unsigned int nr_chans = 2;
module_param(nr_chans, uint, 0444);
MODULE_PARM_DESC(nr_chans, "DMA_MEMCPY channels (1..16, default 2)");

static unsigned int descs = 256;
module_param(descs, uint, 0444);
MODULE_PARM_DESC(descs, "descriptors per channel (16..65536, default 256)");

static unsigned int fail_every;
module_param(fail_every, uint, 0644);
MODULE_PARM_DESC(fail_every, "test only: fail every Nth descriptor with DMA_TRANS_WRITE_FAILED (0: never)");

static unsigned int stall_every;
module_param(stall_every, uint, 0644);
MODULE_PARM_DESC(stall_every, "test only: never complete every Nth descriptor (until terminate_all; 0: never)");

/**
 * struct swdma_desc - one memcpy descriptor
 * @txd: the dmaengine descriptor (cookie, callbacks, flags)
 * @node: in the channel's free, submitted or issued list
 * @dst: destination DMA (= physical) address
 * @src: source DMA address
 * @len: bytes
 */
struct swdma_desc {
	struct dma_async_tx_descriptor txd;
	struct list_head node;
	dma_addr_t dst;
	dma_addr_t src;
	size_t len;
};

/**
 * struct swdma_chan - one channel and its copying kthread
 * @chan: the dmaengine channel
 * @lock: protects the lists, @running and the channel's cookies
 * @free: descriptors ready for prep
 * @submitted: descriptors after tx_submit, before issue_pending
 * @issued: the hardware queue, in cookie order
 * @stalled: descriptors stall_every held back, freed by terminate_all
 * @running: the descriptor the kthread copies now, NULL when none
 * @pool: all descriptors, allocated in alloc_chan_resources
 * @thread: the "hardware"
 * @wq: wakes @thread on issue_pending
 * @idle_wq: waits for @running == NULL (device_synchronize)
 * @count: descriptors executed, for fail_every
 * @taken: descriptors taken from @issued, for stall_every
 */
struct swdma_chan {
	struct dma_chan chan;
	spinlock_t lock;
	struct list_head free;
	struct list_head submitted;
	struct list_head issued;
	struct list_head stalled;
	struct swdma_desc *running;
	struct swdma_desc *pool;
	struct task_struct *thread;
	wait_queue_head_t wq;
	wait_queue_head_t idle_wq;
	unsigned long count;
	unsigned long taken;
};

/**
 * struct swdma_dev - the provider: one dma_device over a platform device
 * @dma: the dmaengine device
 * @chans: its channels
 * @nchans: channels in use
 */
struct swdma_dev {
	struct dma_device dma;
	struct swdma_chan chans[SWDMA_MAX_CHANS];
	unsigned int nchans;
};

static struct platform_device *swdma_pdev;

static struct swdma_chan *to_swdma_chan(struct dma_chan *c)
{
	return container_of(c, struct swdma_chan, chan);
}

static struct swdma_desc *to_swdma_desc(struct dma_async_tx_descriptor *t)
{
	return container_of(t, struct swdma_desc, txd);
}

/* Cookie helpers after drivers/dma/dmaengine.h (private to drivers/dma). */

static void swdma_cookie_init(struct dma_chan *chan)
{
	chan->cookie = DMA_MIN_COOKIE;
	chan->completed_cookie = DMA_MIN_COOKIE;
}

/* Assign the next cookie; the caller holds the channel lock. */
static dma_cookie_t swdma_cookie_assign(struct dma_async_tx_descriptor *tx)
{
	struct dma_chan *chan = tx->chan;
	dma_cookie_t cookie = chan->cookie + 1;

	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	tx->cookie = chan->cookie = cookie;
	return cookie;
}

/* Mark a cookie complete; the caller holds the channel lock. */
static void swdma_cookie_complete(struct dma_async_tx_descriptor *tx)
{
	tx->chan->completed_cookie = tx->cookie;
	tx->cookie = 0;
}

static enum dma_status swdma_cookie_status(struct dma_chan *chan, dma_cookie_t cookie,
					   struct dma_tx_state *state)
{
	dma_cookie_t used = READ_ONCE(chan->cookie);
	dma_cookie_t complete = READ_ONCE(chan->completed_cookie);

	barrier();
	if (state) {
		state->last = complete;
		state->used = used;
		state->residue = 0;
		state->in_flight_bytes = 0;
	}
	return dma_async_is_complete(cookie, complete, used);
}

static dma_cookie_t swdma_tx_submit(struct dma_async_tx_descriptor *tx)
{
	struct swdma_chan *sc = to_swdma_chan(tx->chan);
	unsigned long flags;
	dma_cookie_t cookie;

	spin_lock_irqsave(&sc->lock, flags);
	cookie = swdma_cookie_assign(tx);
	list_add_tail(&to_swdma_desc(tx)->node, &sc->submitted);
	spin_unlock_irqrestore(&sc->lock, flags);
	return cookie;
}

static struct dma_async_tx_descriptor *
swdma_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src, size_t len,
		  unsigned long flags)
{
	struct swdma_chan *sc = to_swdma_chan(chan);
	struct swdma_desc *d = NULL;
	unsigned long irqflags;

	if (!len)
		return NULL;
	spin_lock_irqsave(&sc->lock, irqflags);
	if (!list_empty(&sc->free)) {
		d = list_first_entry(&sc->free, struct swdma_desc, node);
		list_del(&d->node);
	}
	spin_unlock_irqrestore(&sc->lock, irqflags);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->txd, chan);
	d->txd.tx_submit = swdma_tx_submit;
	d->txd.flags = flags;
	d->dst = dst;
	d->src = src;
	d->len = len;
	return &d->txd;
}

static void swdma_issue_pending(struct dma_chan *chan)
{
	struct swdma_chan *sc = to_swdma_chan(chan);
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&sc->lock, flags);
	wake = !list_empty(&sc->submitted);
	list_splice_tail_init(&sc->submitted, &sc->issued);
	spin_unlock_irqrestore(&sc->lock, flags);
	if (wake)
		wake_up(&sc->wq);
}

static enum dma_status swdma_tx_status(struct dma_chan *chan, dma_cookie_t cookie,
				       struct dma_tx_state *state)
{
	return swdma_cookie_status(chan, cookie, state);
}

/* Is [addr, addr + len) RAM the kernel maps (so phys_to_virt is valid)? */
static bool swdma_ram(struct device *dev, dma_addr_t addr, size_t len)
{
	phys_addr_t p = dma_to_phys(dev, addr);
	unsigned long pfn, last;

	if (p + len < p)
		return false;
	last = PHYS_PFN(p + len - 1);
	for (pfn = PHYS_PFN(p); pfn <= last; pfn++)
		if (!pfn_valid(pfn))
			return false;
	return true;
}

/* Copy one descriptor; returns the dmaengine result. */
static enum dmaengine_tx_result swdma_copy(struct swdma_chan *sc, struct swdma_desc *d)
{
	struct device *dev = sc->chan.device->dev;
	unsigned int every = READ_ONCE(fail_every);

	sc->count++;
	if (every && sc->count % every == 0)
		return DMA_TRANS_WRITE_FAILED;
	if (!swdma_ram(dev, d->src, d->len))
		return DMA_TRANS_READ_FAILED;
	if (!swdma_ram(dev, d->dst, d->len))
		return DMA_TRANS_WRITE_FAILED;
	/* valid without an IOMMU only: see the head of this file */
	memcpy(phys_to_virt(dma_to_phys(dev, d->dst)), phys_to_virt(dma_to_phys(dev, d->src)),
	       d->len);
	return DMA_TRANS_NOERROR;
}

/* The channel's hardware: copy issued descriptors in order, forever. */
static int swdma_thread(void *arg)
{
	struct swdma_chan *sc = arg;

	while (!kthread_should_stop()) {
		struct dmaengine_result res = { .residue = 0 };
		dma_async_tx_callback_result cb_result;
		dma_async_tx_callback cb;
		struct swdma_desc *d;
		unsigned int stall;
		void *cb_param;

		wait_event_interruptible(sc->wq, !list_empty_careful(&sc->issued) ||
						 kthread_should_stop());
		spin_lock_irq(&sc->lock);
		if (list_empty(&sc->issued)) {
			spin_unlock_irq(&sc->lock);
			continue;
		}
		d = list_first_entry(&sc->issued, struct swdma_desc, node);
		list_del(&d->node);
		stall = READ_ONCE(stall_every);
		if (stall && ++sc->taken % stall == 0) {
			/* a lost completion, for the client's hang recovery */
			list_add_tail(&d->node, &sc->stalled);
			spin_unlock_irq(&sc->lock);
			continue;
		}
		sc->running = d;
		spin_unlock_irq(&sc->lock);

		res.result = swdma_copy(sc, d);
		if (res.result != DMA_TRANS_NOERROR)
			res.residue = d->len;

		spin_lock_irq(&sc->lock);
		cb = d->txd.callback;
		cb_result = d->txd.callback_result;
		cb_param = d->txd.callback_param;
		swdma_cookie_complete(&d->txd);
		list_add_tail(&d->node, &sc->free);
		spin_unlock_irq(&sc->lock);

		/* a real driver calls back from its tasklet: softirq context */
		local_bh_disable();
		if (cb_result)
			cb_result(cb_param, &res);
		else if (cb)
			cb(cb_param);
		local_bh_enable();

		spin_lock_irq(&sc->lock);
		sc->running = NULL;
		spin_unlock_irq(&sc->lock);
		wake_up_all(&sc->idle_wq);
		cond_resched();
	}
	return 0;
}

/*
 * Abort every descriptor not started yet. Their cookies never complete and
 * their callbacks are not called; the one running finishes normally.
 */
static int swdma_terminate_all(struct dma_chan *chan)
{
	struct swdma_chan *sc = to_swdma_chan(chan);
	unsigned long flags;

	spin_lock_irqsave(&sc->lock, flags);
	list_splice_tail_init(&sc->submitted, &sc->free);
	list_splice_tail_init(&sc->issued, &sc->free);
	list_splice_tail_init(&sc->stalled, &sc->free);
	spin_unlock_irqrestore(&sc->lock, flags);
	return 0;
}

/* Wait until no descriptor runs nor calls back (after terminate_all). */
static void swdma_synchronize(struct dma_chan *chan)
{
	struct swdma_chan *sc = to_swdma_chan(chan);

	wait_event(sc->idle_wq, !READ_ONCE(sc->running));
}

static int swdma_alloc_chan_resources(struct dma_chan *chan)
{
	struct swdma_chan *sc = to_swdma_chan(chan);
	struct swdma_desc *pool;
	unsigned int i;

	pool = kvcalloc(descs, sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	spin_lock_irq(&sc->lock);
	sc->pool = pool;
	INIT_LIST_HEAD(&sc->free);
	INIT_LIST_HEAD(&sc->submitted);
	INIT_LIST_HEAD(&sc->issued);
	INIT_LIST_HEAD(&sc->stalled);
	for (i = 0; i < descs; i++)
		list_add_tail(&pool[i].node, &sc->free);
	swdma_cookie_init(chan);
	spin_unlock_irq(&sc->lock);
	return descs;
}

static void swdma_free_chan_resources(struct dma_chan *chan)
{
	struct swdma_chan *sc = to_swdma_chan(chan);
	struct swdma_desc *pool;

	swdma_terminate_all(chan);
	swdma_synchronize(chan);
	spin_lock_irq(&sc->lock);
	pool = sc->pool;
	sc->pool = NULL;
	INIT_LIST_HEAD(&sc->free);
	spin_unlock_irq(&sc->lock);
	kvfree(pool);
}

static void swdma_release(struct dma_device *dma)
{
	kfree(container_of(dma, struct swdma_dev, dma));
}

static void swdma_stop_threads(struct swdma_dev *sd)
{
	unsigned int i;

	for (i = 0; i < sd->nchans; i++)
		if (sd->chans[i].thread)
			kthread_stop(sd->chans[i].thread);
}

static int swdma_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct swdma_dev *sd;
	struct dma_device *dma;
	unsigned int i;
	int ret;

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	if (device_iommu_mapped(dev)) {
		dev_err(dev, "an IOMMU translates for this device: DMA addresses are not physical\n");
		return -ENODEV;
	}
	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	sd->nchans = clamp(nr_chans, 1U, (unsigned int)SWDMA_MAX_CHANS);
	dma = &sd->dma;
	dma->dev = dev;
	INIT_LIST_HEAD(&dma->channels);
	dma_cap_set(DMA_MEMCPY, dma->cap_mask);
	/* handed out by dma_request_channel only, never to async_tx's pool */
	dma_cap_set(DMA_PRIVATE, dma->cap_mask);
	dma->copy_align = DMAENGINE_ALIGN_1_BYTE;
	dma->descriptor_reuse = false;
	dma->residue_granularity = DMA_RESIDUE_GRANULARITY_DESCRIPTOR;
	dma->device_alloc_chan_resources = swdma_alloc_chan_resources;
	dma->device_free_chan_resources = swdma_free_chan_resources;
	dma->device_prep_dma_memcpy = swdma_prep_memcpy;
	dma->device_issue_pending = swdma_issue_pending;
	dma->device_tx_status = swdma_tx_status;
	dma->device_terminate_all = swdma_terminate_all;
	dma->device_synchronize = swdma_synchronize;
	dma->device_release = swdma_release;

	for (i = 0; i < sd->nchans; i++) {
		struct swdma_chan *sc = &sd->chans[i];

		spin_lock_init(&sc->lock);
		INIT_LIST_HEAD(&sc->free);
		INIT_LIST_HEAD(&sc->submitted);
		INIT_LIST_HEAD(&sc->issued);
		INIT_LIST_HEAD(&sc->stalled);
		init_waitqueue_head(&sc->wq);
		init_waitqueue_head(&sc->idle_wq);
		sc->chan.device = dma;
		list_add_tail(&sc->chan.device_node, &dma->channels);
		sc->thread = kthread_run(swdma_thread, sc, "swdma/%u", i);
		if (IS_ERR(sc->thread)) {
			ret = PTR_ERR(sc->thread);
			sc->thread = NULL;
			goto out_threads;
		}
	}
	ret = dma_async_device_register(dma);
	if (ret)
		goto out_threads;
	platform_set_drvdata(pdev, sd);
	dev_info(dev, "%u DMA_MEMCPY channels, %u descriptors each (software)\n", sd->nchans,
		 descs);
	return 0;

out_threads:
	swdma_stop_threads(sd);
	kfree(sd);
	return ret;
}

static int swdma_remove(struct platform_device *pdev)
{
	struct swdma_dev *sd = platform_get_drvdata(pdev);

	/*
	 * No channel is held here: each client's channel holds this module
	 * (dma_chan_get takes the owner), so unbinding happens only at unload
	 * after every client released its channels.
	 */
	swdma_stop_threads(sd);
	dma_async_device_unregister(&sd->dma);	/* frees sd via device_release */
	return 0;
}

static struct platform_driver swdma_driver = {
	.probe = swdma_probe,
	.remove = swdma_remove,
	.driver = {
		.name = SWDMA_NAME,
	},
};

static int __init swdma_init(void)
{
	struct platform_device_info info = {
		.name = SWDMA_NAME,
		.id = PLATFORM_DEVID_NONE,
		.dma_mask = DMA_BIT_MASK(64),
	};
	int ret;

	if (descs < 16 || descs > 65536)
		return -EINVAL;
	ret = platform_driver_register(&swdma_driver);
	if (ret)
		return ret;
	swdma_pdev = platform_device_register_full(&info);
	if (IS_ERR(swdma_pdev)) {
		platform_driver_unregister(&swdma_driver);
		return PTR_ERR(swdma_pdev);
	}
	if (!platform_get_drvdata(swdma_pdev)) {
		/* probe failed: nothing to offer */
		platform_device_unregister(swdma_pdev);
		platform_driver_unregister(&swdma_driver);
		return -ENODEV;
	}
	return 0;
}

static void __exit swdma_exit(void)
{
	platform_device_unregister(swdma_pdev);
	platform_driver_unregister(&swdma_driver);
}

module_init(swdma_init);
module_exit(swdma_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Copier: software DMA_MEMCPY dmaengine provider for tests (kthread copies)");
