#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""RoCEv2 packets made and checked independently of the card.

  roce.py inject <src-ip> <dst-ip> <count>
    Sends <count> random UDP payloads (0 to 1400 bytes; some too short to
    hold a BTH) to <dst>:4791 from <src>, then one well-formed IPv4
    RoCEv2 packet built here, its ICRC computed here (IBTA annex 17, with
    zlib's CRC-32): an RC SEND ONLY for QP 0xabcdef, which does not exist.

  roce.py ack <src-ip> <dst-ip> <qpn> <psn>
    Sends one RC ACKNOWLEDGE (an AETH saying ACK, valid ICRC) for QP
    <qpn>, PSN <psn>, from <src>: an answer forged by a host that is not
    the QP's peer.

  roce.py check-pcap <file> [<ip> <n>]
    Recomputes the ICRC of every RoCEv2 frame (UDP 4791, IPv4 or IPv6) of
    a tcpdump capture; fails if one differs or there are none. With <ip>,
    also prints the first <n> frames from that address in hex.
"""
import random
import socket
import struct
import sys
import zlib

ROCE_PORT = 4791


def ip_checksum(hdr):
    s = sum(struct.unpack("!10H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def icrc(l3, v4=True):
    """The ICRC of a RoCEv2 packet (IP header on, ICRC off), as sent."""
    m = bytearray(l3)
    if v4:
        m[1] = 0xFF             # TOS
        m[8] = 0xFF             # TTL
        m[10:12] = b"\xff\xff"  # header checksum
        udp = 20
    else:
        m[0] |= 0x0F            # traffic class
        m[1:4] = b"\xff\xff\xff"  # and flow label
        m[7] = 0xFF             # hop limit
        udp = 40
    m[udp + 6:udp + 8] = b"\xff\xff"  # UDP checksum
    m[udp + 12] = 0xFF          # BTH reserved byte
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF)


def check_pcap(path, dump_src=None, dump_n=0):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    linktype = struct.unpack(end + "I", data[20:24])[0]
    off, n, bad = 24, 0, 0
    while off + 16 <= len(data):
        caplen, origlen = struct.unpack(end + "II", data[off + 8:off + 16])
        frame = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        if linktype != 1 or caplen != origlen or len(frame) < 14:
            continue
        etype = struct.unpack("!H", frame[12:14])[0]
        l3 = frame[14:]
        if etype == 0x0800 and len(l3) >= 28 and l3[9] == 17:
            v4, ulen = True, 20
            total = struct.unpack("!H", l3[2:4])[0]
        elif etype == 0x86DD and len(l3) >= 48 and l3[6] == 17:
            v4, ulen = False, 40
            total = 40 + struct.unpack("!H", l3[4:6])[0]
        else:
            continue
        if struct.unpack("!H", l3[ulen + 2:ulen + 4])[0] != ROCE_PORT:
            continue
        pkt = l3[:total]
        n += 1
        if dump_n and v4 and socket.inet_ntoa(pkt[12:16]) == dump_src:
            dump_n -= 1
            print(f"frame {n} from {dump_src}: {pkt.hex()}")
        if icrc(pkt[:-4], v4) != pkt[-4:]:
            bad += 1
            print(f"frame {n}: ICRC {pkt[-4:].hex()}, computed "
                  f"{icrc(pkt[:-4], v4).hex()}")
    print(f"{path}: {n} RoCEv2 frames, {bad} with a wrong ICRC")
    return n > 0 and bad == 0


def rc_packet(src, dst, opcode, qpn, psn, payload):
    """An IPv4 RoCEv2 packet: BTH of <opcode>, then <payload>, then ICRC."""
    bth = struct.pack("!BBHII", opcode, 0, 0xFFFF, qpn & 0xFFFFFF,
                      psn & 0xFFFFFF)
    udp_len = 8 + len(bth) + len(payload) + 4
    tot = 20 + udp_len
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, 0x1234, 0x4000, 64,
                     socket.IPPROTO_UDP, 0, socket.inet_aton(src),
                     socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", ip_checksum(ip)) + ip[12:]
    udp = struct.pack("!HHHH", 0xC000, ROCE_PORT, udp_len, 0)
    pkt = ip + udp + bth + payload
    return pkt + icrc(pkt)


def send_only(src, dst, qpn, psn, payload):
    return rc_packet(src, dst, 0x04, qpn, psn, payload)


def raw_send(src, dst, pkt):
    r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    r.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    r.sendto(pkt, (dst, 0))


def main():
    if sys.argv[1] == "check-pcap":
        dump = sys.argv[3:5] if len(sys.argv) >= 5 else (None, 0)
        sys.exit(0 if check_pcap(sys.argv[2], dump[0], int(dump[1])) else 1)
    if sys.argv[1] == "ack":
        src, dst = sys.argv[2], sys.argv[3]
        qpn, psn = int(sys.argv[4], 0), int(sys.argv[5], 0)
        aeth = struct.pack("!I", 0x1F << 24 | 1)    # ACK, credits invalid, MSN 1
        raw_send(src, dst, rc_packet(src, dst, 0x11, qpn, psn, aeth))
        print(f"sent an RC ACK for QP {qpn:#x} PSN {psn:#x} from {src}")
        return
    src, dst, count = sys.argv[2], sys.argv[3], int(sys.argv[4])
    rnd = random.Random(4791)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((src, 0))
    for i in range(count):
        n = rnd.choice((0, 1, 3, rnd.randrange(0, 1400)))
        u.sendto(bytes(rnd.randrange(256) for _ in range(n)),
                 (dst, ROCE_PORT))
    raw_send(src, dst, send_only(src, dst, 0xABCDEF, 0, b"softhca-hostile!"))
    print(f"sent {count} random payloads and one SEND ONLY to QP 0xabcdef")


if __name__ == "__main__":
    main()
