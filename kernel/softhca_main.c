// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: module entry points. Cards are plugged with
 * "rdma link add <name> type softhca netdev <ifname>" and removed with
 * "rdma link delete <name>", when their netdev goes away, or at unload.
 */
#include <linux/module.h>
#include <linux/if_vlan.h>
#include <rdma/rdma_netlink.h>

#include "softhca.h"

static int softhca_newlink(const char *ibdev_name, struct net_device *ndev)
{
	if (!is_vlan_dev(ndev) && ndev->type == ARPHRD_ETHER)
		return softhca_probe(ibdev_name, ndev);
	pr_debug("%s: %s is not an Ethernet device\n", SOFTHCA_DRV_NAME,
		 netdev_name(ndev));
	return -EINVAL;
}

static struct rdma_link_ops softhca_link_ops = {
	.type = SOFTHCA_DRV_NAME,
	.newlink = softhca_newlink,
};

static int softhca_netdev_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_UNREGISTER:
		softhca_netdev_gone(ndev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		softhca_netdev_changed(ndev);
		break;
	default:
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block softhca_netdev_nb = {
	.notifier_call = softhca_netdev_event,
};

static int __init softhca_init(void)
{
	int ret;

	softhca_wq = alloc_workqueue("softhca", WQ_UNBOUND, 0);
	if (!softhca_wq)
		return -ENOMEM;
	softhca_debugfs_module_init();
	ret = register_netdevice_notifier(&softhca_netdev_nb);
	if (ret)
		goto err_wq;
	rdma_link_register(&softhca_link_ops);
	return 0;

err_wq:
	softhca_debugfs_module_exit();
	destroy_workqueue(softhca_wq);
	return ret;
}

static void __exit softhca_exit(void)
{
	rdma_link_unregister(&softhca_link_ops);
	unregister_netdevice_notifier(&softhca_netdev_nb);
	softhca_remove_all();
	destroy_workqueue(softhca_wq);
	softhca_debugfs_module_exit();
}

module_init(softhca_init);
module_exit(softhca_exit);

MODULE_AUTHOR("softhca developers");
MODULE_DESCRIPTION("softhca: software RDMA HCA with a hardware-style driver");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(SOFTHCA_VERSION);
MODULE_ALIAS_RDMA_LINK(SOFTHCA_DRV_NAME);
