// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: bringing a card up as an ib_device and taking it down.
 * softhca_probe() does what a PCI probe does for a real HCA: enable the
 * command queue, read the capabilities and register with ib_core; the
 * core calls softhca_dealloc_driver() when the device is unregistered.
 */
#include <linux/module.h>

#include "../include/softhca_abi.h"
#include "softhca.h"
#include "softhca_compat.h"

/* Unregistrations the driver queues (netdev removal) run here. */
struct workqueue_struct *softhca_wq;

static LIST_HEAD(softhca_dev_list);
static DEFINE_MUTEX(softhca_dev_lock);

static void softhca_dealloc_driver(struct ib_device *ibdev)
{
	struct softhca_dev *dev = to_sdev(ibdev);

	mutex_lock(&softhca_dev_lock);
	list_del(&dev->list);
	mutex_unlock(&softhca_dev_lock);

	softhca_debugfs_cleanup(dev);
	softhca_kverbs_cleanup(dev);
	softhca_eqs_cleanup(dev);
	softhca_cmd_cleanup(dev);
	softhca_hw_detach_netdev(dev->hw, false);
	softhca_hw_unplug(dev->hw);
	netdev_put(dev->ndev, &dev->ndev_tracker);
	WARN_ON(!xa_empty(&dev->cqs) || !xa_empty(&dev->mrs) ||
		!xa_empty(&dev->qps));
}

static const struct ib_device_ops softhca_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SOFTHCA_UVERBS_ABI_VERSION,

	.add_gid = softhca_add_gid,
	.alloc_hw_port_stats = softhca_alloc_hw_port_stats,
	.alloc_mr = softhca_alloc_mr,
	.alloc_pd = softhca_alloc_pd,
	.alloc_ucontext = softhca_alloc_ucontext,
	.create_ah = softhca_create_ah,
	.create_cq = SOFTHCA_CREATE_CQ_OP,
	.create_qp = softhca_create_qp,
	.create_srq = softhca_create_srq,
	.create_user_ah = softhca_create_ah,
	.dealloc_driver = softhca_dealloc_driver,
	.dealloc_pd = softhca_dealloc_pd,
	.dealloc_ucontext = softhca_dealloc_ucontext,
	.del_gid = softhca_del_gid,
	.dereg_mr = softhca_dereg_mr,
	.destroy_ah = softhca_destroy_ah,
	.destroy_cq = softhca_destroy_cq,
	.destroy_qp = softhca_destroy_qp,
	.destroy_srq = softhca_destroy_srq,
	.disassociate_ucontext = softhca_disassociate_ucontext,
	.fill_res_cq_entry = softhca_fill_res_cq_entry,
	.fill_res_cq_entry_raw = softhca_fill_res_cq_entry_raw,
	.fill_res_mr_entry = softhca_fill_res_mr_entry,
	.fill_res_mr_entry_raw = softhca_fill_res_mr_entry_raw,
	.fill_res_qp_entry = softhca_fill_res_qp_entry,
	.fill_res_qp_entry_raw = softhca_fill_res_qp_entry_raw,
	SOFTHCA_RES_SRQ_OPS
	.get_dev_fw_str = softhca_get_dev_fw_str,
	.get_dma_mr = softhca_get_dma_mr,
	.get_hw_stats = softhca_get_hw_stats,
	.get_link_layer = softhca_get_link_layer,
	.get_port_immutable = softhca_get_port_immutable,
	.map_mr_sg = softhca_map_mr_sg,
	.mmap = softhca_mmap,
	.mmap_free = softhca_mmap_free,
	.modify_cq = softhca_modify_cq,
	.modify_qp = softhca_modify_qp,
	.modify_srq = softhca_modify_srq,
	.poll_cq = softhca_poll_cq,
	.post_recv = softhca_post_recv,
	.post_send = softhca_post_send,
	.post_srq_recv = softhca_post_srq_recv,
	.query_device = softhca_query_device,
	.query_pkey = softhca_query_pkey,
	.query_port = softhca_query_port,
	.query_qp = softhca_query_qp,
	.query_srq = softhca_query_srq,
	.reg_user_mr = softhca_reg_user_mr,
	.req_notify_cq = softhca_req_notify_cq,
	.resize_cq = softhca_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, softhca_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, softhca_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, softhca_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, softhca_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, softhca_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, softhca_ucontext, ibuc),
};

/* Find the device bound to @ndev; the caller holds softhca_dev_lock. */
static struct softhca_dev *__softhca_find_by_netdev(struct net_device *ndev)
{
	struct softhca_dev *dev;

	list_for_each_entry(dev, &softhca_dev_list, list)
		if (dev->ndev == ndev)
			return dev;
	return NULL;
}

static bool softhca_port_up(struct softhca_dev *dev)
{
	return netif_running(dev->ndev) && netif_carrier_ok(dev->ndev);
}

static void softhca_unregister_work(struct work_struct *work)
{
	struct softhca_dev *dev =
		container_of(work, struct softhca_dev, unregister_work);

	ib_unregister_device_and_put(&dev->ibdev);
}

/*
 * The netdev is going away (called under RTNL): unwire the card's port
 * from it now, unregister the device asynchronously.
 */
void softhca_netdev_gone(struct net_device *ndev)
{
	struct softhca_dev *dev;

	mutex_lock(&softhca_dev_lock);
	dev = __softhca_find_by_netdev(ndev);
	if (dev)
		softhca_hw_detach_netdev(dev->hw, true);
	if (dev && ib_device_try_get(&dev->ibdev)) {
		if (!queue_work(softhca_wq, &dev->unregister_work))
			ib_device_put(&dev->ibdev);
	}
	mutex_unlock(&softhca_dev_lock);
}

/*
 * The netdev's link changed (called under RTNL): tell ib_core when the port
 * state did.
 */
void softhca_netdev_changed(struct net_device *ndev)
{
	struct softhca_dev *dev;
	struct ib_event ev;

	mutex_lock(&softhca_dev_lock);
	dev = __softhca_find_by_netdev(ndev);
	if (dev && ib_device_try_get(&dev->ibdev)) {
		ev.device = &dev->ibdev;
		ev.element.port_num = SOFTHCA_PORT;
		ev.event = softhca_port_up(dev) ? IB_EVENT_PORT_ACTIVE :
						  IB_EVENT_PORT_ERR;
		if (ev.event != dev->last_port_event) {
			dev->last_port_event = ev.event;
			ib_dispatch_event(&ev);
		}
		ib_device_put(&dev->ibdev);
	}
	mutex_unlock(&softhca_dev_lock);
}

/* Unregister every device (module unload); returns when all are gone. */
void softhca_remove_all(void)
{
	struct softhca_dev *dev, *found;

	for (;;) {
		found = NULL;
		mutex_lock(&softhca_dev_lock);
		list_for_each_entry(dev, &softhca_dev_list, list) {
			if (ib_device_try_get(&dev->ibdev)) {
				found = dev;
				break;
			}
		}
		dev = list_first_entry_or_null(&softhca_dev_list,
					       struct softhca_dev, list);
		mutex_unlock(&softhca_dev_lock);
		if (found)
			ib_unregister_device_and_put(&found->ibdev);
		else if (dev)	/* only ones our work is unregistering */
			flush_workqueue(softhca_wq);
		else
			break;
	}
}

/* Start the card: command queue, capabilities, event queues. */
static int softhca_init_hw(struct softhca_dev *dev, const char *name)
{
	int ret;

	ret = softhca_cmd_init(dev);
	if (ret) {
		ibdev_err(&dev->ibdev, "command queue failed to start (%d)\n",
			  ret);
		return ret;
	}
	ret = softhca_query_caps(dev);
	if (ret) {
		ibdev_err(&dev->ibdev, "QUERY_CAPS failed (%d)\n", ret);
		goto err_cmd;
	}
	ret = softhca_eqs_init(dev, name);
	if (ret) {
		ibdev_err(&dev->ibdev, "event queues failed (%d)\n", ret);
		goto err_cmd;
	}
	ret = softhca_kverbs_init(dev);
	if (ret)
		goto err_eqs;
	return 0;

err_eqs:
	softhca_eqs_cleanup(dev);
err_cmd:
	softhca_cmd_cleanup(dev);
	return ret;
}

static void softhca_init_ibdev(struct softhca_dev *dev)
{
	struct ib_device *ibdev = &dev->ibdev;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = dev->num_ceqs;
	ibdev->node_guid = cpu_to_be64(dev->caps.node_guid);
	strscpy(ibdev->node_desc, "softhca", sizeof(ibdev->node_desc));
	ibdev->dev.parent = softhca_hw_device(dev->hw);
	/* 0 when the card has no F_PA MKEYs (and no IBK_LOCAL_DMA_LKEY) */
	ibdev->local_dma_lkey = dev->reserved_lkey;
	/*
	 * A card that moderates CQ events lets ib_core's rdma_dim tune the
	 * kernel CQs of ULPs (IB_POLL_SOFTIRQ and the workqueues) through
	 * modify_cq, as mlx5 and erdma do: under load it raises fewer
	 * interrupts, and it steps back to no moderation when load falls.
	 */
	ibdev->use_cq_dim = !!(dev->caps.cap_flags &
			       SOFTHCA_CAP_CQ_MODERATION);
	/* zero-WR posts are the provider's wake-up call */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV);
	ib_set_device_ops(ibdev, &softhca_dev_ops);
	ibdev->driver_def = softhca_uapi_defs;
}

/**
 * softhca_probe - plug a card behind @ndev and register it as @name
 * @name: the ib_device name from "rdma link add"
 * @ndev: the Ethernet port of the card
 *
 * Return: 0, or -EEXIST if @ndev already has a softhca device or @name is
 * taken, or the error of the step that failed.
 */
int softhca_probe(const char *name, struct net_device *ndev)
{
	struct ib_device *other;
	struct softhca_dev *dev;
	struct softhca_hw *hw;
	int ret;

	other = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_debug("%s: device name %s is taken\n", SOFTHCA_DRV_NAME, name);
		return -EEXIST;
	}

	hw = softhca_hw_plug(ndev->dev_addr);
	if (IS_ERR(hw))
		return PTR_ERR(hw);

	dev = ib_alloc_device(softhca_dev, ibdev);
	if (!dev) {
		ret = -ENOMEM;
		goto err_unplug;
	}
	dev->hw = hw;
	INIT_WORK(&dev->unregister_work, softhca_unregister_work);
	/*
	 * The three share one lockdep class (xa_init_flags() is inline: one
	 * lock key per file), and CQs and QPs are looked up in softirq
	 * context, so MKEYs take their lock with softirqs off too.
	 */
	xa_init_flags(&dev->cqs, XA_FLAGS_LOCK_BH);
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_BH);
	xa_init_flags(&dev->mrs, XA_FLAGS_LOCK_BH);
	mutex_init(&dev->uctx_lock);
	INIT_LIST_HEAD(&dev->uctx_list);

	ret = softhca_init_hw(dev, name);
	if (ret)
		goto err_dealloc;

	mutex_lock(&softhca_dev_lock);
	if (__softhca_find_by_netdev(ndev)) {
		mutex_unlock(&softhca_dev_lock);
		pr_debug("%s: %s already has a softhca device\n",
			 SOFTHCA_DRV_NAME, netdev_name(ndev));
		ret = -EEXIST;
		goto err_hw;
	}
	dev->ndev = ndev;
	netdev_hold(ndev, &dev->ndev_tracker, GFP_KERNEL);
	dev->last_port_event = softhca_port_up(dev) ? IB_EVENT_PORT_ACTIVE :
						       IB_EVENT_PORT_ERR;
	list_add_tail(&dev->list, &softhca_dev_list);
	mutex_unlock(&softhca_dev_lock);

	/* From here on softhca_dealloc_driver() undoes everything. */
	softhca_init_ibdev(dev);
	softhca_debugfs_init(dev, name);
	ret = softhca_hw_attach_netdev(hw, ndev);
	if (ret) {
		if (ret == -EBUSY)
			pr_info("%s: %s already has a receive handler (a bridge or bond port, or another RDMA device's); bind to the bridge or bond itself\n",
				SOFTHCA_DRV_NAME, netdev_name(ndev));
		goto err_registered_dealloc;
	}
	ret = ib_device_set_netdev(&dev->ibdev, ndev, SOFTHCA_PORT);
	if (ret)
		goto err_registered_dealloc;
	ret = ib_register_device(&dev->ibdev, name,
				 softhca_hw_device(dev->hw));
	if (ret == -ENFILE)
		ret = -EEXIST;	/* the name was taken meanwhile */
	if (ret)
		goto err_registered_dealloc;
	/* a card that dies from now on is reported to ib_core's clients */
	dev->cmdq.fatal_event = true;

	/* The netdev may have started going away while we registered. */
	if (ndev->reg_state != NETREG_REGISTERED) {
		ib_unregister_device(&dev->ibdev);
		return -ENODEV;
	}
	return 0;

err_registered_dealloc:
	pr_debug("%s: registering %s failed (%d)\n", SOFTHCA_DRV_NAME, name,
		 ret);
	ib_dealloc_device(&dev->ibdev);
	return ret;

err_hw:
	softhca_kverbs_cleanup(dev);
	softhca_eqs_cleanup(dev);
	softhca_cmd_cleanup(dev);
err_dealloc:
	ib_dealloc_device(&dev->ibdev);
err_unplug:
	softhca_hw_unplug(hw);
	return ret;
}
