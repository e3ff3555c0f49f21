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
 *
 * A packet for another host leaves through the port (hw_roce.c); what
 * comes back arrives in the port's receive handler.
 */
#include "hw.h"

/*
 * The QP @qp sends to, referenced, or NULL (the requester's context);
 * *@remote: the peer is on another host.
 */
static struct softhca_hw_qp *softhca_hw_wire_peer(struct softhca_hw *hw,
						  struct softhca_hw_qp *qp,
						  bool *remote)
{
	struct softhca_hw_qp *peer;
	u64 gen;

	rcu_read_lock();
	gen = atomic64_read(&hw->path_gen);
	if (qp->path_gen != gen) {
		qp->peer_remote = !softhca_hw_gid_is_local(hw, qp->attr.dgid);
		qp->peer = qp->peer_remote ? NULL :
			   xa_load(&hw->qps, le32_to_cpu(qp->attr.dest_qpn));
		qp->path_gen = gen;
	}
	peer = qp->peer;
	*remote = qp->peer_remote;
	if (peer && !refcount_inc_not_zero(&peer->ref))
		peer = NULL;
	rcu_read_unlock();
	return peer;
}

/**
 * softhca_hw_wire_path - fill in the path of @qp's packets (RC, UC)
 * @hw: the card
 * @qp: the QP
 * @pkt: its addresses, class, hop limit, next hop and MTU are set
 *
 * Return: false if the QP's source GID is gone from the table.
 */
bool softhca_hw_wire_path(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			  struct softhca_hw_pkt *pkt)
{
	if (!softhca_hw_gid_get(hw, qp->attr.sgid_index, pkt->sgid))
		return false;
	memcpy(pkt->dgid, qp->attr.dgid, sizeof(pkt->dgid));
	memcpy(pkt->dmac, qp->attr.dmac, sizeof(pkt->dmac));
	pkt->hop_limit = qp->attr.hop_limit;
	pkt->tclass = qp->attr.traffic_class;
	pkt->flow_label = le32_to_cpu(qp->attr.flow_label);
	pkt->mtu = softhca_mtu_bytes(qp->attr.path_mtu);
	if (softhca_hw_gid_is_v4(pkt->sgid))
		pkt->flags |= SOFTHCA_PKT_IPV4;
	else
		pkt->flags &= ~SOFTHCA_PKT_IPV4;
	return true;
}

/**
 * softhca_hw_wire_send - a requester's packet leaves @qp
 * @hw: the card
 * @qp: the sending QP (its engine context)
 * @pkt: the packet (or run of packets)
 *
 * Between QPs of this card the responder takes it now and its answer goes
 * to @qp's completer before this returns; for another host it leaves
 * through the port, and the answer comes back later.
 *
 * Return: true if it went to another host.
 */
bool softhca_hw_wire_send(struct softhca_hw *hw, struct softhca_hw_qp *qp,
			  struct softhca_hw_pkt *pkt)
{
	struct softhca_hw_answer ans;
	struct softhca_hw_qp *dst;
	bool remote;

	if (qp->type == SOFTHCA_QPT_UD || qp->type == SOFTHCA_QPT_GSI) {
		remote = !softhca_hw_gid_is_local(hw, pkt->dgid);
		dst = remote ? NULL : softhca_hw_qp_get(hw, pkt->dest_qpn);
	} else {
		dst = softhca_hw_wire_peer(hw, qp, &remote);
	}
	if (remote) {
		if (!softhca_hw_roce_send(hw, pkt))
			softhca_hw_count_n(hw, tx_dropped, pkt->npkts);
		return true;
	}
	softhca_hw_count_n(hw, tx_packets, pkt->npkts);
	softhca_hw_count_n(hw, tx_bytes, pkt->len);
	if (!dst) {
		/* nobody here answers: RC times out, UC and UD are gone */
		softhca_hw_count(hw, drop_no_qp);
		return false;
	}
	softhca_hw_count_n(hw, rx_packets, pkt->npkts);
	softhca_hw_count_n(hw, rx_bytes, pkt->len);
	if (softhca_hw_resp_rx(hw, dst, pkt, &ans)) {
		softhca_hw_comp_rx(hw, qp, &ans.pkt, false);
		softhca_hw_answer_put(&ans);
	}
	softhca_hw_qp_put(dst);
	return false;
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
	bool path;

	if (!softhca_hw_gid_is_local(hw, qp->attr.dgid)) {
		spin_lock_bh(&qp->lock);
		path = softhca_hw_wire_path(hw, qp, &ans->pkt);
		spin_unlock_bh(&qp->lock);
		if (!path || !softhca_hw_roce_send(hw, &ans->pkt))
			softhca_hw_count_n(hw, tx_dropped, ans->pkt.npkts);
		softhca_hw_answer_put(ans);
		return;
	}
	softhca_hw_count_n(hw, tx_packets, ans->pkt.npkts);
	softhca_hw_count_n(hw, tx_bytes, ans->pkt.len);
	dst = softhca_hw_qp_get(hw, le32_to_cpu(qp->attr.dest_qpn));
	if (dst) {
		softhca_hw_count_n(hw, rx_packets, ans->pkt.npkts);
		softhca_hw_count_n(hw, rx_bytes, ans->pkt.len);
		softhca_hw_comp_rx(hw, dst, &ans->pkt, false);
		softhca_hw_engine_answered(hw, dst);
		softhca_hw_qp_put(dst);
	}
	softhca_hw_answer_put(ans);
}
