// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: memory keys (what a verbs MR is to the card). An
 * MKEY is an index, a PD, flags and, while it is valid, a translation
 * (struct softhca_hw_map): [iova, iova + length) onto host memory through
 * a PAS, with the key that reaches it and its access rights. The key is
 * index << 8 | variant; the variant changes on every creation (and with
 * every fast registration, to the byte the registration names) so a stale
 * key does not reach a new region with a reused index.
 *
 * A registered MR's MKEY is valid from CREATE_MKEY to DESTROY_MKEY. A
 * fast-registration MKEY (F_FAST_REG) starts free; a REG_MR WQE of a
 * privileged QP gives it a translation, LOCAL_INV or an incoming SEND_INV
 * takes it away. An F_PA MKEY translates DMA addresses to themselves
 * (ib_get_dma_mr, the reserved lkey). DESTROY_MKEY waits until nobody
 * uses the translation any more: after it the driver may unpin the pages.
 */
#include <linux/slab.h>

#include "hw.h"

#define SOFTHCA_HW_MKEY_ACCESS	(SOFTHCA_ACCESS_LOCAL_WRITE |		\
				 SOFTHCA_ACCESS_REMOTE_WRITE |		\
				 SOFTHCA_ACCESS_REMOTE_READ |		\
				 SOFTHCA_ACCESS_REMOTE_ATOMIC)
#define SOFTHCA_HW_MKEY_FLAGS	(SOFTHCA_MKEY_F_FAST_REG |		\
				 SOFTHCA_MKEY_F_PA | SOFTHCA_MKEY_F_ANY_PD)

static struct softhca_hw_map *softhca_hw_map_alloc(u32 key, u32 access,
						   u32 flags, u64 iova,
						   u64 length, gfp_t gfp)
{
	struct softhca_hw_map *map = kzalloc(sizeof(*map), gfp);

	if (!map)
		return NULL;
	refcount_set(&map->ref, 1);
	map->key = key;
	map->access = access;
	map->flags = flags;
	map->iova = iova;
	map->length = length;
	return map;
}

/*
 * The MKEY a command names (the caller holds cmd_mutex): the one whose
 * key is @key; a fast-registration MKEY, whose key byte the data path
 * changes (REG_MR), by its index alone, as mlx5's commands name an MKEY.
 */
static struct softhca_hw_mkey *softhca_hw_mkey_find(struct softhca_hw *hw,
						    u32 key)
{
	struct softhca_hw_mkey *mkey = xa_load(&hw->mkeys,
					       SOFTHCA_MKEY_INDEX(key));

	if (!mkey)
		return NULL;
	if (mkey->flags & SOFTHCA_MKEY_F_FAST_REG)
		return mkey;
	return mkey->key == key ? mkey : NULL;
}

static u8 softhca_hw_mkey_check_ctx(const struct softhca_mkey_ctx *ctx,
				    u32 *syndrome)
{
	u32 access = le32_to_cpu(ctx->access), flags = le32_to_cpu(ctx->flags);
	u64 length = le64_to_cpu(ctx->length), iova = le64_to_cpu(ctx->iova);

	if (access & ~SOFTHCA_HW_MKEY_ACCESS) {
		*syndrome = SOFTHCA_SYND_MKEY_ACCESS;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	/* F_ANY_PD only with F_PA; F_FAST_REG alone */
	if ((flags & ~SOFTHCA_HW_MKEY_FLAGS) ||
	    ((flags & SOFTHCA_MKEY_F_ANY_PD) && !(flags & SOFTHCA_MKEY_F_PA)) ||
	    ((flags & SOFTHCA_MKEY_F_FAST_REG) && flags != SOFTHCA_MKEY_F_FAST_REG)) {
		*syndrome = SOFTHCA_SYND_MKEY_FLAGS;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	if (flags & SOFTHCA_MKEY_F_FAST_REG) {
		u32 max = le32_to_cpu(ctx->max_pages);

		if (!max || max > SOFTHCA_HW_MAX_FAST_REG_PAGES || length) {
			*syndrome = SOFTHCA_SYND_MKEY_LENGTH;
			return SOFTHCA_CMD_STAT_BAD_PARAM;
		}
		return SOFTHCA_CMD_STAT_OK;
	}
	if (flags & SOFTHCA_MKEY_F_PA)
		return SOFTHCA_CMD_STAT_OK;
	if (!length || length > SOFTHCA_HW_MAX_MR_SIZE || iova + length < iova) {
		*syndrome = SOFTHCA_SYND_MKEY_LENGTH;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_create_mkey(struct softhca_hw *hw,
			      struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_mkey_ctx *ctx = c->in;
	struct softhca_create_out *out = c->out;
	u32 flags = le32_to_cpu(ctx->flags);
	struct softhca_hw_map *map = NULL;
	struct softhca_hw_mkey *mkey;
	struct softhca_hw_pd *pd;
	u32 index;
	u8 st;

	pd = xa_load(&hw->pds, le32_to_cpu(ctx->pdn));
	if (!pd) {
		c->syndrome = SOFTHCA_SYND_NO_PD;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	st = softhca_hw_mkey_check_ctx(ctx, &c->syndrome);
	if (st)
		return st;

	mkey = kzalloc(sizeof(*mkey), GFP_KERNEL);
	if (!mkey) {
		c->syndrome = SOFTHCA_SYND_NO_MEM;
		return SOFTHCA_CMD_STAT_EXCEED_LIM;
	}
	spin_lock_init(&mkey->lock);
	mkey->flags = flags;
	mkey->max_pages = le32_to_cpu(ctx->max_pages);
	if (!(flags & SOFTHCA_MKEY_F_FAST_REG)) {
		bool pa = flags & SOFTHCA_MKEY_F_PA;

		map = softhca_hw_map_alloc(0, le32_to_cpu(ctx->access), flags,
					   pa ? 0 : le64_to_cpu(ctx->iova),
					   pa ? U64_MAX :
						le64_to_cpu(ctx->length),
					   GFP_KERNEL);
		if (!map) {
			kfree(mkey);
			c->syndrome = SOFTHCA_SYND_NO_MEM;
			return SOFTHCA_CMD_STAT_EXCEED_LIM;
		}
		if (!pa) {
			st = softhca_hw_pas_load(hw, &ctx->pas, map->length,
						 false, map->iova, &map->pas,
						 &c->syndrome);
			if (st)
				goto err_map;
		}
	}
	if (xa_alloc_cyclic(&hw->mkeys, &index, NULL,
			    XA_LIMIT(SOFTHCA_HW_MKEY_FIRST,
				     SOFTHCA_HW_MKEY_LAST),
			    &hw->mkey_next, GFP_KERNEL) < 0) {
		c->syndrome = SOFTHCA_SYND_MKEY_LIMIT;
		st = SOFTHCA_CMD_STAT_EXCEED_LIM;
		goto err_map;
	}
	mkey->index = index;
	mkey->key = index << 8 | (hw->mkey_variant++ & 0xff);
	mkey->pd = pd;
	if (map) {
		map->key = mkey->key;
		rcu_assign_pointer(mkey->map, map);
	}
	/* published whole: the engine finds it from here on */
	xa_store(&hw->mkeys, index, mkey, GFP_KERNEL);
	pd->users++;
	out->num = cpu_to_le32(mkey->key);
	return SOFTHCA_CMD_STAT_OK;

err_map:
	if (map) {
		softhca_hw_pas_free(&map->pas);
		kfree(map);
	}
	kfree(mkey);
	return st;
}

/* Take @mkey's translation away and wait until nobody uses it. */
static void softhca_hw_mkey_drain(struct softhca_hw_mkey *mkey)
{
	DECLARE_COMPLETION_ONSTACK(gone);
	struct softhca_hw_map *map;

	spin_lock_bh(&mkey->lock);
	map = rcu_dereference_protected(mkey->map,
					lockdep_is_held(&mkey->lock));
	RCU_INIT_POINTER(mkey->map, NULL);
	if (map)
		map->gone = &gone;
	spin_unlock_bh(&mkey->lock);
	if (!map)
		return;
	softhca_hw_map_put(map);
	wait_for_completion(&gone);
}

u8 softhca_hw_cmd_destroy_mkey(struct softhca_hw *hw,
			       struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_hw_mkey *mkey = softhca_hw_mkey_find(hw,
							    le32_to_cpu(in->num));

	if (!mkey) {
		c->syndrome = SOFTHCA_SYND_NO_MKEY;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	xa_erase(&hw->mkeys, mkey->index);
	/* transfers using it finish first: then the pages may go */
	softhca_hw_mkey_drain(mkey);
	mkey->pd->users--;
	kfree_rcu(mkey, rcu);
	return SOFTHCA_CMD_STAT_OK;
}

u8 softhca_hw_cmd_query_mkey(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_obj_in *in = c->in;
	struct softhca_mkey_query_out *out = c->out;
	struct softhca_hw_mkey *mkey = softhca_hw_mkey_find(hw,
							    le32_to_cpu(in->num));
	struct softhca_hw_map *map;

	if (!mkey) {
		c->syndrome = SOFTHCA_SYND_NO_MKEY;
		return SOFTHCA_CMD_STAT_BAD_RESOURCE;
	}
	out->ctx.pdn = cpu_to_le32(mkey->pd->pdn);
	out->ctx.flags = cpu_to_le32(mkey->flags);
	out->ctx.max_pages = cpu_to_le32(mkey->max_pages);
	spin_lock_bh(&mkey->lock);
	out->mkey = cpu_to_le32(mkey->key);
	map = rcu_dereference_protected(mkey->map,
					lockdep_is_held(&mkey->lock));
	if (map) {
		out->ctx.access = cpu_to_le32(map->access);
		out->ctx.iova = cpu_to_le64(map->iova);
		out->ctx.length = cpu_to_le64(map->length);
		out->ctx.pas.nblocks = cpu_to_le32(map->pas.nblocks);
		out->ctx.pas.log_block_size = map->pas.log_block_size;
	}
	spin_unlock_bh(&mkey->lock);
	return SOFTHCA_CMD_STAT_OK;
}

/*
 * Read a REG_MR page list: @n block addresses of 2^@log bytes at DMA
 * address @list (n is at most SOFTHCA_HW_MAX_FAST_REG_PAGES: the array
 * fits a page, allocated without sleeping). Return: 0, or a syndrome.
 */
static u32 softhca_hw_mkey_read_pages(struct softhca_hw *hw, u64 list, u32 n,
				      u8 log, struct softhca_hw_pas *pas)
{
	u32 i;

	BUILD_BUG_ON(SOFTHCA_HW_MAX_FAST_REG_PAGES * sizeof(u64) > PAGE_SIZE);
	if (list & 7)
		return SOFTHCA_SYND_PAGE_LIST;
	pas->blocks = kmalloc_array(n, sizeof(u64), GFP_ATOMIC | __GFP_NOWARN);
	if (!pas->blocks)
		return SOFTHCA_SYND_NO_MEM;
	if (softhca_hw_dma_read(hw, list, pas->blocks, n * sizeof(u64)))
		goto err;
	for (i = 0; i < n; i++) {
		pas->blocks[i] = le64_to_cpu((__force __le64)pas->blocks[i]);
		if ((pas->blocks[i] & (BIT_ULL(log) - 1)) ||
		    !softhca_hw_is_ram(hw, pas->blocks[i], BIT_ULL(log)))
			goto err;
	}
	pas->nblocks = n;
	pas->log_block_size = log;
	return 0;

err:
	kvfree(pas->blocks);
	pas->blocks = NULL;
	return SOFTHCA_SYND_PAGE_LIST;
}

/**
 * softhca_hw_mkey_reg - execute a REG_MR WQE of @qp
 * @hw: the card
 * @qp: a privileged QP (in its engine context, which does not sleep)
 * @reg: the WQE's REG_MR segment
 *
 * Return: 0, or the syndrome of the failed check (the WQE then completes
 * with an error and the MKEY is unchanged).
 */
u32 softhca_hw_mkey_reg(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			const struct softhca_wqe_reg_mr *reg)
{
	u32 key = le32_to_cpu(reg->mkey), n = le32_to_cpu(reg->npages);
	u32 access = le32_to_cpu(reg->access);
	u64 iova = le64_to_cpu(reg->iova), length = le64_to_cpu(reg->length);
	u8 log = reg->log_page_size;
	struct softhca_hw_map *map, *old;
	struct softhca_hw_mkey *mkey;
	u32 synd;

	if (!(qp->flags & SOFTHCA_QP_PRIV))
		return SOFTHCA_SYND_NOT_PRIV;
	if (access & ~SOFTHCA_HW_MKEY_ACCESS)
		return SOFTHCA_SYND_MKEY_ACCESS;
	if (log < SOFTHCA_MIN_LOG_BLOCK || log > SOFTHCA_MAX_LOG_BLOCK ||
	    !n || iova + length < iova ||
	    length > ((u64)n << log) - (iova & (BIT_ULL(log) - 1)))
		return SOFTHCA_SYND_PAGE_LIST;

	rcu_read_lock();
	mkey = xa_load(&hw->mkeys, SOFTHCA_MKEY_INDEX(key));
	/* the MKEY outlives this: DESTROY_MKEY frees it after a grace period */
	if (!mkey || !(mkey->flags & SOFTHCA_MKEY_F_FAST_REG) ||
	    mkey->pd != qp->pd || n > mkey->max_pages) {
		rcu_read_unlock();
		return SOFTHCA_SYND_MKEY_STATE;
	}
	rcu_read_unlock();

	/* the engine context does not sleep */
	map = softhca_hw_map_alloc(key, access, 0, iova, length, GFP_ATOMIC);
	if (!map)
		return SOFTHCA_SYND_NO_MEM;
	synd = softhca_hw_mkey_read_pages(hw, le64_to_cpu(reg->page_list), n,
					  log, &map->pas);
	if (synd) {
		kfree(map);
		return synd;
	}
	map->pas.offset = iova & (BIT_ULL(log) - 1);
	map->pas.size = length;

	rcu_read_lock();
	mkey = xa_load(&hw->mkeys, SOFTHCA_MKEY_INDEX(key));
	if (!mkey || !(mkey->flags & SOFTHCA_MKEY_F_FAST_REG)) {
		rcu_read_unlock();
		softhca_hw_map_put(map);
		return SOFTHCA_SYND_MKEY_STATE;
	}
	spin_lock_bh(&mkey->lock);
	old = rcu_dereference_protected(mkey->map,
					lockdep_is_held(&mkey->lock));
	if (old) {
		/* registering a valid MKEY again is an error (IBA 10.6.7.2) */
		spin_unlock_bh(&mkey->lock);
		rcu_read_unlock();
		softhca_hw_map_put(map);
		return SOFTHCA_SYND_MKEY_STATE;
	}
	mkey->key = key;
	rcu_assign_pointer(mkey->map, map);
	spin_unlock_bh(&mkey->lock);
	rcu_read_unlock();
	return 0;
}

/**
 * softhca_hw_mkey_invalidate - LOCAL_INV, or a SEND_INV received
 * @hw: the card
 * @pd: the PD of the QP that names the key
 * @key: the key
 *
 * The MKEY must be a fast-registration MKEY of @pd, valid under @key; it
 * becomes free. Transfers holding its translation finish with it.
 *
 * Return: 0, or SOFTHCA_SYND_INVALIDATE.
 */
u32 softhca_hw_mkey_invalidate(struct softhca_hw *hw, struct softhca_hw_pd *pd,
			       u32 key)
{
	struct softhca_hw_mkey *mkey;
	struct softhca_hw_map *map = NULL;
	u32 synd = SOFTHCA_SYND_INVALIDATE;

	rcu_read_lock();
	mkey = xa_load(&hw->mkeys, SOFTHCA_MKEY_INDEX(key));
	if (mkey && (mkey->flags & SOFTHCA_MKEY_F_FAST_REG) && mkey->pd == pd) {
		spin_lock_bh(&mkey->lock);
		map = rcu_dereference_protected(mkey->map,
						lockdep_is_held(&mkey->lock));
		if (map && map->key == key) {
			RCU_INIT_POINTER(mkey->map, NULL);
			synd = 0;
		} else {
			map = NULL;
		}
		spin_unlock_bh(&mkey->lock);
	}
	rcu_read_unlock();
	softhca_hw_map_put(map);
	return synd;
}

void softhca_hw_mkeys_cleanup(struct softhca_hw *hw)
{
	struct softhca_hw_mkey *mkey;
	unsigned long i;

	xa_for_each(&hw->mkeys, i, mkey) {
		xa_erase(&hw->mkeys, i);
		softhca_hw_mkey_drain(mkey);
		kfree_rcu(mkey, rcu);
	}
	xa_destroy(&hw->mkeys);
}
