// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: user contexts. Each context gets a UAR from the card,
 * mapped into the process through an rdma_user_mmap_entry whose offset is
 * the UAR index (so offsets are unique across contexts, and another
 * context's offset finds nothing), and its own table of pinned doorbell
 * record pages.
 */
#include <linux/mm.h>
#include <rdma/uverbs_ioctl.h>

#include "../include/softhca_abi.h"
#include "softhca.h"
#include "softhca_compat.h"

static int softhca_uar_alloc(struct softhca_dev *dev, u32 *index)
{
	struct softhca_alloc_out out;
	int ret;

	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_ALLOC_UAR, NULL, 0, &out,
			       sizeof(out));
	if (!ret)
		*index = le32_to_cpu(out.num);
	return ret;
}

static void softhca_uar_free(struct softhca_dev *dev, u32 index)
{
	/* ib_core destroyed every object on it first: it cannot be busy */
	if (softhca_cmd_destroy(dev, SOFTHCA_CMD_DEALLOC_UAR, index))
		ibdev_warn_ratelimited(&dev->ibdev,
				       "DEALLOC_UAR %u failed: its page stays the card's\n",
				       index);
}

int softhca_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct softhca_dev *dev = to_sdev(ibuc->device);
	struct softhca_ucontext *uctx = to_suctx(ibuc);
	struct softhca_alloc_ucontext_resp resp = {};
	struct softhca_mmap_entry *entry;
	int ret;

	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&dev->ibdev, "alloc_ucontext: unknown request data\n");
		return -EINVAL;
	}

	ret = softhca_uar_alloc(dev, &uctx->uar);
	if (ret) {
		ibdev_dbg(&dev->ibdev, "alloc_ucontext: no UAR (%d)\n", ret);
		return ret;
	}
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry) {
		ret = -ENOMEM;
		goto err_uar;
	}
	entry->page = softhca_hw_uar_page(dev->hw, uctx->uar);
	if (!entry->page) {
		ret = -EIO;
		goto err_entry;
	}
	ret = rdma_user_mmap_entry_insert_exact(ibuc, &entry->rdma, PAGE_SIZE,
						uctx->uar);
	if (ret)
		goto err_entry;
	uctx->uar_entry = entry;

	softhca_dbrec_table_init(&uctx->dbrecs, &softhca_dbrec_umem_ops,
				 &dev->ibdev);
	uctx->pid = task_tgid_nr(current);

	resp.uar_mmap_offset = rdma_user_mmap_get_offset(&entry->rdma);
	resp.uar_index = uctx->uar;
	resp.cqe_size = dev->caps.cqe_size;
	resp.dbrec_align = dev->caps.dbrec_align;
	resp.max_inline_data = dev->caps.max_inline_data;
	resp.max_sge = dev->caps.max_sge;
	resp.max_qp_wr = dev->caps.max_qp_wr;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_mmap;

	mutex_lock(&dev->uctx_lock);
	list_add_tail(&uctx->list, &dev->uctx_list);
	mutex_unlock(&dev->uctx_lock);
	return 0;

err_mmap:
	/* softhca_mmap_free() frees the entry */
	rdma_user_mmap_entry_remove(&entry->rdma);
	goto err_uar;
err_entry:
	kfree(entry);
err_uar:
	softhca_uar_free(dev, uctx->uar);
	return ret;
}

void softhca_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct softhca_dev *dev = to_sdev(ibuc->device);
	struct softhca_ucontext *uctx = to_suctx(ibuc);

	mutex_lock(&dev->uctx_lock);
	list_del(&uctx->list);
	mutex_unlock(&dev->uctx_lock);
	WARN_ON(softhca_dbrec_pinned_pages(&uctx->dbrecs));
	rdma_user_mmap_entry_remove(&uctx->uar_entry->rdma);
	softhca_uar_free(dev, uctx->uar);
}

int softhca_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct softhca_dev *dev = to_sdev(ibuc->device);
	struct rdma_user_mmap_entry *rdma;
	struct softhca_mmap_entry *entry;
	int ret;

	rdma = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma) {
		ibdev_dbg(&dev->ibdev, "mmap: nothing at offset 0x%lx (+%lu)\n",
			  vma->vm_pgoff << PAGE_SHIFT,
			  vma->vm_end - vma->vm_start);
		return -EINVAL;
	}
	entry = container_of(rdma, struct softhca_mmap_entry, rdma);
	if (vma->vm_flags & VM_EXEC) {
		ibdev_dbg(&dev->ibdev, "mmap: UAR cannot be executable\n");
		ret = -EPERM;
		goto out;
	}
	/*
	 * A BAR page: not copied on fork, not grown, not dumped. Mapped
	 * through rdma_user_mmap_io() so that uverbs zaps the mapping when
	 * the device goes away under the process (disassociate).
	 */
	softhca_vma_mod_flags(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
			      VM_MAYEXEC);
	ret = rdma_user_mmap_io(ibuc, vma, page_to_pfn(entry->page), PAGE_SIZE,
				vma->vm_page_prot, rdma);
out:
	rdma_user_mmap_entry_put(rdma);
	return ret;
}

/*
 * The device is going away under an open context. uverbs has already
 * zapped the UAR mapping (it was made with rdma_user_mmap_io()): a later
 * touch finds a private zero page, never the card's. It then destroys the
 * context's objects and tells the process IBV_EVENT_DEVICE_FATAL; nothing
 * is left for the driver to do here.
 */
void softhca_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

void softhca_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	kfree(container_of(rdma, struct softhca_mmap_entry, rdma));
}
