// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the port's packets (hw_roce.c, hw_icrc.c). The ICRC against a
 * CRC-32 computed here a bit at a time from the polynomial, over the
 * bytes IBTA annex 17 names (8 bytes of ones for the LRH, the masked IP,
 * UDP and BTH headers, the rest as sent); which header fields it covers
 * and which it leaves to routers; packets built and parsed back field by
 * field for each header set (RETH, AETH, AtomicETH, AtomicAckETH, DETH,
 * ImmDt, IETH), IPv4 and IPv6; what the parser refuses; and how a run of
 * packets of one message is cut into FIRST/MIDDLE/LAST opcodes.
 */
#include <asm/unaligned.h>
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include "hw/hw.h"

/* CRC-32 (IEEE 802.3, reflected), one bit at a time. */
static u32 bitwise_crc32(u32 crc, const u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

/* The ICRC as annex 17 describes it, independently of hw_icrc.c. */
static u32 reference_icrc(const u8 *l3, u32 len, bool v4)
{
	static const u8 lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	u32 ip_len = v4 ? 20 : 40;
	u8 *copy = kmemdup(l3, len, GFP_KERNEL);
	u32 crc;

	if (!copy)
		return 0;
	if (v4) {
		copy[1] = 0xff;				/* TOS */
		copy[8] = 0xff;				/* TTL */
		copy[10] = 0xff;			/* checksum */
		copy[11] = 0xff;
	} else {
		copy[0] |= 0x0f;			/* traffic class */
		copy[1] = 0xff;				/* and flow label */
		copy[2] = 0xff;
		copy[3] = 0xff;
		copy[7] = 0xff;				/* hop limit */
	}
	copy[ip_len + 6] = 0xff;			/* UDP checksum */
	copy[ip_len + 7] = 0xff;
	copy[ip_len + 8 + 4] = 0xff;			/* BTH resv8a */
	crc = bitwise_crc32(0xffffffff, lrh, sizeof(lrh));
	crc = bitwise_crc32(crc, copy, len);
	kfree(copy);
	return ~crc;
}

static void v4_gid(u8 *gid, u8 a, u8 b, u8 c, u8 d)
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

/* A WRITE FIRST with a patterned payload, as a test packet. */
static void write_first(struct softhca_hw_pkt *pkt, const u8 *payload,
			u32 len, bool v4)
{
	static const u8 sgid6[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe,
		0x33, 0x44, 0x55,
	};
	static const u8 dgid6[16] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7,
	};

	memset(pkt, 0, sizeof(*pkt));
	pkt->opcode = SOFTHCA_OP_RC | SOFTHCA_OP_WRITE_FIRST;
	pkt->pkey = 0xffff;
	pkt->dest_qpn = 0x123456;
	pkt->psn = 0xfffffe;
	pkt->npkts = 1;
	pkt->va = 0x0011223344556677ULL;
	pkt->rkey = 0xa1b2c3d4;
	pkt->dma_len = 3 * len;
	pkt->hop_limit = 64;
	pkt->tclass = 0x28;
	pkt->flow_label = 0xabcde;
	if (v4) {
		pkt->flags = SOFTHCA_PKT_IPV4;
		v4_gid(pkt->sgid, 10, 3, 0, 1);
		v4_gid(pkt->dgid, 10, 3, 0, 2);
	} else {
		memcpy(pkt->sgid, sgid6, 16);
		memcpy(pkt->dgid, dgid6, 16);
	}
	pkt->len = len;
	pkt->src.kind = SOFTHCA_HW_SRC_BUF;
	pkt->src.buf = payload;
}

static void icrc_matches_reference(struct kunit *test, bool v4)
{
	struct softhca_hw_pkt pkt;
	u8 payload[301], *frame;
	u32 n, i, icrc;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = i * 7 + 3;
	frame = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	write_first(&pkt, payload, sizeof(payload), v4);
	n = softhca_hw_roce_build(NULL, &pkt, pkt.opcode, pkt.psn, true, 0,
				  pkt.len, frame, 1024);
	/* IP, UDP 8, BTH 12, RETH 16, 301 bytes padded to 304, ICRC 4 */
	KUNIT_ASSERT_EQ(test, n, (v4 ? 20u : 40u) + 8 + 12 + 16 + 304 + 4);
	icrc = get_unaligned_le32(frame + n - 4);
	KUNIT_EXPECT_EQ(test, icrc, reference_icrc(frame, n - 4, v4));
	KUNIT_EXPECT_EQ(test, softhca_hw_icrc(frame, n - 4, v4), icrc);

	/* what routers change is not covered ... */
	if (v4) {
		frame[8]--;				/* TTL */
		frame[1] = 0x04;			/* TOS (ECN) */
		frame[10] ^= 0x5a;			/* checksum */
	} else {
		frame[7]--;				/* hop limit */
		frame[1] ^= 0x30;			/* class, flow */
		frame[3] ^= 0x01;
	}
	frame[(v4 ? 20 : 40) + 6] = 0x12;		/* UDP checksum */
	KUNIT_EXPECT_EQ(test, softhca_hw_icrc(frame, n - 4, v4), icrc);
	/* ... everything else is: a source address bit, the PSN, a byte */
	frame[v4 ? 12 : 8] ^= 0x01;
	KUNIT_EXPECT_NE(test, softhca_hw_icrc(frame, n - 4, v4), icrc);
	frame[v4 ? 12 : 8] ^= 0x01;
	frame[(v4 ? 20 : 40) + 8 + 11] ^= 0x01;		/* PSN's low byte */
	KUNIT_EXPECT_NE(test, softhca_hw_icrc(frame, n - 4, v4), icrc);
	frame[(v4 ? 20 : 40) + 8 + 11] ^= 0x01;
	frame[n - 10] ^= 0x80;				/* payload */
	KUNIT_EXPECT_NE(test, softhca_hw_icrc(frame, n - 4, v4), icrc);
}

static void icrc_v4_test(struct kunit *test)
{
	icrc_matches_reference(test, true);
}

static void icrc_v6_test(struct kunit *test)
{
	icrc_matches_reference(test, false);
}

/*
 * Frames rxe (the kernel's Soft-RoCE, 6.1) sent to softhca in the VM test
 * t50-wire, as tcpdump captured them (IP header to ICRC): an answer
 * computed by another implementation, which softhca's must reproduce.
 */
static const char * const rxe_frames[] = {
	/* RC ACK, PSN 0x016bbf, IPv4 10.5.0.1 -> 10.5.0.2 */
	"4500003065b040004011c1000a0500010a050002c02212b7001c00001100ffff0000000200016bbf1f00000029911a6b",
	/* the next ACK, PSN 0x016bdf: other IP ID, checksum, PSN */
	"4500003065b140004011c0ff0a0500010a050002c02212b7001c00001100ffff0000000200016bdf1f000000cdeda1bc",
};

static void icrc_of_rxe_frames_test(struct kunit *test)
{
	u8 frame[256];
	u32 i, n;

	for (i = 0; i < ARRAY_SIZE(rxe_frames); i++) {
		const char *hex = rxe_frames[i];
		bool v4 = (hex[0] == '4');

		n = strlen(hex) / 2;
		KUNIT_ASSERT_LE(test, n, sizeof(frame));
		KUNIT_ASSERT_EQ(test, hex2bin(frame, hex, n), 0);
		KUNIT_EXPECT_EQ(test, softhca_hw_icrc(frame, n - 4, v4),
				get_unaligned_le32(frame + n - 4));
		KUNIT_EXPECT_EQ(test, reference_icrc(frame, n - 4, v4),
				get_unaligned_le32(frame + n - 4));
	}
}

/* Build @pkt's packet and parse it back into @out; the frame's length. */
static u32 round_trip(struct kunit *test, const struct softhca_hw_pkt *pkt,
		      bool ackreq, u8 *frame, struct softhca_hw_pkt *out)
{
	bool v4 = pkt->flags & SOFTHCA_PKT_IPV4;
	u32 n;

	n = softhca_hw_roce_build(NULL, pkt, pkt->opcode, pkt->psn, ackreq, 0,
				  pkt->len, frame, 2048);
	KUNIT_ASSERT_GT(test, n, 0u);
	KUNIT_ASSERT_TRUE(test, softhca_hw_roce_parse(frame, n, v4, out));
	return n;
}

static void build_parse_write_v4_test(struct kunit *test)
{
	struct softhca_hw_pkt pkt, out;
	u8 payload[61], *frame;
	const struct iphdr *ip;
	const struct udphdr *udp;
	u32 n, i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = 0xc0 + i;
	frame = kunit_kzalloc(test, 2048, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	write_first(&pkt, payload, sizeof(payload), true);
	pkt.flags |= SOFTHCA_PKT_SE;	/* not on a FIRST packet */
	n = round_trip(test, &pkt, true, frame, &out);

	ip = (const void *)frame;
	KUNIT_EXPECT_EQ(test, frame[0], 0x45);		/* version 4, 5 words */
	KUNIT_EXPECT_EQ(test, ntohs(ip->tot_len), n);
	KUNIT_EXPECT_EQ(test, ntohs(ip->frag_off), 0x4000);	/* DF */
	KUNIT_EXPECT_EQ(test, ip->ttl, 64);
	KUNIT_EXPECT_EQ(test, ip->tos, 0x28);
	KUNIT_EXPECT_EQ(test, ip->protocol, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, (__force u16)ip_fast_csum(frame, 5), 0);
	udp = (const void *)(frame + 20);
	KUNIT_EXPECT_EQ(test, ntohs(udp->dest), 4791);
	KUNIT_EXPECT_EQ(test, ntohs(udp->len), n - 20);
	KUNIT_EXPECT_EQ(test, ntohs(udp->source) & 0xc000, 0xc000);
	/* BTH: opcode, flags (no SE, pad 3), P_Key, QPN, AckReq and PSN */
	KUNIT_EXPECT_EQ(test, frame[28], 0x06);
	KUNIT_EXPECT_EQ(test, frame[29], 3 << 4);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(frame + 30), 0xffff);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(frame + 32), 0x123456u);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(frame + 36), 0x80fffffeu);
	/* RETH: VA, R_Key, DMA length */
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(frame + 40),
			0x0011223344556677ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(frame + 48), 0xa1b2c3d4u);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(frame + 52), 3u * 61);
	KUNIT_EXPECT_EQ(test, memcmp(frame + 56, payload, 61), 0);

	KUNIT_EXPECT_EQ(test, out.opcode, pkt.opcode);
	KUNIT_EXPECT_EQ(test, out.dest_qpn, pkt.dest_qpn);
	KUNIT_EXPECT_EQ(test, out.psn, pkt.psn);
	KUNIT_EXPECT_TRUE(test, out.flags & SOFTHCA_PKT_ACKREQ);
	KUNIT_EXPECT_TRUE(test, out.flags & SOFTHCA_PKT_IPV4);
	KUNIT_EXPECT_FALSE(test, out.flags & SOFTHCA_PKT_SE);
	KUNIT_EXPECT_EQ(test, out.va, pkt.va);
	KUNIT_EXPECT_EQ(test, out.rkey, pkt.rkey);
	KUNIT_EXPECT_EQ(test, out.dma_len, pkt.dma_len);
	KUNIT_EXPECT_EQ(test, out.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, out.tclass, 0x28);
	KUNIT_EXPECT_EQ(test, memcmp(out.sgid, pkt.sgid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(out.dgid, pkt.dgid, 16), 0);
	KUNIT_EXPECT_EQ(test, out.len, 61u);
	KUNIT_ASSERT_EQ(test, out.src.kind, SOFTHCA_HW_SRC_BUF);
	KUNIT_EXPECT_EQ(test, memcmp(out.src.buf, payload, 61), 0);
}

static void build_parse_headers_v6_test(struct kunit *test)
{
	struct softhca_hw_pkt pkt, out;
	u8 payload[8] = "abcdefgh", *frame;

	frame = kunit_kzalloc(test, 2048, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);

	/* UD SEND ONLY with immediate: DETH, ImmDt, SE; flow label kept */
	write_first(&pkt, payload, sizeof(payload), false);
	pkt.opcode = SOFTHCA_OP_UD | SOFTHCA_OP_SEND_ONLY_IMM;
	pkt.flags |= SOFTHCA_PKT_SE;
	pkt.qkey = 0x80010000;
	pkt.src_qpn = 1;
	pkt.imm = cpu_to_be32(0xdeadbeef);
	round_trip(test, &pkt, false, frame, &out);
	KUNIT_EXPECT_EQ(test, frame[0] >> 4, 6);
	KUNIT_EXPECT_EQ(test, out.qkey, 0x80010000u);
	KUNIT_EXPECT_EQ(test, out.src_qpn, 1u);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out.imm), 0xdeadbeefu);
	KUNIT_EXPECT_TRUE(test, out.flags & SOFTHCA_PKT_SE);
	KUNIT_EXPECT_FALSE(test, out.flags & SOFTHCA_PKT_IPV4);
	KUNIT_EXPECT_EQ(test, out.flow_label, 0xabcdeu);
	KUNIT_EXPECT_EQ(test, out.tclass, 0x28);
	KUNIT_EXPECT_EQ(test, out.len, 8u);

	/* SEND LAST with invalidate: IETH */
	pkt.opcode = SOFTHCA_OP_RC | SOFTHCA_OP_SEND_LAST_INV;
	pkt.imm = cpu_to_be32(0x00abcd01);
	round_trip(test, &pkt, true, frame, &out);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out.imm), 0x00abcd01u);

	/* an ACK: AETH (RNR NAK, timer 14), MSN; no payload */
	write_first(&pkt, NULL, 0, false);
	pkt.opcode = SOFTHCA_OP_RC | SOFTHCA_OP_ACK;
	pkt.syndrome = SOFTHCA_AETH_RNR | 14;
	pkt.msn = 0xabcdef;
	round_trip(test, &pkt, false, frame, &out);
	KUNIT_EXPECT_EQ(test, out.syndrome, SOFTHCA_AETH_RNR | 14);
	KUNIT_EXPECT_EQ(test, out.msn, 0xabcdefu);
	KUNIT_EXPECT_EQ(test, out.len, 0u);

	/* a compare and swap: AtomicETH */
	pkt.opcode = SOFTHCA_OP_RC | SOFTHCA_OP_CMP_SWAP;
	pkt.va = 0x1000;
	pkt.rkey = 0x77;
	pkt.swap_add = 0x1111222233334444ULL;
	pkt.compare = 0x5555666677778888ULL;
	round_trip(test, &pkt, true, frame, &out);
	KUNIT_EXPECT_EQ(test, out.va, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, out.rkey, 0x77u);
	KUNIT_EXPECT_EQ(test, out.swap_add, 0x1111222233334444ULL);
	KUNIT_EXPECT_EQ(test, out.compare, 0x5555666677778888ULL);

	/* its answer: AETH and AtomicAckETH */
	pkt.opcode = SOFTHCA_OP_RC | SOFTHCA_OP_ATOMIC_ACK;
	pkt.syndrome = SOFTHCA_AETH_ACK;
	pkt.orig = 0x0102030405060708ULL;
	round_trip(test, &pkt, false, frame, &out);
	KUNIT_EXPECT_EQ(test, out.orig, 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, out.syndrome, SOFTHCA_AETH_ACK);
}

static void parse_refuses_test(struct kunit *test)
{
	struct softhca_hw_pkt pkt, out;
	u8 payload[16] = {}, *frame;
	u32 n;

	frame = kunit_kzalloc(test, 2048, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	write_first(&pkt, payload, sizeof(payload), true);
	n = softhca_hw_roce_build(NULL, &pkt, pkt.opcode, pkt.psn, false, 0,
				  pkt.len, frame, 2048);
	KUNIT_ASSERT_GT(test, n, 0u);
	KUNIT_EXPECT_TRUE(test, softhca_hw_roce_parse(frame, n, true, &out));
	/* cut inside the RETH */
	KUNIT_EXPECT_FALSE(test, softhca_hw_roce_parse(frame, 20 + 8 + 20 + 4,
						       true, &out));
	/* a reserved opcode */
	frame[28] = 0x15;
	KUNIT_EXPECT_FALSE(test, softhca_hw_roce_parse(frame, n, true, &out));
	/* a transport version other than 0 */
	frame[28] = pkt.opcode;
	frame[29] |= 1;
	KUNIT_EXPECT_FALSE(test, softhca_hw_roce_parse(frame, n, true, &out));
	frame[29] &= ~1;
	/* an ACK with a payload */
	frame[28] = SOFTHCA_OP_RC | SOFTHCA_OP_ACK;
	KUNIT_EXPECT_FALSE(test, softhca_hw_roce_parse(frame, n, true, &out));
	/* a frame too small for the room given to build it */
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_build(NULL, &pkt, pkt.opcode,
						    pkt.psn, false, 0, pkt.len,
						    frame, n - 1), 0u);
}

static void piece_test(struct kunit *test)
{
	const u8 rc = SOFTHCA_OP_RC, uc = SOFTHCA_OP_UC;

	/* a SEND ONLY with immediate cut in three */
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x05, true, false),
			rc | SOFTHCA_OP_SEND_FIRST);
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x05, false, false),
			rc | SOFTHCA_OP_SEND_MIDDLE);
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x05, false, true),
			rc | SOFTHCA_OP_SEND_LAST_IMM);
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x05, true, true),
			rc | SOFTHCA_OP_SEND_ONLY_IMM);
	/* with invalidate */
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x17, false, true),
			rc | SOFTHCA_OP_SEND_LAST_INV);
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x17, true, false),
			rc | SOFTHCA_OP_SEND_FIRST);
	/* a UC WRITE's first run: FIRST then MIDDLE */
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(uc | 0x06, true, false),
			uc | SOFTHCA_OP_WRITE_FIRST);
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(uc | 0x06, false, false),
			uc | SOFTHCA_OP_WRITE_MIDDLE);
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(uc | 0x0b, false, true),
			uc | SOFTHCA_OP_WRITE_LAST_IMM);
	/* READ responses */
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x10, true, false),
			rc | SOFTHCA_OP_READ_RESP_FIRST);
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x10, false, true),
			rc | SOFTHCA_OP_READ_RESP_LAST);
	/* single packets stay as they are */
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x0c, true, true),
			rc | SOFTHCA_OP_READ_REQUEST);
	KUNIT_EXPECT_EQ(test, softhca_hw_roce_piece(rc | 0x11, true, true),
			rc | SOFTHCA_OP_ACK);
}

static struct kunit_case softhca_wire_cases[] = {
	KUNIT_CASE(icrc_v4_test),
	KUNIT_CASE(icrc_v6_test),
	KUNIT_CASE(icrc_of_rxe_frames_test),
	KUNIT_CASE(build_parse_write_v4_test),
	KUNIT_CASE(build_parse_headers_v6_test),
	KUNIT_CASE(parse_refuses_test),
	KUNIT_CASE(piece_test),
	{}
};

static struct kunit_suite softhca_wire_suite = {
	.name = "softhca_wire",
	.test_cases = softhca_wire_cases,
};

kunit_test_suite(softhca_wire_suite);
