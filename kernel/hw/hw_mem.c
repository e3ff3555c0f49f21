// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: memory keys at work, and the data mover. Every
 * byte the engine moves is named by a key: the key must reach a valid
 * translation (struct softhca_hw_map) of an MKEY of the QP's PD that
 * allows the access and covers the range; only then is the range
 * translated to host memory. A checked range (struct softhca_hw_seg)
 * holds a reference on its translation, so a concurrent DESTROY_MKEY
 * waits for it and a re-registration or invalidation never frees memory
 * under a transfer in progress.
 */
#include <linux/dma-direct.h>
#include <linux/platform_device.h>

#include "hw.h"

/**
 * softhca_hw_map_get - may @qp access [addr, addr + len) through @key?
 * @hw: the card
 * @key: lkey or rkey
 * @pd: the PD of the QP (or SRQ) using it
 * @priv: the QP is privileged (a kernel QP)
 * @access: softhca_mkey_access bits needed (0: local read)
 * @addr: first byte
 * @len: bytes (not 0)
 * @remote: checking an rkey (selects the syndromes)
 * @seg: on success, the checked range with a reference on its translation
 *
 * F_PA keys serve privileged (kernel) QPs only; F_ANY_PD ones any PD.
 *
 * Return: 0, or the syndrome of the first check that failed.
 */
u32 softhca_hw_map_get(struct softhca_hw *hw, u32 key, struct softhca_hw_pd *pd,
		       bool priv, u32 access, u64 addr, u64 len, bool remote,
		       struct softhca_hw_seg *seg)
{
	struct softhca_hw_mkey *mkey;
	struct softhca_hw_map *map;
	u32 synd = 0;

	rcu_read_lock();
	mkey = xa_load(&hw->mkeys, SOFTHCA_MKEY_INDEX(key));
	map = mkey ? rcu_dereference(mkey->map) : NULL;
	if (!map || map->key != key || !refcount_inc_not_zero(&map->ref)) {
		rcu_read_unlock();
		return remote ? SOFTHCA_SYND_RKEY : SOFTHCA_SYND_LKEY;
	}
	if (!(map->flags & SOFTHCA_MKEY_F_ANY_PD) && mkey->pd != pd)
		synd = remote ? SOFTHCA_SYND_RKEY_PD : SOFTHCA_SYND_LKEY_PD;
	rcu_read_unlock();

	if (synd)
		goto err;
	if ((map->flags & SOFTHCA_MKEY_F_PA) && !priv) {
		synd = SOFTHCA_SYND_NOT_PRIV;
		goto err;
	}
	if ((map->access & access) != access) {
		synd = remote ? SOFTHCA_SYND_RKEY_ACCESS :
				SOFTHCA_SYND_LKEY_ACCESS;
		goto err;
	}
	if (addr + len < addr || addr < map->iova ||
	    addr + len - map->iova > map->length ||
	    ((map->flags & SOFTHCA_MKEY_F_PA) &&
	     !softhca_hw_is_ram(hw, addr, len))) {
		synd = remote ? SOFTHCA_SYND_RKEY_BOUNDS :
				SOFTHCA_SYND_LKEY_BOUNDS;
		goto err;
	}
	seg->map = map;
	seg->addr = addr;
	seg->len = len;
	return 0;

err:
	softhca_hw_map_put(map);
	return synd;
}

static void softhca_hw_map_free_rcu(struct rcu_head *rcu)
{
	struct softhca_hw_map *map = container_of(rcu, struct softhca_hw_map,
						  rcu);

	softhca_hw_pas_free(&map->pas);
	kfree(map);
}

/* Drop a reference to a translation; the last one frees it. */
void softhca_hw_map_put(struct softhca_hw_map *map)
{
	if (!map || !refcount_dec_and_test(&map->ref))
		return;
	if (map->gone)
		complete(map->gone);
	/* lookups read it under RCU */
	call_rcu(&map->rcu, softhca_hw_map_free_rcu);
}

void softhca_hw_segs_put(struct softhca_hw_seg *seg, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		softhca_hw_map_put(seg[i].map);
		seg[i].map = NULL;
	}
}

/*
 * The kernel address of @addr inside @map (already checked), and in
 * @contig how many bytes are contiguous from there: to the end of its
 * block, or of its page for an F_PA key. Blocks were checked to be RAM
 * when the translation was made, F_PA ranges when they were checked.
 */
void *softhca_hw_map_ptr(struct softhca_hw *hw, struct softhca_hw_map *map,
			 u64 addr, u32 *contig)
{
	u64 pos, bsize, in, dma;

	if (map->flags & SOFTHCA_MKEY_F_PA) {
		*contig = PAGE_SIZE - offset_in_page(addr);
		return softhca_hw_dma_va(hw, addr);
	}
	pos = map->pas.offset + (addr - map->iova);
	bsize = BIT_ULL(map->pas.log_block_size);
	in = pos & (bsize - 1);
	dma = map->pas.blocks[pos >> map->pas.log_block_size] + in;
	*contig = min_t(u64, bsize - in, U32_MAX);
	return softhca_hw_dma_va(hw, dma);
}

struct softhca_hw_cursor {
	const struct softhca_hw_seg *seg;
	u32 n;
	u32 i;
	u64 off;			/* into seg[i] */
};

/* Position @c @off bytes into its list. */
static void softhca_hw_cursor_seek(struct softhca_hw_cursor *c, u64 off)
{
	c->i = 0;
	while (c->i < c->n && off >= c->seg[c->i].len) {
		off -= c->seg[c->i].len;
		c->i++;
	}
	c->off = off;
}

/* The next contiguous piece under the cursor, at most @max bytes. */
static void *softhca_hw_cursor_piece(struct softhca_hw *hw,
				     struct softhca_hw_cursor *c, u64 max,
				     u64 *len)
{
	const struct softhca_hw_seg *s;
	u32 contig;
	void *p;

	while (c->i < c->n && c->off == c->seg[c->i].len) {
		c->i++;
		c->off = 0;
	}
	if (c->i == c->n)
		return NULL;
	s = &c->seg[c->i];
	p = softhca_hw_map_ptr(hw, s->map, s->addr + c->off, &contig);
	*len = min3(max, (u64)contig, s->len - c->off);
	return p;
}

/**
 * softhca_hw_copy - move @len bytes of a payload into a scatter list
 * @hw: the card
 * @dst: the scatter list (checked ranges)
 * @ndst: its entries
 * @dst_off: where in the list the bytes go
 * @src: the payload: checked ranges from an offset, or bytes in the card
 * @len: bytes to move
 *
 * Return: the bytes moved (@len unless a list ends first).
 */
u64 softhca_hw_copy(struct softhca_hw *hw, const struct softhca_hw_seg *dst,
		    u32 ndst, u64 dst_off, const struct softhca_hw_src *src,
		    u64 len)
{
	struct softhca_hw_cursor d = { .seg = dst, .n = ndst };
	struct softhca_hw_cursor s = { .seg = src->seg, .n = src->nseg };
	const void *sp = NULL;
	u64 done = 0, dlen, slen, n;
	void *dp;

	if (!len || src->kind == SOFTHCA_HW_SRC_NONE)
		return 0;
	softhca_hw_cursor_seek(&d, dst_off);
	if (src->kind == SOFTHCA_HW_SRC_SEGS)
		softhca_hw_cursor_seek(&s, src->off);

	while (done < len) {
		dp = softhca_hw_cursor_piece(hw, &d, len - done, &dlen);
		if (!dp)
			break;
		if (src->kind == SOFTHCA_HW_SRC_BUF) {
			sp = src->buf + done;
			slen = dlen;
		} else {
			sp = softhca_hw_cursor_piece(hw, &s, dlen, &slen);
			if (!sp)
				break;
		}
		n = min(dlen, slen);
		memcpy(dp, sp, n);
		d.off += n;
		s.off += n;
		done += n;
	}
	return done;
}

/**
 * softhca_hw_src_read - gather bytes of a payload into the card's buffer
 * @hw: the card
 * @src: the payload
 * @off: the first byte, from the payload's start
 * @buf: where they go (a frame being built)
 * @len: bytes to gather
 *
 * Return: the bytes gathered (@len unless the payload ends first).
 */
u64 softhca_hw_src_read(struct softhca_hw *hw, const struct softhca_hw_src *src,
			u64 off, void *buf, u64 len)
{
	struct softhca_hw_cursor s = { .seg = src->seg, .n = src->nseg };
	u64 done = 0, n;
	const void *sp;

	if (src->kind == SOFTHCA_HW_SRC_BUF) {
		memcpy(buf, src->buf + off, len);
		return len;
	}
	if (src->kind != SOFTHCA_HW_SRC_SEGS)
		return 0;
	softhca_hw_cursor_seek(&s, src->off + off);
	while (done < len) {
		sp = softhca_hw_cursor_piece(hw, &s, len - done, &n);
		if (!sp)
			break;
		memcpy(buf + done, sp, n);
		s.off += n;
		done += n;
	}
	return done;
}
