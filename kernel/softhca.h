/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca driver core: the device, the command interface and the verbs
 * entry points. The driver talks to the card only through kernel/hw/softhca_hw.h
 * (the bus) and the formats of include/softhca_prm.h.
 */
#ifndef SOFTHCA_H
#define SOFTHCA_H

#include <linux/netdevice.h>
#include <linux/semaphore.h>
#include <rdma/ib_verbs.h>

#include "../include/softhca_prm.h"
#include "hw/softhca_hw.h"

#define SOFTHCA_DRV_NAME	"softhca"
#define SOFTHCA_PORT		1

/* Device attributes from QUERY_CAPS, in CPU order. */
struct softhca_dev_caps {
	u64 fw_version;
	u64 node_guid;
	u64 sys_image_guid;
	u64 max_mr_size;
	u64 page_size_cap;
	u32 vendor_id;
	u32 vendor_part_id;
	u32 hw_version;
	u32 cap_flags;
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_sge;
	u32 max_sge_rd;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u32 max_pd;
	u32 max_srq;
	u32 max_srq_wr;
	u32 max_srq_sge;
	u32 max_qp_rd_atom;
	u32 max_qp_init_rd_atom;
	u32 max_inline_data;
	u32 max_uar;
	u32 max_eq;
	u32 max_comp_vectors;
	u32 log_max_eq_size;
	u32 max_msg_size;
	u32 max_mtu;
	u32 gid_table_len;
	u32 local_ca_ack_delay;
	u32 cqe_size;
	u32 dbrec_align;
	u32 max_ah;
};

struct softhca_cmd_slot {
	struct completion done;
	void *in;			/* input mailbox */
	dma_addr_t in_dma;
	void *out;			/* output mailbox */
	dma_addr_t out_dma;
	u32 token;
};

struct softhca_cmdq {
	struct softhca_cmd_entry *entries;
	dma_addr_t dma;
	u32 log_size;
	struct semaphore sem;		/* counts free slots */
	spinlock_t lock;		/* protects free_slots */
	unsigned long free_slots;
	u32 next_token;
	bool events;			/* completions arrive as EQEs */
	struct softhca_cmd_slot *slots;
};

struct softhca_dev {
	struct ib_device ibdev;
	struct softhca_hw *hw;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct list_head list;		/* softhca_dev_list */
	struct work_struct unregister_work;
	enum ib_event_type last_port_event;
	struct softhca_dev_caps caps;
	struct softhca_cmdq cmdq;
};

static inline struct softhca_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct softhca_dev, ibdev);
}

struct softhca_ucontext {
	struct ib_ucontext ibuc;
};

/* softhca_cmd.c */
int softhca_cmd_init(struct softhca_dev *dev);
void softhca_cmd_cleanup(struct softhca_dev *dev);
int softhca_cmd_exec(struct softhca_dev *dev, u16 opcode, const void *in,
		     u32 in_len, void *out, u32 out_len);
int softhca_cmd_status_to_errno(u8 status);
void softhca_cmd_event(struct softhca_dev *dev, u32 slot, u32 token);

/* softhca_device.c */
int softhca_probe(const char *name, struct net_device *ndev);
void softhca_netdev_gone(struct net_device *ndev);
void softhca_netdev_changed(struct net_device *ndev);
void softhca_remove_all(void);
extern struct workqueue_struct *softhca_wq;

/* softhca_query.c */
int softhca_query_caps(struct softhca_dev *dev);
int softhca_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			 struct ib_udata *udata);
int softhca_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *attr);
int softhca_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		       u16 *pkey);
int softhca_get_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *immutable);
enum rdma_link_layer softhca_get_link_layer(struct ib_device *ibdev, u32 port);
void softhca_get_dev_fw_str(struct ib_device *ibdev, char *str);

/* softhca_ucontext.c */
int softhca_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void softhca_dealloc_ucontext(struct ib_ucontext *ibuc);

#endif /* SOFTHCA_H */
