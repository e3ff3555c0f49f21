// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the 40 bytes a UD (or GSI) receive gets in front
 * of the payload, exactly as RoCEv2 devices deliver them: the packet's
 * IPv6 header, or for IPv4 (the GIDs are IPv4-mapped) 20 zero bytes and
 * then its IPv4 header, with a valid checksum. ib_core reads the
 * addresses from it (ib_init_ah_attr_from_wc) and checks the IPv4
 * checksum. The header is the one the packet has (or, between QPs of
 * this card, would have) on the wire: same lengths, TTL and class.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/checksum.h>

#include "hw.h"

#define SOFTHCA_HW_ICRC_SIZE	4

/* Is @gid an IPv4-mapped IPv6 address (::ffff:a.b.c.d)? */
bool softhca_hw_gid_is_v4(const u8 *gid)
{
	static const u8 prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};

	return !memcmp(gid, prefix, sizeof(prefix));
}

/*
 * The UDP length of @pkt on the wire: UDP header, BTH, extension headers,
 * payload padded to 4 bytes, ICRC.
 */
u32 softhca_hw_udp_len(const struct softhca_hw_pkt *pkt)
{
	u32 mask = softhca_hw_opcode_mask(pkt->opcode);
	u32 len = sizeof(struct udphdr) + sizeof(struct softhca_hw_bth);

	if (mask & SOFTHCA_OPM_RETH)
		len += sizeof(struct softhca_hw_reth);
	if (mask & SOFTHCA_OPM_AETH)
		len += sizeof(struct softhca_hw_aeth);
	if (mask & SOFTHCA_OPM_ATMETH)
		len += sizeof(struct softhca_hw_atmeth);
	if (mask & SOFTHCA_OPM_ATMACK)
		len += sizeof(struct softhca_hw_atmack);
	if (mask & (SOFTHCA_OPM_IMMDT | SOFTHCA_OPM_IETH))
		len += sizeof(__be32);
	if (mask & SOFTHCA_OPM_DETH)
		len += sizeof(struct softhca_hw_deth);
	return len + ALIGN(pkt->len, 4) + SOFTHCA_HW_ICRC_SIZE;
}

/**
 * softhca_hw_grh_build - the network header of UD packet @pkt
 * @grh: SOFTHCA_HW_GRH_SIZE bytes
 * @pkt: the packet (addresses, hop limit, traffic class, flow label)
 */
void softhca_hw_grh_build(u8 *grh, const struct softhca_hw_pkt *pkt)
{
	u32 udp_len = softhca_hw_udp_len(pkt);

	memset(grh, 0, SOFTHCA_HW_GRH_SIZE);
	if (softhca_hw_gid_is_v4(pkt->sgid)) {
		struct iphdr *ip = (struct iphdr *)(grh + 20);

		ip->version = 4;
		ip->ihl = 5;
		ip->tos = pkt->tclass;
		ip->tot_len = htons(sizeof(*ip) + udp_len);
		ip->frag_off = htons(0x4000);	/* DF */
		ip->ttl = pkt->hop_limit;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, pkt->sgid + 12, 4);
		memcpy(&ip->daddr, pkt->dgid + 12, 4);
		ip->check = ip_fast_csum((u8 *)ip, ip->ihl);
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)grh;

		*(__be32 *)ip6 = htonl(6 << 28 | (u32)pkt->tclass << 20 |
				       (pkt->flow_label & 0xfffff));
		ip6->payload_len = htons(udp_len);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = pkt->hop_limit;
		memcpy(&ip6->saddr, pkt->sgid, 16);
		memcpy(&ip6->daddr, pkt->dgid, 16);
	}
}
