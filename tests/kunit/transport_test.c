// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the transport's pure pieces. The BTH opcode table against IBTA
 * vol 1 tables 35-36 (what each opcode carries), 24-bit PSN arithmetic
 * across the wrap, and the 40-byte GRH a UD receive gets: the IPv6 header,
 * or 20 zero bytes and an IPv4 header whose checksum is computed here
 * independently (RFC 1071, a byte at a time) and whose every field is
 * checked at its wire offset. The runs a requester cuts a message into
 * over visits of limited budget, and its congestion window.
 */
#include <kunit/test.h>

#include "hw/hw.h"

#define OPM(x)	SOFTHCA_OPM_##x

static void opcode_table_test(struct kunit *test)
{
	const u8 rc = SOFTHCA_OP_RC, uc = SOFTHCA_OP_UC, ud = SOFTHCA_OP_UD;

	/* RC SEND ONLY (0x04): a request with payload, first and last */
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(0x04),
			OPM(SEND) | OPM(REQUEST) | OPM(VALID) | OPM(PAYLOAD) |
			OPM(FIRST) | OPM(LAST));
	/* RETH on WRITE FIRST (0x06) and ONLY (0x0a, 0x0b), not MIDDLE */
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x06) & OPM(RETH));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x0a) & OPM(RETH));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x0b) & OPM(RETH));
	KUNIT_EXPECT_FALSE(test, softhca_hw_opcode_mask(0x07) & OPM(RETH));
	/* ImmDt on SEND LAST/ONLY with immediate and WRITE ... IMM */
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x03) & OPM(IMMDT));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x05) & OPM(IMMDT));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x09) & OPM(IMMDT));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x0b) & OPM(IMMDT));
	KUNIT_EXPECT_FALSE(test, softhca_hw_opcode_mask(0x02) & OPM(IMMDT));
	/* a WRITE with immediate consumes a receive WQE, a plain one not */
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x0b) & OPM(SEND));
	KUNIT_EXPECT_FALSE(test, softhca_hw_opcode_mask(0x0a) & OPM(SEND));
	/* READ request 0x0c: RETH, no payload; responses carry AETH on
	 * FIRST (0x0d), LAST (0x0f), ONLY (0x10), not MIDDLE (0x0e)
	 */
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(0x0c),
			OPM(READ) | OPM(REQUEST) | OPM(VALID) | OPM(FIRST) |
			OPM(LAST) | OPM(RETH));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x0d) & OPM(AETH));
	KUNIT_EXPECT_FALSE(test, softhca_hw_opcode_mask(0x0e) & OPM(AETH));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x0f) & OPM(AETH));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x10) & OPM(AETH));
	KUNIT_EXPECT_FALSE(test, softhca_hw_opcode_mask(0x10) &
			   OPM(REQUEST));
	/* ACK 0x11, atomic ACK 0x12 (AtomicAckETH), atomics 0x13, 0x14 */
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(0x11),
			OPM(ACK) | OPM(VALID) | OPM(FIRST) | OPM(LAST) |
			OPM(AETH));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x12) & OPM(ATMACK));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x13) & OPM(ATMETH));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x14) & OPM(ATMETH));
	/* 0x15 is reserved; SEND with invalidate 0x16, 0x17 carry IETH */
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(0x15), 0u);
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x16) & OPM(IETH));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x17) & OPM(IETH));

	/* UC: SENDs and WRITEs only */
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(uc | 0x04),
			softhca_hw_opcode_mask(rc | 0x04));
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(uc | 0x0b),
			softhca_hw_opcode_mask(rc | 0x0b));
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(uc | 0x0c), 0u);
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(uc | 0x11), 0u);
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(uc | 0x13), 0u);
	/* UD: SEND ONLY 0x64 and with immediate 0x65, with a DETH */
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(ud | 0x04),
			softhca_hw_opcode_mask(rc | 0x04) | OPM(DETH));
	KUNIT_EXPECT_TRUE(test, softhca_hw_opcode_mask(0x65) & OPM(IMMDT));
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(ud | 0x00), 0u);
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(ud | 0x06), 0u);
	/* RD (0x40) and the rest: not this card's */
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(0x44), 0u);
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(0x84), 0u);
	KUNIT_EXPECT_EQ(test, softhca_hw_opcode_mask(0xff), 0u);
}

static void psn_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, softhca_psn_add(0xfffffe, 1), 0xffffffu);
	KUNIT_EXPECT_EQ(test, softhca_psn_add(0xffffff, 1), 0u);
	KUNIT_EXPECT_EQ(test, softhca_psn_add(0xfffff0, 0x20), 0x10u);
	/* minus one, as the responder ACKs "everything before epsn" */
	KUNIT_EXPECT_EQ(test, softhca_psn_add(0, SOFTHCA_PSN_MASK), 0xffffffu);
	KUNIT_EXPECT_EQ(test, softhca_psn_add(5, SOFTHCA_PSN_MASK), 4u);
	KUNIT_EXPECT_EQ(test, softhca_psn_diff(5, 3), 2);
	KUNIT_EXPECT_EQ(test, softhca_psn_diff(3, 5), -2);
	/* across the wrap: 0x000002 is 4 after 0xfffffe */
	KUNIT_EXPECT_EQ(test, softhca_psn_diff(2, 0xfffffe), 4);
	KUNIT_EXPECT_EQ(test, softhca_psn_diff(0xfffffe, 2), -4);
	/* half the space apart: the window's edges */
	KUNIT_EXPECT_EQ(test, softhca_psn_diff(0x7fffff, 0), 0x7fffff);
	KUNIT_EXPECT_EQ(test, softhca_psn_diff(0x800000, 0), -0x800000);
	/* packets of a path MTU: 1024 bytes is code 3 */
	KUNIT_EXPECT_EQ(test, softhca_hw_packets(3, 0), 1u);
	KUNIT_EXPECT_EQ(test, softhca_hw_packets(3, 1), 1u);
	KUNIT_EXPECT_EQ(test, softhca_hw_packets(3, 1024), 1u);
	KUNIT_EXPECT_EQ(test, softhca_hw_packets(3, 1025), 2u);
	KUNIT_EXPECT_EQ(test, softhca_hw_packets(5, 65536), 16u);
	KUNIT_EXPECT_EQ(test, softhca_hw_packets(1, 1ULL << 31), 1u << 23);
}

/* The Internet checksum of @n bytes, a byte at a time (RFC 1071). */
static u16 rfc1071(const u8 *p, unsigned int n)
{
	u32 sum = 0;
	unsigned int i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (u32)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static void grh_v4_test(struct kunit *test)
{
	struct softhca_hw_pkt pkt = {};
	u8 grh[SOFTHCA_HW_GRH_SIZE], *ip = grh + 20;
	unsigned int i;
	/* IPv4 + UDP + BTH + DETH + 100 bytes padded + ICRC */
	u16 tot = 20 + 8 + 12 + 8 + 100 + 4;

	pkt.opcode = SOFTHCA_OP_UD | SOFTHCA_OP_SEND_ONLY;
	memcpy(pkt.sgid, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\x03\x00\x01", 16);
	memcpy(pkt.dgid, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\x03\x00\x02", 16);
	pkt.hop_limit = 64;
	pkt.tclass = 0x28;
	pkt.len = 99;		/* padded to 100 on the wire */
	KUNIT_EXPECT_TRUE(test, softhca_hw_gid_is_v4(pkt.sgid));
	softhca_hw_grh_build(grh, &pkt);

	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ_MSG(test, grh[i], 0, "byte %u", i);
	KUNIT_EXPECT_EQ(test, ip[0], 0x45);		/* version 4, 5 words */
	KUNIT_EXPECT_EQ(test, ip[1], 0x28);		/* TOS */
	KUNIT_EXPECT_EQ(test, ip[2] << 8 | ip[3], tot);	/* total length */
	KUNIT_EXPECT_EQ(test, ip[6], 0x40);		/* DF */
	KUNIT_EXPECT_EQ(test, ip[7], 0);
	KUNIT_EXPECT_EQ(test, ip[8], 64);		/* TTL */
	KUNIT_EXPECT_EQ(test, ip[9], 17);		/* UDP */
	KUNIT_EXPECT_EQ(test, memcmp(ip + 12, "\x0a\x03\x00\x01", 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(ip + 16, "\x0a\x03\x00\x02", 4), 0);
	/* the checksum field makes the header sum to 0xffff */
	KUNIT_EXPECT_EQ(test, rfc1071(ip, 20), 0);
	ip[10] = 0;
	ip[11] = 0;
	KUNIT_EXPECT_NE(test, rfc1071(ip, 20), 0);

	/* with immediate data: 4 bytes more */
	pkt.opcode = SOFTHCA_OP_UD | SOFTHCA_OP_SEND_ONLY_IMM;
	softhca_hw_grh_build(grh, &pkt);
	KUNIT_EXPECT_EQ(test, ip[2] << 8 | ip[3], tot + 4);
	KUNIT_EXPECT_EQ(test, rfc1071(ip, 20), 0);
}

static void grh_v6_test(struct kunit *test)
{
	static const u8 sgid[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe,
		0x33, 0x44, 0x55,
	};
	static const u8 dgid[16] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7,
	};
	struct softhca_hw_pkt pkt = {};
	u8 grh[SOFTHCA_HW_GRH_SIZE];

	pkt.opcode = SOFTHCA_OP_UD | SOFTHCA_OP_SEND_ONLY;
	memcpy(pkt.sgid, sgid, 16);
	memcpy(pkt.dgid, dgid, 16);
	pkt.hop_limit = 255;
	pkt.tclass = 0xb8;
	pkt.flow_label = 0x12345;
	pkt.len = 256;
	KUNIT_EXPECT_FALSE(test, softhca_hw_gid_is_v4(pkt.sgid));
	softhca_hw_grh_build(grh, &pkt);
	/* version 6, traffic class 0xb8, flow label 0x12345 */
	KUNIT_EXPECT_EQ(test, grh[0], 0x6b);
	KUNIT_EXPECT_EQ(test, grh[1], 0x81);
	KUNIT_EXPECT_EQ(test, grh[2], 0x23);
	KUNIT_EXPECT_EQ(test, grh[3], 0x45);
	/* payload length: UDP 8 + BTH 12 + DETH 8 + 256 + ICRC 4 */
	KUNIT_EXPECT_EQ(test, grh[4] << 8 | grh[5], 288);
	KUNIT_EXPECT_EQ(test, grh[6], 17);		/* next header UDP */
	KUNIT_EXPECT_EQ(test, grh[7], 255);		/* hop limit */
	KUNIT_EXPECT_EQ(test, memcmp(grh + 8, sgid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(grh + 24, dgid, 16), 0);
}

/*
 * The runs a requester cuts a message into: every run but the last is
 * whole packets of the path MTU, whatever budget a visit has left, so a
 * message takes exactly the PSNs its flight place was given.
 */
static void run_len_test(struct kunit *test)
{
	/* a SEND of 16 bytes, then WRITEs as an NVMe target posts them */
	static const u64 msgs[] = { 16, SZ_256K, 40960, 16, SZ_64K + 4096,
				    12288, 16, SZ_256K, 1, SZ_128K };
	const u32 mtu = 1024;
	u64 budget = SOFTHCA_HW_QP_BUDGET, left, run;
	u32 psns;
	unsigned int i, visits = 1;

	/* a budget below the MTU still sends one whole packet */
	KUNIT_EXPECT_EQ(test, softhca_hw_req_run_len(3000, 1008, mtu), 1024ULL);
	KUNIT_EXPECT_EQ(test, softhca_hw_req_run_len(5000, 1, mtu), 1024ULL);
	/* the end of a message goes whole, however short */
	KUNIT_EXPECT_EQ(test, softhca_hw_req_run_len(500, 100, mtu), 500ULL);
	KUNIT_EXPECT_EQ(test, softhca_hw_req_run_len(1500, SZ_256K, mtu),
			1500ULL);
	/* a run is at most a segment, and ends on an MTU */
	KUNIT_EXPECT_EQ(test, softhca_hw_req_run_len(SZ_256K, SZ_256K - 16, mtu),
			(u64)SOFTHCA_HW_SEGMENT);
	KUNIT_EXPECT_EQ(test, softhca_hw_req_run_len(SZ_64K, 40000, mtu),
			39936ULL);

	/* visits of SOFTHCA_HW_QP_BUDGET bytes, as softhca_hw_req_run() */
	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		left = msgs[i];
		psns = 0;
		while (left) {
			if (!budget) {
				budget = SOFTHCA_HW_QP_BUDGET;
				visits++;
			}
			run = softhca_hw_req_run_len(left, budget, mtu);
			KUNIT_ASSERT_GT(test, run, 0ULL);
			KUNIT_ASSERT_LE(test, run, left);
			if (run < left)
				KUNIT_EXPECT_EQ(test, run % mtu, 0ULL);
			psns += softhca_hw_packets(3, run);
			budget -= min(budget, run);
			left -= run;
		}
		KUNIT_EXPECT_EQ_MSG(test, psns, softhca_hw_packets(3, msgs[i]),
				    "message %u of %llu bytes", i, msgs[i]);
	}
	KUNIT_EXPECT_GT(test, visits, 1u);
}

/*
 * The RC requester's congestion window (hw_comp.c), counted in PSNs:
 * slow start grows it by every PSN ACKed up to ssthresh, congestion
 * avoidance by one per window ACKed, a loss halves it, a timeout drops
 * it to SOFTHCA_HW_CWND_MIN, and it never exceeds SOFTHCA_HW_MAX_UNACKED.
 * Every expected value is worked out by hand from those rules.
 */
static void cwnd_test(struct kunit *test)
{
	struct softhca_hw_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, SOFTHCA_HW_CWND_INIT, 32);
	KUNIT_ASSERT_EQ(test, SOFTHCA_HW_CWND_MIN, 4);
	KUNIT_ASSERT_EQ(test, SOFTHCA_HW_MAX_UNACKED, 256);
	/* as at RTR (softhca_hw_comp_reset()) */
	qp->cwnd = 32;
	qp->ssthresh = 256;

	/* slow start: +10 ACKed, then more than the threshold allows */
	softhca_hw_comp_cwnd_grow(qp, 10);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 42u);
	softhca_hw_comp_cwnd_grow(qp, 300);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 256u);
	KUNIT_EXPECT_EQ(test, qp->cwnd_acked, 0u);

	/* at the cap in congestion avoidance: 1000 ACKed, still 256 */
	softhca_hw_comp_cwnd_grow(qp, 1000);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 256u);

	/* a sequence NAK: threshold and window are half of 256 */
	softhca_hw_comp_cwnd_loss(qp, false);
	KUNIT_EXPECT_EQ(test, qp->ssthresh, 128u);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 128u);
	KUNIT_EXPECT_EQ(test, qp->cwnd_acked, 0u);

	/* congestion avoidance: 127 ACKed is not yet a window of 128 ... */
	softhca_hw_comp_cwnd_grow(qp, 127);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 128u);
	KUNIT_EXPECT_EQ(test, qp->cwnd_acked, 127u);
	/* ... the 128th is: 129, nothing carried */
	softhca_hw_comp_cwnd_grow(qp, 1);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 129u);
	KUNIT_EXPECT_EQ(test, qp->cwnd_acked, 0u);
	/* 258 ACKed: one window of 129 (-> 130), 129 left, short of 130 */
	softhca_hw_comp_cwnd_grow(qp, 258);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 130u);
	KUNIT_EXPECT_EQ(test, qp->cwnd_acked, 129u);

	/* a timeout: threshold 65, window from the minimum */
	softhca_hw_comp_cwnd_loss(qp, true);
	KUNIT_EXPECT_EQ(test, qp->ssthresh, 65u);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 4u);
	KUNIT_EXPECT_EQ(test, qp->cwnd_acked, 0u);
	/* slow start again, stopping at the new threshold */
	softhca_hw_comp_cwnd_grow(qp, 100);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 65u);

	/* a loss in a small window never goes below the minimum */
	qp->cwnd = 5;
	softhca_hw_comp_cwnd_loss(qp, false);
	KUNIT_EXPECT_EQ(test, qp->ssthresh, 4u);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 4u);
	softhca_hw_comp_cwnd_loss(qp, true);
	KUNIT_EXPECT_EQ(test, qp->ssthresh, 4u);
	KUNIT_EXPECT_EQ(test, qp->cwnd, 4u);
}

static struct kunit_case softhca_transport_cases[] = {
	KUNIT_CASE(opcode_table_test),
	KUNIT_CASE(psn_test),
	KUNIT_CASE(grh_v4_test),
	KUNIT_CASE(grh_v6_test),
	KUNIT_CASE(run_len_test),
	KUNIT_CASE(cwnd_test),
	{}
};

static struct kunit_suite softhca_transport_suite = {
	.name = "softhca_transport",
	.test_cases = softhca_transport_cases,
};

kunit_test_suite(softhca_transport_suite);
