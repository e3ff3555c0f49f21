/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca device model: what the transport's three parts exchange. The
 * requester turns WQEs into packets, the responder consumes packets and
 * answers them, the completer turns answers into send completions; they
 * pass struct softhca_hw_pkt, a decoded packet: the IBTA base and extension
 * headers in CPU order, the path, and where the payload is. On the wire a
 * packet is these headers in network order (the __be structs below, as
 * IBTA vol 1 ch. 9 lays them out) behind Ethernet/IP/UDP; between two QPs
 * of this card it is never serialised, and one descriptor may cover
 * several path-MTU packets of one message (npkts PSNs), whose payload the
 * receiver copies once, straight from the sender's memory.
 */
#ifndef SOFTHCA_HW_PKT_H
#define SOFTHCA_HW_PKT_H

#include <linux/types.h>

/* BTH opcodes: transport (bits 7-5) and operation (bits 4-0). */
enum softhca_hw_opcode {
	SOFTHCA_OP_RC			= 0x00,
	SOFTHCA_OP_UC			= 0x20,
	SOFTHCA_OP_UD			= 0x60,

	SOFTHCA_OP_SEND_FIRST		= 0x00,
	SOFTHCA_OP_SEND_MIDDLE		= 0x01,
	SOFTHCA_OP_SEND_LAST		= 0x02,
	SOFTHCA_OP_SEND_LAST_IMM	= 0x03,
	SOFTHCA_OP_SEND_ONLY		= 0x04,
	SOFTHCA_OP_SEND_ONLY_IMM	= 0x05,
	SOFTHCA_OP_WRITE_FIRST		= 0x06,
	SOFTHCA_OP_WRITE_MIDDLE		= 0x07,
	SOFTHCA_OP_WRITE_LAST		= 0x08,
	SOFTHCA_OP_WRITE_LAST_IMM	= 0x09,
	SOFTHCA_OP_WRITE_ONLY		= 0x0a,
	SOFTHCA_OP_WRITE_ONLY_IMM	= 0x0b,
	SOFTHCA_OP_READ_REQUEST		= 0x0c,
	SOFTHCA_OP_READ_RESP_FIRST	= 0x0d,
	SOFTHCA_OP_READ_RESP_MIDDLE	= 0x0e,
	SOFTHCA_OP_READ_RESP_LAST	= 0x0f,
	SOFTHCA_OP_READ_RESP_ONLY	= 0x10,
	SOFTHCA_OP_ACK			= 0x11,
	SOFTHCA_OP_ATOMIC_ACK		= 0x12,
	SOFTHCA_OP_CMP_SWAP		= 0x13,
	SOFTHCA_OP_FETCH_ADD		= 0x14,
	SOFTHCA_OP_SEND_LAST_INV	= 0x16,
	SOFTHCA_OP_SEND_ONLY_INV	= 0x17,

	SOFTHCA_OP_TRANSPORT_MASK	= 0xe0,
	SOFTHCA_OP_OPERATION_MASK	= 0x1f,
};

/* What an opcode is: softhca_hw_opcode_mask(). */
enum softhca_hw_op_mask {
	SOFTHCA_OPM_RETH	= BIT(0),	/* VA, R_Key, DMA length */
	SOFTHCA_OPM_AETH	= BIT(1),	/* ACK/NAK syndrome, MSN */
	SOFTHCA_OPM_ATMETH	= BIT(2),	/* atomic request */
	SOFTHCA_OPM_ATMACK	= BIT(3),	/* original remote data */
	SOFTHCA_OPM_IMMDT	= BIT(4),
	SOFTHCA_OPM_IETH	= BIT(5),	/* R_Key to invalidate */
	SOFTHCA_OPM_DETH	= BIT(6),	/* Q_Key, source QP (UD) */
	SOFTHCA_OPM_PAYLOAD	= BIT(7),
	SOFTHCA_OPM_FIRST	= BIT(8),	/* first packet of a message */
	SOFTHCA_OPM_LAST	= BIT(9),	/* last packet of a message */
	SOFTHCA_OPM_SEND	= BIT(10),	/* consumes a receive WQE */
	SOFTHCA_OPM_WRITE	= BIT(11),
	SOFTHCA_OPM_READ	= BIT(12),	/* READ request */
	SOFTHCA_OPM_ATOMIC	= BIT(13),	/* atomic request */
	SOFTHCA_OPM_READ_RESP	= BIT(14),
	SOFTHCA_OPM_ACK		= BIT(15),	/* ACK, NAK or atomic ACK */
	SOFTHCA_OPM_REQUEST	= BIT(16),	/* requester to responder */
	SOFTHCA_OPM_VALID	= BIT(17),
};

/* AETH syndromes (IBA 9.7.5.2.1). */
enum softhca_hw_aeth_syndrome {
	SOFTHCA_AETH_ACK		= 0x1f,	/* ACK, credits "unlimited" */
	SOFTHCA_AETH_RNR		= 0x20,	/* | min_rnr_timer */
	SOFTHCA_AETH_NAK_PSN_SEQ	= 0x60,
	SOFTHCA_AETH_NAK_INV_REQ	= 0x61,
	SOFTHCA_AETH_NAK_REM_ACCESS	= 0x62,
	SOFTHCA_AETH_NAK_REM_OP		= 0x63,
	SOFTHCA_AETH_TYPE_MASK		= 0x60,
	SOFTHCA_AETH_TYPE_ACK		= 0x00,
	SOFTHCA_AETH_TYPE_RNR		= 0x20,
	SOFTHCA_AETH_TYPE_NAK		= 0x60,
};

/* The headers in network order. */
struct softhca_hw_bth {
	u8 opcode;
	u8 flags;		/* SE 0x80, MigReq 0x40, PadCnt << 4, TVer */
	__be16 pkey;
	__be32 qpn;		/* bits 0-23 */
	__be32 apsn;		/* AckReq 0x80000000, PSN bits 0-23 */
} __packed;

#define SOFTHCA_BTH_SE		0x80
#define SOFTHCA_BTH_PAD_SHIFT	4
#define SOFTHCA_BTH_ACKREQ	0x80000000u

struct softhca_hw_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
} __packed;

struct softhca_hw_aeth {
	__be32 smsn;		/* syndrome << 24 | MSN */
} __packed;

struct softhca_hw_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __packed;

struct softhca_hw_atmack {
	__be64 orig;
} __packed;

struct softhca_hw_deth {
	__be32 qkey;
	__be32 sqpn;		/* bits 0-23 */
} __packed;

/* A checked range of an MKEY's translation, held by a reference. */
struct softhca_hw_map;
struct softhca_hw_seg {
	struct softhca_hw_map *map;
	u64 addr;
	u32 len;
};

/* Where a packet's payload is. */
enum softhca_hw_src_kind {
	SOFTHCA_HW_SRC_NONE,
	SOFTHCA_HW_SRC_SEGS,		/* bytes of a list of checked ranges */
	SOFTHCA_HW_SRC_BUF,		/* bytes in the card (inline data) */
};

struct softhca_hw_src {
	u8 kind;
	const struct softhca_hw_seg *seg;	/* SEGS: the list ... */
	u32 nseg;
	u64 off;				/* ... from this byte on */
	const void *buf;			/* BUF */
};

/* Decoded packet flags. */
enum softhca_hw_pkt_flags {
	SOFTHCA_PKT_SE		= 0x1,	/* solicited event */
	SOFTHCA_PKT_ACKREQ	= 0x2,
	SOFTHCA_PKT_IPV4	= 0x4,	/* the network header is IPv4 */
	SOFTHCA_PKT_WIRE	= 0x8,	/* came in through the port */
};

/**
 * struct softhca_hw_pkt - a packet (or, between QPs of the card, a run of
 * packets of one message) as the transport's parts see it
 * @opcode: BTH opcode
 * @flags: softhca_hw_pkt_flags
 * @pkey: BTH P_Key
 * @dest_qpn: BTH destination QP
 * @psn: BTH PSN (of the first packet)
 * @npkts: PSNs covered: psn .. psn + npkts - 1
 * @src_qpn: the sender's QPN (DETH for UD; known on the card's loopback)
 * @va: RETH or AtomicETH virtual address
 * @rkey: RETH or AtomicETH R_Key
 * @dma_len: RETH DMA length
 * @swap_add: AtomicETH swap or add data
 * @compare: AtomicETH compare data
 * @orig: AtomicAckETH original remote data
 * @syndrome: AETH syndrome
 * @msn: AETH MSN
 * @imm: immediate data or IETH R_Key, network order
 * @qkey: DETH Q_Key
 * @sgid: source GID
 * @dgid: destination GID
 * @hop_limit: IP TTL / hop limit
 * @tclass: IP traffic class
 * @flow_label: IPv6 flow label
 * @dmac: the next hop's MAC, for the wire
 * @mtu: the path MTU the run is cut into packets of (bytes)
 * @len: payload bytes
 * @src: where the payload is
 */
struct softhca_hw_pkt {
	u8 opcode;
	u8 flags;
	u16 pkey;
	u32 dest_qpn;
	u32 psn;
	u32 npkts;
	u32 src_qpn;
	u64 va;
	u32 rkey;
	u32 dma_len;
	u64 swap_add;
	u64 compare;
	u64 orig;
	u8 syndrome;
	u32 msn;
	__be32 imm;
	u32 qkey;
	u8 sgid[16];
	u8 dgid[16];
	u8 hop_limit;
	u8 tclass;
	u32 flow_label;
	u8 dmac[6];
	u32 mtu;
	u32 len;
	struct softhca_hw_src src;
};

/* PSN arithmetic: 24 bits, compared within half the space. */
static inline u32 softhca_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SOFTHCA_PSN_MASK;
}

/* a - b as a signed 24-bit distance */
static inline s32 softhca_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

#endif /* SOFTHCA_HW_PKT_H */
