// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the port on the wire, RoCEv2. The card is bound to
 * a netdev (softhca_hw_attach_netdev(), what a PCI function's port is
 * wired to). A packet for another host leaves as whole Ethernet frames:
 * Ethernet (the next hop's MAC, which the driver got from ib_core's
 * address resolution), IPv4 (DF, TTL = hop limit, TOS = traffic class,
 * valid checksum) or IPv6, UDP to port 4791 (source port from the flow
 * label or the QPNs; checksum 0), the BTH and extension headers, the
 * payload padded to 4 bytes, and the ICRC (hw_icrc.c); a run of packets
 * of one message is cut into path-MTU packets here (FIRST, MIDDLE, LAST;
 * RETH on the first, immediate data on the last), each sent with
 * dev_queue_xmit().
 *
 * Frames come in through an rx handler on the netdev: UDP 4791 to one of
 * the card's addresses is the card's (a bad ICRC or a header that does not
 * parse is dropped and counted); everything else (ARP, ND, other UDP)
 * goes on to the stack untouched. A request goes to its QP's responder,
 * whose answer goes back out; an answer goes to its QP's completer. This
 * runs in softirq: the transport's locks are spinlocks taken with BHs off.
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>

#include "hw.h"

#define SOFTHCA_ROCE_PORT	4791
#define SOFTHCA_ICRC_SIZE	4
#define SOFTHCA_ACKREQ_EVERY	32	/* packets of a long message */

/* The opcode of a packet of a run, by where it lies in its message. */
u8 softhca_hw_roce_piece(u8 run_op, bool first, bool last)
{
	u8 t = run_op & SOFTHCA_OP_TRANSPORT_MASK;
	u8 op = run_op & SOFTHCA_OP_OPERATION_MASK;
	u8 f, m, l, o;

	switch (op) {
	case SOFTHCA_OP_SEND_FIRST ... SOFTHCA_OP_SEND_ONLY_IMM:
	case SOFTHCA_OP_SEND_LAST_INV:
	case SOFTHCA_OP_SEND_ONLY_INV:
		f = SOFTHCA_OP_SEND_FIRST;
		m = SOFTHCA_OP_SEND_MIDDLE;
		/* the run's last packet says which LAST and ONLY */
		if (op == SOFTHCA_OP_SEND_LAST_IMM ||
		    op == SOFTHCA_OP_SEND_ONLY_IMM) {
			l = SOFTHCA_OP_SEND_LAST_IMM;
			o = SOFTHCA_OP_SEND_ONLY_IMM;
		} else if (op == SOFTHCA_OP_SEND_LAST_INV ||
			   op == SOFTHCA_OP_SEND_ONLY_INV) {
			l = SOFTHCA_OP_SEND_LAST_INV;
			o = SOFTHCA_OP_SEND_ONLY_INV;
		} else {
			l = SOFTHCA_OP_SEND_LAST;
			o = SOFTHCA_OP_SEND_ONLY;
		}
		break;
	case SOFTHCA_OP_WRITE_FIRST ... SOFTHCA_OP_WRITE_ONLY_IMM:
		f = SOFTHCA_OP_WRITE_FIRST;
		m = SOFTHCA_OP_WRITE_MIDDLE;
		if (op == SOFTHCA_OP_WRITE_LAST_IMM ||
		    op == SOFTHCA_OP_WRITE_ONLY_IMM) {
			l = SOFTHCA_OP_WRITE_LAST_IMM;
			o = SOFTHCA_OP_WRITE_ONLY_IMM;
		} else {
			l = SOFTHCA_OP_WRITE_LAST;
			o = SOFTHCA_OP_WRITE_ONLY;
		}
		break;
	case SOFTHCA_OP_READ_RESP_FIRST ... SOFTHCA_OP_READ_RESP_ONLY:
		f = SOFTHCA_OP_READ_RESP_FIRST;
		m = SOFTHCA_OP_READ_RESP_MIDDLE;
		l = SOFTHCA_OP_READ_RESP_LAST;
		o = SOFTHCA_OP_READ_RESP_ONLY;
		break;
	default:
		return run_op;	/* one packet: requests, ACKs, UD */
	}
	if (first && last)
		return t | o;
	if (first)
		return t | f;
	if (last)
		return t | l;
	return t | m;
}

/* UDP source port: from the flow label, else a hash of the QPNs. */
static __be16 softhca_hw_roce_sport(const struct softhca_hw_pkt *pkt)
{
	u32 fl = pkt->flow_label & 0xfffff;
	u32 h;

	if (fl)
		h = (fl & 0x3fff) ^ ((fl & 0xfc000) >> 14);
	else
		h = hash_32(pkt->dest_qpn ^ (pkt->src_qpn << 8), 14);
	return htons(0xc000 | (h & 0x3fff));
}

/* The BTH and extension headers of one packet into @buf. */
static u32 softhca_hw_roce_hdrs(const struct softhca_hw_pkt *pkt, u8 opcode,
				u32 psn, bool ackreq, u8 pad, u8 *buf)
{
	u32 mask = softhca_hw_opcode_mask(opcode);
	struct softhca_hw_bth *bth = (void *)buf;
	u8 *p = buf + sizeof(*bth);

	bth->opcode = opcode;
	bth->flags = pad << SOFTHCA_BTH_PAD_SHIFT;
	if ((pkt->flags & SOFTHCA_PKT_SE) && (mask & SOFTHCA_OPM_LAST))
		bth->flags |= SOFTHCA_BTH_SE;
	bth->pkey = htons(pkt->pkey);
	bth->qpn = htonl(pkt->dest_qpn & SOFTHCA_PSN_MASK);
	bth->apsn = htonl((ackreq ? SOFTHCA_BTH_ACKREQ : 0) |
			  (psn & SOFTHCA_PSN_MASK));
	if (mask & SOFTHCA_OPM_DETH) {
		struct softhca_hw_deth *d = (void *)p;

		d->qkey = htonl(pkt->qkey);
		d->sqpn = htonl(pkt->src_qpn & SOFTHCA_PSN_MASK);
		p += sizeof(*d);
	}
	if (mask & SOFTHCA_OPM_RETH) {
		struct softhca_hw_reth *r = (void *)p;

		r->va = cpu_to_be64(pkt->va);
		r->rkey = htonl(pkt->rkey);
		r->len = htonl(pkt->dma_len);
		p += sizeof(*r);
	}
	if (mask & SOFTHCA_OPM_ATMETH) {
		struct softhca_hw_atmeth *a = (void *)p;

		a->va = cpu_to_be64(pkt->va);
		a->rkey = htonl(pkt->rkey);
		a->swap_add = cpu_to_be64(pkt->swap_add);
		a->compare = cpu_to_be64(pkt->compare);
		p += sizeof(*a);
	}
	if (mask & SOFTHCA_OPM_AETH) {
		struct softhca_hw_aeth *a = (void *)p;

		a->smsn = htonl((u32)pkt->syndrome << 24 |
				(pkt->msn & SOFTHCA_PSN_MASK));
		p += sizeof(*a);
	}
	if (mask & SOFTHCA_OPM_ATMACK) {
		struct softhca_hw_atmack *a = (void *)p;

		a->orig = cpu_to_be64(pkt->orig);
		p += sizeof(*a);
	}
	if (mask & (SOFTHCA_OPM_IMMDT | SOFTHCA_OPM_IETH)) {
		memcpy(p, &pkt->imm, sizeof(pkt->imm));
		p += sizeof(pkt->imm);
	}
	return p - buf;
}

/* The largest BTH and extension headers a packet has. */
#define SOFTHCA_HW_MAX_HDRS	(sizeof(struct softhca_hw_bth) +	\
				 sizeof(struct softhca_hw_deth) +	\
				 sizeof(struct softhca_hw_reth) +	\
				 sizeof(struct softhca_hw_atmeth) +	\
				 sizeof(struct softhca_hw_aeth) +	\
				 sizeof(struct softhca_hw_atmack) + 4)

/* Bytes of the IP packet carrying @hlen header bytes and @len payload. */
static u32 softhca_hw_roce_l3_len(bool v4, u32 hlen, u32 len)
{
	return (v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr)) +
	       sizeof(struct udphdr) + hlen + ALIGN(len, 4) +
	       SOFTHCA_ICRC_SIZE;
}

/**
 * softhca_hw_roce_build - one RoCEv2 packet of @pkt, from its IP header on
 * @hw: the card (the payload is gathered from host memory)
 * @pkt: the packet or run it is a piece of
 * @opcode: the piece's BTH opcode
 * @psn: its PSN
 * @ackreq: its AckReq bit
 * @off: where its payload starts in @pkt's
 * @len: its payload bytes
 * @l3: where it goes
 * @room: bytes there
 *
 * Return: the IP packet's length, or 0 if it does not fit in @room or the
 * payload could not be gathered.
 */
u32 softhca_hw_roce_build(struct softhca_hw *hw,
			  const struct softhca_hw_pkt *pkt, u8 opcode, u32 psn,
			  bool ackreq, u64 off, u32 len, u8 *l3, u32 room)
{
	bool v4 = pkt->flags & SOFTHCA_PKT_IPV4;
	u32 ip_len = v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	u8 pad = (4 - (len & 3)) & 3, hdrs[SOFTHCA_HW_MAX_HDRS];
	u32 hlen = softhca_hw_roce_hdrs(pkt, opcode, psn, ackreq, pad, hdrs);
	u32 total = softhca_hw_roce_l3_len(v4, hlen, len);
	u32 udp_len = total - ip_len;
	struct udphdr *udp;
	__le32 icrc;
	u8 *p;

	if (total > room)
		return 0;
	if (v4) {
		struct iphdr *ip = (struct iphdr *)l3;

		memset(ip, 0, sizeof(*ip));
		ip->version = 4;
		ip->ihl = 5;
		ip->tos = pkt->tclass;
		ip->tot_len = htons(total);
		ip->frag_off = htons(IP_DF);
		ip->ttl = pkt->hop_limit;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, pkt->sgid + 12, 4);
		memcpy(&ip->daddr, pkt->dgid + 12, 4);
		ip->check = ip_fast_csum((u8 *)ip, ip->ihl);
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)l3;

		*(__be32 *)ip6 = htonl(6 << 28 | (u32)pkt->tclass << 20 |
				       (pkt->flow_label & 0xfffff));
		ip6->payload_len = htons(udp_len);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = pkt->hop_limit;
		memcpy(&ip6->saddr, pkt->sgid, 16);
		memcpy(&ip6->daddr, pkt->dgid, 16);
	}
	udp = (struct udphdr *)(l3 + ip_len);
	udp->source = softhca_hw_roce_sport(pkt);
	udp->dest = htons(SOFTHCA_ROCE_PORT);
	udp->len = htons(udp_len);
	udp->check = 0;
	p = (u8 *)(udp + 1);
	memcpy(p, hdrs, hlen);
	p += hlen;
	if (len && softhca_hw_src_read(hw, &pkt->src, off, p, len) != len)
		return 0;
	memset(p + len, 0, pad);
	icrc = cpu_to_le32(softhca_hw_icrc(l3, total - SOFTHCA_ICRC_SIZE, v4));
	memcpy(p + len + pad, &icrc, sizeof(icrc));
	return total;
}

/* Send one packet of @pkt: bytes [off, off + len) of its payload. */
static void softhca_hw_roce_xmit_one(struct softhca_hw *hw,
				     struct net_device *ndev,
				     const struct softhca_hw_pkt *pkt, u8 opcode,
				     u32 psn, bool ackreq, u64 off, u32 len)
{
	bool v4 = pkt->flags & SOFTHCA_PKT_IPV4;
	u32 room = softhca_hw_roce_l3_len(v4, SOFTHCA_HW_MAX_HDRS, len);
	struct sk_buff *skb;
	u32 l3_len;

	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + room +
			ndev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		goto drop;
	skb_reserve(skb, LL_RESERVED_SPACE(ndev));
	l3_len = softhca_hw_roce_build(hw, pkt, opcode, psn, ackreq, off, len,
				       skb->data, room);
	/* longer than the netdev carries: the path MTU was set too high */
	if (!l3_len || l3_len > ndev->mtu)
		goto drop_skb;
	skb_put(skb, l3_len);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, v4 ? sizeof(struct iphdr) :
					   sizeof(struct ipv6hdr));
	skb->protocol = htons(v4 ? ETH_P_IP : ETH_P_IPV6);
	skb->dev = ndev;
	if (dev_hard_header(skb, ndev, v4 ? ETH_P_IP : ETH_P_IPV6, pkt->dmac,
			    ndev->dev_addr, skb->len) < 0)
		goto drop_skb;
	softhca_hw_count(hw, tx_packets);
	softhca_hw_count_n(hw, tx_bytes, len);
	dev_queue_xmit(skb);
	return;

drop_skb:
	kfree_skb(skb);
drop:
	softhca_hw_count(hw, tx_dropped);
}

/**
 * softhca_hw_roce_send - send @pkt on the wire, cut into packets
 * @hw: the card
 * @pkt: a packet, or a run of packets of one message
 *
 * Return: false when the card has no port on a netdev.
 */
bool softhca_hw_roce_send(struct softhca_hw *hw,
			  const struct softhca_hw_pkt *pkt)
{
	u32 mask = softhca_hw_opcode_mask(pkt->opcode), n = 1, i, mtu;
	struct net_device *ndev;
	bool first, last, ackreq, rc_req;
	u64 off = 0;

	rcu_read_lock();
	ndev = rcu_dereference(hw->ndev);
	if (!ndev) {
		rcu_read_unlock();
		return false;
	}
	mtu = pkt->mtu ?: SOFTHCA_HW_MAX_MTU;
	if (mask & SOFTHCA_OPM_PAYLOAD)
		n = pkt->npkts ?: 1;
	/* RC requests of a long message ask for an ACK now and then */
	rc_req = (mask & SOFTHCA_OPM_REQUEST) &&
		 (pkt->opcode & SOFTHCA_OP_TRANSPORT_MASK) == SOFTHCA_OP_RC;
	for (i = 0; i < n; i++) {
		u32 len = min_t(u64, mtu, pkt->len - off);
		u32 psn = softhca_psn_add(pkt->psn, i);

		first = !i && (mask & SOFTHCA_OPM_FIRST);
		last = i == n - 1 && (mask & SOFTHCA_OPM_LAST);
		ackreq = ((pkt->flags & SOFTHCA_PKT_ACKREQ) && i == n - 1) ||
			 (rc_req && (psn % SOFTHCA_ACKREQ_EVERY) ==
				    SOFTHCA_ACKREQ_EVERY - 1);
		softhca_hw_roce_xmit_one(hw, ndev, pkt,
					 softhca_hw_roce_piece(pkt->opcode,
							       first, last),
					 psn, ackreq, off, n > 1 ? len : pkt->len);
		off += len;
	}
	rcu_read_unlock();
	return true;
}

/* An IPv4 address as the IPv4-mapped GID. */
static void softhca_hw_roce_v4_gid(u8 *gid, __be32 addr)
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, &addr, 4);
}

/*
 * Parse a RoCEv2 packet: @l3 (IP header), @len bytes from it. Return:
 * true with @pkt filled (its payload in place), false if it does not
 * parse.
 */
bool softhca_hw_roce_parse(const u8 *l3, u32 len, bool v4,
			   struct softhca_hw_pkt *pkt)
{
	u32 ip_len = v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	const struct softhca_hw_bth *bth;
	u32 mask, hlen, apsn;
	const u8 *p, *end;
	u8 pad;

	memset(pkt, 0, sizeof(*pkt));
	if (v4) {
		const struct iphdr *ip = (const void *)l3;

		softhca_hw_roce_v4_gid(pkt->sgid, ip->saddr);
		softhca_hw_roce_v4_gid(pkt->dgid, ip->daddr);
		pkt->hop_limit = ip->ttl;
		pkt->tclass = ip->tos;
		pkt->flags |= SOFTHCA_PKT_IPV4;
	} else {
		const struct ipv6hdr *ip6 = (const void *)l3;
		u32 w = ntohl(*(const __be32 *)ip6);

		memcpy(pkt->sgid, &ip6->saddr, 16);
		memcpy(pkt->dgid, &ip6->daddr, 16);
		pkt->hop_limit = ip6->hop_limit;
		pkt->tclass = (w >> 20) & 0xff;
		pkt->flow_label = w & 0xfffff;
	}
	p = l3 + ip_len + sizeof(struct udphdr);
	end = l3 + len - SOFTHCA_ICRC_SIZE;
	if (p + sizeof(*bth) > end)
		return false;
	bth = (const void *)p;
	mask = softhca_hw_opcode_mask(bth->opcode);
	if (!mask || (bth->flags & 0x0f))	/* unknown, or TVer != 0 */
		return false;
	pkt->opcode = bth->opcode;
	pad = (bth->flags >> SOFTHCA_BTH_PAD_SHIFT) & 3;
	if (bth->flags & SOFTHCA_BTH_SE)
		pkt->flags |= SOFTHCA_PKT_SE;
	pkt->pkey = ntohs(bth->pkey);
	pkt->dest_qpn = ntohl(bth->qpn) & SOFTHCA_PSN_MASK;
	apsn = ntohl(bth->apsn);
	if (apsn & SOFTHCA_BTH_ACKREQ)
		pkt->flags |= SOFTHCA_PKT_ACKREQ;
	pkt->psn = apsn & SOFTHCA_PSN_MASK;
	pkt->npkts = 1;
	pkt->flags |= SOFTHCA_PKT_WIRE;
	p += sizeof(*bth);

	hlen = 0;
	if (mask & SOFTHCA_OPM_DETH)
		hlen += sizeof(struct softhca_hw_deth);
	if (mask & SOFTHCA_OPM_RETH)
		hlen += sizeof(struct softhca_hw_reth);
	if (mask & SOFTHCA_OPM_ATMETH)
		hlen += sizeof(struct softhca_hw_atmeth);
	if (mask & SOFTHCA_OPM_AETH)
		hlen += sizeof(struct softhca_hw_aeth);
	if (mask & SOFTHCA_OPM_ATMACK)
		hlen += sizeof(struct softhca_hw_atmack);
	if (mask & (SOFTHCA_OPM_IMMDT | SOFTHCA_OPM_IETH))
		hlen += sizeof(__be32);
	if (p + hlen + pad > end)
		return false;
	if (mask & SOFTHCA_OPM_DETH) {
		const struct softhca_hw_deth *d = (const void *)p;

		pkt->qkey = ntohl(d->qkey);
		pkt->src_qpn = ntohl(d->sqpn) & SOFTHCA_PSN_MASK;
		p += sizeof(*d);
	}
	if (mask & SOFTHCA_OPM_RETH) {
		const struct softhca_hw_reth *r = (const void *)p;

		pkt->va = be64_to_cpu(r->va);
		pkt->rkey = ntohl(r->rkey);
		pkt->dma_len = ntohl(r->len);
		p += sizeof(*r);
	}
	if (mask & SOFTHCA_OPM_ATMETH) {
		const struct softhca_hw_atmeth *a = (const void *)p;

		pkt->va = be64_to_cpu(a->va);
		pkt->rkey = ntohl(a->rkey);
		pkt->swap_add = be64_to_cpu(a->swap_add);
		pkt->compare = be64_to_cpu(a->compare);
		p += sizeof(*a);
	}
	if (mask & SOFTHCA_OPM_AETH) {
		u32 smsn = ntohl(((const struct softhca_hw_aeth *)p)->smsn);

		pkt->syndrome = smsn >> 24;
		pkt->msn = smsn & SOFTHCA_PSN_MASK;
		p += sizeof(struct softhca_hw_aeth);
	}
	if (mask & SOFTHCA_OPM_ATMACK) {
		pkt->orig = be64_to_cpu(((const struct softhca_hw_atmack *)p)->orig);
		p += sizeof(struct softhca_hw_atmack);
	}
	if (mask & (SOFTHCA_OPM_IMMDT | SOFTHCA_OPM_IETH)) {
		memcpy(&pkt->imm, p, sizeof(pkt->imm));
		p += sizeof(pkt->imm);
	}
	pkt->len = end - p - pad;
	if (pkt->len && !(mask & SOFTHCA_OPM_PAYLOAD))
		return false;
	if (pkt->len) {
		pkt->src.kind = SOFTHCA_HW_SRC_BUF;
		pkt->src.buf = p;
	}
	return true;
}

/* A packet from the wire for this card: to its responder or completer. */
static void softhca_hw_roce_deliver(struct softhca_hw *hw,
				    struct softhca_hw_pkt *pkt)
{
	u32 mask = softhca_hw_opcode_mask(pkt->opcode);
	struct softhca_hw_answer ans;
	struct softhca_hw_qp *qp;
	bool path;

	qp = softhca_hw_qp_get(hw, pkt->dest_qpn);
	if (!qp) {
		softhca_hw_count(hw, drop_no_qp);
		return;
	}
	if (mask & SOFTHCA_OPM_REQUEST) {
		if (softhca_hw_resp_rx(hw, qp, pkt, &ans)) {
			/* back the way the QP's path says, as a real HCA */
			spin_lock_bh(&qp->lock);
			path = softhca_hw_wire_path(hw, qp, &ans.pkt);
			spin_unlock_bh(&qp->lock);
			if (!path || !softhca_hw_roce_send(hw, &ans.pkt))
				softhca_hw_count(hw, tx_dropped);
			softhca_hw_answer_put(&ans);
		}
	} else if (qp->type == SOFTHCA_QPT_RC &&
		   softhca_hw_comp_rx(hw, qp, pkt, true)) {
		/*
		 * An answer (ACK, NAK, READ response, atomic ACK) is taken
		 * only from the host and address the requester's path leads
		 * to (only RC requesters take answers): any other host can
		 * name the QP's number, and a forged ACK would complete WQEs
		 * never delivered, a forged READ response write into the
		 * requester's buffer.
		 */
		softhca_hw_engine_answered(hw, qp);
	} else {
		softhca_hw_count(hw, drop_not_peer);
	}
	softhca_hw_qp_put(qp);
}

/* The receive path of the bound netdev: take the card's frames. */
static rx_handler_result_t softhca_hw_roce_rx(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct softhca_hw *hw = rcu_dereference(skb->dev->rx_handler_data);
	struct softhca_hw_pkt pkt;
	u32 ip_len, len;
	struct udphdr *udp;
	u8 gid[16], *l3;
	bool v4;

	if (!hw || READ_ONCE(hw->halted))
		return RX_HANDLER_PASS;
	if (skb->protocol == htons(ETH_P_IP))
		v4 = true;
	else if (skb->protocol == htons(ETH_P_IPV6))
		v4 = false;
	else
		return RX_HANDLER_PASS;
	/* a packet tap (tcpdump) may hold it too: pull only our own copy */
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	*pskb = skb;
	ip_len = v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	if (!pskb_may_pull(skb, ip_len + sizeof(*udp)))
		return RX_HANDLER_PASS;
	l3 = skb->data;
	if (v4) {
		const struct iphdr *ip = (const void *)l3;

		if (ip->version != 4 || ip->ihl != 5 ||
		    ip->protocol != IPPROTO_UDP ||
		    (ip->frag_off & htons(IP_MF | IP_OFFSET)))
			return RX_HANDLER_PASS;
		softhca_hw_roce_v4_gid(gid, ip->daddr);
		len = ntohs(ip->tot_len);
	} else {
		const struct ipv6hdr *ip6 = (const void *)l3;

		if (ip6->version != 6 || ip6->nexthdr != IPPROTO_UDP)
			return RX_HANDLER_PASS;
		memcpy(gid, &ip6->daddr, 16);
		len = ip_len + ntohs(ip6->payload_len);
	}
	udp = (struct udphdr *)(l3 + ip_len);
	if (udp->dest != htons(SOFTHCA_ROCE_PORT) ||
	    !softhca_hw_gid_is_local(hw, gid))
		return RX_HANDLER_PASS;

	/* the card's from here on */
	if (skb_linearize(skb) || len > skb->len ||
	    ntohs(((struct udphdr *)(skb->data + ip_len))->len) !=
	    len - ip_len || len < ip_len + sizeof(*udp) + SOFTHCA_ICRC_SIZE) {
		softhca_hw_count(hw, drop_malformed);
		goto out;
	}
	l3 = skb->data;
	if (v4 && ip_fast_csum(l3, 5)) {
		softhca_hw_count(hw, drop_malformed);
		goto out;
	}
	if (le32_to_cpu(*(__le32 *)(l3 + len - SOFTHCA_ICRC_SIZE)) !=
	    softhca_hw_icrc(l3, len - SOFTHCA_ICRC_SIZE, v4)) {
		softhca_hw_count(hw, drop_icrc);
		goto out;
	}
	if (!softhca_hw_roce_parse(l3, len, v4, &pkt)) {
		softhca_hw_count(hw, drop_malformed);
		goto out;
	}
	softhca_hw_count(hw, rx_packets);
	softhca_hw_count_n(hw, rx_bytes, pkt.len);
	softhca_hw_roce_deliver(hw, &pkt);
out:
	consume_skb(skb);
	return RX_HANDLER_CONSUMED;
}

/**
 * softhca_hw_attach_netdev - wire the card's port to @ndev
 * @hw: the card
 * @ndev: the netdev
 *
 * Return: 0, or -EBUSY when the netdev has a receive handler already (it
 * is a bridge or bond port, or another card's).
 */
int softhca_hw_attach_netdev(struct softhca_hw *hw, struct net_device *ndev)
{
	int ret;

	rtnl_lock();
	ret = netdev_rx_handler_register(ndev, softhca_hw_roce_rx, hw);
	if (!ret) {
		dev_hold(ndev);
		rcu_assign_pointer(hw->ndev, ndev);
	}
	rtnl_unlock();
	return ret;
}

/* Unwire the port (@rtnl_held: the caller holds RTNL). */
void softhca_hw_detach_netdev(struct softhca_hw *hw, bool rtnl_held)
{
	struct net_device *ndev;

	if (!rtnl_held)
		rtnl_lock();
	ndev = rtnl_dereference(hw->ndev);
	if (ndev) {
		netdev_rx_handler_unregister(ndev);
		RCU_INIT_POINTER(hw->ndev, NULL);
	}
	if (!rtnl_held)
		rtnl_unlock();
	if (ndev) {
		synchronize_net();	/* no sender or receiver uses it now */
		dev_put(ndev);
	}
}
