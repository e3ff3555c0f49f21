// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite "softhca_ah": address handles, kernel/softhca_ah.c. A RoCE
 * AH attribute becomes the address vector UD sends carry (destination GID
 * as given, IPv4-mapped or IPv6; the next hop's MAC; the source GID's
 * table index; hop limit, traffic class, flow label), byte for byte;
 * attributes without a GRH, of another type, without a source GID entry
 * or with an index past the table are refused; AHs are counted against
 * the device's max_ah, without sleeping.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "softhca.h"

static const u8 mac[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* A RoCE AH attribute to @gid from the source GID entry @sgid. */
static void make_attr(struct rdma_ah_attr *attr, const union ib_gid *gid,
		      const struct ib_gid_attr *sgid)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	attr->ah_flags = IB_AH_GRH;
	attr->port_num = 1;
	attr->grh.dgid = *gid;
	attr->grh.sgid_attr = sgid;
	attr->grh.sgid_index = sgid ? sgid->index : 0;
	attr->grh.hop_limit = 64;
	attr->grh.traffic_class = 0x28;
	attr->grh.flow_label = 0xabcde;
	memcpy(attr->roce.dmac, mac, ETH_ALEN);
}

static void expect_av(struct kunit *test, const struct softhca_wqe_av *av,
		      const union ib_gid *gid, u8 sgid_index)
{
	static const u8 zero[8];

	KUNIT_EXPECT_EQ(test, memcmp(av->dgid, gid->raw, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(av->dmac, mac, ETH_ALEN), 0);
	KUNIT_EXPECT_EQ(test, av->sgid_index, sgid_index);
	KUNIT_EXPECT_EQ(test, av->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, av->traffic_class, 0x28);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av->flow_label), 0xabcdeu);
	/* each send fills these in */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av->dest_qpn), 0u);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av->qkey), 0u);
	KUNIT_EXPECT_EQ(test, memcmp(av->rsvd0, zero, sizeof(av->rsvd0)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(av->rsvd1, zero, sizeof(av->rsvd1)), 0);
}

static void ah_ipv4_mapped_test(struct kunit *test)
{
	union ib_gid gid = {};
	struct ib_gid_attr sgid = { .index = 1 };
	struct softhca_wqe_av av;
	struct rdma_ah_attr attr;

	/* ::ffff:10.0.2.15 */
	gid.raw[10] = 0xff;
	gid.raw[11] = 0xff;
	gid.raw[12] = 10;
	gid.raw[13] = 0;
	gid.raw[14] = 2;
	gid.raw[15] = 15;
	make_attr(&attr, &gid, &sgid);
	memset(&av, 0x77, sizeof(av));
	KUNIT_ASSERT_EQ(test, softhca_ah_to_av(&attr, 64, &av), 0);
	expect_av(test, &av, &gid, 1);
	KUNIT_EXPECT_EQ(test, av.dgid[10], 0xff);
	KUNIT_EXPECT_EQ(test, av.dgid[15], 15);
}

static void ah_ipv6_test(struct kunit *test)
{
	union ib_gid gid = {};
	struct ib_gid_attr sgid = { .index = 63 };
	struct softhca_wqe_av av;
	struct rdma_ah_attr attr;
	u32 i;

	/* fe80::5054:ff:fe12:3456 */
	gid.raw[0] = 0xfe;
	gid.raw[1] = 0x80;
	for (i = 0; i < 8; i++)
		gid.raw[8 + i] = "\x50\x54\x00\xff\xfe\x12\x34\x56"[i];
	make_attr(&attr, &gid, &sgid);
	KUNIT_ASSERT_EQ(test, softhca_ah_to_av(&attr, 64, &av), 0);
	expect_av(test, &av, &gid, 63);
}

static void ah_refused_test(struct kunit *test)
{
	union ib_gid gid = { .raw = { 0xfe, 0x80 } };
	struct ib_gid_attr sgid = { .index = 2 };
	struct softhca_wqe_av av;
	struct rdma_ah_attr attr;

	make_attr(&attr, &gid, &sgid);
	attr.ah_flags = 0;
	KUNIT_EXPECT_EQ(test, softhca_ah_to_av(&attr, 64, &av), -EINVAL);
	make_attr(&attr, &gid, &sgid);
	attr.type = RDMA_AH_ATTR_TYPE_IB;
	KUNIT_EXPECT_EQ(test, softhca_ah_to_av(&attr, 64, &av), -EINVAL);
	make_attr(&attr, &gid, NULL);
	KUNIT_EXPECT_EQ(test, softhca_ah_to_av(&attr, 64, &av), -EINVAL);
	make_attr(&attr, &gid, &sgid);
	KUNIT_EXPECT_EQ(test, softhca_ah_to_av(&attr, 2, &av), -EINVAL);
	KUNIT_EXPECT_EQ(test, softhca_ah_to_av(&attr, 3, &av), 0);
}

/* create_ah keeps the vector and counts against max_ah; destroy uncounts. */
static void ah_count_test(struct kunit *test)
{
	struct softhca_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	union ib_gid gid = { .raw = { 0xfe, 0x80, [15] = 1 } };
	struct ib_gid_attr sgid = { .index = 0 };
	struct rdma_ah_init_attr init = {};
	struct softhca_ah *ah[3];
	struct rdma_ah_attr attr;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->caps.gid_table_len = 8;
	dev->max_ah = 2;
	make_attr(&attr, &gid, &sgid);
	init.ah_attr = &attr;
	for (i = 0; i < 3; i++) {
		ah[i] = kunit_kzalloc(test, sizeof(*ah[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ah[i]);
		ah[i]->ibah.device = &dev->ibdev;
	}
	KUNIT_EXPECT_EQ(test, softhca_create_ah(&ah[0]->ibah, &init, NULL), 0);
	expect_av(test, &ah[0]->av, &gid, 0);
	KUNIT_EXPECT_EQ(test, softhca_create_ah(&ah[1]->ibah, &init, NULL), 0);
	KUNIT_EXPECT_EQ(test, softhca_create_ah(&ah[2]->ibah, &init, NULL),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->num_ahs), 2);
	KUNIT_EXPECT_EQ(test, softhca_destroy_ah(&ah[0]->ibah, 0), 0);
	KUNIT_EXPECT_EQ(test, softhca_create_ah(&ah[2]->ibah, &init, NULL), 0);
	/* a refused attribute costs no count */
	attr.ah_flags = 0;
	KUNIT_EXPECT_EQ(test, softhca_create_ah(&ah[0]->ibah, &init, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->num_ahs), 2);
	/* a card without UD has no AHs at all */
	dev->max_ah = 0;
	attr.ah_flags = IB_AH_GRH;
	KUNIT_EXPECT_EQ(test, softhca_create_ah(&ah[0]->ibah, &init, NULL),
			-EOPNOTSUPP);
}

static struct kunit_case ah_cases[] = {
	KUNIT_CASE(ah_ipv4_mapped_test),
	KUNIT_CASE(ah_ipv6_test),
	KUNIT_CASE(ah_refused_test),
	KUNIT_CASE(ah_count_test),
	{}
};

static struct kunit_suite ah_suite = {
	.name = "softhca_ah",
	.test_cases = ah_cases,
};

kunit_test_suite(ah_suite);
