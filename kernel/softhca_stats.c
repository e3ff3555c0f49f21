// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: the port's hardware counters, as "rdma statistic show"
 * and /sys/class/infiniband/<dev>/ports/1/hw_counters show them. Each read
 * asks the card (QUERY_COUNTERS); ib_core keeps the answer for 10 ms.
 */
#include "softhca.h"

#define SOFTHCA_STAT(idx, str) \
	[SOFTHCA_CNT_##idx] = { .name = str }

static const struct rdma_stat_desc softhca_stat_descs[] = {
	SOFTHCA_STAT(TX_PACKETS, "tx_packets"),
	SOFTHCA_STAT(TX_BYTES, "tx_bytes"),
	SOFTHCA_STAT(RX_PACKETS, "rx_packets"),
	SOFTHCA_STAT(RX_BYTES, "rx_bytes"),
	SOFTHCA_STAT(RETRANSMITS, "retransmits"),
	SOFTHCA_STAT(TIMEOUTS, "local_ack_timeouts"),
	SOFTHCA_STAT(SEQ_NAKS_SENT, "seq_naks_sent"),
	SOFTHCA_STAT(SEQ_NAKS_RCVD, "seq_naks_rcvd"),
	SOFTHCA_STAT(RNR_NAKS_SENT, "rnr_naks_sent"),
	SOFTHCA_STAT(RNR_NAKS_RCVD, "rnr_naks_rcvd"),
	SOFTHCA_STAT(DUPLICATES, "duplicate_requests"),
	SOFTHCA_STAT(DROP_NO_QP, "rx_drop_no_qp"),
	SOFTHCA_STAT(DROP_QKEY, "rx_drop_qkey"),
	SOFTHCA_STAT(DROP_NOT_PEER, "rx_drop_not_peer"),
	SOFTHCA_STAT(DROP_NO_WQE, "rx_drop_no_wqe"),
	SOFTHCA_STAT(DROP_SEQ, "rx_drop_out_of_sequence"),
	SOFTHCA_STAT(DROP_ICRC, "rx_drop_icrc"),
	SOFTHCA_STAT(DROP_MALFORMED, "rx_drop_malformed"),
	SOFTHCA_STAT(TX_DROPPED, "tx_dropped"),
	SOFTHCA_STAT(KWAKE_INLINE, "kernel_wakeups_served_inline"),
	SOFTHCA_STAT(KWAKE_ENGINE, "kernel_wakeups_to_engine"),
};

static_assert(ARRAY_SIZE(softhca_stat_descs) == SOFTHCA_NUM_COUNTERS);

struct rdma_hw_stats *softhca_alloc_hw_port_stats(struct ib_device *ibdev,
						  u32 port_num)
{
	return rdma_alloc_hw_stats_struct(softhca_stat_descs,
					  ARRAY_SIZE(softhca_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int softhca_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index)
{
	struct softhca_dev *dev = to_sdev(ibdev);
	struct softhca_counters *c;
	int i, ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = softhca_cmd_exec(dev, SOFTHCA_CMD_QUERY_COUNTERS, NULL, 0, c,
			       sizeof(*c));
	if (ret) {
		ibdev_dbg(ibdev, "QUERY_COUNTERS failed (%d)\n", ret);
		goto out;
	}
	for (i = 0; i < SOFTHCA_NUM_COUNTERS; i++)
		stats->value[i] = le64_to_cpu(c->value[i]);
	ret = SOFTHCA_NUM_COUNTERS;
out:
	kfree(c);
	return ret;
}
