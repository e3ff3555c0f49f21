// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: the wake-up file. A user context's provider allocates one
 * (SOFTHCA_IB_METHOD_WAKE_FD_ALLOC) and, when it finds the engine IDLE
 * after writing a doorbell record, calls SOFTHCA_WAKE_IOCTL on it, which
 * rings the card's wake-up doorbell; when it finds a CQE waiting after
 * arming a CQ, SOFTHCA_CQ_DB_IOCTL, which rings the CQ doorbell. It is a
 * uverbs FD object, as mlx5's DEVX event files are: uverbs creates the
 * file, ties it to the context and calls softhca_wake_fd_destroy() when
 * the file is closed, the context goes away or the device is removed. A
 * removed device's file stays open and answers -EIO.
 *
 * The file exists for speed: the ioctl costs about what any ioctl costs,
 * while a zero-WR post_send (the other wake-up call, which works too) goes
 * through the uverbs write() path, whose copies, allocations and object
 * lookup cost three times as much, and this call sits in the latency of a
 * post to an idle card.
 */
#include <linux/fs.h>
#include <linux/rwsem.h>

#define UVERBS_MODULE_NAME softhca_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_types.h>

#include "../include/softhca_abi.h"
#include "softhca.h"
#include "softhca_trace.h"

struct softhca_wake_file {
	struct ib_uobject uobj;		/* first: uverbs allocates us */
	/* read by a wake-up, written when the file loses its device */
	struct rw_semaphore lock;
	struct softhca_dev *dev;	/* NULL once destroyed */
};

/*
 * CQ_DB for CQ @cqn of the file's context: a CQ of another context (or a
 * kernel CQ) is refused as if it did not exist. The CQ cannot go away
 * under dev->cqs' lock (softhca_destroy_cq() erases it first).
 */
static long softhca_wake_cq_db(struct softhca_wake_file *wf, u32 cqn)
{
	struct softhca_dev *dev = wf->dev;
	struct softhca_cq *cq;
	long ret = -EINVAL;

	xa_lock_bh(&dev->cqs);
	cq = xa_load(&dev->cqs, cqn);
	if (cq && !cq->kernel && &cq->uctx->ibuc == wf->uobj.context) {
		trace_softhca_cq_doorbell(dev, cqn);
		softhca_hw_write32(dev->hw, SOFTHCA_REG_CQ_DB, cqn);
		ret = 0;
	}
	xa_unlock_bh(&dev->cqs);
	if (ret)
		pr_debug("softhca: CQ doorbell for CQ %u, not the context's\n",
			 cqn);
	return ret;
}

/*
 * The wake-up doorbell for QP @qpn of the file's context: a QP of another
 * context (or a kernel QP) is refused as if it did not exist, as a UAR
 * doorbell naming another process's QP would be by an HCA, so no one
 * makes the card visit someone else's queues. QPN 0, which no QP has,
 * wakes the engine thread alone (it visits whatever has work). The QP
 * cannot go away under dev->qps' lock.
 */
#define SOFTHCA_NO_QPN	0
static long softhca_wake_qp(struct softhca_wake_file *wf, u32 qpn)
{
	struct softhca_dev *dev = wf->dev;
	struct softhca_qp *qp;
	bool own;

	if (qpn == SOFTHCA_NO_QPN)
		goto ring;
	xa_lock_bh(&dev->qps);
	qp = xa_load(&dev->qps, qpn);
	own = qp && !qp->kernel && &qp->uctx->ibuc == wf->uobj.context;
	xa_unlock_bh(&dev->qps);
	if (!own) {
		pr_debug("softhca: wake-up for QP %u, not the context's\n",
			 qpn);
		return -EINVAL;
	}
ring:
	trace_softhca_engine_doorbell(dev, qpn, "wake-file");
	softhca_hw_write32(dev->hw, SOFTHCA_REG_ENGINE_DB, qpn);
	return 0;
}

static long softhca_wake_ioctl(struct file *filp, unsigned int cmd,
			       unsigned long arg)
{
	struct softhca_wake_file *wf;
	long ret = 0;

	if (cmd != SOFTHCA_WAKE_IOCTL && cmd != SOFTHCA_CQ_DB_IOCTL) {
		pr_debug("softhca: wake-up file: unknown ioctl %#x\n", cmd);
		return -ENOTTY;
	}
	wf = container_of(filp->private_data, struct softhca_wake_file, uobj);
	if (arg > U32_MAX) {	/* the doorbell registers are 32 bits */
		pr_debug("softhca: wake-up with QPN or CQN %#lx\n", arg);
		return -EINVAL;
	}
	down_read(&wf->lock);
	if (!wf->dev)
		ret = -EIO;
	else if (cmd == SOFTHCA_CQ_DB_IOCTL)
		ret = softhca_wake_cq_db(wf, arg);
	else
		ret = softhca_wake_qp(wf, arg);
	up_read(&wf->lock);
	if (ret == -EIO)
		pr_debug("softhca: wake-up file of a closed context\n");
	return ret;
}

static const struct file_operations softhca_wake_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = softhca_wake_ioctl,
	.compat_ioctl = softhca_wake_ioctl,
	.release = uverbs_uobject_fd_release,
	/* no .llseek: lseek() on it fails with ESPIPE */
};

static void softhca_wake_fd_destroy(struct ib_uobject *uobj,
				    enum rdma_remove_reason why)
{
	struct softhca_wake_file *wf =
		container_of(uobj, struct softhca_wake_file, uobj);

	if (!wf->dev)		/* allocation aborted before the handler */
		return;
	down_write(&wf->lock);
	wf->dev = NULL;
	up_write(&wf->lock);
}

static int UVERBS_HANDLER(SOFTHCA_IB_METHOD_WAKE_FD_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs,
					SOFTHCA_IB_ATTR_WAKE_FD_ALLOC_HANDLE);
	struct softhca_wake_file *wf =
		container_of(uobj, struct softhca_wake_file, uobj);

	init_rwsem(&wf->lock);
	wf->dev = to_sdev(uobj->context->device);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(SOFTHCA_IB_METHOD_WAKE_FD_ALLOC,
			    UVERBS_ATTR_FD(SOFTHCA_IB_ATTR_WAKE_FD_ALLOC_HANDLE,
					   SOFTHCA_IB_OBJECT_WAKE_FD,
					   UVERBS_ACCESS_NEW,
					   UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(SOFTHCA_IB_OBJECT_WAKE_FD,
			    UVERBS_TYPE_ALLOC_FD(sizeof(struct softhca_wake_file),
						 softhca_wake_fd_destroy,
						 &softhca_wake_fops,
						 "[softhca_wake]", O_RDONLY),
			    &UVERBS_METHOD(SOFTHCA_IB_METHOD_WAKE_FD_ALLOC));

const struct uapi_definition softhca_wake_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(SOFTHCA_IB_OBJECT_WAKE_FD),
	{}
};
