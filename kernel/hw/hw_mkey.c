// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: memory keys (what a verbs MR is to the card). An
 * MKEY maps [iova, iova + length) onto host memory through its PAS and
 * carries the PD and access rights every access is checked against. The
 * key is index << 8 | variant; the variant changes on every creation so a
 * stale key does not reach a new region with a reused index.
 */
#include <linux/slab.h>

#include "hw.h"

#define SOFTHCA_HW_MKEY_ACCESS	(SOFTHCA_ACCESS_LOCAL_WRITE |		\
				 SOFTHCA_ACCESS_REMOTE_WRITE |		\
				 SOFTHCA_ACCESS_REMOTE_READ |		\
				 SOFTHCA_ACCESS_REMOTE_ATOMIC)

static void softhca_hw_mkey_free(struct softhca_hw_mkey *mkey)
{
	softhca_hw_pas_free(&mkey->pas);
	kfree(mkey);
}

static struct softhca_hw_mkey *softhca_hw_mkey_get(struct softhca_hw *hw,
						   u32 key)
{
	struct softhca_hw_mkey *mkey = xa_load(&hw->mkeys,
					       SOFTHCA_MKEY_INDEX(key));

	return mkey && mkey->key == key ? mkey : NULL;
}

u8 softhca_hw_cmd_create_mkey(struct softhca_hw *hw,
			      struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_mkey_ctx *ctx = c->in;
	struct softhca_create_out *out = c->out;
	u32 access = le32_to_cpu(ctx->access);
	u64 length = le64_to_cpu(ctx->length);
	struct softhca_hw_mkey *mkey;
	struct softhca_hw_pd *pd;
	u32 index;
	u8 st;

	pd = xa_load(&hw->pds, le32_to_cpu(ctx->pdn));
	if (!pd) {
		c->syndrome = SOFTHCA_SYND_NO_PD;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	if (access & ~SOFTHCA_HW_MKEY_ACCESS) {
		c->syndrome = SOFTHCA_SYND_MKEY_ACCESS;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (!length || length > SOFTHCA_HW_MAX_MR_SIZE ||
	    le64_to_cpu(ctx->iova) + length < le64_to_cpu(ctx->iova)) {
		c->syndrome = SOFTHCA_SYND_MKEY_LENGTH;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}

	mkey = kzalloc(sizeof(*mkey), GFP_KERNEL);
	if (!mkey) {
		c->syndrome = SOFTHCA_SYND_NO_MEM;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	mkey->access = access;
	mkey->iova = le64_to_cpu(ctx->iova);
	mkey->length = length;
	st = softhca_hw_pas_load(hw, &ctx->pas, length, false, mkey->iova,
				 &mkey->pas, &c->syndrome);
	if (st) {
		kfree(mkey);
		return st;
	}
	if (xa_alloc(&hw->mkeys, &index, mkey,
		     XA_LIMIT(SOFTHCA_HW_MKEY_FIRST, SOFTHCA_HW_MKEY_LAST), GFP_KERNEL)) {
		softhca_hw_mkey_free(mkey);
		c->syndrome = SOFTHCA_SYND_MKEY_LIMIT;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	mkey->key = index << 8 | (hw->mkey_variant++ & 0xff);
	mkey->pd = pd;
	pd->users++;
	out->num = cpu_to_le32(mkey->key);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_destroy_mkey(struct softhca_hw *hw,
			       struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_hw_mkey *mkey = softhca_hw_mkey_get(hw,
							   le32_to_cpu(in->num));

	if (!mkey) {
		c->syndrome = SOFTHCA_SYND_NO_MKEY;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	/*
	 * The engine holds MKEYs it looked up (and its key caches) only
	 * under the engine lock, across a whole pass: once the MKEY is out
	 * of the table and the caches are stale, nothing can reach it.
	 */
	mutex_lock(&hw->engine_lock);
	xa_erase(&hw->mkeys, SOFTHCA_MKEY_INDEX(mkey->key));
	hw->mkey_gen++;
	mutex_unlock(&hw->engine_lock);
	mkey->pd->users--;
	softhca_hw_mkey_free(mkey);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_query_mkey(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_mkey_query_out *out = c->out;
	struct softhca_hw_mkey *mkey = softhca_hw_mkey_get(hw,
							   le32_to_cpu(in->num));

	if (!mkey) {
		c->syndrome = SOFTHCA_SYND_NO_MKEY;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	out->ctx.pdn = cpu_to_le32(mkey->pd->pdn);
	out->ctx.access = cpu_to_le32(mkey->access);
	out->ctx.iova = cpu_to_le64(mkey->iova);
	out->ctx.length = cpu_to_le64(mkey->length);
	out->ctx.pas.nblocks = cpu_to_le32(mkey->pas.nblocks);
	out->ctx.pas.log_block_size = mkey->pas.log_block_size;
	out->mkey = cpu_to_le32(mkey->key);
	return SOFTHCA_CMD_STAT_OK;
}

void softhca_hw_mkeys_cleanup(struct softhca_hw *hw)
{
	struct softhca_hw_mkey *mkey;
	unsigned long i;

	xa_for_each(&hw->mkeys, i, mkey)
		softhca_hw_mkey_free(mkey);
	xa_destroy(&hw->mkeys);
}
