// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: memory regions. reg_user_mr pins the range with
 * ib_umem_get() (charged to RLIMIT_MEMLOCK), picks the largest block size
 * the card takes (2 MiB on huge pages), describes the blocks in a PAS and
 * creates an MKEY; its key is both lkey and rkey. get_dma_mr gives a
 * kernel PD an MKEY of physical (DMA) addresses (F_PA); fast-registration
 * MRs are in softhca_fast_reg.c.
 */
#include <rdma/ib_umem.h>

#include "softhca.h"

u32 softhca_mr_access(int access)
{
	return (access & IB_ACCESS_LOCAL_WRITE ? SOFTHCA_ACCESS_LOCAL_WRITE : 0) |
	       (access & IB_ACCESS_REMOTE_WRITE ? SOFTHCA_ACCESS_REMOTE_WRITE : 0) |
	       (access & IB_ACCESS_REMOTE_READ ? SOFTHCA_ACCESS_REMOTE_READ : 0) |
	       (access & IB_ACCESS_REMOTE_ATOMIC ?
		SOFTHCA_ACCESS_REMOTE_ATOMIC : 0);
}

/**
 * softhca_mkey_create - CREATE_MKEY, and track the key for debugfs
 * @dev: the device
 * @ctx: the MKEY context
 * @key: set to the new key
 *
 * Return: 0, or the command's error (nothing is left on the card).
 */
int softhca_mkey_create(struct softhca_dev *dev,
			const struct softhca_mkey_ctx *ctx, u32 *key)
{
	struct softhca_create_out out;
	int ret;

	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_MKEY, ctx, sizeof(*ctx),
			       &out, sizeof(out));
	if (ret)
		return ret;
	*key = le32_to_cpu(out.num);
	ret = xa_insert_bh(&dev->mrs, SOFTHCA_MKEY_INDEX(*key),
			   xa_mk_value(*key), GFP_KERNEL);
	if (ret)
		softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_MKEY, *key);
	return ret;
}

/*
 * Destroy an MKEY of softhca_mkey_create(); 0 once the card let go. Its
 * index leaves dev->mrs (a listing) before the command: once the card
 * frees the index another thread's CREATE_MKEY may get it and insert it
 * before this thread would run again. A failed destroy leaves the MKEY
 * on the card, and its listing entry is put back.
 */
int softhca_mkey_destroy(struct softhca_dev *dev, u32 key)
{
	int ret;

	xa_erase_bh(&dev->mrs, SOFTHCA_MKEY_INDEX(key));
	ret = softhca_cmd_destroy(dev, SOFTHCA_CMD_DESTROY_MKEY, key);
	if (ret && xa_insert_bh(&dev->mrs, SOFTHCA_MKEY_INDEX(key),
				xa_mk_value(key), GFP_KERNEL))
		ibdev_dbg(&dev->ibdev,
			  "mkey 0x%x stays on the card but not in its listing\n",
			  key);
	return ret;
}

/**
 * softhca_get_dma_mr - an MR of DMA addresses for a kernel PD
 * @ibpd: the PD
 * @access: LOCAL_WRITE, and remote access only when asked (ib_core's
 *	    IB_PD_UNSAFE_GLOBAL_RKEY)
 *
 * The MKEY is F_PA: an address is the DMA address itself, usable only by
 * the PD's kernel QPs (and by remote peers if @access allows).
 *
 * Return: the MR, or ERR_PTR(-EOPNOTSUPP) when the card has no F_PA MKEYs.
 */
struct ib_mr *softhca_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct softhca_dev *dev = to_sdev(ibpd->device);
	struct softhca_mkey_ctx ctx;
	struct softhca_mr *mr;
	int ret;

	if (!(dev->caps.cap_flags & SOFTHCA_CAP_PA_MKEY)) {
		ibdev_dbg(&dev->ibdev, "get_dma_mr: the card has no F_PA MKEYs\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (access & ~(SOFTHCA_MR_ACCESS | IB_ACCESS_OPTIONAL)) {
		ibdev_dbg(&dev->ibdev, "get_dma_mr: access 0x%x unsupported\n",
			  access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->kind = SOFTHCA_MR_DMA;
	memset(&ctx, 0, sizeof(ctx));
	ctx.pdn = cpu_to_le32(to_spd(ibpd)->pdn);
	ctx.access = cpu_to_le32(softhca_mr_access(access));
	ctx.flags = cpu_to_le32(SOFTHCA_MKEY_F_PA);
	ret = softhca_mkey_create(dev, &ctx, &mr->mkey);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "get_dma_mr: CREATE_MKEY failed (%d)\n",
			  ret);
		kfree(mr);
		return ERR_PTR(ret);
	}
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	return &mr->ibmr;
}

struct ib_mr *softhca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 iova, int access, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibpd->device);
	struct softhca_mkey_ctx ctx;
	struct softhca_pas_buf pb;
	struct softhca_mr *mr;
	unsigned long pgsz;
	int ret;

	/* the optional flags are hints the card may ignore */
	if (access & ~(SOFTHCA_MR_ACCESS | IB_ACCESS_OPTIONAL)) {
		ibdev_dbg(&dev->ibdev, "reg_mr: access 0x%x unsupported\n",
			  access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!length || length > dev->caps.max_mr_size) {
		ibdev_dbg(&dev->ibdev, "reg_mr: length %llu out of range\n",
			  length);
		return ERR_PTR(-EINVAL);
	}
	if (iova + length < iova || start + length < start) {
		ibdev_dbg(&dev->ibdev,
			  "reg_mr: 0x%llx+%llu (iova 0x%llx) wraps around\n",
			  start, length, iova);
		return ERR_PTR(-EINVAL);
	}
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&dev->ibdev, "reg_mr: unexpected request data\n");
		return ERR_PTR(-EINVAL);
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->kind = SOFTHCA_MR_USER;
	mr->umem = ib_umem_get(&dev->ibdev, start, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		ibdev_dbg(&dev->ibdev, "reg_mr: cannot pin 0x%llx+%llu (%d)\n",
			  start, length, ret);
		goto err_free;
	}
	pgsz = softhca_umem_mr_block(mr->umem, dev->caps.page_size_cap, iova);
	if (!pgsz) {
		ibdev_dbg(&dev->ibdev, "reg_mr: no block size fits iova 0x%llx\n",
			  iova);
		ret = -EINVAL;
		goto err_umem;
	}
	ret = softhca_pas_from_umem(dev, mr->umem, pgsz, &pb);
	if (ret)
		goto err_umem;

	memset(&ctx, 0, sizeof(ctx));
	ctx.pdn = cpu_to_le32(to_spd(ibpd)->pdn);
	ctx.access = cpu_to_le32(softhca_mr_access(access));
	ctx.iova = cpu_to_le64(iova);
	ctx.length = cpu_to_le64(length);
	softhca_pas_to_prm(&pb, &ctx.pas);
	ret = softhca_mkey_create(dev, &ctx, &mr->mkey);
	softhca_pas_free(dev, &pb);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "reg_mr: CREATE_MKEY failed (%d)\n", ret);
		goto err_umem;
	}
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	mr->ibmr.page_size = pgsz;
	return &mr->ibmr;

err_umem:
	softhca_umem_put(dev, mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(ret);
}

int softhca_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibmr->device);
	struct softhca_mr *mr = to_smr(ibmr);
	int ret;

	if (mr->kind == SOFTHCA_MR_FAST_REG)
		ret = softhca_fast_reg_destroy(dev, mr);
	else
		ret = softhca_mkey_destroy(dev, mr->mkey);
	if (ret)
		return ret;
	if (mr->kind == SOFTHCA_MR_USER)
		softhca_umem_put(dev, mr->umem);
	else if (mr->kind == SOFTHCA_MR_FAST_REG)
		softhca_fast_reg_free_pages(dev, mr);
	kfree(mr);
	return 0;
}
