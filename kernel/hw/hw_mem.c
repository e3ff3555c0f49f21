// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: memory protection and the data mover. Every byte
 * the engine moves is named by an MKEY: the key must exist, belong to the
 * QP's PD, allow the access and cover the range; only then is the range
 * translated through the MKEY's PAS to host memory.
 */
#include <linux/dma-direct.h>
#include <linux/platform_device.h>
#include <linux/sched.h>

#include "hw.h"

/**
 * softhca_hw_mkey_check - may @pd access [addr, addr + len) through @key?
 * @hw: the card
 * @kc: a QP's cache of the last MKEY it found, or NULL
 * @key: lkey or rkey
 * @pd: the PD of the QP using it
 * @access: softhca_mkey_access bits needed (0: local read)
 * @addr: first byte
 * @len: bytes
 * @remote: checking an rkey (selects the syndromes)
 * @out: the MKEY when the check passes
 *
 * A QP uses the same few keys message after message, so the MKEY found
 * for a key is kept in @kc until an MKEY is destroyed (hw->mkey_gen); the
 * PD, access and bounds checks run every time.
 *
 * Return: 0, or the syndrome of the first check that failed. The caller
 * holds the engine lock, which commands destroying MKEYs take too.
 */
u32 softhca_hw_mkey_check(struct softhca_hw *hw,
			  struct softhca_hw_key_cache *kc, u32 key,
			  struct softhca_hw_pd *pd, u32 access, u64 addr,
			  u64 len, bool remote, struct softhca_hw_mkey **out)
{
	struct softhca_hw_mkey *mkey;

	lockdep_assert_held(&hw->engine_lock);
	if (kc && kc->gen == hw->mkey_gen && kc->key == key) {
		mkey = kc->mkey;
	} else {
		mkey = xa_load(&hw->mkeys, SOFTHCA_MKEY_INDEX(key));
		if (!mkey || mkey->key != key)
			return remote ? SOFTHCA_SYND_RKEY : SOFTHCA_SYND_LKEY;
		if (kc) {
			kc->gen = hw->mkey_gen;
			kc->key = key;
			kc->mkey = mkey;
		}
	}
	if (mkey->pd != pd)
		return remote ? SOFTHCA_SYND_RKEY_PD : SOFTHCA_SYND_LKEY_PD;
	if ((mkey->access & access) != access)
		return remote ? SOFTHCA_SYND_RKEY_ACCESS :
				SOFTHCA_SYND_LKEY_ACCESS;
	if (addr < mkey->iova || addr + len < addr ||
	    addr + len > mkey->iova + mkey->length)
		return remote ? SOFTHCA_SYND_RKEY_BOUNDS :
				SOFTHCA_SYND_LKEY_BOUNDS;
	*out = mkey;
	return 0;
}

/*
 * The kernel address of @addr inside @mkey (already checked), and in
 * @contig how many bytes are contiguous from there (to the block's end).
 * A block is physically contiguous and was checked to be RAM when the
 * MKEY was created.
 */
void *softhca_hw_mkey_ptr(struct softhca_hw *hw, struct softhca_hw_mkey *mkey,
			  u64 addr, u32 *contig)
{
	u64 pos = mkey->pas.offset + (addr - mkey->iova);
	u64 bsize = BIT_ULL(mkey->pas.log_block_size);
	u64 in = pos & (bsize - 1);
	u64 dma = mkey->pas.blocks[pos >> mkey->pas.log_block_size] + in;

	*contig = min_t(u64, bsize - in, U32_MAX);
	return phys_to_virt(dma_to_phys(&hw->pdev->dev, dma));
}

struct softhca_hw_cursor {
	struct softhca_hw_sge *sge;
	u32 n;
	u32 i;
	u64 off;
};

/* The next contiguous piece under the cursor, at most @max bytes. */
static void *softhca_hw_cursor_piece(struct softhca_hw *hw,
				     struct softhca_hw_cursor *c, u64 max,
				     u64 *len)
{
	struct softhca_hw_sge *s;
	u32 contig;
	void *p;

	while (c->i < c->n && c->off == c->sge[c->i].len) {
		c->i++;
		c->off = 0;
	}
	if (c->i == c->n)
		return NULL;
	s = &c->sge[c->i];
	p = softhca_hw_mkey_ptr(hw, s->mkey, s->addr + c->off, &contig);
	*len = min3(max, (u64)contig, s->len - c->off);
	return p;
}

/**
 * softhca_hw_copy - move @len bytes from a gather list (or inline data)
 * to a scatter list
 * @hw: the card
 * @dst: the scatter list (checked MKEYs)
 * @ndst: its entries
 * @src: the gather list (checked MKEYs), if @inline_src is NULL
 * @nsrc: its entries
 * @inline_src: inline data in the WQE, or NULL
 * @len: bytes to move; both lists hold at least that many
 *
 * Return: the bytes moved.
 */
u64 softhca_hw_copy(struct softhca_hw *hw, struct softhca_hw_sge *dst,
		    u32 ndst, struct softhca_hw_sge *src, u32 nsrc,
		    const void *inline_src, u64 len)
{
	struct softhca_hw_cursor d = { .sge = dst, .n = ndst };
	struct softhca_hw_cursor s = { .sge = src, .n = nsrc };
	u64 done = 0, since_resched = 0;
	u32 dcontig, scontig = len;
	const void *sp = inline_src;
	void *dp;

	/* a small message in one contiguous piece each way: one memcpy */
	if (ndst == 1 && (inline_src || nsrc == 1) && len <= dst->len &&
	    len <= SZ_1M) {
		dp = softhca_hw_mkey_ptr(hw, dst->mkey, dst->addr, &dcontig);
		if (!sp && len <= src->len)
			sp = softhca_hw_mkey_ptr(hw, src->mkey, src->addr,
						 &scontig);
		if (sp && len <= dcontig && len <= scontig) {
			memcpy(dp, sp, len);
			return len;
		}
	}

	while (done < len) {
		u64 dlen, slen, n;

		dp = softhca_hw_cursor_piece(hw, &d, len - done, &dlen);
		if (!dp)
			break;
		if (inline_src) {
			sp = inline_src + done;
			slen = len - done;
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
		since_resched += n;
		if (since_resched >= SZ_1M) {
			cond_resched();
			since_resched = 0;
		}
	}
	return done;
}
