// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: fast-registration MRs (what nvme-rdma, rpcrdma and iSER
 * register with). alloc_mr creates a free F_FAST_REG MKEY of up to
 * max_num_sg pages together with a coherent page list the MR owns;
 * map_mr_sg fills the list (ib_sg_to_pages() splits the scatterlist into
 * pages of mr->page_size); a REG_MR WQE on a kernel QP then hands the
 * list, iova, length, access and new key to the card (softhca_post.c),
 * and LOCAL_INV or a received SEND_WITH_INV frees the MKEY again.
 */
#include <linux/dma-mapping.h>

#include "softhca.h"

struct ib_mr *softhca_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg)
{
	struct softhca_dev *dev = to_sdev(ibpd->device);
	struct device *dma_dev = softhca_hw_device(dev->hw);
	struct softhca_mkey_ctx ctx;
	struct softhca_mr *mr;
	int ret;

	if (!(dev->caps.cap_flags & SOFTHCA_CAP_FAST_REG)) {
		ibdev_dbg(&dev->ibdev, "alloc_mr: the card has no REG_MR\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (type != IB_MR_TYPE_MEM_REG) {
		ibdev_dbg(&dev->ibdev, "alloc_mr: type %d unsupported\n", type);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!max_num_sg || max_num_sg > dev->caps.max_fast_reg_pages) {
		ibdev_dbg(&dev->ibdev, "alloc_mr: %u pages out of [1, %u]\n",
			  max_num_sg, dev->caps.max_fast_reg_pages);
		return ERR_PTR(-EINVAL);
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->kind = SOFTHCA_MR_FAST_REG;
	mr->max_pages = max_num_sg;
	mr->pages = dma_alloc_coherent(dma_dev,
				       max_num_sg * sizeof(*mr->pages),
				       &mr->pages_dma, GFP_KERNEL);
	if (!mr->pages) {
		ret = -ENOMEM;
		goto err_mr;
	}

	memset(&ctx, 0, sizeof(ctx));
	ctx.pdn = cpu_to_le32(to_spd(ibpd)->pdn);
	ctx.flags = cpu_to_le32(SOFTHCA_MKEY_F_FAST_REG);
	ctx.max_pages = cpu_to_le32(max_num_sg);
	ret = softhca_mkey_create(dev, &ctx, &mr->mkey);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "alloc_mr: CREATE_MKEY failed (%d)\n",
			  ret);
		goto err_pages;
	}
	mr->reg_key = mr->mkey;
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	return &mr->ibmr;

err_pages:
	softhca_fast_reg_free_pages(dev, mr);
err_mr:
	kfree(mr);
	return ERR_PTR(ret);
}

/**
 * softhca_fast_reg_destroy - DESTROY_MKEY of a fast-registration MR
 * @dev: the device
 * @mr: the MR
 *
 * The card knows the MKEY by its current key, and each REG_MR gives it a
 * new key byte: the one the ULP last set in the MR (ib_update_fast_reg_key()
 * before its REG_MR), the one the last REG_MR posted named, or, never
 * registered, the one it was created with. A key that is not the MKEY's is
 * refused (-EINVAL) and changes nothing, so each is tried in turn.
 *
 * Return: 0 once the card let go, or the card's error.
 */
int softhca_fast_reg_destroy(struct softhca_dev *dev, struct softhca_mr *mr)
{
	u32 keys[] = { mr->ibmr.rkey, READ_ONCE(mr->reg_key), mr->mkey };
	int ret = -EINVAL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(keys) && ret == -EINVAL; i++) {
		if ((i >= 1 && keys[i] == keys[0]) ||
		    (i == 2 && keys[2] == keys[1]))
			continue;
		ret = softhca_mkey_destroy(dev, keys[i]);
	}
	if (ret)
		ibdev_dbg(&dev->ibdev,
			  "dereg_mr: fast-registration MKEY 0x%x not destroyed (%d)\n",
			  mr->mkey, ret);
	return ret;
}

/* The page list, once the card no longer holds the MKEY. */
void softhca_fast_reg_free_pages(struct softhca_dev *dev, struct softhca_mr *mr)
{
	if (softhca_cmd_dma_safe(dev))
		dma_free_coherent(softhca_hw_device(dev->hw),
				  mr->max_pages * sizeof(*mr->pages),
				  mr->pages, mr->pages_dma);
	mr->pages = NULL;
}

/* ib_sg_to_pages()'s callback: one more page (mr->page_size aligned). */
static int softhca_fast_reg_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct softhca_mr *mr = to_smr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/**
 * softhca_map_mr_sg - fill a fast-registration MR's page list
 * @ibmr: the MR (ib_map_mr_sg() set its page_size)
 * @sg: the DMA-mapped scatterlist
 * @sg_nents: its entries
 * @sg_offset: the offset into the first entry, or NULL
 *
 * Return: the entries mapped (fewer when the list is full), or -EINVAL
 * for an MR of another kind or a page size the card does not take.
 */
int softhca_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset)
{
	struct softhca_dev *dev = to_sdev(ibmr->device);
	struct softhca_mr *mr = to_smr(ibmr);

	if (mr->kind != SOFTHCA_MR_FAST_REG ||
	    !is_power_of_2(ibmr->page_size) ||
	    !(ibmr->page_size & dev->caps.page_size_cap)) {
		ibdev_dbg(&dev->ibdev,
			  "map_mr_sg: MR 0x%x (kind %d) with pages of %u bytes\n",
			  mr->mkey, mr->kind, ibmr->page_size);
		return -EINVAL;
	}
	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset,
			      softhca_fast_reg_set_page);
}
