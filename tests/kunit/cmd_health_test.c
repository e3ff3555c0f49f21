// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the command interface's health. Destroy commands report a busy
 * object instead of pretending it is gone; a card that stops answering is
 * reset and declared dead after the timeout, every later command fails at
 * once, and destroying objects of a dead card succeeds (it holds nothing).
 */
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>

#include "softhca.h"
#include "hw/hw.h"
#include "test_util.h"

static u32 alloc_pd(struct kunit *test, struct softhca_dev *dev)
{
	struct softhca_alloc_out out;

	KUNIT_ASSERT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_ALLOC_PD, NULL,
					       0, &out, sizeof(out)), 0);
	return le32_to_cpu(out.num);
}

/* An MKEY on @pdn over one page of coherent memory. */
static u32 create_mkey(struct kunit *test, struct softhca_dev *dev, u32 pdn)
{
	struct softhca_create_out out;
	struct softhca_mkey_ctx ctx = {};
	struct softhca_pas_buf pb;
	dma_addr_t dma;

	softhca_test_dma_alloc(test, dev->hw, PAGE_SIZE, &dma);
	KUNIT_ASSERT_EQ(test, softhca_pas_from_coherent(dev, dma, PAGE_SIZE,
							&pb), 0);
	ctx.pdn = cpu_to_le32(pdn);
	ctx.iova = cpu_to_le64(dma);
	ctx.length = cpu_to_le64(PAGE_SIZE);
	softhca_pas_to_prm(&pb, &ctx.pas);
	KUNIT_EXPECT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_CREATE_MKEY,
					       &ctx, sizeof(ctx), &out,
					       sizeof(out)), 0);
	softhca_pas_free(dev, &pb);
	return le32_to_cpu(out.num);
}

/* A PD an MKEY uses cannot go; once the MKEY is gone it can, once. */
static void destroy_busy_test(struct kunit *test)
{
	struct softhca_dev *dev = softhca_test_dev(test);
	u32 pdn = alloc_pd(test, dev);
	u32 mkey = create_mkey(test, dev, pdn);

	KUNIT_EXPECT_EQ(test, softhca_cmd_destroy(dev, SOFTHCA_CMD_DEALLOC_PD,
						  pdn), -EBUSY);
	KUNIT_EXPECT_EQ(test, softhca_cmd_destroy(dev,
						  SOFTHCA_CMD_DESTROY_MKEY,
						  mkey), 0);
	KUNIT_EXPECT_EQ(test, softhca_cmd_destroy(dev, SOFTHCA_CMD_DEALLOC_PD,
						  pdn), 0);
	KUNIT_EXPECT_EQ(test, softhca_cmd_destroy(dev, SOFTHCA_CMD_DEALLOC_PD,
						  pdn), -EINVAL);
	KUNIT_EXPECT_FALSE(test, softhca_cmd_dead(dev));
}

/*
 * The card stops taking commands behind the driver's back (its command
 * queue disabled): the next command times out, the driver resets the card
 * and declares it dead; later commands fail at once with -EIO; destroying
 * what the dead card held succeeds; the card's engine is halted.
 */
static void timeout_makes_dead_test(struct kunit *test)
{
	struct softhca_dev *dev = softhca_test_dev(test);
	u32 pdn = alloc_pd(test, dev);
	struct softhca_alloc_out out;
	unsigned long t0;

	dev->cmdq.timeout_ms = 100;
	softhca_hw_cmd_enable(dev->hw, false);	/* wedged */
	KUNIT_EXPECT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_ALLOC_PD, NULL,
					       0, &out, sizeof(out)),
			-ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, softhca_cmd_dead(dev));
	KUNIT_EXPECT_TRUE(test, dev->cmdq.quiesced);
	KUNIT_EXPECT_TRUE(test, softhca_cmd_dma_safe(dev));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(dev->hw->halted));
	KUNIT_EXPECT_FALSE(test, softhca_hw_read32(dev->hw, SOFTHCA_REG_STATUS) &
			   SOFTHCA_STATUS_READY);

	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_ALLOC_PD, NULL,
					       0, &out, sizeof(out)), -EIO);
	KUNIT_EXPECT_EQ(test, softhca_cmd_exec(dev, SOFTHCA_CMD_QUERY_CAPS,
					       NULL, 0, NULL, 0), -EIO);
	KUNIT_EXPECT_LT(test, jiffies - t0, msecs_to_jiffies(50));
	KUNIT_EXPECT_EQ(test, softhca_cmd_destroy(dev, SOFTHCA_CMD_DEALLOC_PD,
						  pdn), 0);
}

static struct kunit_case softhca_cmd_health_cases[] = {
	KUNIT_CASE(destroy_busy_test),
	KUNIT_CASE(timeout_makes_dead_test),
	{}
};

static struct kunit_suite softhca_cmd_health_suite = {
	.name = "softhca_cmd_health",
	.test_cases = softhca_cmd_health_cases,
};

kunit_test_suite(softhca_cmd_health_suite);
