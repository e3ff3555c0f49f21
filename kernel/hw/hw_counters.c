// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the port's counters (QUERY_COUNTERS). Packets and
 * bytes each way, between QPs of the card as on the wire; the transport's
 * retries and NAKs; every packet dropped, by why; and who served a
 * kernel QP's wake-up doorbell (its writer or the engine thread).
 */
#include "hw.h"

#define SOFTHCA_HW_COUNTER(idx, field) \
	[SOFTHCA_CNT_##idx] = offsetof(struct softhca_hw_counters, field)

/* Where each counter of the PRM's order lives in the card. */
static const size_t softhca_hw_counter_at[SOFTHCA_NUM_COUNTERS] = {
	SOFTHCA_HW_COUNTER(TX_PACKETS, tx_packets),
	SOFTHCA_HW_COUNTER(TX_BYTES, tx_bytes),
	SOFTHCA_HW_COUNTER(RX_PACKETS, rx_packets),
	SOFTHCA_HW_COUNTER(RX_BYTES, rx_bytes),
	SOFTHCA_HW_COUNTER(RETRANSMITS, retransmits),
	SOFTHCA_HW_COUNTER(TIMEOUTS, timeouts),
	SOFTHCA_HW_COUNTER(SEQ_NAKS_SENT, seq_naks_sent),
	SOFTHCA_HW_COUNTER(SEQ_NAKS_RCVD, seq_naks_rcvd),
	SOFTHCA_HW_COUNTER(RNR_NAKS_SENT, rnr_naks_sent),
	SOFTHCA_HW_COUNTER(RNR_NAKS_RCVD, rnr_naks_rcvd),
	SOFTHCA_HW_COUNTER(DUPLICATES, duplicates),
	SOFTHCA_HW_COUNTER(DROP_NO_QP, drop_no_qp),
	SOFTHCA_HW_COUNTER(DROP_QKEY, drop_qkey),
	SOFTHCA_HW_COUNTER(DROP_NOT_PEER, drop_not_peer),
	SOFTHCA_HW_COUNTER(DROP_NO_WQE, drop_no_wqe),
	SOFTHCA_HW_COUNTER(DROP_SEQ, drop_seq),
	SOFTHCA_HW_COUNTER(DROP_ICRC, drop_icrc),
	SOFTHCA_HW_COUNTER(DROP_MALFORMED, drop_malformed),
	SOFTHCA_HW_COUNTER(TX_DROPPED, tx_dropped),
	SOFTHCA_HW_COUNTER(KWAKE_INLINE, kwake_inline),
	SOFTHCA_HW_COUNTER(KWAKE_ENGINE, kwake_engine),
};

static_assert(SOFTHCA_NUM_COUNTERS <=
	      ARRAY_SIZE(((struct softhca_counters *)0)->value));
static_assert(sizeof(struct softhca_hw_counters) ==
	      SOFTHCA_NUM_COUNTERS * sizeof(u64));

/* Counter @i (the PRM's order) summed over the CPUs. */
static u64 softhca_hw_counter_sum(struct softhca_hw *hw, unsigned int i)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu) {
		const void *base = per_cpu_ptr(hw->counters, cpu);

		sum += READ_ONCE(*(const u64 *)(base +
						softhca_hw_counter_at[i]));
	}
	return sum;
}

u8 softhca_hw_cmd_query_counters(struct softhca_hw *hw,
				 struct softhca_hw_cmd_ctx *c)
{
	struct softhca_counters *out = c->out;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < SOFTHCA_NUM_COUNTERS; i++)
		out->value[i] = cpu_to_le64(softhca_hw_counter_sum(hw, i));
	return SOFTHCA_CMD_STAT_OK;
}
