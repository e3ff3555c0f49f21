// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: where packets go. A packet for a QP of this card
 * (its destination GID is one of the port's) goes straight to that QP's
 * responder, and the responder's answer straight to the sender's
 * completer: no packet buffer, no copy but the responder's (or the
 * completer's) own into the destination memory. Everything else is for
 * the network.
 *
 * A requester's peer (RC, UC) is found once and kept while nothing that
 * decides it changes (hw->path_gen: GIDs, QP states and attributes,
 * destroyed QPs); the cached pointer is used under RCU and referenced for
 * the delivery. The responder checks every packet anyway.
 */
#include "hw.h"

/* The QP @qp sends to, referenced, or NULL (the requester's context). */
static struct softhca_hw_qp *softhca_hw_wire_peer(struct softhca_hw *hw,
						  struct softhca_hw_qp *qp)
{
	struct softhca_hw_qp *peer;
	u64 gen;

	rcu_read_lock();
	gen = atomic64_read(&hw->path_gen);
	if (qp->path_gen == gen) {
		peer = qp->peer;
	} else {
		peer = NULL;
		if (softhca_hw_gid_is_local(hw, qp->attr.dgid))
			peer = xa_load(&hw->qps, le32_to_cpu(qp->attr.dest_qpn));
		qp->peer = peer;
		qp->path_gen = gen;
	}
	if (peer && !refcount_inc_not_zero(&peer->ref))
		peer = NULL;
	rcu_read_unlock();
	return peer;
}

/* The local QP @dest_qpn at @dgid, referenced, or NULL. */
static struct softhca_hw_qp *softhca_hw_wire_local(struct softhca_hw *hw,
						   const u8 *dgid, u32 dest_qpn)
{
	if (!softhca_hw_gid_is_local(hw, dgid))
		return NULL;
	return softhca_hw_qp_get(hw, dest_qpn);
}

/**
 * softhca_hw_wire_send - a requester's packet leaves @qp
 * @hw: the card
 * @qp: the sending QP (its engine context)
 * @pkt: the packet (or run of packets)
 *
 * Between QPs of this card the responder takes it now and its answer goes
 * to @qp's completer before this returns.
 */
void softhca_hw_wire_send(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			  struct softhca_hw_pkt *pkt)
{
	struct softhca_hw_answer ans;
	struct softhca_hw_qp *dst;

	softhca_hw_count_n(hw, tx_packets, pkt->npkts);
	softhca_hw_count_n(hw, tx_bytes, pkt->len);
	if (qp->type == SOFTHCA_QPT_UD || qp->type == SOFTHCA_QPT_GSI)
		dst = softhca_hw_wire_local(hw, pkt->dgid, pkt->dest_qpn);
	else
		dst = softhca_hw_wire_peer(hw, qp);
	if (!dst) {
		/* nobody here answers: RC times out, UC and UD are gone */
		if (softhca_hw_gid_is_local(hw, pkt->dgid))
			softhca_hw_count(hw, drop_no_qp);
		return;
	}
	softhca_hw_count_n(hw, rx_packets, pkt->npkts);
	softhca_hw_count_n(hw, rx_bytes, pkt->len);
	if (softhca_hw_resp_rx(hw, dst, pkt, &ans)) {
		softhca_hw_comp_rx(hw, qp, &ans.pkt);
		softhca_hw_answer_put(&ans);
	}
	softhca_hw_qp_put(dst);
}

/**
 * softhca_hw_wire_answer - a responder's answer leaves @qp on its own
 * @hw: the card
 * @qp: the responder's QP (its engine context: READ responses)
 * @ans: the answer; its reference is dropped here
 *
 * The requester that gets it may go on: it is scheduled.
 */
void softhca_hw_wire_answer(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			    struct softhca_hw_answer *ans)
{
	struct softhca_hw_qp *dst;

	softhca_hw_count_n(hw, tx_packets, ans->pkt.npkts);
	softhca_hw_count_n(hw, tx_bytes, ans->pkt.len);
	dst = softhca_hw_wire_local(hw, qp->attr.dgid,
				    le32_to_cpu(qp->attr.dest_qpn));
	if (dst) {
		softhca_hw_count_n(hw, rx_packets, ans->pkt.npkts);
		softhca_hw_count_n(hw, rx_bytes, ans->pkt.len);
		softhca_hw_comp_rx(hw, dst, &ans->pkt);
		softhca_hw_engine_schedule(hw, dst, SOFTHCA_HW_QPW_RUN);
		softhca_hw_qp_put(dst);
	}
	softhca_hw_answer_put(ans);
}
