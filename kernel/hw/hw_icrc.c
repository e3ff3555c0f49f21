// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the RoCEv2 invariant CRC. A CRC-32 (the Ethernet
 * polynomial, reflected: crc32_le) over the packet from its IP header to
 * the end of the payload's pad, with the fields a router may change
 * masked to ones (IPv4 TOS, TTL and header checksum; IPv6 traffic class,
 * flow label and hop limit; the UDP checksum; the BTH's reserved byte
 * after the flags), preceded by the 8 bytes of ones that stand for IB's
 * LRH: so the CRC starts from 0xdebb20e3, the state after them. The
 * result is inverted and sent little-endian after the pad (IBTA annex 17).
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include "hw.h"

#define SOFTHCA_HW_ICRC_SEED	0xdebb20e3u	/* crc32_le(~0, 8 x 0xff) */

/**
 * softhca_hw_icrc - the ICRC of a RoCEv2 packet
 * @l3: its IP header; the UDP header and the BTH follow
 * @len: bytes from @l3 to the end of the pad (the ICRC excluded)
 * @ipv4: the network header is IPv4 (else IPv6)
 *
 * Return: the ICRC as it is sent (store it with cpu_to_le32()).
 */
u32 softhca_hw_icrc(const u8 *l3, u32 len, bool ipv4)
{
	u32 ip_len = ipv4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	u32 hdr_len = ip_len + sizeof(struct udphdr) +
		      sizeof(struct softhca_hw_bth);
	u8 hdr[sizeof(struct ipv6hdr) + sizeof(struct udphdr) +
	       sizeof(struct softhca_hw_bth)];
	u8 *udp = hdr + ip_len, *bth = udp + sizeof(struct udphdr);
	u32 crc;

	if (len < hdr_len)
		return 0;
	memcpy(hdr, l3, hdr_len);
	if (ipv4) {
		hdr[1] = 0xff;			/* TOS */
		hdr[8] = 0xff;			/* TTL */
		hdr[10] = 0xff;			/* header checksum */
		hdr[11] = 0xff;
	} else {
		hdr[0] |= 0x0f;			/* traffic class, */
		hdr[1] = 0xff;			/* flow label */
		hdr[2] = 0xff;
		hdr[3] = 0xff;
		hdr[7] = 0xff;			/* hop limit */
	}
	udp[6] = 0xff;				/* UDP checksum */
	udp[7] = 0xff;
	bth[4] = 0xff;				/* reserved byte */
	crc = crc32_le(SOFTHCA_HW_ICRC_SEED, hdr, hdr_len);
	crc = crc32_le(crc, l3 + hdr_len, len - hdr_len);
	return ~crc;
}
