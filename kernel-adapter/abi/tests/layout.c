/* The sizes and offsets of include/linux/copier.h that copier_abi's
 * uapi_layouts test pins on the Rust side; compiled by tests/uapi.rs. */
#include <stddef.h>
#include <linux/copier.h>

#define PIN(cond) _Static_assert(cond, #cond)

PIN(sizeof(struct copier_entry) == 48);
PIN(_Alignof(struct copier_entry) == 8);
PIN(offsetof(struct copier_entry, handler) == 24);
PIN(offsetof(struct copier_entry, flags) == 40);
PIN(sizeof(struct copier_desc) == 288);
PIN(_Alignof(struct copier_desc) == 8);
PIN(offsetof(struct copier_desc, nsegs) == 8);
PIN(offsetof(struct copier_desc, flags) == 16);
PIN(offsetof(struct copier_desc, prefix) == 20);
PIN(offsetof(struct copier_desc, done_count) == 24);
PIN(offsetof(struct copier_desc, words) == 32);
PIN(sizeof(struct copier_desc_words) == 16);
PIN(COPIER_BITMAP_WORDS * 64 == COPIER_MAX_SEGS);
PIN(sizeof(struct copier_ring) == 256);
PIN(offsetof(struct copier_ring, tail) == 64);
PIN(offsetof(struct copier_ring, ingested) == 128);
PIN(offsetof(struct copier_ring, entries) == 192);
PIN(sizeof(struct copier_sync_entry) == 16);
PIN(sizeof(struct copier_handler_entry) == 40);
PIN(sizeof(struct copier_setup) == 64);
PIN(offsetof(struct copier_setup, map_len) == 24);
PIN(sizeof(struct copier_limits) == 32);
PIN(sizeof(struct copier_stats) == 80);
PIN(offsetof(struct copier_stats, atc_dma_hits) == COPIER_STATS_SIZE_V1);
PIN(sizeof(struct copier_wait) == 32);
PIN(offsetof(struct copier_entry, region) == 44);
PIN(offsetof(struct copier_desc, error) == 28);
PIN(sizeof(struct copier_bind) == 32);
PIN(offsetof(struct copier_bind, token) == 24);
PIN(sizeof(struct copier_unbind) == 16);
PIN(sizeof(struct copier_attach) == 32);
PIN(offsetof(struct copier_attach, handle) == 16);
PIN(sizeof(struct copier_detach) == 8);
