/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca hardware interface ("PRM"): every layout the driver, the device
 * model and the user-space provider share. Documentation/hardware-interface.rst
 * explains the rules behind them.
 *
 * All multi-byte fields are little endian. The header is included from the
 * kernel (C) and from the provider (C++), so it holds only layouts,
 * constants and small pure encode/decode helpers on CPU-order values.
 */
#ifndef SOFTHCA_PRM_H
#define SOFTHCA_PRM_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#endif

#define SOFTHCA_ASSERT_SIZE(type, size) \
	static_assert(sizeof(type) == (size), #type " has the wrong size")

#define SOFTHCA_DEVICE_MAGIC		0x53484341u	/* "SHCA" */
#define SOFTHCA_IF_VERSION		0x00010000u	/* major 1, minor 0 */
#define SOFTHCA_VENDOR_ID		0x005348	/* "SH"; not an assigned OUI */
#define SOFTHCA_PART_ID			0x5ca1

/* ------------------------------------------------------------------------
 * Register page (4 KiB, the first page of the device's BAR)
 */
enum softhca_reg {
	SOFTHCA_REG_MAGIC		= 0x000, /* RO SOFTHCA_DEVICE_MAGIC */
	SOFTHCA_REG_VERSION		= 0x004, /* RO SOFTHCA_IF_VERSION */
	SOFTHCA_REG_STATUS		= 0x008, /* RO softhca_status bits */
	SOFTHCA_REG_CMDQ_CAPS		= 0x00c, /* RO softhca_cmdq_caps fields */
	SOFTHCA_REG_CTRL		= 0x010, /* RW softhca_ctrl bits (doorbell) */
	SOFTHCA_REG_CMDQ_ADDR_LO	= 0x018, /* RW command queue DMA address */
	SOFTHCA_REG_CMDQ_ADDR_HI	= 0x01c,
	SOFTHCA_REG_CMDQ_LOG_SIZE	= 0x020, /* RW log2 of the queue's entries */
	SOFTHCA_REG_CMD_DB		= 0x024, /* WO slot bitmap (doorbell) */
	SOFTHCA_REG_ENGINE_DB		= 0x028, /* WO wake-up: a QPN with work */
	/* WO the same from any context: the card's engine thread works */
	SOFTHCA_REG_ENGINE_DB_ASYNC	= 0x02c,
	/* WO a CQN: that CQ was armed while CQEs waited (any context) */
	SOFTHCA_REG_CQ_DB		= 0x030,
	SOFTHCA_REG_EQ_DB_BASE		= 0x100, /* WO one 8-byte doorbell per EQ */
};

#define SOFTHCA_REG_PAGE_SIZE		4096
#define SOFTHCA_MAX_EQS			64
#define SOFTHCA_REG_EQ_DB(eqn)		(SOFTHCA_REG_EQ_DB_BASE + 8 * (eqn))

enum softhca_status_bits {
	SOFTHCA_STATUS_READY		= 0x1, /* command queue enabled */
	SOFTHCA_STATUS_FATAL		= 0x2, /* device failed; see syndrome */
	SOFTHCA_STATUS_SYNDROME_SHIFT	= 8,
	SOFTHCA_STATUS_SYNDROME_MASK	= 0xffu << 8,
};

/*
 * CTRL.ENABLE starts the command queue. Clearing it resets the card: a
 * command in progress is abandoned, the engine stops, no event is raised
 * and no host memory is touched any more; STATUS.READY clears once that
 * holds (the driver waits for it before it frees anything).
 */
enum softhca_ctrl_bits {
	SOFTHCA_CTRL_ENABLE		= 0x1, /* start the command queue */
};

/*
 * Interrupt vectors, as the driver uses them: the async EQ's, the command
 * EQ's, then one per completion EQ.
 */
#define SOFTHCA_VEC_ASYNC		0
#define SOFTHCA_VEC_CMD			1
#define SOFTHCA_VEC_COMP_BASE		2

/* SOFTHCA_REG_CMDQ_CAPS */
#define SOFTHCA_CMDQ_CAPS_LOG_MAX_SIZE(v)	((v) & 0xff)
#define SOFTHCA_CMDQ_CAPS_NUM_VECTORS(v)	(((v) >> 8) & 0xff)

/* EQ doorbell: consumer index in bits 0-23, ARM in bit 31 */
#define SOFTHCA_EQ_DB_CI_MASK		0x00ffffffu
#define SOFTHCA_EQ_DB_ARM		0x80000000u

static inline __u32 softhca_eq_db(__u32 ci, int arm)
{
	return (ci & SOFTHCA_EQ_DB_CI_MASK) | (arm ? SOFTHCA_EQ_DB_ARM : 0);
}

/* ------------------------------------------------------------------------
 * Command queue: 2^log_size entries of 64 bytes in host DMA memory. The
 * driver fills an entry, hands it over with CTRL_OWNER_HW and writes the
 * slot's bit to SOFTHCA_REG_CMD_DB. The device executes it, writes output,
 * status and syndrome, and clears CTRL_OWNER_HW. With CTRL_EVENT set it also
 * writes a SOFTHCA_EQE_CMD_DONE on the command EQ (events mode), an EQ of
 * its own that no other event shares, so a command completion is never
 * lost to a flood of object events.
 */
enum softhca_cmd_ctrl {
	SOFTHCA_CMD_CTRL_OWNER_HW	= 0x1,
	SOFTHCA_CMD_CTRL_EVENT		= 0x2,
};

struct softhca_cmd_entry {
	__le16 opcode;
	__le16 op_mod;
	__le32 in_len;		/* bytes at in_addr */
	__le64 in_addr;		/* DMA address of the input mailbox */
	__le64 out_addr;	/* DMA address of the output mailbox */
	__le32 out_len;		/* room at out_addr */
	__le32 token;		/* echoed in the completion EQE */
	__le32 syndrome;	/* device: which check failed */
	__le32 out_written;	/* device: bytes written at out_addr */
	__u8 status;		/* device: softhca_cmd_status */
	__u8 rsvd0[2];
	__u8 ctrl;		/* softhca_cmd_ctrl */
	__u8 rsvd1[20];
};

SOFTHCA_ASSERT_SIZE(struct softhca_cmd_entry, 64);

#define SOFTHCA_CMD_MAILBOX_MAX		4096

enum softhca_cmd_opcode {
	SOFTHCA_CMD_QUERY_CAPS		= 0x0100,
	SOFTHCA_CMD_ALLOC_PD		= 0x0200,
	SOFTHCA_CMD_DEALLOC_PD		= 0x0201,
	SOFTHCA_CMD_ALLOC_UAR		= 0x0210,
	SOFTHCA_CMD_DEALLOC_UAR		= 0x0211,
	SOFTHCA_CMD_CREATE_EQ		= 0x0300,
	SOFTHCA_CMD_DESTROY_EQ		= 0x0301,
	SOFTHCA_CMD_QUERY_EQ		= 0x0302,
	SOFTHCA_CMD_CREATE_CQ		= 0x0400,
	SOFTHCA_CMD_DESTROY_CQ		= 0x0401,
	SOFTHCA_CMD_QUERY_CQ		= 0x0402,
	SOFTHCA_CMD_MODIFY_CQ		= 0x0403,
	SOFTHCA_CMD_RESIZE_CQ		= 0x0404,
	SOFTHCA_CMD_CREATE_MKEY		= 0x0500,
	SOFTHCA_CMD_DESTROY_MKEY	= 0x0501,
	SOFTHCA_CMD_QUERY_MKEY		= 0x0502,
	SOFTHCA_CMD_CREATE_QP		= 0x0600,
	SOFTHCA_CMD_DESTROY_QP		= 0x0601,
	SOFTHCA_CMD_QUERY_QP		= 0x0602,
	SOFTHCA_CMD_MODIFY_QP		= 0x0603,
	SOFTHCA_CMD_CREATE_SRQ		= 0x0700,
	SOFTHCA_CMD_DESTROY_SRQ		= 0x0701,
	SOFTHCA_CMD_QUERY_SRQ		= 0x0702,
	SOFTHCA_CMD_MODIFY_SRQ		= 0x0703,
	SOFTHCA_CMD_SET_GID		= 0x0800,
	SOFTHCA_CMD_QUERY_COUNTERS	= 0x0900,
};

enum softhca_cmd_status {
	SOFTHCA_CMD_STAT_OK		= 0x00,
	SOFTHCA_CMD_STAT_BAD_OPCODE	= 0x01, /* opcode not implemented */
	SOFTHCA_CMD_STAT_BAD_PARAM	= 0x02, /* a field is out of range */
	SOFTHCA_CMD_STAT_BAD_STATE	= 0x03, /* object state forbids it */
	SOFTHCA_CMD_STAT_BAD_RESOURCE	= 0x04, /* no object with that number */
	SOFTHCA_CMD_STAT_RESOURCE_BUSY	= 0x05, /* object still in use */
	SOFTHCA_CMD_STAT_EXCEED_LIM	= 0x06, /* device resources exhausted */
	SOFTHCA_CMD_STAT_BAD_INPUT_LEN	= 0x07,
	SOFTHCA_CMD_STAT_BAD_OUTPUT_LEN	= 0x08,
	SOFTHCA_CMD_STAT_DMA_ERROR	= 0x09, /* an address failed its check */
	SOFTHCA_CMD_STAT_INTERNAL_ERR	= 0x0a,
	SOFTHCA_CMD_STAT_MAX		= SOFTHCA_CMD_STAT_INTERNAL_ERR,
};

/* ------------------------------------------------------------------------
 * PAS: how a command describes a buffer in host memory. The buffer is cut
 * into nblocks blocks of 2^log_block_size bytes; the PAS list holds the DMA
 * address of each block (block aligned). The list itself lives in 4 KiB
 * list pages: each page holds SOFTHCA_PAS_PER_PAGE entries, except that a
 * page followed by another one uses its last slot for the next page's DMA
 * address (as NVMe PRP lists do).
 */
#define SOFTHCA_PAS_PAGE_SIZE		4096
#define SOFTHCA_PAS_PER_PAGE		(SOFTHCA_PAS_PAGE_SIZE / 8)
#define SOFTHCA_MIN_LOG_BLOCK		12
#define SOFTHCA_MAX_LOG_BLOCK		30

struct softhca_pas {
	__le64 list_addr;	/* DMA address of the first list page */
	__le32 nblocks;
	__u8 log_block_size;
	__u8 page_offset;	/* queues: start offset in block/64 units */
	__u8 rsvd[2];
};

SOFTHCA_ASSERT_SIZE(struct softhca_pas, 16);

/* Number of list pages needed for n entries. */
static inline __u32 softhca_pas_list_pages(__u32 n)
{
	if (n <= SOFTHCA_PAS_PER_PAGE)
		return 1;
	return 1 + (n - SOFTHCA_PAS_PER_PAGE + SOFTHCA_PAS_PER_PAGE - 2) /
		   (SOFTHCA_PAS_PER_PAGE - 1);
}

/* Queue buffers start page_offset * (block / 64) bytes into block 0. */
#define SOFTHCA_PAGE_OFFSET_QUANTA	64

/* ------------------------------------------------------------------------
 * QUERY_CAPS: no input; the output is struct softhca_caps.
 */
enum softhca_dev_cap_flags {
	SOFTHCA_CAP_RC			= 0x1,
	SOFTHCA_CAP_UC			= 0x2,
	SOFTHCA_CAP_UD			= 0x4,
	SOFTHCA_CAP_SRQ			= 0x8,
	SOFTHCA_CAP_ATOMIC		= 0x10,
	SOFTHCA_CAP_CMD_EVENTS		= 0x20,
	SOFTHCA_CAP_GSI			= 0x40,	/* QP1 (SOFTHCA_QPT_GSI) */
	SOFTHCA_CAP_FAST_REG		= 0x80,	/* REG_MR/LOCAL_INV WQEs */
	SOFTHCA_CAP_PA_MKEY		= 0x100, /* SOFTHCA_MKEY_F_PA */
	SOFTHCA_CAP_CQ_MODERATION	= 0x200, /* MODIFY_CQ count/period */
};

struct softhca_caps {
	__le64 fw_version;		/* major << 32 | minor << 16 | sub */
	__le64 node_guid;
	__le64 sys_image_guid;
	__le64 max_mr_size;
	__le64 page_size_cap;		/* bitmap of supported block sizes */
	__le32 vendor_id;
	__le32 vendor_part_id;
	__le32 hw_version;
	__le32 cap_flags;		/* softhca_dev_cap_flags */
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_sge;
	__le32 max_sge_rd;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_srq_sge;
	__le32 max_qp_rd_atom;
	__le32 max_qp_init_rd_atom;
	__le32 max_inline_data;
	__le32 max_uar;
	__le32 max_eq;
	__le32 max_comp_vectors;	/* completion EQs the device can run */
	__le32 log_max_eq_size;
	__le32 max_msg_size;
	__le32 max_mtu;			/* bytes */
	__le32 gid_table_len;
	__le32 local_ca_ack_delay;
	__le32 cqe_size;		/* bytes */
	__le32 dbrec_align;		/* bytes */
	__le32 max_ah;
	__le32 max_fast_reg_pages;	/* pages one REG_MR maps */
	__le32 max_cq_count;		/* MODIFY_CQ moderation count */
	__le32 max_cq_period_us;	/* MODIFY_CQ moderation period */
	__le32 rsvd[22];
};

SOFTHCA_ASSERT_SIZE(struct softhca_caps, 256);

/* ------------------------------------------------------------------------
 * PD and UAR
 */
struct softhca_alloc_out {		/* ALLOC_PD, ALLOC_UAR */
	__le32 num;			/* pdn or UAR index */
	__le32 rsvd;
};

SOFTHCA_ASSERT_SIZE(struct softhca_alloc_out, 8);

struct softhca_obj_in {			/* every DESTROY/DEALLOC/QUERY */
	__le32 num;
	__le32 rsvd;
};

SOFTHCA_ASSERT_SIZE(struct softhca_obj_in, 8);

/*
 * UAR page (4 KiB, one per user context, mapped into the process). The
 * device cannot see plain stores, so a UAR carries state both ways:
 *   engine_state  written by the device: SOFTHCA_ENGINE_IDLE when its engine
 *                 sleeps; a poster that sees it after writing a doorbell
 *                 record makes one wake-up call.
 *   cq_db         the last CQ arm doorbell (arm word << 32 | cqn).
 */
enum softhca_uar_offsets {
	SOFTHCA_UAR_ENGINE_STATE	= 0x000,
	SOFTHCA_UAR_CQ_DB		= 0x040,
	SOFTHCA_UAR_SQ_DB		= 0x080,
};

enum softhca_engine_state {
	SOFTHCA_ENGINE_RUNNING		= 0,
	SOFTHCA_ENGINE_IDLE		= 1,
};

/* ------------------------------------------------------------------------
 * EQs: 2^log_size entries of 16 bytes. The device writes entry pi with
 * owner = (pi >> log_size) & 1; the buffer starts with every owner bit set,
 * so an entry is new when its owner bit equals (ci >> log_size) & 1.
 */
enum softhca_eq_type {
	SOFTHCA_EQ_ASYNC		= 0,	/* events of objects and ports */
	SOFTHCA_EQ_COMP			= 1,	/* completion events of CQs */
	SOFTHCA_EQ_CMD			= 2,	/* command completions only */
};

struct softhca_eq_ctx {
	__u8 log_size;
	__u8 type;			/* softhca_eq_type */
	__le16 vector;			/* interrupt line */
	__le32 rsvd;
	struct softhca_pas pas;
};

SOFTHCA_ASSERT_SIZE(struct softhca_eq_ctx, 24);

struct softhca_eq_query_out {
	struct softhca_eq_ctx ctx;
	__le32 pi;			/* producer index */
	__le32 ci;			/* last consumer index written */
	__le32 armed;
	__le32 overruns;		/* events lost to a full EQ */
};

enum softhca_eqe_type {
	SOFTHCA_EQE_COMP		= 0x01, /* obj: cqn */
	SOFTHCA_EQE_CMD_DONE		= 0x02, /* obj: slot, data0: token */
					/* (on the command EQ) */
	SOFTHCA_EQE_CQ_ERROR		= 0x03, /* obj: cqn, data0: syndrome */
	SOFTHCA_EQE_QP_FATAL		= 0x04, /* obj: qpn, data0: syndrome */
	SOFTHCA_EQE_QP_LAST_WQE		= 0x05, /* obj: qpn */
	SOFTHCA_EQE_QP_COMM_EST		= 0x06, /* obj: qpn */
	SOFTHCA_EQE_QP_REQ_ERR		= 0x07, /* obj: qpn */
	SOFTHCA_EQE_QP_ACCESS_ERR	= 0x08, /* obj: qpn */
	SOFTHCA_EQE_SQ_DRAINED		= 0x09, /* obj: qpn */
	SOFTHCA_EQE_SRQ_LIMIT		= 0x0a, /* obj: srqn */
	SOFTHCA_EQE_PORT_CHANGE		= 0x0b, /* obj: port, data0: state */
};

enum softhca_cq_syndrome {
	SOFTHCA_CQ_SYND_OVERRUN		= 0x01,
	SOFTHCA_CQ_SYND_DMA		= 0x02,
};

struct softhca_eqe {
	__u8 type;			/* softhca_eqe_type */
	__u8 rsvd[2];
	__u8 owner;			/* bit 0 */
	__le32 obj;
	__le32 data0;
	__le32 data1;
};

SOFTHCA_ASSERT_SIZE(struct softhca_eqe, 16);

#define SOFTHCA_EQE_OWNER		0x01

/* Owner bit the device writes at producer index pi of a 2^log_size ring. */
static inline __u8 softhca_ring_owner(__u32 index, __u32 log_size)
{
	return (index >> log_size) & 1;
}

/* Is the entry carrying owner bit 'owner' new for consumer index ci? */
static inline int softhca_ring_entry_valid(__u8 owner, __u32 ci,
					   __u32 log_size)
{
	return (owner & 1) == softhca_ring_owner(ci, log_size);
}

/* ------------------------------------------------------------------------
 * CQs: 2^log_size CQEs of 64 bytes, same owner rule as EQs (the owner bit
 * is bit 0 of op_own). Doorbell record: struct softhca_cq_dbrec.
 */
#define SOFTHCA_CQE_SIZE		64
#define SOFTHCA_LOG_CQE_SIZE		6

/* CQE opcodes: what completed. Receive-side opcodes have bit 7 set. */
enum softhca_cqe_opcode {
	SOFTHCA_CQE_OP_SEND		= 0x00,
	SOFTHCA_CQE_OP_RDMA_WRITE	= 0x01,
	SOFTHCA_CQE_OP_RDMA_READ	= 0x02,
	SOFTHCA_CQE_OP_CMP_SWAP		= 0x03,
	SOFTHCA_CQE_OP_FETCH_ADD	= 0x04,
	SOFTHCA_CQE_OP_LOCAL_INV	= 0x05,
	SOFTHCA_CQE_OP_REG_MR		= 0x06,
	SOFTHCA_CQE_OP_RECV		= 0x80,
	SOFTHCA_CQE_OP_RECV_RDMA_IMM	= 0x81,
};

/* CQE status: the IB completion statuses, in the card's numbering. */
enum softhca_cqe_status {
	SOFTHCA_CQE_ST_SUCCESS		= 0x00,
	SOFTHCA_CQE_ST_LOC_LEN		= 0x01,
	SOFTHCA_CQE_ST_LOC_QP_OP	= 0x02,
	SOFTHCA_CQE_ST_LOC_PROT		= 0x03,
	SOFTHCA_CQE_ST_WR_FLUSH		= 0x04,
	SOFTHCA_CQE_ST_MW_BIND		= 0x05,
	SOFTHCA_CQE_ST_BAD_RESP		= 0x06,
	SOFTHCA_CQE_ST_LOC_ACCESS	= 0x07,
	SOFTHCA_CQE_ST_REM_INV_REQ	= 0x08,
	SOFTHCA_CQE_ST_REM_ACCESS	= 0x09,
	SOFTHCA_CQE_ST_REM_OP		= 0x0a,
	SOFTHCA_CQE_ST_RETRY_EXC	= 0x0b,
	SOFTHCA_CQE_ST_RNR_RETRY_EXC	= 0x0c,
	SOFTHCA_CQE_ST_REM_ABORT	= 0x0d,
	SOFTHCA_CQE_ST_GENERAL		= 0x0e,
	SOFTHCA_CQE_ST_MAX		= SOFTHCA_CQE_ST_GENERAL,
};

enum softhca_cqe_flags {
	SOFTHCA_CQE_F_IMM		= 0x01, /* imm holds immediate data */
	SOFTHCA_CQE_F_GRH		= 0x02, /* a GRH precedes UD payload */
	SOFTHCA_CQE_F_SOLICITED		= 0x04,
	/* imm holds the rkey the sender invalidated (SEND_INV) */
	SOFTHCA_CQE_F_INV		= 0x08,
	/* with GRH: the network header is IPv4 (else IPv6) */
	SOFTHCA_CQE_F_IPV4		= 0x10,
	/* wqe_counter indexes the QP's SRQ */
	SOFTHCA_CQE_F_SRQ		= 0x20,
};

/*
 * A CQE. wqe_counter is the index of the completed WQE in its queue (the
 * basic-block counter of its first block for the SQ, the WQE counter for
 * the RQ, the WQE's index in the ring for an SRQ); the consumer finds
 * wr_id by it. imm is in network order, as on the wire and in ibv_wc (for
 * F_INV it is the invalidated rkey, also in network order). For receives
 * on UD and GSI QPs src_qp is the sender's QPN from the DETH and the 40
 * bytes before the payload hold the GRH (F_GRH).
 */
struct softhca_cqe {
	__le32 qpn;
	__le32 byte_cnt;
	__be32 imm;
	__le32 src_qp;			/* the sending QP */
	__le32 vendor_err;		/* the card's syndrome for errors */
	__le32 wqe_counter;
	__u8 opcode;			/* softhca_cqe_opcode */
	__u8 status;			/* softhca_cqe_status */
	__u8 flags;			/* softhca_cqe_flags */
	__u8 rsvd0;
	__le16 pkey_index;
	__u8 rsvd1[33];
	__u8 op_own;			/* bit 0: owner */
};

SOFTHCA_ASSERT_SIZE(struct softhca_cqe, 64);

#define SOFTHCA_CQE_OWNER		0x01

enum softhca_cq_flags {
	/* a full CQ is not an error: the card keeps writing (overwrites) */
	SOFTHCA_CQ_F_IGNORE_OVERRUN	= 0x1,
};

/*
 * No CQ is numbered 0. CREATE_CQ gives numbers cyclically: a destroyed CQ's
 * number is given again only after every other one.
 */
#define SOFTHCA_CQN_NONE		0

struct softhca_cq_ctx {
	__u8 log_size;
	__u8 log_cqe_size;
	__u8 rsvd0[2];
	__le32 eqn;			/* completion EQ */
	__le32 uar;			/* UAR index */
	__le32 flags;			/* softhca_cq_flags */
	__le64 dbrec_addr;		/* DMA address of softhca_cq_dbrec */
	struct softhca_pas pas;
};

SOFTHCA_ASSERT_SIZE(struct softhca_cq_ctx, 40);

struct softhca_create_out {		/* CREATE_EQ/CQ/MKEY/QP/SRQ */
	__le32 num;			/* eqn, cqn, mkey, qpn, srqn */
	__le32 rsvd;
};

SOFTHCA_ASSERT_SIZE(struct softhca_create_out, 8);

/*
 * QUERY_CQ: the CQ's context (ctx.pas: what the card keeps of it, no list
 * address) and where it stands.
 */
struct softhca_cq_query_out {
	struct softhca_cq_ctx ctx;
	__le32 pi;			/* CQEs written so far */
	__le32 ci;			/* consumer index read from the dbrec */
	__le32 arm_sn_fired;		/* sn of the last event, or ~0 */
	__le32 state;			/* 0 ok, 1 error */
	__le32 arm;			/* the arm word in the dbrec */
	__le16 mod_count;		/* MODIFY_CQ moderation */
	__le16 mod_period_us;
	__le32 events;			/* completion events raised */
	__le32 base;			/* the ring's start (RESIZE_CQ) */
	__le32 rsvd[2];
};

SOFTHCA_ASSERT_SIZE(struct softhca_cq_query_out, 80);

/*
 * MODIFY_CQ: completion event moderation. An armed CQ raises its event
 * once @count CQEs have been written since the arm or @period_us has
 * passed since the first of them, whichever comes first (0/0: at once).
 */
struct softhca_cq_modify_in {
	__le32 cqn;
	__le16 count;
	__le16 period_us;
};

SOFTHCA_ASSERT_SIZE(struct softhca_cq_modify_in, 8);

/*
 * RESIZE_CQ: the CQ moves to a new ring of 2^log_size CQEs (pas, same CQE
 * size, same doorbell record, EQ and arm state). The card takes base, the
 * consumer index in the doorbell record, and pi, its producer index; the
 * CQEs [base, pi) must fit the new ring. From then on CQE number j (the
 * free-running count the consumer index follows) lives in slot
 * (j - base) mod 2^log_size of the new ring, with owner bit
 * ((j - base) >> log_size) & 1: the new ring starts, owner bits all set,
 * at a consumer-index boundary. The card writes CQEs pi and later there;
 * those before pi stay in the old ring, where software finds them and
 * moves them to their new slots (fixing their owner bits) before it reads
 * the new ring. The old ring is the card's no more.
 */
struct softhca_cq_resize_in {
	__le32 cqn;
	__u8 log_size;
	__u8 rsvd[3];
	struct softhca_pas pas;
};

SOFTHCA_ASSERT_SIZE(struct softhca_cq_resize_in, 24);

struct softhca_cq_resize_out {
	__le32 base;			/* the new ring's slot 0, first pass */
	__le32 pi;			/* the first CQE the new ring gets */
};

SOFTHCA_ASSERT_SIZE(struct softhca_cq_resize_out, 8);

/*
 * Slot and owner bit of CQE number @j of a ring of 2^@log_size CQEs that
 * starts at @base (0, or RESIZE_CQ's base).
 */
static inline __u32 softhca_cq_slot(__u32 j, __u32 base, __u32 log_size)
{
	return (j - base) & ((1u << log_size) - 1);
}

static inline __u8 softhca_cq_owner(__u32 j, __u32 base, __u32 log_size)
{
	return softhca_ring_owner(j - base, log_size);
}

struct softhca_cq_dbrec {
	__le32 ci;			/* consumer index, written by software */
	__le32 arm;			/* arm word, softhca_cq_arm() */
};

SOFTHCA_ASSERT_SIZE(struct softhca_cq_dbrec, 8);

/*
 * CQ arm word: consumer index in bits 0-23, SOLICITED in bit 24, REQUEST in
 * bit 25, sequence number in bits 28-29. The device raises one completion
 * event per sequence number: when it writes a CQE (a solicited or error CQE
 * for SOLICITED), REQUEST is set and sn differs from the last event's.
 */
#define SOFTHCA_CQ_ARM_CI_MASK		0x00ffffffu
#define SOFTHCA_CQ_ARM_SOLICITED	0x01000000u
#define SOFTHCA_CQ_ARM_REQUEST		0x02000000u
#define SOFTHCA_CQ_ARM_SN_SHIFT		28
#define SOFTHCA_CQ_ARM_SN_MASK		0x3u

static inline __u32 softhca_cq_arm(__u32 sn, int solicited, __u32 ci)
{
	return ((sn & SOFTHCA_CQ_ARM_SN_MASK) << SOFTHCA_CQ_ARM_SN_SHIFT) |
	       SOFTHCA_CQ_ARM_REQUEST |
	       (solicited ? SOFTHCA_CQ_ARM_SOLICITED : 0) |
	       (ci & SOFTHCA_CQ_ARM_CI_MASK);
}

static inline __u32 softhca_cq_arm_sn(__u32 arm)
{
	return (arm >> SOFTHCA_CQ_ARM_SN_SHIFT) & SOFTHCA_CQ_ARM_SN_MASK;
}

/* UAR CQ doorbell: arm word in the high half, cqn in the low half. */
static inline __u64 softhca_cq_db(__u32 arm, __u32 cqn)
{
	return ((__u64)arm << 32) | cqn;
}

/* ------------------------------------------------------------------------
 * MKEYs (memory regions). lkey = rkey = index << 8 | key byte.
 */
enum softhca_mkey_access {
	SOFTHCA_ACCESS_LOCAL_WRITE	= 0x1,
	SOFTHCA_ACCESS_REMOTE_WRITE	= 0x2,
	SOFTHCA_ACCESS_REMOTE_READ	= 0x4,
	SOFTHCA_ACCESS_REMOTE_ATOMIC	= 0x8,
};

/*
 * How an MKEY translates:
 *  - plain: [iova, iova + length) through its PAS (a registered MR);
 *  - F_FAST_REG: created free (no translation, length and PAS zero), up
 *    to max_pages blocks; a REG_MR send WQE of a privileged QP on its PD
 *    gives it a translation and a new key byte, LOCAL_INV (or a received
 *    SEND_INV naming it) makes it free again;
 *  - F_PA: the address is the DMA address itself (no PAS); the card checks
 *    each range is RAM. Only privileged (kernel) QPs may use it, and only
 *    as an lkey unless it allows remote access (ib_get_dma_mr);
 *  - F_ANY_PD (with F_PA): usable by the QPs of every PD: the device's
 *    reserved lkey (ib_device's local_dma_lkey).
 */
enum softhca_mkey_flags {
	SOFTHCA_MKEY_F_FAST_REG		= 0x1,
	SOFTHCA_MKEY_F_PA		= 0x2,
	SOFTHCA_MKEY_F_ANY_PD		= 0x4,
};

struct softhca_mkey_ctx {
	__le32 pdn;
	__le32 access;			/* softhca_mkey_access */
	__le64 iova;			/* address the first byte is known by */
	__le64 length;
	/* iova's offset within block 0 is iova mod block size */
	struct softhca_pas pas;
	__le32 flags;			/* softhca_mkey_flags */
	__le32 max_pages;		/* F_FAST_REG: the largest REG_MR */
};

SOFTHCA_ASSERT_SIZE(struct softhca_mkey_ctx, 48);

struct softhca_mkey_query_out {
	struct softhca_mkey_ctx ctx;
	__le32 mkey;
	__le32 rsvd;
};

#define SOFTHCA_MKEY_INDEX(key)		((key) >> 8)
#define SOFTHCA_MKEY_VARIANT(key)	((key) & 0xff)
#define SOFTHCA_INVALID_LKEY		0	/* index 0 is never a key */

/* ------------------------------------------------------------------------
 * GIDs: the driver loads the port's GID table (RoCEv2 addresses) with
 * SET_GID; the card finds a destination by GID among them (loopback).
 */
struct softhca_set_gid_in {
	__le32 index;
	__u8 valid;
	__u8 rsvd[3];
	__u8 gid[16];
};

SOFTHCA_ASSERT_SIZE(struct softhca_set_gid_in, 24);

/* ------------------------------------------------------------------------
 * QUERY_COUNTERS: no input; the port's counters, 64 bits each, in this
 * order (the driver shows them as "rdma statistic" hardware counters).
 */
enum softhca_counter {
	SOFTHCA_CNT_TX_PACKETS,
	SOFTHCA_CNT_TX_BYTES,
	SOFTHCA_CNT_RX_PACKETS,
	SOFTHCA_CNT_RX_BYTES,
	SOFTHCA_CNT_RETRANSMITS,	/* resends after a NAK or timeout */
	SOFTHCA_CNT_TIMEOUTS,		/* transport timer expiries */
	SOFTHCA_CNT_SEQ_NAKS_SENT,
	SOFTHCA_CNT_SEQ_NAKS_RCVD,
	SOFTHCA_CNT_RNR_NAKS_SENT,
	SOFTHCA_CNT_RNR_NAKS_RCVD,
	SOFTHCA_CNT_DUPLICATES,		/* requests seen again */
	SOFTHCA_CNT_DROP_NO_QP,		/* no QP to take it */
	SOFTHCA_CNT_DROP_QKEY,		/* UD/GSI Q_Key mismatch */
	SOFTHCA_CNT_DROP_NOT_PEER,	/* RC/UC from other than the peer */
	SOFTHCA_CNT_DROP_NO_WQE,	/* UD/UC without a receive WQE */
	SOFTHCA_CNT_DROP_SEQ,		/* out of sequence */
	SOFTHCA_CNT_DROP_ICRC,		/* bad ICRC */
	SOFTHCA_CNT_DROP_MALFORMED,	/* headers that do not parse */
	SOFTHCA_CNT_TX_DROPPED,		/* could not be sent (too long, ...) */
	SOFTHCA_CNT_KWAKE_INLINE,	/* ENGINE_DB_ASYNC served by its writer */
	SOFTHCA_CNT_KWAKE_ENGINE,	/* ... left to the engine thread */
	SOFTHCA_NUM_COUNTERS,
};

struct softhca_counters {
	__le64 value[32];
};

SOFTHCA_ASSERT_SIZE(struct softhca_counters, 256);

/* ------------------------------------------------------------------------
 * QPs. One buffer holds the RQ (2^log_rq_size WQEs of 2^log_rq_stride
 * bytes) at offset 0 and the SQ (2^log_sq_size basic blocks of 64 bytes)
 * right after it. The doorbell record counts posted receive WQEs and
 * posted send basic blocks.
 */
enum softhca_qp_type {
	SOFTHCA_QPT_RC			= 0,
	SOFTHCA_QPT_UC			= 1,
	SOFTHCA_QPT_UD			= 2,
	SOFTHCA_QPT_GSI			= 3,	/* UD, number 1, one per card */
};

enum softhca_qp_state {
	SOFTHCA_QPS_RESET		= 0,
	SOFTHCA_QPS_INIT		= 1,
	SOFTHCA_QPS_RTR			= 2,
	SOFTHCA_QPS_RTS			= 3,
	SOFTHCA_QPS_SQD			= 4,
	SOFTHCA_QPS_SQE			= 5,
	SOFTHCA_QPS_ERR			= 6,
};

#define SOFTHCA_WQEBB_SIZE		64
#define SOFTHCA_LOG_WQEBB		6
#define SOFTHCA_WQE_DS_SIZE		16	/* WQEs are counted in 16 B units */
#define SOFTHCA_MAX_WQEBBS		8	/* the largest send WQE */

/*
 * CREATE_QP. With srqn set the QP has no RQ of its own (log_rq_size and
 * log_rq_stride are 0 and the buffer holds only the SQ): receives take
 * WQEs from that SRQ.
 */
struct softhca_qp_ctx {
	__u8 type;			/* softhca_qp_type */
	__u8 log_sq_size;		/* send basic blocks */
	__u8 log_rq_size;		/* receive WQEs */
	__u8 log_rq_stride;		/* bytes per receive WQE */
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 uar;
	__le32 flags;			/* softhca_qp_flags */
	__le64 dbrec_addr;		/* struct softhca_qp_dbrec */
	struct softhca_pas pas;
	__le32 srqn;			/* 0: the QP's own RQ */
	__le32 rsvd;
};

SOFTHCA_ASSERT_SIZE(struct softhca_qp_ctx, 56);

enum softhca_qp_flags {
	SOFTHCA_QP_SIG_ALL		= 0x1,	/* every send completes */
	/*
	 * A kernel QP: it may use F_PA MKEYs (the reserved lkey) and post
	 * REG_MR and LOCAL_INV. Only the driver sets it; a user QP never has
	 * it.
	 */
	SOFTHCA_QP_PRIV			= 0x2,
};

struct softhca_qp_dbrec {
	__le32 rq_pi;			/* receive WQEs posted */
	__le32 sq_pi;			/* send basic blocks posted */
};

SOFTHCA_ASSERT_SIZE(struct softhca_qp_dbrec, 8);

/* MODIFY_QP: which attributes the command carries. */
enum softhca_qp_attr_mask {
	SOFTHCA_QP_A_STATE		= 0x1,
	SOFTHCA_QP_A_ACCESS		= 0x2,
	SOFTHCA_QP_A_PKEY		= 0x4,
	SOFTHCA_QP_A_PORT		= 0x8,
	SOFTHCA_QP_A_QKEY		= 0x10,
	SOFTHCA_QP_A_AV			= 0x20,
	SOFTHCA_QP_A_PATH_MTU		= 0x40,
	SOFTHCA_QP_A_TIMEOUT		= 0x80,
	SOFTHCA_QP_A_RETRY_CNT		= 0x100,
	SOFTHCA_QP_A_RNR_RETRY		= 0x200,
	SOFTHCA_QP_A_RQ_PSN		= 0x400,
	SOFTHCA_QP_A_MAX_QP_RD_ATOMIC	= 0x800,
	SOFTHCA_QP_A_MIN_RNR_TIMER	= 0x1000,
	SOFTHCA_QP_A_SQ_PSN		= 0x2000,
	SOFTHCA_QP_A_MAX_DEST_RD_ATOMIC	= 0x4000,
	SOFTHCA_QP_A_DEST_QPN		= 0x8000,
	SOFTHCA_QP_A_SQD_NOTIFY		= 0x10000,
};

/*
 * The attributes of a QP as the card keeps them: the MODIFY_QP input
 * (with qpn, mask and next_state) and the QUERY_QP output.
 */
struct softhca_qp_attr {
	__le32 qpn;
	__le32 mask;			/* softhca_qp_attr_mask */
	__u8 state;			/* softhca_qp_state (next state) */
	__u8 path_mtu;			/* 1..5: 256..4096 bytes */
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 dgid[16];
	__le32 dest_qpn;
	__le32 rq_psn;
	__le32 sq_psn;
	__le32 qkey;
	__le32 access;			/* softhca_mkey_access REMOTE_* bits */
	__le32 flow_label;
	__u8 timeout;			/* 4.096 us * 2^timeout, 0 = infinite */
	__u8 retry_cnt;
	__u8 rnr_retry;			/* 7 = infinite */
	__u8 min_rnr_timer;		/* IB encoding */
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 traffic_class;
	__u8 sl;
	__le16 pkey_index;
	__u8 port;
	__u8 sqd_notify;
	__u8 dmac[6];			/* with A_AV: the next hop's MAC */
	__u8 rsvd[2];
};

SOFTHCA_ASSERT_SIZE(struct softhca_qp_attr, 72);

/*
 * QUERY_QP: the attributes (state, PSNs: the next send and the expected
 * PSN), the context as created (ctx.pas: no list address) and how far the
 * queues are: posted (the doorbell record), fetched and completed.
 */
struct softhca_qp_query_out {
	struct softhca_qp_attr attr;
	struct softhca_qp_ctx ctx;
	__le32 sq_pi;			/* send basic blocks posted */
	__le32 sq_next;			/* ... fetched by the requester */
	__le32 sq_ci;			/* ... completed */
	__le32 rq_pi;			/* receive WQEs posted (own RQ) */
	__le32 rq_ci;			/* ... taken */
	__le32 rsvd[3];
};

SOFTHCA_ASSERT_SIZE(struct softhca_qp_query_out, 160);

/* PSNs are 24 bits; QUERY_QP reports the next send and expected PSN. */
#define SOFTHCA_PSN_MASK	0xffffffU

/* The bytes of a path MTU code (1..5: 256..4096). */
static inline __u32 softhca_mtu_bytes(__u8 path_mtu)
{
	return 128U << path_mtu;
}

/* ------------------------------------------------------------------------
 * Send WQEs: a control segment, then by opcode and QP type:
 *
 *   SEND, SEND_IMM (RC, UC)      data
 *   SEND, SEND_IMM (UD, GSI)     address vector (3 units), data
 *   SEND_INV (RC)                data; ctrl.imm: the rkey to invalidate
 *   RDMA_WRITE(_IMM), RDMA_READ  remote address, data
 *   ATOMIC_CS, ATOMIC_FA (RC)    remote address, atomic, one 8-byte SGE
 *   LOCAL_INV (privileged)       nothing; ctrl.imm: the key to invalidate
 *   REG_MR (privileged)          REG_MR segment (3 units)
 *
 * "data" is data segments or inline data; ds counts the 16-byte units, the
 * WQE takes ceil(ds / 4) basic blocks and may wrap around the end of the
 * SQ. include/softhca_wqe.h builds them (driver and provider alike).
 */
enum softhca_wqe_opcode {
	SOFTHCA_WQE_SEND		= 0x00,
	SOFTHCA_WQE_SEND_IMM		= 0x01,
	SOFTHCA_WQE_RDMA_WRITE		= 0x02,
	SOFTHCA_WQE_RDMA_WRITE_IMM	= 0x03,
	SOFTHCA_WQE_RDMA_READ		= 0x04,
	SOFTHCA_WQE_ATOMIC_CS		= 0x05,
	SOFTHCA_WQE_ATOMIC_FA		= 0x06,
	SOFTHCA_WQE_SEND_INV		= 0x07,
	SOFTHCA_WQE_LOCAL_INV		= 0x08,
	SOFTHCA_WQE_REG_MR		= 0x09,
	SOFTHCA_WQE_OPCODE_MAX		= SOFTHCA_WQE_REG_MR,
};

enum softhca_wqe_flags {
	SOFTHCA_WQE_F_SIGNALED		= 0x1,
	SOFTHCA_WQE_F_SOLICITED		= 0x2,
	SOFTHCA_WQE_F_FENCE		= 0x4,
	SOFTHCA_WQE_F_INLINE		= 0x8,
};

struct softhca_wqe_ctrl {
	__le16 wqe_index;		/* low 16 bits of its basic-block counter */
	__u8 opcode;			/* softhca_wqe_opcode */
	__u8 ds;			/* 16-byte units, this segment included */
	__u8 flags;			/* softhca_wqe_flags */
	__u8 rsvd[7];
	/* immediate data, or the key SEND_INV and LOCAL_INV invalidate */
	__be32 imm;			/* network order */
};

SOFTHCA_ASSERT_SIZE(struct softhca_wqe_ctrl, 16);

struct softhca_wqe_raddr {
	__le64 addr;
	__le32 rkey;
	__le32 rsvd;
};

SOFTHCA_ASSERT_SIZE(struct softhca_wqe_raddr, 16);

struct softhca_wqe_atomic {
	__le64 swap_add;		/* swap value, or the addend */
	__le64 compare;
};

SOFTHCA_ASSERT_SIZE(struct softhca_wqe_atomic, 16);

struct softhca_wqe_data {
	__le32 byte_count;
	__le32 lkey;
	__le64 addr;
};

SOFTHCA_ASSERT_SIZE(struct softhca_wqe_data, 16);

/*
 * The address vector of a UD or GSI send: where the datagram goes. A Q_Key
 * with its high bit set means "the sending QP's own Q_Key" (IBA 10.2.5).
 * The network header is IPv4 when the source GID (sgid_index) is an
 * IPv4-mapped address, IPv6 otherwise.
 */
struct softhca_wqe_av {
	__le32 dest_qpn;
	__le32 qkey;
	__u8 dgid[16];
	__u8 dmac[6];			/* the next hop's MAC (RoCE) */
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 rsvd0[3];
	__le32 flow_label;
	__u8 rsvd1[8];
};

SOFTHCA_ASSERT_SIZE(struct softhca_wqe_av, 48);

#define SOFTHCA_QKEY_USE_QP		0x80000000u
#define SOFTHCA_GSI_QKEY		0x80010000u
#define SOFTHCA_GSI_QPN			1
#define SOFTHCA_DEFAULT_PKEY		0xffff

/*
 * REG_MR (fast registration): give the F_FAST_REG MKEY whose index @mkey
 * names the translation of @npages blocks of 2^log_page_size bytes, whose
 * DMA addresses are at @page_list (an array of __le64), for [iova, iova +
 * length), with @access and the key @mkey (its low byte the new key
 * byte). The MKEY must be free, on the QP's PD, and npages at most its
 * max_pages.
 */
struct softhca_wqe_reg_mr {
	__le32 mkey;
	__le32 access;			/* softhca_mkey_access */
	__le64 iova;
	__le64 length;
	__le64 page_list;
	__le32 npages;
	__u8 log_page_size;
	__u8 rsvd[11];
};

SOFTHCA_ASSERT_SIZE(struct softhca_wqe_reg_mr, 48);

/*
 * Inline data follows the last fixed segment: a 4-byte length then the
 * bytes, padded to 16; the ds count includes it.
 */
struct softhca_wqe_inline {
	__le32 byte_count;
};

/*
 * Receive WQE: up to 2^log_rq_stride / 16 data segments; a segment with
 * lkey SOFTHCA_INVALID_LKEY ends a shorter list.
 */

/* ------------------------------------------------------------------------
 * SRQs: 2^log_size WQEs of 2^log_stride bytes (at least 32) in host memory
 * named by a PAS, and a doorbell record counting the WQEs posted. A WQE is
 * a next segment, then data segments as in an RQ WQE. The WQEs not posted
 * form a list linked by next_wqe_index; software posts at the list's head
 * and the card takes WQEs in the order they were posted, following the
 * same links from index 0, so WQEs may complete (and return to the list's
 * tail) in any order. When the WQEs posted but not taken drop below an
 * armed limit, the card raises SRQ_LIMIT once and disarms it.
 */
struct softhca_srq_ctx {
	__u8 log_size;			/* WQEs */
	__u8 log_stride;		/* bytes per WQE */
	__u8 rsvd0[2];
	__le32 pdn;
	__le32 uar;
	__le32 limit;			/* SRQ_LIMIT armed at this level, or 0 */
	__le64 dbrec_addr;		/* struct softhca_srq_dbrec */
	struct softhca_pas pas;
};

SOFTHCA_ASSERT_SIZE(struct softhca_srq_ctx, 40);

struct softhca_srq_dbrec {
	__le32 wqe_counter;		/* WQEs posted */
	__le32 rsvd;
};

SOFTHCA_ASSERT_SIZE(struct softhca_srq_dbrec, 8);

struct softhca_srq_next {
	__le16 next_wqe_index;
	__u8 rsvd[14];
};

SOFTHCA_ASSERT_SIZE(struct softhca_srq_next, 16);

struct softhca_srq_modify_in {		/* MODIFY_SRQ: arm the limit */
	__le32 srqn;
	__le32 limit;			/* 0 disarms */
};

SOFTHCA_ASSERT_SIZE(struct softhca_srq_modify_in, 8);

struct softhca_srq_query_out {
	struct softhca_srq_ctx ctx;	/* limit: the armed limit, or 0 */
	__le32 posted;			/* the doorbell record's count */
	__le32 taken;			/* WQEs the card took */
	__le32 head;			/* the next WQE it takes */
	__le32 rsvd;
};

/* How many 16-byte units inline data of @len bytes takes. */
static inline __u32 softhca_inline_ds(__u32 len)
{
	return (len + sizeof(struct softhca_wqe_inline) +
		SOFTHCA_WQE_DS_SIZE - 1) / SOFTHCA_WQE_DS_SIZE;
}

/*
 * 16-byte units of the largest send WQE of a QP with these caps: an RDMA
 * WRITE carries a control and a remote address segment and then the data
 * segments or inline data; an atomic carries three segments and one SGE.
 */
static inline __u32 softhca_sq_max_ds(__u32 max_send_sge, __u32 max_inline)
{
	__u32 inl = max_inline ? softhca_inline_ds(max_inline) : 0;
	__u32 data = max_send_sge > inl ? max_send_sge : inl;

	return 2 + data > 4 ? 2 + data : 4;
}

/*
 * The same for a QP of @qp_type: a UD or GSI send carries a control
 * segment, the address vector and the data.
 */
static inline __u32 softhca_sq_max_ds_qp(__u8 qp_type, __u32 max_send_sge,
					 __u32 max_inline)
{
	__u32 inl = max_inline ? softhca_inline_ds(max_inline) : 0;
	__u32 data = max_send_sge > inl ? max_send_sge : inl;

	if (qp_type == SOFTHCA_QPT_UD || qp_type == SOFTHCA_QPT_GSI)
		return 1 + sizeof(struct softhca_wqe_av) / SOFTHCA_WQE_DS_SIZE +
		       data;
	return softhca_sq_max_ds(max_send_sge, max_inline);
}

/* Basic blocks a WQE of @ds units takes. */
static inline __u32 softhca_wqe_bbs(__u32 ds)
{
	return (ds * SOFTHCA_WQE_DS_SIZE + SOFTHCA_WQEBB_SIZE - 1) /
	       SOFTHCA_WQEBB_SIZE;
}

/*
 * How many basic blocks the card consumes for the WQE whose control
 * segment says @wqe_index and @ds, found at basic block @ci with blocks up
 * to @pi posted, when it fails or flushes that WQE. Its size is trusted
 * only if it is a WQE start (its index is @ci's low 16 bits) of a possible
 * size that was posted whole; otherwise the card moves on by one block and
 * reads the next as a control segment, so that a malformed WQE cannot
 * swallow the well-formed ones after it (each still completes, flushed).
 */
static inline __u32 softhca_wqe_span(__u16 wqe_index, __u8 ds, __u32 ci,
				     __u32 pi)
{
	__u32 nbb = softhca_wqe_bbs(ds);

	if (wqe_index != (__u16)ci || !ds || nbb > SOFTHCA_MAX_WQEBBS ||
	    nbb > pi - ci)
		return 1;
	return nbb;
}

#endif /* SOFTHCA_PRM_H */
