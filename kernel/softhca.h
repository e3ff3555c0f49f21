/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca driver core: the device, the command interface and the verbs
 * entry points. The driver talks to the card only through kernel/hw/softhca_hw.h
 * (the bus) and the formats of include/softhca_prm.h.
 */
#ifndef SOFTHCA_H
#define SOFTHCA_H

#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "../include/softhca_prm.h"
#include "hw/softhca_hw.h"
#include "softhca_kq.h"

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
	u32 max_fast_reg_pages;
	u32 max_cq_count;
	u32 max_cq_period_us;
};

struct softhca_cmd_slot {
	struct completion done;
	void *in;			/* input mailbox */
	dma_addr_t in_dma;
	void *out;			/* output mailbox */
	dma_addr_t out_dma;
	u32 token;
};

/* The command interface's health (see softhca_cmd.c). */
enum softhca_cmd_health {
	SOFTHCA_CMD_HEALTHY,
	SOFTHCA_CMD_RESETTING,		/* a command timed out: resetting */
	SOFTHCA_CMD_DEAD,		/* reset: every command fails */
};

struct softhca_cmdq {
	struct softhca_cmd_entry *entries;
	dma_addr_t dma;
	u32 log_size;
	/* free_slots, next_token, health; handing an entry over */
	spinlock_t lock;
	unsigned long free_slots;
	u32 next_token;
	enum softhca_cmd_health health;
	wait_queue_head_t wait;		/* a slot freed, or health changed */
	bool quiesced;			/* the card confirmed its reset */
	unsigned int timeout_ms;	/* 0: the cmd_timeout_ms parameter */
	bool events;			/* completions arrive as EQEs */
	bool fatal_event;		/* registered: report a dead device */
	struct work_struct fatal_work;	/* IB_EVENT_DEVICE_FATAL */
	struct softhca_cmd_slot *slots;
};

/* An event queue of the driver: the async EQ or a completion EQ (CEQ). */
struct softhca_eq {
	struct softhca_dev *dev;
	struct softhca_eqe *buf;
	dma_addr_t dma;
	u32 log_size;
	/*
	 * ci and the EQEs from ci on: the tasklet's consuming (and the
	 * doorbell that hands them back) against softhca_eq_forget_cq()
	 */
	spinlock_t lock;
	u32 ci;
	u32 eqn;
	u32 vector;
	int irq;
	bool created;
	struct tasklet_struct tasklet;
	char name[32];
};

/* Doorbell records of kernel queues (softhca_kdbrec.c). */
#define SOFTHCA_KDBREC_SIZE	64
#define SOFTHCA_KDBREC_PER_PAGE	(PAGE_SIZE / SOFTHCA_KDBREC_SIZE)

struct softhca_kdbrec_ops {
	void *(*alloc)(void *ctx, dma_addr_t *dma);	/* a zeroed page */
	void (*free)(void *ctx, void *cpu, dma_addr_t dma);
};

struct softhca_kdbrec_page {
	struct list_head list;
	void *cpu;
	dma_addr_t dma;
	unsigned int nused;
	DECLARE_BITMAP(used, SOFTHCA_KDBREC_PER_PAGE);
};

struct softhca_kdbrec_pool {
	struct mutex lock;		/* pages, their bitmaps and counts */
	struct list_head pages;
	const struct softhca_kdbrec_ops *ops;
	void *ctx;
};

struct softhca_kdbrec {
	struct softhca_kdbrec_page *page;
	unsigned int slot;
	void *cpu;
	dma_addr_t dma;
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
	struct softhca_eq cmd_eq;	/* command completions */
	struct softhca_eq async_eq;
	struct softhca_eq *ceqs;
	u32 num_ceqs;
	struct xarray cqs;		/* cqn -> softhca_cq, for EQE dispatch */
	struct xarray qps;		/* qpn -> softhca_qp, for EQE dispatch */
	struct xarray mrs;		/* mkey index -> xa_mk_value(mkey) */
	struct xarray srqs;		/* srqn -> softhca_srq, for EQE dispatch */
	/* what kernel verbs use (softhca_kverbs.c) */
	u32 kuar;			/* the kernel's UAR */
	void *kuar_va;			/* its page */
	bool kuar_valid;
	struct softhca_kdbrec_pool kdbrecs;
	u32 kpdn;			/* the driver's PD, for the lkey */
	bool kpd_valid;
	u32 reserved_lkey;		/* local_dma_lkey, 0 if none */
	u32 max_ah;			/* AHs are driver objects */
	atomic_t num_ahs;
	struct mutex uctx_lock;		/* uctx_list */
	struct list_head uctx_list;
	struct dentry *debugfs;
};

static inline struct softhca_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct softhca_dev, ibdev);
}

/* Doorbell-record pages a context has pinned (softhca_dbrec.c). */
struct softhca_dbrec_ops {
	int (*pin)(void *ctx, const void *owner, unsigned long va,
		   dma_addr_t *dma, void **cookie);
	void (*unpin)(void *ctx, const void *owner, void *cookie);
};

struct softhca_dbrec_table {
	struct mutex lock;		/* pages and their refcnt */
	struct list_head pages;
	const struct softhca_dbrec_ops *ops;
	void *ctx;
};

struct softhca_dbrec_page {
	struct list_head list;
	const void *owner;		/* the mm that pinned it */
	unsigned long va;		/* page-aligned user address */
	unsigned int refcnt;
	dma_addr_t dma;
	void *cookie;			/* the pin (an ib_umem) */
};

struct softhca_dbrec {
	struct softhca_dbrec_page *page;
	dma_addr_t dma;
};

struct softhca_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	struct page *page;
};

struct softhca_ucontext {
	struct ib_ucontext ibuc;
	u32 uar;
	struct softhca_mmap_entry *uar_entry;
	struct softhca_dbrec_table dbrecs;
	struct list_head list;		/* dev->uctx_list */
	pid_t pid;
};

static inline struct softhca_ucontext *to_suctx(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct softhca_ucontext, ibuc);
}

struct softhca_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct softhca_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct softhca_pd, ibpd);
}

enum softhca_mr_kind {
	SOFTHCA_MR_USER,		/* reg_user_mr: a PAS over pinned memory */
	SOFTHCA_MR_DMA,			/* get_dma_mr: F_PA */
	SOFTHCA_MR_FAST_REG,		/* alloc_mr: F_FAST_REG */
};

struct softhca_mr {
	struct ib_mr ibmr;
	enum softhca_mr_kind kind;
	struct ib_umem *umem;
	u32 mkey;			/* the key it was created with */
	/* F_FAST_REG: the page list REG_MR gives the card */
	__le64 *pages;
	dma_addr_t pages_dma;
	u32 max_pages;
	u32 npages;			/* filled by map_mr_sg */
	u32 reg_key;			/* the key the last REG_MR posted named */
};

static inline struct softhca_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct softhca_mr, ibmr);
}

struct softhca_cq {
	struct ib_cq ibcq;
	u32 cqn;
	u32 vector;			/* its comp_vector (dev->ceqs[]) */
	u32 flags;			/* softhca_cq_flags it is created with */
	bool kernel;			/* a kernel CQ (udata == NULL) */
	/* user CQs: the provider's ring and record, and their context */
	struct softhca_ucontext *uctx;
	struct ib_umem *umem;
	struct softhca_dbrec db;
	struct mutex resize_lock;	/* one resize_cq at a time */
	/* kernel CQs (softhca_kcq.c) */
	spinlock_t lock;		/* ci, arm_sn, the record, the ring */
	struct softhca_cqe *ring;
	dma_addr_t ring_dma;
	u32 log_size;
	u32 base;			/* the ring starts at CQE base */
	u32 ci;				/* CQEs consumed */
	u32 arm_sn;			/* the next arm's sequence number */
	struct softhca_kdbrec kdb;
	struct softhca_cq_dbrec *dbrec;	/* kdb.cpu */
	void *uar;			/* the kernel UAR page, or NULL */
	/* one reference more while an EQ tasklet delivers to it */
	refcount_t refcount;
	struct completion free;
};

static inline struct softhca_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct softhca_cq, ibcq);
}

struct softhca_qp {
	struct ib_qp ibqp;
	u32 qpn;
	u8 hw_type;			/* softhca_qp_type */
	bool kernel;			/* a kernel QP (udata == NULL) */
	/* user QPs: their context, the provider's buffer and record */
	struct softhca_ucontext *uctx;
	struct ib_umem *umem;
	struct softhca_dbrec db;
	struct ib_qp_cap cap;		/* as reported to the application */
	enum ib_sig_type sq_sig_type;
	/* kernel QPs (softhca_kqp.c, softhca_post.c) */
	spinlock_t sq_lock;		/* sq's producer side, dbrec->sq_pi */
	spinlock_t rq_lock;		/* rq's producer side, dbrec->rq_pi */
	enum ib_qp_state state;		/* as last set; ERR after an error CQE */
	struct softhca_ksq sq;
	struct softhca_krq rq;
	void *buf;			/* RQ, then SQ */
	dma_addr_t buf_dma;
	size_t buf_size;
	struct softhca_kdbrec kdb;
	struct softhca_qp_dbrec *dbrec;	/* kdb.cpu */
	/* one reference more while an EQ tasklet delivers to it */
	refcount_t refcount;
	struct completion free;
};

static inline struct softhca_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct softhca_qp, ibqp);
}

struct softhca_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	bool kernel;
	u32 max_wr;			/* as reported */
	u32 max_sge;
	/* user SRQs: the provider's ring and record */
	struct ib_umem *umem;
	struct softhca_dbrec db;
	/* kernel SRQs */
	spinlock_t lock;		/* ring's free list, counter, record */
	struct softhca_ksrq ring;
	dma_addr_t ring_dma;
	size_t ring_size;
	struct softhca_kdbrec kdb;
	struct softhca_srq_dbrec *dbrec;	/* kdb.cpu */
	/* one reference more while an EQ tasklet delivers to it */
	refcount_t refcount;
	struct completion free;
};

static inline struct softhca_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct softhca_srq, ibsrq);
}

/* ib_sge and the encoder's SGE are one layout: lists pass as they are. */
static_assert(sizeof(struct ib_sge) == sizeof(struct softhca_wqe_sge));
static_assert(offsetof(struct ib_sge, addr) ==
	      offsetof(struct softhca_wqe_sge, addr));
static_assert(offsetof(struct ib_sge, length) ==
	      offsetof(struct softhca_wqe_sge, length));
static_assert(offsetof(struct ib_sge, lkey) ==
	      offsetof(struct softhca_wqe_sge, lkey));

static inline const struct softhca_wqe_sge *softhca_sgl(const struct ib_sge *sg)
{
	return (const struct softhca_wqe_sge *)sg;
}

/* An address handle: the address vector of the kernel's UD sends. */
struct softhca_ah {
	struct ib_ah ibah;
	struct softhca_wqe_av av;	/* dest_qpn and qkey are per send */
};

static inline struct softhca_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct softhca_ah, ibah);
}

/* The PAS list of one command (softhca_pas.c). */
struct softhca_pas_buf {
	u32 npages;
	__le64 **pages;			/* CPU addresses of the list pages */
	dma_addr_t *dma;
	u32 nblocks;
	u8 log_block_size;
	u8 page_offset;
};

/* softhca_cmd.c */
int softhca_cmd_init(struct softhca_dev *dev);
void softhca_cmd_cleanup(struct softhca_dev *dev);
int softhca_cmd_exec(struct softhca_dev *dev, u16 opcode, const void *in,
		     u32 in_len, void *out, u32 out_len);
int softhca_cmd_status_to_errno(u8 status);
const char *softhca_cmd_name(u16 opcode);
int softhca_cmd_destroy(struct softhca_dev *dev, u16 opcode, u32 num);
bool softhca_cmd_dead(struct softhca_dev *dev);
bool softhca_cmd_dma_safe(struct softhca_dev *dev);
void softhca_cmd_event(struct softhca_dev *dev, u32 slot, u32 token);

/* softhca_device.c */
int softhca_probe(const char *name, struct net_device *ndev);
void softhca_netdev_gone(struct net_device *ndev);
void softhca_netdev_changed(struct net_device *ndev);
void softhca_remove_all(void);
extern struct workqueue_struct *softhca_wq;

/* softhca_stats.c */
struct rdma_hw_stats *softhca_alloc_hw_port_stats(struct ib_device *ibdev,
						  u32 port_num);
int softhca_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index);

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
int softhca_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void softhca_mmap_free(struct rdma_user_mmap_entry *entry);
void softhca_disassociate_ucontext(struct ib_ucontext *ibuc);

/* softhca_eq.c */
int softhca_eqs_init(struct softhca_dev *dev, const char *name);
void softhca_eqs_cleanup(struct softhca_dev *dev);
struct softhca_eqe *softhca_eq_next(struct softhca_eqe *buf, u32 log_size,
				    u32 ci);
int softhca_eq_poll(struct softhca_eq *eq, int budget);
void softhca_eq_forget_cq(struct softhca_eq *eq, u32 cqn);

/* softhca_pas.c */
void softhca_pas_slot(u32 index, u32 npages, u32 *page, u32 *slot);
void softhca_pas_link(__le64 **pages, const dma_addr_t *dma, u32 npages);
u32 softhca_pas_fill_umem(struct ib_umem *umem, unsigned long pgsz,
			  __le64 **pages, u32 npages);
int softhca_pas_alloc(struct softhca_dev *dev, u32 nblocks, u8 log_block_size,
		      struct softhca_pas_buf *pb);
void softhca_pas_free(struct softhca_dev *dev, struct softhca_pas_buf *pb);
void softhca_pas_to_prm(const struct softhca_pas_buf *pb,
			struct softhca_pas *pas);
int softhca_pas_from_umem(struct softhca_dev *dev, struct ib_umem *umem,
			  unsigned long pgsz, struct softhca_pas_buf *pb);
int softhca_pas_from_coherent(struct softhca_dev *dev, dma_addr_t dma,
			      size_t size, struct softhca_pas_buf *pb);

/* softhca_umem.c */
unsigned long softhca_umem_mr_block(struct ib_umem *umem,
				    unsigned long pgsz_bitmap, u64 iova);
unsigned long softhca_umem_queue_block(struct ib_umem *umem,
				       unsigned long pgsz_bitmap,
				       u8 *page_offset);
void softhca_umem_put(struct softhca_dev *dev, struct ib_umem *umem);

/* softhca_dbrec.c */
void softhca_dbrec_table_init(struct softhca_dbrec_table *t,
			      const struct softhca_dbrec_ops *ops, void *ctx);
int softhca_dbrec_map(struct softhca_dbrec_table *t, const void *owner,
		      unsigned long va, struct softhca_dbrec *db);
void softhca_dbrec_unmap(struct softhca_dbrec_table *t,
			 struct softhca_dbrec *db);
unsigned int softhca_dbrec_pinned_pages(struct softhca_dbrec_table *t);
extern const struct softhca_dbrec_ops softhca_dbrec_umem_ops;

/* softhca_kdbrec.c */
void softhca_kdbrec_pool_init(struct softhca_kdbrec_pool *pool,
			      const struct softhca_kdbrec_ops *ops, void *ctx);
int softhca_kdbrec_alloc(struct softhca_kdbrec_pool *pool,
			 struct softhca_kdbrec *db);
void softhca_kdbrec_free(struct softhca_kdbrec_pool *pool,
			 struct softhca_kdbrec *db);
unsigned int softhca_kdbrec_pages(struct softhca_kdbrec_pool *pool);
extern const struct softhca_kdbrec_ops softhca_kdbrec_coherent_ops;

/* softhca_kverbs.c */
int softhca_kverbs_init(struct softhca_dev *dev);
void softhca_kverbs_cleanup(struct softhca_dev *dev);
void softhca_kdoorbell(struct softhca_dev *dev, u32 qpn);

/* softhca_pd.c */
int softhca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int softhca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* softhca_mr.c */
#define SOFTHCA_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)
u32 softhca_mr_access(int access);
int softhca_mkey_create(struct softhca_dev *dev,
			const struct softhca_mkey_ctx *ctx, u32 *key);
int softhca_mkey_destroy(struct softhca_dev *dev, u32 key);
struct ib_mr *softhca_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *softhca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 iova, int access, struct ib_udata *udata);
int softhca_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* softhca_fast_reg.c */
struct ib_mr *softhca_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg);
int softhca_fast_reg_destroy(struct softhca_dev *dev, struct softhca_mr *mr);
void softhca_fast_reg_free_pages(struct softhca_dev *dev,
				 struct softhca_mr *mr);
int softhca_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset);

/* softhca_cq.c */
int softhca_cq_hw_create(struct softhca_dev *dev, struct softhca_cq *cq,
			 const struct softhca_pas_buf *pb, u32 log_size,
			 u32 eqn, u32 uar, dma_addr_t dbrec);
int softhca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata);
int softhca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int softhca_modify_cq(struct ib_cq *ibcq, u16 count, u16 period);
int softhca_cq_hw_resize(struct softhca_dev *dev, struct softhca_cq *cq,
			 const struct softhca_pas_buf *pb, u32 log_size,
			 u32 *base, u32 *pi);
int softhca_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
void softhca_cq_event(struct softhca_dev *dev, u32 cqn, u8 type, u32 data);

/* softhca_kcq.c */
void softhca_cqe_to_wc(const struct softhca_cqe *cqe, struct ib_wc *wc);
void softhca_kcq_event(struct softhca_cq *cq);
void softhca_kcq_clean(struct softhca_cq *cq, u32 qpn,
		       struct softhca_srq *srq);
int softhca_kcq_create(struct softhca_dev *dev, struct softhca_cq *cq,
		       const struct ib_cq_init_attr *attr, u32 log_size);
void softhca_kcq_free_mem(struct softhca_dev *dev, struct softhca_cq *cq);
int softhca_kcq_resize(struct softhca_dev *dev, struct softhca_cq *cq,
		       u32 log_size);
int softhca_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int softhca_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* softhca_qp.c */
int softhca_qp_hw_create(struct softhca_dev *dev, struct softhca_qp *qp,
			 const struct ib_qp_init_attr *attr,
			 struct softhca_qp_ctx *ctx);
int softhca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		      struct ib_udata *udata);
int softhca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int softhca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata);
int softhca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init);
int softhca_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr);
int softhca_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
void softhca_qp_event(struct softhca_dev *dev, u32 qpn, u8 type, u32 data);

/* softhca_kqp.c: the queues of a kernel QP and what they hold */
struct softhca_kqp_geom {
	u32 wqe_bbs;			/* basic blocks of the largest WQE */
	u32 sq_wqe_cnt;			/* basic blocks */
	u32 rq_wqe_cnt;			/* 0: the QP is on an SRQ */
	u32 rq_stride;
	struct ib_qp_cap cap;
};

int softhca_kqp_geometry(const struct softhca_dev_caps *c, u8 hw_type,
			 const struct ib_qp_cap *want, bool srq,
			 struct softhca_kqp_geom *g);
int softhca_kqp_create(struct softhca_dev *dev, struct softhca_qp *qp,
		       struct ib_qp_init_attr *attr);
void softhca_kqp_free_mem(struct softhca_dev *dev, struct softhca_qp *qp);
void softhca_kqp_clean_cqs(struct softhca_qp *qp);
void softhca_kqp_set_state(struct softhca_qp *qp, enum ib_qp_state state);

/* softhca_post.c: an ib_send_wr in the encoder's terms */
struct softhca_kwr {
	struct softhca_send_wr swr;
	struct softhca_wqe_av av;	/* UD: the AH's, to this QPN/Q_Key */
	struct softhca_wqe_reg_mr reg;	/* REG_MR */
};

int softhca_kwr_convert(const struct ib_send_wr *wr, u8 qp_type, bool sig_all,
			struct softhca_kwr *k);
int softhca_kqp_post_send(struct softhca_dev *dev, struct softhca_qp *qp,
			  const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr);
int softhca_kqp_post_recv(struct softhca_dev *dev, struct softhca_qp *qp,
			  const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);

/* softhca_ah.c */
int softhca_ah_to_av(const struct rdma_ah_attr *attr, u32 gid_table_len,
		     struct softhca_wqe_av *av);
int softhca_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata);
int softhca_destroy_ah(struct ib_ah *ibah, u32 flags);

/* softhca_srq.c */
int softhca_srq_geometry(const struct softhca_dev_caps *c,
			 const struct ib_srq_attr *want, u32 *log_size,
			 u32 *stride, struct ib_srq_attr *got);
int softhca_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata);
int softhca_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int softhca_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata);
int softhca_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int softhca_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
void softhca_srq_event(struct softhca_dev *dev, u32 srqn, u8 type, u32 data);

/* softhca_uapi.c, softhca_wake.c: the driver's own uverbs objects */
extern const struct uapi_definition softhca_uapi_defs[];
extern const struct uapi_definition softhca_wake_defs[];

/* softhca_gid.c */
int softhca_add_gid(const struct ib_gid_attr *attr, void **context);
int softhca_del_gid(const struct ib_gid_attr *attr, void **context);

/* softhca_debug.c: debugfs and restrack views */
void softhca_debugfs_init(struct softhca_dev *dev, const char *name);
void softhca_debugfs_cleanup(struct softhca_dev *dev);
void softhca_debugfs_module_init(void);
void softhca_debugfs_module_exit(void);
int softhca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int softhca_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int softhca_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int softhca_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq);
int softhca_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq);
int softhca_fill_res_mr_entry_raw(struct sk_buff *msg, struct ib_mr *ibmr);
int softhca_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp);
int softhca_fill_res_srq_entry_raw(struct sk_buff *msg, struct ib_srq *ibsrq);

#endif /* SOFTHCA_H */
