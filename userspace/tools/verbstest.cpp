// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca-verbstest: data-path checks through libibverbs on two QPs of one
 * device connected to each other: data integrity of SEND/WRITE/READ over
 * random sizes and SGE layouts, immediate data, atomics, inline data, the
 * error completions of protection and access violations, flushing, RNR and
 * transport retries, solicited events and completion channels, and the
 * lookups the card keeps between messages going stale with the MR or QP,
 * malformed WQEs written into a send queue, and the wake-up file's answers
 * to good and bad calls.
 *
 *   softhca-verbstest <ibdev> <gid-index> [test...]
 *
 * SOFTHCA_ABSENT_GID names a reachable neighbour address that is no GID
 * of this device (the "retry" test sends there). SOFTHCA_GARBAGE_ROUNDS
 * sets the rounds of the "garbage" test (200) and traces each one.
 * Prints "PASS <case>" or "FAIL <case>: <why>"; exits 1 if any case failed.
 */
#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <arpa/inet.h>
#include <atomic>
#include <netinet/in.h>
#include <cstring>
#include <endian.h>
#include <fcntl.h>
#include <memory>
#include <functional>
#include <poll.h>
#include <random>
#include <string>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>

#include "../../include/softhca_abi.h"
#include "../provider/softhca.h"

namespace {

int failures;
std::string dev_name;
int gid_index;
union ibv_gid absent_gid; /* a neighbour's address, not ours */
std::mt19937_64 rng(12345);

void result(bool ok, const std::string &name, const std::string &why = "")
{
	if (ok) {
		printf("PASS %s\n", name.c_str());
	} else {
		printf("FAIL %s: %s\n", name.c_str(), why.c_str());
		failures++;
	}
	fflush(stdout);
}

std::string str(uint64_t v)
{
	return std::to_string(v);
}

double now_ms()
{
	using namespace std::chrono;
	return duration<double, std::milli>(
		       steady_clock::now().time_since_epoch())
		.count();
}

/*
 * Memory registered on a PD, filled with a pattern. Huge: on 2 MiB
 * boundaries and backed by transparent huge pages where the kernel has
 * them, for a buffer that only has to be large (faulting in 1 GiB of
 * 4 KiB pages took 12 to 17 s on the debug kernel).
 */
struct Buf {
	static constexpr size_t kHugePageSize = 2UL << 20;
	uint8_t *p = nullptr;
	size_t len = 0;
	ibv_mr *mr = nullptr;
	void *map = nullptr;
	size_t maplen = 0;

	enum class Pages { kSmall, kHuge };

	Buf(ibv_pd *pd, size_t n, int access, Pages pages = Pages::kSmall)
	{
		len = n;
		maplen = pages == Pages::kHuge ? n + kHugePageSize : n;
		map = mmap(nullptr, maplen, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED) {
			perror("mmap");
			exit(2);
		}
		uintptr_t at = reinterpret_cast<uintptr_t>(map);

		if (pages == Pages::kHuge) {
			at = (at + kHugePageSize - 1) & ~(kHugePageSize - 1);
			/* a hint: without huge pages the buffer is the same */
			madvise(reinterpret_cast<void *>(at), n, MADV_HUGEPAGE);
		}
		p = reinterpret_cast<uint8_t *>(at);
		memset(p, 0, n);
		mr = ibv_reg_mr(pd, p, n, access);
		if (!mr) {
			perror("reg_mr");
			exit(2);
		}
	}
	~Buf()
	{
		ibv_dereg_mr(mr);
		munmap(map, maplen);
	}
	uint64_t addr(size_t off = 0) const
	{
		return reinterpret_cast<uintptr_t>(p) + off;
	}
};

const int kAllAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

struct Dev {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	union ibv_gid gid;

	Dev()
	{
		int n;
		ibv_device **list = ibv_get_device_list(&n);

		for (int i = 0; list && i < n; i++)
			if (dev_name == ibv_get_device_name(list[i]))
				ctx = ibv_open_device(list[i]);
		ibv_free_device_list(list);
		if (!ctx) {
			fprintf(stderr, "cannot open %s\n", dev_name.c_str());
			exit(2);
		}
		pd = ibv_alloc_pd(ctx);
		if (!pd || ibv_query_gid(ctx, 1, gid_index, &gid)) {
			fprintf(stderr, "pd/gid failed\n");
			exit(2);
		}
	}
	~Dev()
	{
		ibv_dealloc_pd(pd);
		ibv_close_device(ctx);
	}
};

struct QpOpts {
	ibv_qp_type type = IBV_QPT_RC;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	uint8_t timeout = 14;
	uint8_t retry_cnt = 7;
	uint8_t rnr_retry = 7;
	uint8_t min_rnr_timer = 1; /* 0.01 ms */
	uint32_t max_wr = 64;
	uint32_t max_sge = 16;
	uint32_t max_inline = 128;
	int cq_entries = 256;
	ibv_cq *a_cq =
		nullptr; /* A's CQ, made by the caller (else made here) */
	bool channel = false;
	ibv_mtu mtu = IBV_MTU_1024;
	uint32_t psn = 0;	  /* the first PSN of both directions */
	ibv_srq *srq_b = nullptr; /* B receives from this SRQ */
};

/* Two QPs, A and B, each with its own CQ, connected to each other. */
struct Pair {
	Dev &d;
	QpOpts o;
	ibv_comp_channel *ch = nullptr;
	ibv_cq *cqa = nullptr, *cqb = nullptr;
	ibv_qp *a = nullptr, *b = nullptr;

	Pair(Dev &dev, QpOpts opts = QpOpts(), uint32_t a_dest = 0,
	     bool a_remote_gid = false)
	    : d(dev), o(opts)
	{
		if (o.channel)
			ch = ibv_create_comp_channel(d.ctx);
		cqa = o.a_cq ? o.a_cq
			     : ibv_create_cq(d.ctx, o.cq_entries, nullptr, ch,
					     0);
		cqb = ibv_create_cq(d.ctx, 256, nullptr, ch,
				    d.ctx->num_comp_vectors - 1);
		a = make_qp(cqa, nullptr);
		b = make_qp(cqb, o.srq_b);
		if (!cqa || !cqb || !a || !b) {
			fprintf(stderr, "pair setup failed: %s\n",
				strerror(errno));
			exit(2);
		}
		connect(a, a_dest ? a_dest : b->qp_num, a_remote_gid);
		connect(b, a->qp_num, false);
	}
	~Pair()
	{
		if (a)
			ibv_destroy_qp(a);
		if (b)
			ibv_destroy_qp(b);
		if (!o.a_cq)
			ibv_destroy_cq(cqa);
		ibv_destroy_cq(cqb);
		if (ch)
			ibv_destroy_comp_channel(ch);
	}

	ibv_qp *make_qp(ibv_cq *cq, ibv_srq *srq)
	{
		ibv_qp_init_attr ia = {};

		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.srq = srq;
		ia.qp_type = o.type;
		ia.cap.max_send_wr = o.max_wr;
		ia.cap.max_recv_wr = o.max_wr;
		ia.cap.max_send_sge = o.max_sge;
		ia.cap.max_recv_sge = o.max_sge;
		ia.cap.max_inline_data = o.max_inline;
		return ibv_create_qp(d.pd, &ia);
	}

	void connect(ibv_qp *qp, uint32_t dest, bool remote_gid)
	{
		connect_qp(d, o, qp, dest, remote_gid);
	}

	static void connect_qp(Dev &d, const QpOpts &o, ibv_qp *qp,
			       uint32_t dest, bool remote_gid)
	{
		ibv_qp_attr at = {};

		at.qp_state = IBV_QPS_INIT;
		at.pkey_index = 0;
		at.port_num = 1;
		at.qp_access_flags = o.access;
		check(ibv_modify_qp(qp, &at,
				    IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
		      "INIT");
		at = {};
		at.qp_state = IBV_QPS_RTR;
		at.path_mtu = o.mtu;
		at.dest_qp_num = dest;
		at.rq_psn = o.psn;
		at.ah_attr.is_global = 1;
		at.ah_attr.grh.dgid = d.gid;
		if (remote_gid) /* an address nobody here answers to */
			at.ah_attr.grh.dgid = absent_gid;
		at.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index);
		at.ah_attr.grh.hop_limit = 64;
		at.ah_attr.port_num = 1;
		int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (o.type == IBV_QPT_RC) {
			at.max_dest_rd_atomic = 4;
			at.min_rnr_timer = o.min_rnr_timer;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
		check(ibv_modify_qp(qp, &at, mask), "RTR");
		at = {};
		at.qp_state = IBV_QPS_RTS;
		at.sq_psn = o.psn;
		mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (o.type == IBV_QPT_RC) {
			at.timeout = o.timeout;
			at.retry_cnt = o.retry_cnt;
			at.rnr_retry = o.rnr_retry;
			at.max_rd_atomic = 4;
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		check(ibv_modify_qp(qp, &at, mask), "RTS");
	}

	static void check(int rc, const char *what)
	{
		if (rc) {
			fprintf(stderr, "modify %s: %s\n", what, strerror(rc));
			exit(2);
		}
	}
};

/*
 * Poll @cq until @n completions or @ms milliseconds. The default is a
 * generous deadline for what must come (it costs nothing when it comes);
 * only a check that something does not happen passes a short window.
 */
constexpr int kDeadlineMs = 30000;
std::vector<ibv_wc> poll_n(ibv_cq *cq, size_t n, double ms = kDeadlineMs)
{
	std::vector<ibv_wc> out;
	double end = now_ms() + ms;

	while (out.size() < n && now_ms() < end) {
		ibv_wc wc[16];
		int got = ibv_poll_cq(cq, 16, wc);

		if (got < 0)
			break;
		out.insert(out.end(), wc, wc + got);
	}
	return out;
}

int post_send(ibv_qp *qp, ibv_wr_opcode op, std::vector<ibv_sge> sges,
	      uint64_t wr_id, int flags = IBV_SEND_SIGNALED, uint64_t raddr = 0,
	      uint32_t rkey = 0, uint32_t imm = 0)
{
	ibv_send_wr wr = {}, *bad;

	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.sg_list = sges.data();
	wr.num_sge = static_cast<int>(sges.size());
	wr.send_flags = flags;
	wr.imm_data = htobe32(imm);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

int post_recv(ibv_qp *qp, std::vector<ibv_sge> sges, uint64_t wr_id)
{
	ibv_recv_wr wr = {}, *bad;

	wr.wr_id = wr_id;
	wr.sg_list = sges.data();
	wr.num_sge = static_cast<int>(sges.size());
	return ibv_post_recv(qp, &wr, &bad);
}

/* Split [off, off + len) of @b into @n SGEs at random points. */
std::vector<ibv_sge> split(const Buf &b, size_t off, size_t len, int n)
{
	std::vector<size_t> cuts = { 0, len };
	std::vector<ibv_sge> out;

	for (int i = 1; i < n && len; i++)
		cuts.push_back(rng() % (len + 1));
	std::sort(cuts.begin(), cuts.end());
	for (size_t i = 0; i + 1 < cuts.size(); i++) {
		ibv_sge s = {};

		s.addr = b.addr(off + cuts[i]);
		s.length = static_cast<uint32_t>(cuts[i + 1] - cuts[i]);
		s.lkey = b.mr->lkey;
		out.push_back(s);
	}
	return out;
}

void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = static_cast<uint8_t>(rng());
}

std::string wc_desc(const ibv_wc &wc)
{
	return std::string(ibv_wc_status_str(wc.status)) + " op " +
	       str(wc.opcode) + " wr_id " + str(wc.wr_id) + " len " +
	       str(wc.byte_len) + " vendor_err " + str(wc.vendor_err);
}

/* ---- data integrity ------------------------------------------------- */

size_t random_size()
{
	static const size_t edges[] = {
		0,    1,     7,	    63,	   64,	    4095,	  4096,
		4097, 65535, 65536, 65537, 1 << 20, (1 << 20) + 3
	};
	if (rng() % 2)
		return edges[rng() % (sizeof(edges) / sizeof(edges[0]))];
	return rng() % (1 << 20);
}

void test_integrity(ibv_qp_type type, int rounds)
{
	Dev d;
	QpOpts o;
	o.type = type;
	Pair p(d, o);
	const size_t region = 4 << 20, guard = 4096;
	Buf src(d.pd, region, kAllAccess), dst(d.pd, region, kAllAccess);
	std::string tag = type == IBV_QPT_RC ? "rc" : "uc";
	std::vector<ibv_wr_opcode> ops = { IBV_WR_SEND, IBV_WR_RDMA_WRITE };
	if (type == IBV_QPT_RC)
		ops.push_back(IBV_WR_RDMA_READ);

	for (ibv_wr_opcode op : ops) {
		std::string name = tag + ".integrity-" +
				   (op == IBV_WR_SEND	      ? "send"
				    : op == IBV_WR_RDMA_WRITE ? "write"
							      : "read");
		std::string why;

		for (int r = 0; r < rounds && why.empty(); r++) {
			size_t len = random_size();
			size_t soff = guard + rng() % 4096;
			size_t doff = guard + rng() % 4096;
			int ns = 1 + static_cast<int>(rng() % 16);
			int nd = 1 + static_cast<int>(rng() % 16);

			fill_random(src.p, region);
			memset(dst.p, 0xa5, region);
			/* the target of READ is local (dst), the source remote
			 */
			if (op == IBV_WR_SEND &&
			    post_recv(p.b, split(dst, doff, len, nd), 77)) {
				why = "post_recv failed";
				break;
			}
			int rc;
			if (op == IBV_WR_RDMA_READ)
				rc = post_send(p.a, op,
					       split(dst, doff, len, nd), r,
					       IBV_SEND_SIGNALED,
					       src.addr(soff), src.mr->rkey);
			else
				rc = post_send(p.a, op,
					       split(src, soff, len, ns), r,
					       IBV_SEND_SIGNALED,
					       dst.addr(doff), dst.mr->rkey);
			if (rc) {
				why = "post_send: " + std::string(strerror(rc));
				break;
			}
			auto wa = poll_n(p.cqa, 1);
			if (wa.size() != 1 || wa[0].status != IBV_WC_SUCCESS ||
			    wa[0].wr_id != static_cast<uint64_t>(r)) {
				why = "requester completion: " +
				      (wa.empty() ? "none" : wc_desc(wa[0]));
				break;
			}
			if (op == IBV_WR_RDMA_READ && wa[0].byte_len != len)
				why = "read byte_len " + str(wa[0].byte_len);
			if (op == IBV_WR_SEND) {
				auto wb = poll_n(p.cqb, 1);
				if (wb.size() != 1 ||
				    wb[0].status != IBV_WC_SUCCESS ||
				    wb[0].opcode != IBV_WC_RECV ||
				    wb[0].byte_len != len ||
				    wb[0].wr_id != 77 ||
				    wb[0].qp_num != p.b->qp_num) {
					why = "receive completion: " +
					      (wb.empty() ? "none"
							  : wc_desc(wb[0]));
					break;
				}
			}
			if (memcmp(dst.p + doff, src.p + soff, len) != 0)
				why = "data differs, " + str(len) + " bytes";
			else if (dst.p[doff - 1] != 0xa5 ||
				 (doff + len < region &&
				  dst.p[doff + len] != 0xa5))
				why = "bytes outside the target were written";
			if (!why.empty())
				why += " (round " + str(r) + ", len " +
				       str(len) + ", sges " + str(ns) + "/" +
				       str(nd) + ")";
		}
		result(why.empty(), name, why);
	}
}

/* ---- immediate data, inline data, atomics --------------------------- */

void test_imm_inline()
{
	Dev d;
	Pair p(d);
	Buf src(d.pd, 8192, kAllAccess), dst(d.pd, 8192, kAllAccess);

	fill_random(src.p, 8192);
	post_recv(p.b, { { dst.addr(), 100, dst.mr->lkey } }, 1);
	post_send(p.a, IBV_WR_SEND_WITH_IMM,
		  { { src.addr(), 100, src.mr->lkey } }, 2, IBV_SEND_SIGNALED,
		  0, 0, 0xdeadbeef);
	auto wb = poll_n(p.cqb, 1);
	result(wb.size() == 1 && wb[0].status == IBV_WC_SUCCESS &&
		       (wb[0].wc_flags & IBV_WC_WITH_IMM) &&
		       be32toh(wb[0].imm_data) == 0xdeadbeef &&
		       wb[0].opcode == IBV_WC_RECV && wb[0].byte_len == 100 &&
		       !memcmp(dst.p, src.p, 100),
	       "rc.send-with-imm", wb.empty() ? "none" : wc_desc(wb[0]));
	poll_n(p.cqa, 1);

	post_recv(p.b, {}, 3);
	post_send(p.a, IBV_WR_RDMA_WRITE_WITH_IMM,
		  { { src.addr(100), 2000, src.mr->lkey } }, 4,
		  IBV_SEND_SIGNALED, dst.addr(1000), dst.mr->rkey, 0x01020304);
	wb = poll_n(p.cqb, 1);
	result(wb.size() == 1 && wb[0].status == IBV_WC_SUCCESS &&
		       wb[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
		       (wb[0].wc_flags & IBV_WC_WITH_IMM) &&
		       be32toh(wb[0].imm_data) == 0x01020304 &&
		       wb[0].wr_id == 3 &&
		       !memcmp(dst.p + 1000, src.p + 100, 2000),
	       "rc.write-with-imm", wb.empty() ? "none" : wc_desc(wb[0]));
	poll_n(p.cqa, 1);

	/* inline data: the source buffer may change right after posting */
	ibv_qp_attr qa;
	ibv_qp_init_attr qi;
	ibv_query_qp(p.a, &qa, IBV_QP_CAP, &qi);
	uint32_t inl = qi.cap.max_inline_data;
	std::vector<uint8_t> local(inl);
	fill_random(local.data(), inl);
	post_recv(p.b, { { dst.addr(), inl, dst.mr->lkey } }, 5);
	ibv_sge s = { reinterpret_cast<uintptr_t>(local.data()), inl, 0 };
	int rc = post_send(p.a, IBV_WR_SEND, { s }, 6,
			   IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	std::vector<uint8_t> sent = local;
	memset(local.data(), 0, inl);
	wb = poll_n(p.cqb, 1);
	result(rc == 0 && inl >= 128 && wb.size() == 1 &&
		       wb[0].status == IBV_WC_SUCCESS &&
		       wb[0].byte_len == inl &&
		       !memcmp(dst.p, sent.data(), inl),
	       "rc.inline-send-" + str(inl) + "-bytes",
	       rc ? strerror(rc) : (wb.empty() ? "none" : wc_desc(wb[0])));
	poll_n(p.cqa, 1);
	s.length = inl + 1;
	rc = post_send(p.a, IBV_WR_SEND, { s }, 7,
		       IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	result(rc == EINVAL, "rc.inline-over-max-einval",
	       "post returned " + str(rc));

	/* atomics: the old value comes back in the local SGE */
	auto *target = reinterpret_cast<uint64_t *>(dst.p + 4096);
	auto *ret = reinterpret_cast<uint64_t *>(src.p + 4096);
	*target = 100;
	ibv_send_wr wr = {}, *bad;
	ibv_sge as = { src.addr(4096), 8, src.mr->lkey };
	wr.sg_list = &as;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = dst.addr(4096);
	wr.wr.atomic.rkey = dst.mr->rkey;
	wr.wr.atomic.compare_add = 23;
	ibv_post_send(p.a, &wr, &bad);
	auto wa = poll_n(p.cqa, 1);
	result(wa.size() == 1 && wa[0].status == IBV_WC_SUCCESS &&
		       wa[0].opcode == IBV_WC_FETCH_ADD && *ret == 100 &&
		       *target == 123,
	       "rc.atomic-fetch-add",
	       "ret " + str(*ret) + " target " + str(*target));
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 123;
	wr.wr.atomic.swap = 7;
	ibv_post_send(p.a, &wr, &bad);
	wa = poll_n(p.cqa, 1);
	result(wa.size() == 1 && wa[0].status == IBV_WC_SUCCESS &&
		       wa[0].opcode == IBV_WC_COMP_SWAP && *ret == 123 &&
		       *target == 7,
	       "rc.atomic-cmp-swap-hit",
	       "ret " + str(*ret) + " target " + str(*target));
	wr.wr.atomic.compare_add = 999;
	wr.wr.atomic.swap = 55;
	ibv_post_send(p.a, &wr, &bad);
	wa = poll_n(p.cqa, 1);
	result(wa.size() == 1 && wa[0].status == IBV_WC_SUCCESS && *ret == 7 &&
		       *target == 7,
	       "rc.atomic-cmp-swap-miss",
	       "ret " + str(*ret) + " target " + str(*target));
}

/* ---- unsignaled completions, many WQEs, ring wrap ------------------- */

void test_unsignaled_wrap()
{
	Dev d;
	QpOpts o;
	o.max_wr = 16;
	Pair p(d, o);
	Buf src(d.pd, 1 << 20, kAllAccess), dst(d.pd, 1 << 20, kAllAccess);
	std::string why;
	std::vector<uint32_t> lens(320);

	fill_random(src.p, 1 << 20);
	memset(dst.p, 0xa5, 1 << 20);
	/* 40 rounds of 8 writes, one in 4 signaled; inline sizes vary so
	 * WQEs of 1..3 basic blocks wrap around the ring */
	for (int r = 0; r < 40 && why.empty(); r++) {
		for (int i = 0; i < 8; i++) {
			uint32_t len = 1 + static_cast<uint32_t>(rng() % 120);
			size_t off = static_cast<size_t>(r * 8 + i) * 256;
			lens[r * 8 + i] = len;
			int flags = (i % 4 == 3 ? IBV_SEND_SIGNALED : 0) |
				    (i % 2 ? IBV_SEND_INLINE : 0);
			int rc = post_send(
				p.a, IBV_WR_RDMA_WRITE,
				{ { src.addr(off), len, src.mr->lkey } },
				1000 + r * 8 + i, flags, dst.addr(off),
				dst.mr->rkey);
			if (rc)
				why = "post " + str(r * 8 + i) + ": " +
				      strerror(rc);
		}
		auto wa = poll_n(p.cqa, 2);
		if (wa.size() != 2 || wa[0].wr_id != 1000u + r * 8 + 3 ||
		    wa[1].wr_id != 1000u + r * 8 + 7)
			why = "round " + str(r) + ": " +
			      (wa.empty() ? "none" : wc_desc(wa[0]));
	}
	/* every byte: each write's own, and the untouched 0xa5 after it */
	std::string diff;
	for (size_t k = 0; k < 320 && diff.empty(); k++)
		for (size_t i = 0; i < 256 && diff.empty(); i++) {
			size_t at = k * 256 + i;
			uint8_t want = i < lens[k] ? src.p[at] : 0xa5;
			if (dst.p[at] != want)
				diff = "write " + str(k) + " (" + str(lens[k]) +
				       " bytes): byte " + str(i) + " is " +
				       str(dst.p[at]) + ", want " + str(want);
		}
	for (size_t at = 320 * 256; at < (1 << 20) && diff.empty(); at++)
		if (dst.p[at] != 0xa5)
			diff = "byte " + str(at) + " past the writes changed";
	result(why.empty() && diff.empty(), "rc.unsignaled-and-ring-wrap",
	       why.empty() ? diff : why);
}

/*
 * 70000 SENDs with immediate data, 32 at a time: the send and receive
 * counters and the 16-bit WQE index in the control segment wrap past
 * 65536 while every completion stays in order with the right data.
 */
void test_counter_wrap()
{
	Dev d;
	Pair p(d);
	constexpr uint32_t kTotal = 70000, kBatch = 32;
	Buf src(d.pd, kBatch * 64, kAllAccess),
		dst(d.pd, kBatch * 64, kAllAccess);
	std::string why;

	for (uint32_t base = 0; base < kTotal && why.empty(); base += kBatch) {
		for (uint32_t i = 0; i < kBatch && why.empty(); i++) {
			uint32_t n = base + i;
			memcpy(src.p + i * 64, &n, sizeof(n));
			if (post_recv(
				    p.b,
				    { { dst.addr(i * 64), 64, dst.mr->lkey } },
				    n) ||
			    post_send(p.a, IBV_WR_SEND_WITH_IMM,
				      { { src.addr(i * 64), 4, src.mr->lkey } },
				      n, IBV_SEND_SIGNALED, 0, 0, n))
				why = "post " + str(n) + " failed";
		}
		auto wa = poll_n(p.cqa, kBatch), wb = poll_n(p.cqb, kBatch);
		if (wa.size() != kBatch || wb.size() != kBatch) {
			why = "message " + str(base) + ": " + str(wa.size()) +
			      "+" + str(wb.size()) + " completions" +
			      (wa.empty() ? "" : ", " + wc_desc(wa.back()));
			break;
		}
		for (uint32_t i = 0; i < kBatch && why.empty(); i++) {
			uint32_t n = base + i, got;
			memcpy(&got, dst.p + i * 64, sizeof(got));
			if (wa[i].status != IBV_WC_SUCCESS ||
			    wa[i].wr_id != n ||
			    wb[i].status != IBV_WC_SUCCESS ||
			    wb[i].wr_id != n || be32toh(wb[i].imm_data) != n ||
			    wb[i].byte_len != 4 || got != n)
				why = "message " + str(n) + ": " +
				      wc_desc(wa[i]) + " / " + wc_desc(wb[i]);
		}
	}
	result(why.empty(), "rc.counters-wrap-past-65536", why);
}

/* ---- error completions ---------------------------------------------- */

/* Is there an async event of @type for @qp within @ms? */
bool async_event(ibv_context *ctx, ibv_event_type type, ibv_qp *qp, int ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end) {
		pollfd pfd = { ctx->async_fd, POLLIN, 0 };

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		ibv_async_event ev;
		if (ibv_get_async_event(ctx, &ev))
			continue;
		bool hit = ev.event_type == type && ev.element.qp == qp;
		ibv_ack_async_event(&ev);
		if (hit)
			return true;
	}
	return false;
}

/* Is there an async event of @type for @cq within @ms? */
bool async_cq_event(ibv_context *ctx, ibv_event_type type, ibv_cq *cq, int ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end) {
		pollfd pfd = { ctx->async_fd, POLLIN, 0 };

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		ibv_async_event ev;
		if (ibv_get_async_event(ctx, &ev))
			continue;
		bool hit = ev.event_type == type && ev.element.cq == cq;
		ibv_ack_async_event(&ev);
		if (hit)
			return true;
	}
	return false;
}

void expect_error(const std::string &name, Dev &d, QpOpts o,
		  const std::function<void(Pair &, Buf &, Buf &)> &post,
		  ibv_wc_status want_a, ibv_wc_status want_b_recv,
		  ibv_event_type want_b_event = IBV_EVENT_COMM_EST,
		  int buf_access = kAllAccess)
{
	Pair p(d, o);
	Buf src(d.pd, 65536, buf_access), dst(d.pd, 65536, buf_access);
	std::string why;

	/*
	 * Both sides' memory holds a pattern: the source data, the target
	 * (the responder's MR and receive buffers, the requester's READ and
	 * atomic result buffers). The card checks a message's lists before
	 * it moves a byte, so a failed WQE writes nothing anywhere.
	 */
	fill_random(src.p, src.len);
	for (size_t i = 0; i < dst.len; i++)
		dst.p[i] = static_cast<uint8_t>(0x5a ^ i ^ (i >> 8));
	std::vector<uint8_t> src0(src.p, src.p + src.len),
		dst0(dst.p, dst.p + dst.len);

	post(p, src, dst);
	auto wa = poll_n(p.cqa, 1);
	if (wa.size() != 1 || wa[0].status != want_a || wa[0].wr_id != 2)
		why = "requester: " + (wa.empty() ? "none" : wc_desc(wa[0])) +
		      ", want " + ibv_wc_status_str(want_a) + " for wr_id 2";
	/*
	 * The responder: the error completion of the receive it consumed
	 * (want_b_recv), or, when the message never got to a receive
	 * (want_b_recv SUCCESS), nothing at all, its receive staying posted.
	 * The responder answered before the requester's completion was
	 * written, so what it completed is in its CQ by now.
	 */
	if (why.empty() && want_b_recv != IBV_WC_SUCCESS) {
		auto wb = poll_n(p.cqb, 1);
		if (wb.size() != 1 || wb[0].status != want_b_recv ||
		    wb[0].wr_id != 1)
			why = "responder: " +
			      (wb.empty() ? "none" : wc_desc(wb[0])) +
			      ", want " + ibv_wc_status_str(want_b_recv) +
			      " for wr_id 1";
	}
	if (why.empty() && want_b_event != IBV_EVENT_COMM_EST &&
	    !async_event(d.ctx, want_b_event, p.b, kDeadlineMs))
		why = std::string("no ") + ibv_event_type_str(want_b_event) +
		      " event on the responder";
	/* the requester is in error now: what is posted next is flushed */
	if (why.empty()) {
		post_send(p.a, IBV_WR_RDMA_WRITE,
			  { { src.addr(), 8, src.mr->lkey } }, 99,
			  IBV_SEND_SIGNALED, dst.addr(), dst.mr->rkey);
		auto wf = poll_n(p.cqa, 1);
		if (wf.size() != 1 || wf[0].status != IBV_WC_WR_FLUSH_ERR ||
		    wf[0].wr_id != 99)
			why = "after the error: " +
			      (wf.empty() ? "none" : wc_desc(wf[0]));
	}
	/* no completion beyond those, on either side */
	if (why.empty()) {
		ibv_wc wc;
		if (ibv_poll_cq(p.cqb, 1, &wc) == 1)
			why = "unexpected responder completion: " + wc_desc(wc);
		else if (ibv_poll_cq(p.cqa, 1, &wc) == 1)
			why = "unexpected requester completion: " + wc_desc(wc);
	}
	/* and nothing was written, on either side */
	if (why.empty()) {
		size_t i = 0;
		while (i < dst.len && dst.p[i] == dst0[i])
			i++;
		size_t j = 0;
		while (j < src.len && src.p[j] == src0[j])
			j++;
		if (i < dst.len)
			why = "target memory changed at offset " + str(i);
		else if (j < src.len)
			why = "source memory changed at offset " + str(j);
	}
	result(why.empty(), name, why);
}

void test_errors()
{
	Dev d;
	QpOpts o;
	using B = Buf;

	expect_error(
		"err.bad-lkey-loc-prot", d, o,
		[](Pair &p, B &s, B &t) {
			post_recv(p.b, { { t.addr(), 64, t.mr->lkey } }, 1);
			post_send(p.a, IBV_WR_SEND,
				  { { s.addr(), 64, s.mr->lkey ^ 0x5500 } }, 2);
		},
		IBV_WC_LOC_PROT_ERR, IBV_WC_SUCCESS);
	expect_error(
		"err.lkey-out-of-bounds-loc-prot", d, o,
		[](Pair &p, B &s, B &t) {
			post_send(p.a, IBV_WR_RDMA_WRITE,
				  { { s.addr(65000), 1000, s.mr->lkey } }, 2,
				  IBV_SEND_SIGNALED, t.addr(), t.mr->rkey);
		},
		IBV_WC_LOC_PROT_ERR, IBV_WC_SUCCESS);
	expect_error(
		"err.bad-rkey-rem-access", d, o,
		[](Pair &p, B &s, B &t) {
			post_send(p.a, IBV_WR_RDMA_WRITE,
				  { { s.addr(), 64, s.mr->lkey } }, 2,
				  IBV_SEND_SIGNALED, t.addr(),
				  t.mr->rkey ^ 0x7700);
		},
		IBV_WC_REM_ACCESS_ERR, IBV_WC_SUCCESS, IBV_EVENT_QP_ACCESS_ERR);
	expect_error(
		"err.rkey-out-of-bounds-rem-access", d, o,
		[](Pair &p, B &s, B &t) {
			post_send(p.a, IBV_WR_RDMA_READ,
				  { { s.addr(), 128, s.mr->lkey } }, 2,
				  IBV_SEND_SIGNALED, t.addr(65536 - 64),
				  t.mr->rkey);
		},
		IBV_WC_REM_ACCESS_ERR, IBV_WC_SUCCESS, IBV_EVENT_QP_ACCESS_ERR);
	{
		/* an MR of another PD */
		ibv_pd *pd2 = ibv_alloc_pd(d.ctx);
		auto other = std::make_unique<Buf>(pd2, 65536, kAllAccess);
		expect_error(
			"err.lkey-wrong-pd-loc-prot", d, o,
			[&](Pair &p, B &, B &t) {
				post_send(p.a, IBV_WR_RDMA_WRITE,
					  { { other->addr(), 64,
					      other->mr->lkey } },
					  2, IBV_SEND_SIGNALED, t.addr(),
					  t.mr->rkey);
			},
			IBV_WC_LOC_PROT_ERR, IBV_WC_SUCCESS);
		expect_error(
			"err.rkey-wrong-pd-rem-access", d, o,
			[&](Pair &p, B &s, B &) {
				post_send(p.a, IBV_WR_RDMA_WRITE,
					  { { s.addr(), 64, s.mr->lkey } }, 2,
					  IBV_SEND_SIGNALED, other->addr(),
					  other->mr->rkey);
			},
			IBV_WC_REM_ACCESS_ERR, IBV_WC_SUCCESS,
			IBV_EVENT_QP_ACCESS_ERR);
		other.reset();
		ibv_dealloc_pd(pd2);
	}
	expect_error(
		"err.mr-without-remote-write-rem-access", d, o,
		[](Pair &p, B &s, B &t) {
			post_send(p.a, IBV_WR_RDMA_WRITE,
				  { { s.addr(), 64, s.mr->lkey } }, 2,
				  IBV_SEND_SIGNALED, t.addr(), t.mr->rkey);
		},
		IBV_WC_REM_ACCESS_ERR, IBV_WC_SUCCESS, IBV_EVENT_QP_ACCESS_ERR,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	expect_error(
		"err.read-into-mr-without-local-write", d, o,
		[](Pair &p, B &s, B &t) {
			post_send(p.a, IBV_WR_RDMA_READ,
				  { { s.addr(), 64, s.mr->lkey } }, 2,
				  IBV_SEND_SIGNALED, t.addr(), t.mr->rkey);
		},
		IBV_WC_LOC_PROT_ERR, IBV_WC_SUCCESS, IBV_EVENT_COMM_EST,
		IBV_ACCESS_REMOTE_READ);
	QpOpts no_write = o;
	no_write.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	expect_error(
		"err.qp-without-remote-write-rem-inv-req", d, no_write,
		[](Pair &p, B &s, B &t) {
			post_send(p.a, IBV_WR_RDMA_WRITE,
				  { { s.addr(), 64, s.mr->lkey } }, 2,
				  IBV_SEND_SIGNALED, t.addr(), t.mr->rkey);
		},
		IBV_WC_REM_INV_REQ_ERR, IBV_WC_SUCCESS, IBV_EVENT_QP_REQ_ERR);
	expect_error(
		"err.recv-too-small", d, o,
		[](Pair &p, B &s, B &t) {
			post_recv(p.b, { { t.addr(), 16, t.mr->lkey } }, 1);
			post_send(p.a, IBV_WR_SEND,
				  { { s.addr(), 64, s.mr->lkey } }, 2);
		},
		IBV_WC_REM_INV_REQ_ERR, IBV_WC_LOC_LEN_ERR);
	expect_error(
		"err.recv-bad-lkey-rem-op", d, o,
		[](Pair &p, B &s, B &t) {
			post_recv(p.b, { { t.addr(), 64, 0x12345600 } }, 1);
			post_send(p.a, IBV_WR_SEND,
				  { { s.addr(), 64, s.mr->lkey } }, 2);
		},
		IBV_WC_REM_OP_ERR, IBV_WC_LOC_PROT_ERR);
	expect_error(
		"err.atomic-misaligned-rem-inv-req", d, o,
		[](Pair &p, B &s, B &t) {
			ibv_send_wr wr = {}, *bad;
			ibv_sge sg = { s.addr(), 8, s.mr->lkey };
			wr.wr_id = 2;
			wr.sg_list = &sg;
			wr.num_sge = 1;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = t.addr(4);
			wr.wr.atomic.rkey = t.mr->rkey;
			ibv_post_send(p.a, &wr, &bad);
		},
		IBV_WC_REM_INV_REQ_ERR, IBV_WC_SUCCESS, IBV_EVENT_QP_REQ_ERR);
}

/* ---- flushing ------------------------------------------------------- */

void test_flush_long();

void test_flush()
{
	Dev d;
	Pair p(d);
	Buf b(d.pd, 65536, kAllAccess);
	std::string why;

	for (int i = 0; i < 5; i++)
		post_recv(p.b, { { b.addr(i * 64), 64, b.mr->lkey } }, 500 + i);
	ibv_qp_attr at = {};
	at.qp_state = IBV_QPS_ERR;
	ibv_modify_qp(p.b, &at, IBV_QP_STATE);
	auto wb = poll_n(p.cqb, 5);
	for (size_t i = 0; i < wb.size(); i++)
		if (wb[i].status != IBV_WC_WR_FLUSH_ERR ||
		    wb[i].wr_id != 500 + i)
			why = "completion " + str(i) + ": " + wc_desc(wb[i]);
	result(wb.size() == 5 && why.empty(), "flush.posted-receives",
	       why.empty() ? str(wb.size()) + " completions" : why);
	/* posted in the error state: flushed too */
	post_recv(p.b, { { b.addr(), 64, b.mr->lkey } }, 600);
	wb = poll_n(p.cqb, 1);
	result(wb.size() == 1 && wb[0].status == IBV_WC_WR_FLUSH_ERR &&
		       wb[0].wr_id == 600,
	       "flush.receive-posted-in-error",
	       wb.empty() ? "none" : wc_desc(wb[0]));
	post_send(p.b, IBV_WR_SEND, { { b.addr(), 8, b.mr->lkey } }, 601, 0);
	post_send(p.b, IBV_WR_SEND, { { b.addr(), 8, b.mr->lkey } }, 602, 0);
	wb = poll_n(p.cqb, 2);
	result(wb.size() == 2 && wb[0].status == IBV_WC_WR_FLUSH_ERR &&
		       wb[0].wr_id == 601 && wb[1].wr_id == 602,
	       "flush.unsignaled-sends-in-error-complete",
	       wb.empty() ? "none" : wc_desc(wb[0]));
	ibv_qp_attr qa;
	ibv_qp_init_attr qi;
	ibv_query_qp(p.b, &qa, IBV_QP_STATE, &qi);
	result(qa.qp_state == IBV_QPS_ERR, "flush.query-says-error",
	       "state " + str(qa.qp_state));
	test_flush_long();
}

/*
 * Queues longer than what the engine flushes in one turn (256 WQEs): 1000
 * receives posted before the move to ERR and 600 sends after it all
 * complete with WR_FLUSH_ERR, each queue in its posting order, none twice.
 */
void test_flush_long()
{
	Dev d;
	QpOpts o;
	o.max_wr = 1024;
	o.a_cq = ibv_create_cq(d.ctx, 4096, nullptr, nullptr, 0);
	if (!o.a_cq) {
		result(false, "flush.long-queues-in-order",
		       "create_cq: " + std::string(strerror(errno)));
		return;
	}
	std::string why;
	{
		Pair p(d, o);
		Buf b(d.pd, 4096, kAllAccess);

		for (int i = 0; i < 1000; i++)
			post_recv(p.a, { { b.addr(), 64, b.mr->lkey } },
				  10000 + i);
		ibv_qp_attr at = {};
		at.qp_state = IBV_QPS_ERR;
		ibv_modify_qp(p.a, &at, IBV_QP_STATE);
		for (int i = 0; i < 600; i++)
			post_send(p.a, IBV_WR_SEND,
				  { { b.addr(), 8, b.mr->lkey } }, 20000 + i,
				  i % 2 ? IBV_SEND_SIGNALED : 0);
		auto w = poll_n(o.a_cq, 1600);
		uint64_t next_recv = 10000, next_send = 20000;

		for (size_t i = 0; i < w.size() && why.empty(); i++) {
			/* (an error completion's opcode is undefined) */
			uint64_t &next =
				w[i].wr_id < 20000 ? next_recv : next_send;
			if (w[i].status != IBV_WC_WR_FLUSH_ERR ||
			    w[i].wr_id != next)
				why = "completion " + str(i) + " (expected " +
				      str(next) + "): " + wc_desc(w[i]);
			next++;
		}
		if (why.empty() && (w.size() != 1600 || next_recv != 11000 ||
				    next_send != 20600))
			why = str(w.size()) + " completions, " +
			      str(next_recv - 10000) + " receives, " +
			      str(next_send - 20000) + " sends";
		ibv_wc extra;
		if (why.empty() && ibv_poll_cq(o.a_cq, 1, &extra) != 0)
			why = "a completion more: " + wc_desc(extra);
	}
	ibv_destroy_cq(o.a_cq);
	result(why.empty(), "flush.long-queues-in-order",
	       why.empty() ? "1000 receives and 600 sends flushed in order"
			   : why);
}

/* ---- RNR and transport retries -------------------------------------- */

void test_rnr()
{
	Dev d;
	QpOpts o;
	o.rnr_retry = 2;
	o.min_rnr_timer = 14; /* 1.28 ms */
	{
		Pair p(d, o);
		Buf b(d.pd, 4096, kAllAccess);
		double t0 = now_ms();
		post_send(p.a, IBV_WR_SEND, { { b.addr(), 8, b.mr->lkey } }, 1);
		auto wa = poll_n(p.cqa, 1);
		double took = now_ms() - t0;
		result(wa.size() == 1 &&
			       wa[0].status == IBV_WC_RNR_RETRY_EXC_ERR &&
			       took >= 2 * 1.28,
		       "rnr.retries-exhausted",
		       (wa.empty() ? "none" : wc_desc(wa[0])) + " after " +
			       str(static_cast<uint64_t>(took)) + " ms");
	}
	o.rnr_retry = 7; /* forever: a late receive still gets the message */
	{
		Pair p(d, o);
		Buf b(d.pd, 4096, kAllAccess);
		post_send(p.a, IBV_WR_SEND, { { b.addr(), 8, b.mr->lkey } }, 1);
		auto early = poll_n(p.cqa, 1, 50);
		post_recv(p.b, { { b.addr(1024), 8, b.mr->lkey } }, 2);
		auto wa = poll_n(p.cqa, 1);
		auto wb = poll_n(p.cqb, 1);
		result(early.empty() && wa.size() == 1 &&
			       wa[0].status == IBV_WC_SUCCESS &&
			       wb.size() == 1 && wb[0].status == IBV_WC_SUCCESS,
		       "rnr.retried-until-a-receive-arrives",
		       early.empty()
			       ? (wa.empty() ? "no completion" : wc_desc(wa[0]))
			       : "completed before the receive");
	}
}

void test_retry()
{
	Dev d;
	QpOpts o;
	o.timeout = 12; /* 16.8 ms */
	o.retry_cnt = 2;
	for (int kind = 0; kind < (getenv("SOFTHCA_ABSENT_GID") ? 2 : 1);
	     kind++) {
		/* an unknown QPN on our GID; then a GID nobody has */
		Pair p(d, o, kind ? 0 : 0xfff0, kind == 1);
		Buf b(d.pd, 4096, kAllAccess);
		double t0 = now_ms();
		post_send(p.a, IBV_WR_RDMA_WRITE,
			  { { b.addr(), 8, b.mr->lkey } }, 1, IBV_SEND_SIGNALED,
			  b.addr(2048), b.mr->rkey);
		auto wa = poll_n(p.cqa, 1, kDeadlineMs);
		double took = now_ms() - t0;
		double want = (o.retry_cnt + 1) * 4.096e-3 * (1 << o.timeout);
		result(wa.size() == 1 && wa[0].status == IBV_WC_RETRY_EXC_ERR &&
			       took >= want * 0.9,
		       kind ? "retry.exhausted-no-such-gid"
			    : "retry.exhausted-no-such-qpn",
		       (wa.empty() ? "none" : wc_desc(wa[0])) + " after " +
			       str(static_cast<uint64_t>(took)) +
			       " ms, want >= " +
			       str(static_cast<uint64_t>(want)));
	}
}

/* ---- events: completion channels and solicited-only arming --------- */

/* The card's producer index of CQ @cqn (debugfs), or -1. */
long card_cq_pi(uint32_t cqn)
{
	std::string path = "/sys/kernel/debug/softhca/" + dev_name + "/cqs";
	FILE *f = fopen(path.c_str(), "r");
	char line[512];
	long pi = -1;

	while (f && pi < 0 && fgets(line, sizeof(line), f)) {
		unsigned int n, v;
		const char *at = strstr(line, " pi ");

		if (sscanf(line, "cqn %u", &n) == 1 && n == cqn && at &&
		    sscanf(at, " pi %u", &v) == 1)
			pi = v;
	}
	if (f)
		fclose(f);
	return pi;
}

/* Wait until the card has written @n CQEs into CQ @cqn. */
bool wait_card_pi(uint32_t cqn, long n)
{
	double end = now_ms() + kDeadlineMs;

	while (card_cq_pi(cqn) < n)
		if (now_ms() > end)
			return false;
	return true;
}

bool wait_event(ibv_comp_channel *ch, ibv_cq *cq, int ms)
{
	pollfd pfd = { ch->fd, POLLIN, 0 };

	if (poll(&pfd, 1, ms) <= 0)
		return false;
	ibv_cq *ev_cq;
	void *ctx;
	if (ibv_get_cq_event(ch, &ev_cq, &ctx))
		return false;
	ibv_ack_cq_events(ev_cq, 1);
	return ev_cq == cq;
}

void test_events()
{
	Dev d;
	QpOpts o;
	o.channel = true;
	Pair p(d, o);
	Buf b(d.pd, 65536, kAllAccess);
	std::string why;

	/* arm, complete, event; again and again (the arm sequence advances) */
	for (int i = 0; i < 20 && why.empty(); i++) {
		ibv_req_notify_cq(p.cqb, 0);
		post_recv(p.b, { { b.addr(4096), 64, b.mr->lkey } }, i);
		post_send(p.a, IBV_WR_SEND, { { b.addr(), 64, b.mr->lkey } },
			  i);
		if (!wait_event(p.ch, p.cqb, kDeadlineMs))
			why = "no event for round " + str(i);
		if (poll_n(p.cqb, 1).size() != 1)
			why = "no completion in round " + str(i);
		poll_n(p.cqa, 1);
	}
	result(why.empty(), "events.channel-wakes-each-arm", why);

	/* not armed: no event */
	post_recv(p.b, { { b.addr(4096), 64, b.mr->lkey } }, 100);
	post_send(p.a, IBV_WR_SEND, { { b.addr(), 64, b.mr->lkey } }, 100);
	poll_n(p.cqb, 1);
	poll_n(p.cqa, 1);
	result(!wait_event(p.ch, p.cqb, 200), "events.unarmed-cq-is-quiet");

	/* solicited only: an unsolicited receive does not wake, a solicited
	 * one does */
	ibv_req_notify_cq(p.cqb, 1);
	post_recv(p.b, { { b.addr(4096), 64, b.mr->lkey } }, 101);
	post_send(p.a, IBV_WR_SEND, { { b.addr(), 64, b.mr->lkey } }, 101);
	bool woke = wait_event(p.ch, p.cqb, 300);
	result(!woke, "events.solicited-only-ignores-unsolicited");
	auto w = poll_n(p.cqb, 1);
	poll_n(p.cqa, 1);
	post_recv(p.b, { { b.addr(4096), 64, b.mr->lkey } }, 102);
	post_send(p.a, IBV_WR_SEND, { { b.addr(), 64, b.mr->lkey } }, 102,
		  IBV_SEND_SIGNALED | IBV_SEND_SOLICITED);
	result(wait_event(p.ch, p.cqb, kDeadlineMs),
	       "events.solicited-only-wakes-on-solicited");
	poll_n(p.cqb, 1);
	poll_n(p.cqa, 1);
}

/*
 * Arming a CQ that already holds unpolled CQEs raises the event at once,
 * as an mlx5 HCA does for an arm below its producer index: the provider
 * sees the CQE after writing the arm word and rings the card's CQ
 * doorbell. A receive's CQE is written before the responder's ACK, so
 * once the sender's completion is polled it is in B's CQ.
 */
void test_arm_pending()
{
	Dev d;
	QpOpts o;
	o.channel = true;
	Pair p(d, o);
	Buf b(d.pd, 65536, kAllAccess);
	auto complete = [&](uint64_t id, int flags) {
		post_recv(p.b, { { b.addr(4096), 64, b.mr->lkey } }, id);
		post_send(p.a, IBV_WR_SEND, { { b.addr(), 64, b.mr->lkey } },
			  id, flags);
		return poll_n(p.cqa, 1).size() == 1;
	};
	std::string why;

	/* a CQE waits, then the arm: an event, in each of 10 rounds */
	for (int i = 0; i < 10 && why.empty(); i++) {
		if (!complete(i, IBV_SEND_SIGNALED))
			why = "no send completion in round " + str(i);
		ibv_req_notify_cq(p.cqb, 0);
		if (why.empty() && !wait_event(p.ch, p.cqb, kDeadlineMs))
			why = "no event for the waiting CQE in round " + str(i);
		if (why.empty() && poll_n(p.cqb, 1).size() != 1)
			why = "no CQE in round " + str(i);
	}
	result(why.empty(), "events.arm-with-cqe-waiting-fires-at-once", why);

	/* solicited only: a waiting unsolicited CQE is no reason */
	complete(100, IBV_SEND_SIGNALED);
	ibv_req_notify_cq(p.cqb, 1);
	result(!wait_event(p.ch, p.cqb, 300),
	       "events.solicited-arm-ignores-waiting-unsolicited");
	/* (that arm stands: a solicited CQE fires it as it is written) */
	complete(101, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED);
	bool fired = wait_event(p.ch, p.cqb, kDeadlineMs);
	poll_n(p.cqb, 2);
	/* not armed when a solicited CQE comes; then a solicited arm */
	complete(102, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED);
	ibv_req_notify_cq(p.cqb, 1);
	result(fired && wait_event(p.ch, p.cqb, kDeadlineMs),
	       "events.solicited-arm-with-solicited-waiting-fires",
	       fired ? "no event" : "no event for the standing arm");
	poll_n(p.cqb, 1);

	/* polled empty before the arm: quiet until the next CQE */
	ibv_req_notify_cq(p.cqb, 0);
	bool early = wait_event(p.ch, p.cqb, 200);
	complete(102, IBV_SEND_SIGNALED);
	result(!early && wait_event(p.ch, p.cqb, kDeadlineMs),
	       "events.arm-on-empty-cq-waits-for-next-cqe",
	       early ? "an event with nothing waiting" : "no event");
	poll_n(p.cqb, 1);
}

/* ---- resizing a CQ -------------------------------------------------- */

/*
 * ibv_resize_cq with completions waiting: none lost, none twice, in
 * order, whether the new ring is larger or smaller; a ring too small for
 * what waits is refused and the CQ stays as it was; an arm survives.
 * A's completions are RDMA WRITEs numbered by wr_id.
 */
void test_resize()
{
	Dev d;
	QpOpts o;
	o.cq_entries = 16;
	o.max_wr = 32;
	o.channel = true;
	Pair p(d, o);
	Buf b(d.pd, 4096, kAllAccess);
	uint32_t cqn = softhca::to_cq(p.cqa)->cqn;
	uint64_t next_post = 0, next_poll = 0;
	long written = 0;
	std::string why;
	auto post = [&](int n) {
		for (int i = 0; i < n && why.empty(); i++)
			if (post_send(p.a, IBV_WR_RDMA_WRITE,
				      { { b.addr(), 8, b.mr->lkey } },
				      next_post++, IBV_SEND_SIGNALED,
				      b.addr(2048), b.mr->rkey))
				why = "post " + str(next_post - 1) + " failed";
		written += n;
		if (why.empty() && !wait_card_pi(cqn, written))
			why = "the card wrote " + str(card_cq_pi(cqn)) +
			      " CQEs, want " + str(written);
	};
	auto take = [&](size_t n) {
		/* one at a time: poll_n() takes up to 16 a call */
		std::vector<ibv_wc> wa;
		double end = now_ms() + kDeadlineMs;
		ibv_wc extra;

		while (wa.size() < n && now_ms() < end) {
			ibv_wc wc;

			if (ibv_poll_cq(p.cqa, 1, &wc) == 1)
				wa.push_back(wc);
		}

		if (!n && ibv_poll_cq(p.cqa, 1, &extra) == 1)
			wa.push_back(extra);
		for (auto &wc : wa)
			if (why.empty() && (wc.status != IBV_WC_SUCCESS ||
					    wc.wr_id != next_poll++))
				why = "completion " + wc_desc(wc) +
				      ", want wr_id " + str(next_poll - 1);
		if (why.empty() && wa.size() != n)
			why = str(wa.size()) + " completions, want " + str(n);
	};
	auto resize = [&](int cqe, int want_err, int want_cqe) {
		int err = ibv_resize_cq(p.cqa, cqe);
		if (why.empty() && (err != want_err || p.cqa->cqe != want_cqe))
			why = "resize to " + str(cqe) + ": " + str(err) +
			      ", cqe " + str(p.cqa->cqe);
	};

	post(10); /* 10 of the ring's 32 */
	take(3);
	resize(100, 0, 127); /* 7 waiting move */
	post(20);
	take(27);
	take(0);
	result(why.empty(), "cq.resize-larger-with-cqes-waiting", why);

	why.clear();
	post(15);
	take(5);
	resize(20, 0, 31); /* 10 waiting, smaller */
	post(10);
	take(20);
	take(0);
	result(why.empty(), "cq.resize-smaller-with-cqes-waiting", why);

	why.clear();
	post(20); /* 20 waiting do not fit 8 */
	resize(4, EINVAL, 31);
	take(20);
	take(0);
	result(why.empty(), "cq.resize-too-small-for-waiting-einval", why);

	/* an arm made before the resize fires for a CQE after it */
	why.clear();
	ibv_req_notify_cq(p.cqa, 0);
	resize(200, 0, 255);
	post(1);
	if (why.empty() && !wait_event(p.ch, p.cqa, kDeadlineMs))
		why = "no event";
	take(1);
	result(why.empty(), "cq.resize-keeps-the-arm", why);
}

/* ---- CQ numbers ---------------------------------------------------- */

/*
 * The card gives CQ numbers cyclically: a destroyed CQ's number is not
 * the next CQ's, so a completion event of the old CQ still on its way
 * cannot be taken for the new one's.
 */
void test_cq_numbers()
{
	Dev d;
	std::vector<uint32_t> seen;
	std::string why;

	for (int i = 0; i < 4 && why.empty(); i++) {
		ibv_cq *cq = ibv_create_cq(d.ctx, 16, nullptr, nullptr, 0);

		if (!cq) {
			why = std::string("create: ") + strerror(errno);
			break;
		}
		uint32_t cqn = softhca::to_cq(cq)->cqn;
		if (std::find(seen.begin(), seen.end(), cqn) != seen.end())
			why = "CQ number " + str(cqn) + " given again";
		seen.push_back(cqn);
		ibv_destroy_cq(cq);
	}
	result(why.empty(), "cq.destroyed-number-not-given-again", why);
}

/* ---- CQ overrun ---------------------------------------------------- */

void test_overrun()
{
	Dev d;
	QpOpts o;
	o.cq_entries = 1; /* room for 1 + 1 CQEs */
	Pair p(d, o);
	Buf b(d.pd, 65536, kAllAccess);
	bool event = false;

	for (int i = 0; i < 4; i++)
		post_send(p.a, IBV_WR_RDMA_WRITE,
			  { { b.addr(), 8, b.mr->lkey } }, i, IBV_SEND_SIGNALED,
			  b.addr(4096), b.mr->rkey);
	double end = now_ms() + kDeadlineMs;
	while (!event && now_ms() < end) {
		pollfd pfd = { d.ctx->async_fd, POLLIN, 0 };
		ibv_async_event ev;

		if (poll(&pfd, 1, 50) <= 0 || ibv_get_async_event(d.ctx, &ev))
			continue;
		event = ev.event_type == IBV_EVENT_CQ_ERR &&
			ev.element.cq == p.cqa;
		ibv_ack_async_event(&ev);
	}
	result(event, "cq.overrun-cq-error-event");
}

/*
 * IGNORE_OVERRUN: a consumer that accepts losing completions. Five sends
 * complete into a CQ of two entries nobody polls: no CQ error, the QP
 * goes on, and the card kept writing around the ring, so what is there
 * is what the owner bits say: the fifth completion in slot 0 (the pass
 * the consumer at 0 expects), the fourth in slot 1 of a later pass. A
 * sixth completion lands where the consumer looks next.
 */
void test_overrun_ignored()
{
	Dev d;
	ibv_cq_init_attr_ex ca = {};

	ca.cqe = 1;
	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	ibv_cq_ex *cqx = ibv_create_cq_ex(d.ctx, &ca);
	int err = errno;

	result(cqx != nullptr, "cq.ignore-overrun-create",
	       std::string("create_cq_ex: ") + strerror(err));
	if (!cqx)
		return;
	ibv_cq *cq = ibv_cq_ex_to_cq(cqx);
	uint32_t cqn = softhca::to_cq(cq)->cqn;
	std::string why;
	{
		QpOpts o;
		o.a_cq = cq;
		Pair p(d, o);
		Buf b(d.pd, 4096, kAllAccess);

		for (int i = 0; i < 6; i++)
			post_recv(p.b, { { b.addr(2048), 64, b.mr->lkey } }, i);
		for (int i = 0; i < 5; i++)
			post_send(p.a, IBV_WR_SEND,
				  { { b.addr(), 8, b.mr->lkey } }, i);
		if (!wait_card_pi(cqn, 5))
			why = "the card wrote " + str(card_cq_pi(cqn)) +
			      " CQEs, not 5";
		auto wa = poll_n(cq, 2, 200);
		if (why.empty() && (wa.size() != 1 || wa[0].wr_id != 4 ||
				    wa[0].status != IBV_WC_SUCCESS))
			why = "after 5 completions into 2 entries: " +
			      str(wa.size()) + " completions" +
			      (wa.empty() ? "" : ", " + wc_desc(wa[0])) +
			      " (want the fifth alone)";
		if (why.empty() &&
		    async_cq_event(d.ctx, IBV_EVENT_CQ_ERR, cq, 300))
			why = "a CQ error event";
		ibv_qp_attr qa;
		ibv_qp_init_attr qi;
		if (why.empty() && (ibv_query_qp(p.a, &qa, IBV_QP_STATE, &qi) ||
				    qa.qp_state != IBV_QPS_RTS))
			why = "the QP left RTS";
		if (why.empty()) {
			post_send(p.a, IBV_WR_SEND,
				  { { b.addr(), 8, b.mr->lkey } }, 5);
			wa = poll_n(cq, 1);
			if (wa.size() != 1 || wa[0].wr_id != 5 ||
			    wa[0].status != IBV_WC_SUCCESS)
				why = "the sixth: " +
				      (wa.empty() ? "none" : wc_desc(wa[0]));
		}
		poll_n(p.cqb, 6);
	}
	result(why.empty(), "cq.ignore-overrun-writes-on", why);
	ibv_destroy_cq(cq);
}

/* ---- UC semantics --------------------------------------------------- */

void test_uc()
{
	Dev d;
	QpOpts o;
	o.type = IBV_QPT_UC;
	Pair p(d, o);
	Buf b(d.pd, 65536, kAllAccess);

	int rc = post_send(p.a, IBV_WR_RDMA_READ,
			   { { b.addr(), 8, b.mr->lkey } }, 1,
			   IBV_SEND_SIGNALED, b.addr(4096), b.mr->rkey);
	result(rc == EINVAL, "uc.read-not-allowed", "post returned " + str(rc));
	/* no receive posted: the message is dropped, the sender completes */
	memset(b.p + 8192, 0, 64);
	fill_random(b.p, 64);
	post_send(p.a, IBV_WR_SEND, { { b.addr(), 64, b.mr->lkey } }, 2);
	auto wa = poll_n(p.cqa, 1);
	auto wb = poll_n(p.cqb, 1, 100);
	result(wa.size() == 1 && wa[0].status == IBV_WC_SUCCESS && wb.empty(),
	       "uc.send-without-receive-dropped",
	       wa.empty() ? "none" : wc_desc(wa[0]));
	post_recv(p.b, { { b.addr(8192), 64, b.mr->lkey } }, 3);
	post_send(p.a, IBV_WR_SEND, { { b.addr(), 64, b.mr->lkey } }, 4);
	wb = poll_n(p.cqb, 1);
	result(wb.size() == 1 && wb[0].status == IBV_WC_SUCCESS &&
		       !memcmp(b.p, b.p + 8192, 64),
	       "uc.send-received", wb.empty() ? "none" : wc_desc(wb[0]));
	poll_n(p.cqa, 1);
}

/* ---- packets and PSNs ---------------------------------------------- */

/* The next send PSN of @qp and the PSN it expects next. */
bool query_psns(ibv_qp *qp, uint32_t *sq, uint32_t *rq)
{
	ibv_qp_attr at = {};
	ibv_qp_init_attr ia = {};

	if (ibv_query_qp(qp, &at, IBV_QP_SQ_PSN | IBV_QP_RQ_PSN, &ia))
		return false;
	*sq = at.sq_psn;
	*rq = at.rq_psn;
	return true;
}

/*
 * Messages are cut into path-MTU packets, one PSN each (a READ takes the
 * PSNs of its responses, an atomic or empty message one), and PSNs wrap
 * at 2^24: the requester's sq_psn and the responder's rq_psn show it.
 */
void test_psn(ibv_mtu mtu, uint32_t mtu_bytes)
{
	Dev d;
	QpOpts o;
	o.mtu = mtu;
	o.psn = 0xfffff0;
	Pair p(d, o);
	Buf b(d.pd, 1 << 20, kAllAccess);
	std::string name = "rc.psn-per-mtu-packet-" + str(mtu_bytes);
	auto pkts = [mtu_bytes](uint32_t len) {
		return len ? (len + mtu_bytes - 1) / mtu_bytes : 1;
	};
	uint32_t expect = 0;

	post_recv(p.b, { { b.addr(), 65536, b.mr->lkey } }, 1);
	post_send(p.a, IBV_WR_SEND, { { b.addr(65536), 10000, b.mr->lkey } },
		  1);
	expect += pkts(10000);
	post_send(p.a, IBV_WR_RDMA_WRITE, {}, 2, IBV_SEND_SIGNALED,
		  b.addr(131072), b.mr->rkey);
	expect += 1;
	post_send(p.a, IBV_WR_RDMA_WRITE,
		  { { b.addr(65536), 3 * mtu_bytes, b.mr->lkey } }, 3,
		  IBV_SEND_SIGNALED, b.addr(131072), b.mr->rkey);
	expect += 3;
	post_send(p.a, IBV_WR_RDMA_READ,
		  { { b.addr(262144), 5000, b.mr->lkey } }, 4,
		  IBV_SEND_SIGNALED, b.addr(65536), b.mr->rkey);
	expect += pkts(5000);
	ibv_send_wr wr = {}, *bad;
	ibv_sge s = { b.addr(524288), 8, b.mr->lkey };
	wr.wr_id = 5;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = b.addr(589824);
	wr.wr.atomic.rkey = b.mr->rkey;
	wr.wr.atomic.compare_add = 1;
	ibv_post_send(p.a, &wr, &bad);
	expect += 1;

	auto wa = poll_n(p.cqa, 5);
	auto wb = poll_n(p.cqb, 1);
	bool ok = wa.size() == 5 && wb.size() == 1;
	for (auto &wc : wa)
		ok = ok && wc.status == IBV_WC_SUCCESS;
	uint32_t a_sq = 0, a_rq = 0, b_sq = 0, b_rq = 0;
	ok = ok && query_psns(p.a, &a_sq, &a_rq) &&
	     query_psns(p.b, &b_sq, &b_rq);
	uint32_t want = (o.psn + expect) & 0xffffff;
	result(ok && a_sq == want && b_rq == want && a_rq == o.psn &&
		       b_sq == o.psn,
	       name,
	       "completions " + str(wa.size()) + "+" + str(wb.size()) +
		       " a.sq_psn " + str(a_sq) + " b.rq_psn " + str(b_rq) +
		       " want " + str(want) + " a.rq_psn " + str(a_rq) +
		       " b.sq_psn " + str(b_sq));
}

/* ---- large messages ------------------------------------------------- */

void test_large()
{
	Dev d;
	Pair p(d);
	size_t half = 256UL << 20;
	Buf b(d.pd, 2 * half, kAllAccess);

	/*
	 * Every 4 KiB page of the source is stamped with its index and this
	 * run's seed (and random bytes): a page the card misplaces, repeats
	 * or drops cannot look right. The target starts as another pattern.
	 */
	std::random_device rd;
	uint64_t seed = (static_cast<uint64_t>(rd()) << 32) | rd();
	fill_random(b.p, 4096);
	for (size_t off = 0, pg = 0; off < half; off += 4096, pg++) {
		if (off)
			memcpy(b.p + off, b.p, 4096);
		uint64_t stamp[2] = { seed, pg };
		memcpy(b.p + off, stamp, sizeof(stamp));
		uint64_t tail = seed ^ (pg * 0x9e3779b97f4a7c15ULL);
		memcpy(b.p + off + 4096 - 8, &tail, 8);
	}
	memset(b.p + half, 0x3c, half);
	post_send(p.a, IBV_WR_RDMA_WRITE,
		  { { b.addr(), (uint32_t)half, b.mr->lkey } }, 1,
		  IBV_SEND_SIGNALED, b.addr(half), b.mr->rkey);
	auto wa = poll_n(p.cqa, 1, 120000);
	std::string why = wa.empty() ? "none" : wc_desc(wa[0]);
	bool ok = wa.size() == 1 && wa[0].status == IBV_WC_SUCCESS;
	for (size_t off = 0; ok && off < half; off += 4096)
		if (memcmp(b.p + off, b.p + half + off, 4096) != 0) {
			uint64_t got[2];
			memcpy(got, b.p + half + off, sizeof(got));
			ok = false;
			why = "page " + str(off / 4096) +
			      " differs (holds the stamp of page " +
			      str(got[0] == seed ? got[1] : ~0ULL) + ", seed " +
			      str(seed) + ")";
		}
	result(ok, "rc.write-256-mib", why);
	/* three 1 GiB SGEs (the same memory) exceed the 2 GiB message size */
	Buf big(d.pd, 1UL << 30, IBV_ACCESS_LOCAL_WRITE, Buf::Pages::kHuge);
	ibv_sge s = { big.addr(), 1U << 30, big.mr->lkey };
	post_send(p.a, IBV_WR_RDMA_WRITE, { s, s, s }, 2, IBV_SEND_SIGNALED,
		  b.addr(), b.mr->rkey);
	wa = poll_n(p.cqa, 1);
	result(wa.size() == 1 && wa[0].status == IBV_WC_LOC_LEN_ERR,
	       "rc.message-over-2gib-loc-len",
	       wa.empty() ? "none" : wc_desc(wa[0]));
}

/* ---- what the card keeps between messages --------------------------- */

/*
 * The engine keeps, per QP, the MKEY it found for the last lkey and rkey
 * and the responder of the QP's path. A destroyed MR or QP must not be
 * found through them: its key or its path then fails as if never seen.
 */
void test_stale_lookups()
{
	Dev d;
	QpOpts o;
	o.timeout = 12; /* 16.8 ms */
	o.retry_cnt = 2;
	Buf b(d.pd, 4096, kAllAccess);

	for (int lkey = 0; lkey < 2; lkey++) {
		Pair p(d, o);
		auto *old = new Buf(d.pd, 4096, kAllAccess);
		uint32_t lk = old->mr->lkey, rk = old->mr->rkey;
		uint64_t at = old->addr();

		/* the card finds (and keeps) both keys of the old MR */
		post_send(p.a, IBV_WR_RDMA_WRITE, { { at, 8, lk } }, 1,
			  IBV_SEND_SIGNALED, at + 2048, rk);
		auto wa = poll_n(p.cqa, 1);
		bool warm = wa.size() == 1 && wa[0].status == IBV_WC_SUCCESS;
		delete old;
		if (lkey)
			post_send(p.a, IBV_WR_RDMA_WRITE, { { at, 8, lk } }, 2,
				  IBV_SEND_SIGNALED, b.addr(), b.mr->rkey);
		else
			post_send(p.a, IBV_WR_RDMA_WRITE,
				  { { b.addr(), 8, b.mr->lkey } }, 2,
				  IBV_SEND_SIGNALED, at + 2048, rk);
		wa = poll_n(p.cqa, 1);
		auto want = lkey ? IBV_WC_LOC_PROT_ERR : IBV_WC_REM_ACCESS_ERR;
		result(warm && wa.size() == 1 && wa[0].status == want,
		       lkey ? "stale.lkey-after-dereg-loc-prot"
			    : "stale.rkey-after-dereg-rem-access",
		       std::string(warm ? "" : "first write failed; ") +
			       (wa.empty() ? "none" : wc_desc(wa[0])));
	}

	/* the responder is destroyed: nothing answers the path any more */
	Pair p(d, o);
	post_send(p.a, IBV_WR_RDMA_WRITE, { { b.addr(), 8, b.mr->lkey } }, 1,
		  IBV_SEND_SIGNALED, b.addr(2048), b.mr->rkey);
	auto wa = poll_n(p.cqa, 1);
	bool warm = wa.size() == 1 && wa[0].status == IBV_WC_SUCCESS;
	ibv_destroy_qp(p.b);
	p.b = nullptr;
	post_send(p.a, IBV_WR_RDMA_WRITE, { { b.addr(), 8, b.mr->lkey } }, 2,
		  IBV_SEND_SIGNALED, b.addr(2048), b.mr->rkey);
	wa = poll_n(p.cqa, 1, kDeadlineMs);
	result(warm && wa.size() == 1 && wa[0].status == IBV_WC_RETRY_EXC_ERR,
	       "stale.responder-destroyed-retry-exc",
	       std::string(warm ? "" : "first write failed; ") +
		       (wa.empty() ? "none" : wc_desc(wa[0])));
}

/* ---- garbage in the send queue ------------------------------------- */

/*
 * Malformed WQEs written straight into a real QP's send queue, as a buggy
 * or hostile provider could: the card must answer each with a completion
 * (an error, or success when the bytes happen to make sense), never touch
 * memory outside a registered MR and stay usable. The test reaches into
 * the provider's QP (a white-box test: same tree, same build) to place the
 * bytes and keep the provider's send-queue bookkeeping in step.
 */
int alloc_wake_file(ibv_context *ctx, uint16_t nattrs);

/* A 64-byte RDMA WRITE from A of @p lands intact; else @why says what. */
bool write_roundtrip(Dev &d, Pair &p, std::string *why)
{
	Buf b(d.pd, 4096, kAllAccess);

	fill_random(b.p, 64);
	post_send(p.a, IBV_WR_RDMA_WRITE, { { b.addr(), 64, b.mr->lkey } }, 1,
		  IBV_SEND_SIGNALED, b.addr(2048), b.mr->rkey);
	auto wa = poll_n(p.cqa, 1);
	*why = wa.empty() ? "none" : wc_desc(wa[0]);
	return wa.size() == 1 && wa[0].status == IBV_WC_SUCCESS &&
	       !memcmp(b.p, b.p + 2048, 64);
}

/* Unit @unit of basic block @bb of @q's send queue (wrapping). */
uint8_t *sq_unit(softhca::Qp *q, uint32_t bb, uint32_t unit)
{
	uint32_t bytes = q->sq.wqe_cnt * SOFTHCA_WQEBB_SIZE;

	return static_cast<uint8_t *>(q->sq.buf) +
	       ((bb * SOFTHCA_WQEBB_SIZE + unit * SOFTHCA_WQE_DS_SIZE) &
		(bytes - 1));
}

void test_garbage_wqes(int rounds)
{
	static const uint8_t ops[] = {
		SOFTHCA_WQE_SEND,	SOFTHCA_WQE_SEND_IMM,
		SOFTHCA_WQE_RDMA_WRITE, SOFTHCA_WQE_RDMA_WRITE_IMM,
		SOFTHCA_WQE_RDMA_READ,	SOFTHCA_WQE_ATOMIC_CS,
		SOFTHCA_WQE_ATOMIC_FA,
	};
	const size_t pg = 4096;
	Dev d;
	QpOpts o;
	o.rnr_retry = 0; /* a SEND with no receive fails at once */
	o.max_wr = 16;
	std::mt19937_64 rng(1234);
	int wfd = alloc_wake_file(d.ctx, 1);
	/* one registered page between two guard pages nobody registered */
	auto *area = static_cast<uint8_t *>(
		mmap(nullptr, 3 * pg, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	if (wfd < 0 || area == MAP_FAILED) {
		result(false, "garbage.setup", "wake file or mmap failed");
		return;
	}
	memset(area, 0xa5, 3 * pg);
	uint8_t *mid = area + pg;
	ibv_mr *mr = ibv_reg_mr(d.pd, mid, pg, kAllAccess);
	int answered = 0, bad_status = 0, stuck = 0, unanswered = 0;
	std::string first_bad;

	for (int r = 0; r < rounds && mr; r++) {
		Pair p(d, o);
		auto *q = reinterpret_cast<softhca::Qp *>(p.a);
		uint32_t nbb = 1 + rng() % 4, mode = rng() % 4;
		auto rnd_addr = [&] {
			/* around the MR: inside, across its ends, in the guards
			 */
			return reinterpret_cast<uintptr_t>(mid) - pg / 2 +
			       rng() % (2 * pg);
		};

		post_recv(
			p.b,
			{ { reinterpret_cast<uintptr_t>(mid), 64, mr->lkey } },
			1);
		for (uint32_t i = 0; i < nbb * 4; i++) {
			uint64_t w[2] = { rng(), rng() };

			if (mode >= 2 && i > 0) {
				/* key-shaped segments: our MR's keys */
				softhca_wqe_data seg = {};
				seg.byte_count = htole32(static_cast<uint32_t>(
					rng() % (2 * pg)));
				seg.lkey = htole32(rng() % 2 ? mr->lkey
							     : mr->rkey);
				seg.addr = htole64(rnd_addr());
				memcpy(w, &seg, sizeof(w));
			}
			memcpy(sq_unit(q, q->sq_pi, i), w, sizeof(w));
		}
		auto *ctrl = reinterpret_cast<softhca_wqe_ctrl *>(
			sq_unit(q, q->sq_pi, 0));
		if (mode >= 1)
			ctrl->wqe_index =
				htole16(static_cast<uint16_t>(q->sq_pi));
		if (mode >= 2) {
			ctrl->opcode = ops[rng() % sizeof(ops)];
			ctrl->ds = static_cast<uint8_t>(1 + rng() % (nbb * 4));
			ctrl->flags &= ~SOFTHCA_WQE_F_INLINE;
		}
		if (mode >= 2 && ctrl->opcode >= SOFTHCA_WQE_RDMA_WRITE) {
			/* a remote address near our MR, under its rkey */
			softhca_wqe_raddr ra = {};
			ra.addr = htole64(rnd_addr() & ~(rng() % 2 ? 7ULL : 0));
			ra.rkey = htole32(mr->rkey);
			memcpy(sq_unit(q, q->sq_pi, 1), &ra, sizeof(ra));
		}
		if (mode == 3)
			ctrl->ds = static_cast<uint8_t>((nbb - 1) * 4 + 1 +
							rng() % 4);
		/*
		 * The garbage's wr_id is its own: 0xbad0000 + 16 * round. A
		 * card that reads a basic block of it as a control segment
		 * of its own (moving past a bad WQE one block at a time)
		 * completes that block with 0xbad0000 + 16 * round + block.
		 */
		const uint64_t mark = 0xbad0000 + 16 * static_cast<uint64_t>(r);
		for (uint32_t k = 0; k < nbb; k++) {
			uint32_t slot = (q->sq_pi + k) & (q->sq.wqe_cnt - 1);
			q->sq_wrid[slot] = mark + k;
			q->sq_nbb[slot] = static_cast<uint8_t>(nbb - k);
			q->sq_wqe_head[slot] = q->sq_head;
		}
		q->sq_head++;
		q->sq_pi += nbb;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		q->db->sq_pi = htole32(q->sq_pi);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		ioctl(wfd, SOFTHCA_WAKE_IOCTL,
		      static_cast<unsigned long>(p.a->qp_num));

		/* a good WRITE after it: done, or flushed if the QP failed */
		post_send(p.a, IBV_WR_RDMA_WRITE,
			  { { reinterpret_cast<uintptr_t>(mid), 8, mr->lkey } },
			  0x600d, IBV_SEND_SIGNALED,
			  reinterpret_cast<uintptr_t>(mid) + 8, mr->rkey);
		/*
		 * Each WQE's own completion, in order: the garbage's (its
		 * first block's wr_id, with its error if it failed), then
		 * perhaps completions of its later blocks (a block the card
		 * read as a WQE of its own, when the garbage's size was not
		 * what was posted), then the good WRITE's and nothing after
		 * it. The WRITE succeeds, or is flushed when one of those
		 * completions was an error. Only a garbage WQE that was
		 * unsignaled may succeed silently.
		 */
		bool done = false, own = false, any_err = false;
		uint64_t last = 0;
		std::string bad;
		ibv_wc good = {};
		double end = now_ms() + kDeadlineMs;
		while (!done && now_ms() < end) {
			for (auto &wc : poll_n(p.cqa, 1, 50)) {
				answered++;
				if (wc.status > IBV_WC_TM_RNDV_INCOMPLETE)
					bad_status++;
				if (wc.wr_id == 0x600d) {
					done = true;
					good = wc;
				} else if (wc.wr_id >= mark &&
					   wc.wr_id < mark + nbb &&
					   wc.wr_id >= last) {
					own = own || wc.wr_id == mark;
					any_err = any_err ||
						  wc.status != IBV_WC_SUCCESS;
					last = wc.wr_id + 1;
				} else if (bad.empty()) {
					bad = "completion " + wc_desc(wc);
				}
			}
		}
		ibv_wc extra;
		bool signaled = ctrl->flags & SOFTHCA_WQE_F_SIGNALED;
		if (done && ibv_poll_cq(p.cqa, 1, &extra) == 1 && bad.empty())
			bad = "completion after the marker: " + wc_desc(extra);
		if (done && bad.empty()) {
			if (!own && signaled)
				bad = "no completion of the garbage WQE";
			else if (good.status != (any_err ? IBV_WC_WR_FLUSH_ERR
							 : IBV_WC_SUCCESS))
				bad = std::string(any_err ? "after an error, "
							  : "") +
				      "marker " + wc_desc(good);
		}
		if (!done)
			stuck++;
		if (!bad.empty()) {
			unanswered++;
			if (first_bad.empty())
				first_bad = "round " + str(r) + ": " + bad;
		}
		if (getenv("SOFTHCA_GARBAGE_ROUNDS"))
			fprintf(stderr,
				"round %d: mode %u, %u BBs, opcode %u, ds "
				"%u%s%s%s\n",
				r, mode, nbb, ctrl->opcode, ctrl->ds,
				done ? "" : ", no marker",
				own ? "" : ", no own completion",
				bad.empty() ? "" : (", " + bad).c_str());
	}
	result(mr && !stuck && !bad_status && !unanswered && answered >= rounds,
	       "garbage.every-wqe-answered",
	       str(answered) + " completions, " + str(stuck) +
		       " rounds without the marker, " + str(bad_status) +
		       " unknown statuses, " + str(unanswered) +
		       " rounds whose WQEs were not each answered" +
		       (first_bad.empty() ? "" : " (" + first_bad + ")"));
	bool clean = true;
	for (size_t i = 0; i < pg; i++)
		clean = clean && area[i] == 0xa5 && area[2 * pg + i] == 0xa5;
	result(clean, "garbage.guard-pages-untouched");
	{
		Pair p(d);
		std::string why;
		bool ok = write_roundtrip(d, p, &why);
		result(ok, "garbage.card-still-works", why);
	}
	if (mr)
		ibv_dereg_mr(mr);
	munmap(area, 3 * pg);
	close(wfd);
}

/* ---- hostile input (issue 12's holes) --------------------------------- */

/*
 * A QP that merely names a connected QP gets no answer from it: the
 * responder checks that a packet comes from its own peer (QPN and
 * addresses) and carries the PSN it expects, so another user's QP cannot
 * WRITE into its MR nor SEND into its receive queue even with its rkey.
 */
void test_cross_qp()
{
	Dev d;
	QpOpts o;
	o.timeout = 10; /* 4 ms */
	o.retry_cnt = 1;
	Buf victim(d.pd, 4096, kAllAccess), src(d.pd, 4096, kAllAccess);
	Pair v(d, o); /* the victim's connected pair: v.a <-> v.b */

	memset(victim.p, 0x5a, victim.len);
	memset(src.p, 0xee, src.len);
	post_recv(v.b, { { victim.addr(2048), 64, victim.mr->lkey } }, 7);

	/* an attacker QP aimed at v.b, which is connected to v.a */
	Pair att(d, o, v.b->qp_num);
	post_send(att.a, IBV_WR_RDMA_WRITE,
		  { { src.addr(), 64, src.mr->lkey } }, 1, IBV_SEND_SIGNALED,
		  victim.addr(), victim.mr->rkey);
	auto wa = poll_n(att.cqa, 1, 10000);
	result(wa.size() == 1 && wa[0].status == IBV_WC_RETRY_EXC_ERR,
	       "cross.write-to-unconnected-qp-retry-exc",
	       wa.empty() ? "none" : wc_desc(wa[0]));

	Pair att2(d, o, v.b->qp_num);
	post_send(att2.a, IBV_WR_SEND, { { src.addr(), 64, src.mr->lkey } }, 2);
	wa = poll_n(att2.cqa, 1, 10000);
	result(wa.size() == 1 && wa[0].status == IBV_WC_RETRY_EXC_ERR,
	       "cross.send-to-unconnected-qp-retry-exc",
	       wa.empty() ? "none" : wc_desc(wa[0]));
	auto wb = poll_n(v.cqb, 1, 200);
	result(wb.empty(), "cross.victim-receives-nothing",
	       wb.empty() ? "" : wc_desc(wb[0]));
	bool same = true;
	for (size_t i = 0; i < victim.len; i++)
		same = same && victim.p[i] == 0x5a;
	result(same, "cross.victim-memory-untouched");

	/* the victim's own peer still reaches it */
	post_send(v.a, IBV_WR_RDMA_WRITE, { { src.addr(), 64, src.mr->lkey } },
		  3, IBV_SEND_SIGNALED, victim.addr(), victim.mr->rkey);
	wa = poll_n(v.cqa, 1);
	result(wa.size() == 1 && wa[0].status == IBV_WC_SUCCESS &&
		       victim.p[0] == 0xee && victim.p[63] == 0xee &&
		       victim.p[64] == 0x5a,
	       "cross.connected-peer-still-writes",
	       wa.empty() ? "none" : wc_desc(wa[0]));

	/*
	 * An RC message out of sequence is NAKed and finally fails: A is
	 * connected again with its first PSN 100 while B expects 0.
	 */
	Pair ps(d, o);
	ibv_qp_attr at = {};
	at.qp_state = IBV_QPS_RESET;
	int rc = ibv_modify_qp(ps.a, &at, IBV_QP_STATE);
	QpOpts skew = o;
	skew.psn = 100;
	Pair::connect_qp(d, skew, ps.a, ps.b->qp_num, false);
	memset(victim.p, 0x5a, victim.len);
	post_send(ps.a, IBV_WR_RDMA_WRITE, { { src.addr(), 64, src.mr->lkey } },
		  4, IBV_SEND_SIGNALED, victim.addr(), victim.mr->rkey);
	wa = poll_n(ps.cqa, 1, 10000);
	result(!rc && wa.size() == 1 && wa[0].status == IBV_WC_RETRY_EXC_ERR &&
		       victim.p[0] == 0x5a,
	       "cross.psn-out-of-sequence-retry-exc",
	       rc ? strerror(rc) : (wa.empty() ? "none" : wc_desc(wa[0])));
}

/*
 * Write one raw send WQE of @units 16-byte units into @p.a's send queue
 * (a white-box reach into the provider, as the garbage test does) and wake
 * the card; return its completion.
 */
std::vector<ibv_wc> post_raw_wqe(Pair &p, int wfd,
				 const std::vector<std::array<uint8_t, 16>> &u)
{
	auto *q = reinterpret_cast<softhca::Qp *>(p.a);
	uint32_t nbb = softhca_wqe_bbs(static_cast<uint32_t>(u.size()));

	for (size_t i = 0; i < u.size(); i++)
		memcpy(sq_unit(q, q->sq_pi, static_cast<uint32_t>(i)),
		       u[i].data(), 16);
	auto *ctrl =
		reinterpret_cast<softhca_wqe_ctrl *>(sq_unit(q, q->sq_pi, 0));
	ctrl->wqe_index = htole16(static_cast<uint16_t>(q->sq_pi));
	ctrl->ds = static_cast<uint8_t>(u.size());
	uint32_t slot = q->sq_pi & (q->sq.wqe_cnt - 1);
	q->sq_wrid[slot] = 0x4a3;
	q->sq_nbb[slot] = static_cast<uint8_t>(nbb);
	q->sq_wqe_head[slot] = q->sq_head++;
	q->sq_pi += nbb;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	q->db->sq_pi = htole32(q->sq_pi);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ioctl(wfd, SOFTHCA_WAKE_IOCTL, static_cast<unsigned long>(p.a->qp_num));
	return poll_n(p.cqa, 1);
}

template <typename T>
std::array<uint8_t, 16> unit(const T &seg)
{
	static_assert(sizeof(T) <= 16, "one unit");
	std::array<uint8_t, 16> u = {};
	memcpy(u.data(), &seg, sizeof(T));
	return u;
}

/*
 * READ and atomic results land through an SGE: the card refuses such a
 * WQE with inline data (there is no SGE to write through) and an atomic
 * whose gather list is not exactly one 8-byte SGE.
 */
void test_atomic_inline()
{
	Dev d;
	int wfd = alloc_wake_file(d.ctx, 1);
	Buf target(d.pd, 4096, kAllAccess), local(d.pd, 4096, kAllAccess);
	struct Case {
		const char *name;
		uint8_t opcode;
		bool inl;
		int nsge;
		ibv_wc_status want;
	};
	static const Case cases[] = {
		{ "atomic.fetch-add-inline-refused", SOFTHCA_WQE_ATOMIC_FA,
		  true, 0, IBV_WC_LOC_QP_OP_ERR },
		{ "atomic.cmp-swap-inline-refused", SOFTHCA_WQE_ATOMIC_CS, true,
		  0, IBV_WC_LOC_QP_OP_ERR },
		{ "read.inline-refused", SOFTHCA_WQE_RDMA_READ, true, 0,
		  IBV_WC_LOC_QP_OP_ERR },
		{ "atomic.no-sge-refused", SOFTHCA_WQE_ATOMIC_FA, false, 0,
		  IBV_WC_LOC_LEN_ERR },
		{ "atomic.two-sges-refused", SOFTHCA_WQE_ATOMIC_FA, false, 2,
		  IBV_WC_LOC_LEN_ERR },
	};

	if (wfd < 0) {
		result(false, "atomic.setup", "no wake-up file");
		return;
	}
	for (const Case &c : cases) {
		Pair p(d);
		std::vector<std::array<uint8_t, 16>> u;
		softhca_wqe_ctrl ctrl = {};
		softhca_wqe_raddr ra = {};
		softhca_wqe_atomic at = {};

		memset(target.p, 0x11, target.len);
		memset(local.p, 0x22, local.len);
		ctrl.opcode = c.opcode;
		ctrl.flags = SOFTHCA_WQE_F_SIGNALED |
			     (c.inl ? SOFTHCA_WQE_F_INLINE : 0);
		u.push_back(unit(ctrl));
		ra.addr = htole64(target.addr(64));
		ra.rkey = htole32(target.mr->rkey);
		u.push_back(unit(ra));
		if (c.opcode != SOFTHCA_WQE_RDMA_READ) {
			at.swap_add = htole64(1);
			at.compare = htole64(0x1111111111111111ULL);
			u.push_back(unit(at));
		}
		if (c.inl) {
			std::array<uint8_t, 16> in = {};
			uint32_t len = htole32(8);

			memcpy(in.data(), &len, 4);
			memset(in.data() + 4, 0x33, 8);
			u.push_back(in);
		}
		for (int i = 0; i < c.nsge; i++) {
			softhca_wqe_data s = {};
			s.byte_count = htole32(4);
			s.lkey = htole32(local.mr->lkey);
			s.addr = htole64(local.addr(8 * i));
			u.push_back(unit(s));
		}
		auto wa = post_raw_wqe(p, wfd, u);
		bool untouched = true;
		for (size_t i = 0; i < target.len; i++)
			untouched = untouched && target.p[i] == 0x11 &&
				    local.p[i] == 0x22;
		result(wa.size() == 1 && wa[0].status == c.want &&
			       wa[0].wr_id == 0x4a3 && untouched,
		       c.name,
		       (wa.empty() ? std::string("none") : wc_desc(wa[0])) +
			       (untouched ? "" : ", memory changed"));
	}
	close(wfd);
}

/*
 * 300 QPs fail at once (a doorbell record past their ring: QP_FATAL) while
 * commands run: every event arrives, and every command completes on the
 * command EQ, which no object event shares.
 */
void test_event_flood()
{
	const int n = 300;
	Dev d;
	int wfd = alloc_wake_file(d.ctx, 1);
	ibv_cq *cq = ibv_create_cq(d.ctx, 1024, nullptr, nullptr, 0);
	std::vector<ibv_qp *> qps;
	QpOpts o;
	o.max_wr = 4;
	o.max_sge = 1;
	o.max_inline = 0;

	for (int i = 0; i < n && cq; i++) {
		ibv_qp_init_attr ia = {};
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 4;
		ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		ibv_qp *qp = ibv_create_qp(d.pd, &ia);
		if (!qp)
			break;
		qps.push_back(qp);
		Pair::connect_qp(d, o, qp, qp->qp_num, false);
	}
	if (wfd < 0 || static_cast<int>(qps.size()) != n) {
		result(false, "events.flood-setup",
		       str(qps.size()) + " QPs: " + strerror(errno));
		return;
	}
	for (ibv_qp *qp : qps) {
		auto *q = reinterpret_cast<softhca::Qp *>(qp);
		q->db->sq_pi = htole32(0x7fff0000);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ioctl(wfd, SOFTHCA_WAKE_IOCTL, static_cast<unsigned long>(0));
	int cmds_ok = 0;
	for (int i = 0; i < 50; i++) {
		ibv_cq *c = ibv_create_cq(d.ctx, 16, nullptr, nullptr, 0);
		if (c && !ibv_destroy_cq(c))
			cmds_ok++;
	}
	result(cmds_ok == 50, "events.flood-commands-complete",
	       str(cmds_ok) + " of 50 CQ create/destroy");
	int fatal = 0;
	double end = now_ms() + 10000;
	while (fatal < n && now_ms() < end) {
		pollfd pfd = { d.ctx->async_fd, POLLIN, 0 };

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		ibv_async_event ev;
		if (ibv_get_async_event(d.ctx, &ev))
			continue;
		if (ev.event_type == IBV_EVENT_QP_FATAL)
			fatal++;
		ibv_ack_async_event(&ev);
	}
	result(fatal == n, "events.flood-every-qp-fatal-delivered",
	       str(fatal) + " of " + str(n));
	for (ibv_qp *qp : qps)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	close(wfd);
}

/* A registration whose iova range wraps around is refused. */
void test_iova_wrap()
{
	Dev d;
	static uint8_t buf[8192] __attribute__((aligned(4096)));
	ibv_mr *mr = ibv_reg_mr_iova(d.pd, buf, sizeof(buf), UINT64_MAX - 4095,
				     kAllAccess);
	int err = errno;

	result(!mr && err == EINVAL, "mr.iova-wrap-einval",
	       mr ? "registered" : strerror(err));
	if (mr)
		ibv_dereg_mr(mr);
}

/*
 * The card wedges on CREATE_MKEY (the test set hw_fault_cmd_stall): the
 * registration times out, the device is declared dead, every later
 * command fails at once with EIO, and IBV_EVENT_DEVICE_FATAL arrives.
 */
void test_cmd_timeout()
{
	Dev d;
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	double t0 = now_ms();
	ibv_mr *mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	int err = errno;

	result(!mr && err == ETIMEDOUT, "timeout.reg-mr-etimedout",
	       mr ? "registered" : strerror(err));
	printf("  reg_mr returned after %.0f ms\n", now_ms() - t0);
	int eio = 0;
	t0 = now_ms();
	for (int i = 0; i < 40; i++) {
		ibv_pd *pd = ibv_alloc_pd(d.ctx);
		if (!pd && errno == EIO)
			eio++;
		else if (pd)
			ibv_dealloc_pd(pd);
	}
	double ms = now_ms() - t0;
	result(eio == 40 && ms < 2000, "timeout.later-commands-fail-fast-eio",
	       str(eio) + " of 40 EIO in " + str(static_cast<uint64_t>(ms)) +
		       " ms");
	bool fatal = false;
	double end = now_ms() + 5000;
	while (!fatal && now_ms() < end) {
		pollfd pfd = { d.ctx->async_fd, POLLIN, 0 };

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		ibv_async_event ev;
		if (ibv_get_async_event(d.ctx, &ev))
			continue;
		fatal = ev.event_type == IBV_EVENT_DEVICE_FATAL;
		ibv_ack_async_event(&ev);
	}
	result(fatal, "timeout.device-fatal-event");
}

/*
 * A connected pair streaming SENDs and WRITEs of 64 KiB in a thread of its
 * own, every completion checked, until told to stop or until something
 * fails: a post, a poll, a completion, or no completion for 5 s (what a
 * process sees of a device removed under it: its QPs are gone, its rings
 * never fill again).
 */
struct Stream {
	Dev &d;
	Pair p;
	Buf src, dst;
	std::atomic<bool> stop{ false };
	std::atomic<unsigned long> messages{ 0 };
	std::atomic<bool> done{ false };
	std::string ended; /* why it stopped: read only once done */
	std::thread t;

	explicit Stream(Dev &dev)
	    : d(dev), p(dev), src(dev.pd, 1 << 17, kAllAccess),
	      dst(dev.pd, 1 << 17, kAllAccess)
	{
		t = std::thread([this] {
			ended = run();
			done = true;
		});
	}
	~Stream()
	{
		stop = true;
		if (t.joinable())
			t.join();
	}
	/* why it stopped, once it did (empty before) */
	std::string why() const
	{
		return done ? ended : std::string();
	}
	std::string run()
	{
		for (uint32_t seq = 1; !stop; seq++) {
			memset(src.p, static_cast<int>(seq), 65536);
			if (post_recv(p.b,
				      { { dst.addr(), 65536, dst.mr->lkey } },
				      seq) ||
			    post_send(p.a, IBV_WR_SEND,
				      { { src.addr(), 65536, src.mr->lkey } },
				      seq) ||
			    post_send(p.a, IBV_WR_RDMA_WRITE,
				      { { src.addr(), 65536, src.mr->lkey } },
				      seq, IBV_SEND_SIGNALED, dst.addr(65536),
				      dst.mr->rkey))
				return "a post failed";
			auto a = poll_n(p.cqa, 2, 5000);
			auto b = poll_n(p.cqb, 1, 5000);
			if (a.size() != 2 || b.size() != 1)
				return "no completion for 5 s";
			for (auto &w : { a[0], a[1], b[0] })
				if (w.status != IBV_WC_SUCCESS)
					return "completion " + wc_desc(w);
			if (dst.p[0] != static_cast<uint8_t>(seq) ||
			    dst.p[65536 + 65535] != static_cast<uint8_t>(seq))
				return "data of message " + str(seq) + " wrong";
			messages++;
		}
		return "stopped";
	}
};

/*
 * The device goes away (rdma link delete, rmmod) under a process holding
 * a context, a mapped UAR and a pair mid-transfer: the mapping is zapped
 * (a touch finds a zero page, not the card's), the process gets
 * IBV_EVENT_DEVICE_FATAL, its stream stops instead of delivering, its
 * commands fail, and it closes the context. With @stays the device must
 * stay (an rmmod refused while the process's wake-up file holds the
 * module): the stream goes on. Case names start with @tag. Prints READY
 * once streaming, then waits for a line on stdin (the test removes the
 * device, or tries to, meanwhile).
 */
void test_uar_zap(const std::string &tag, bool stays)
{
	Dev d;
	auto *ctx = softhca::to_ctx(d.ctx);
	auto *mark = reinterpret_cast<volatile uint32_t *>(ctx->uar + 0x800);

	*mark = 0x5eca1;
	result(*mark == 0x5eca1, tag + ".uar-writable-before");
	Stream st(d);
	double end = now_ms() + kDeadlineMs;
	while (st.messages < 10 && st.why().empty() && now_ms() < end)
		usleep(1000);
	result(st.messages >= 10, tag + ".streaming-before",
	       str(st.messages) + " messages, " + st.why());
	printf("READY\n");
	fflush(stdout);
	char line[16];
	if (!fgets(line, sizeof(line), stdin)) {
		result(false, tag + ".go", "no go line");
		return;
	}
	unsigned long at_go = st.messages;
	if (stays) {
		/* the device is still there: the stream goes on */
		end = now_ms() + kDeadlineMs;
		while (st.messages < at_go + 10 && st.why().empty() &&
		       now_ms() < end)
			usleep(1000);
		result(st.messages >= at_go + 10 && st.why().empty(),
		       tag + ".stream-goes-on",
		       str(st.messages - at_go) + " messages after, " +
			       st.why());
		result(*mark == 0x5eca1, tag + ".uar-still-mapped");
		st.stop = true;
		st.t.join();
		return;
	}
	bool fatal = false;
	end = now_ms() + 10000;
	while (!fatal && now_ms() < end) {
		pollfd pfd = { d.ctx->async_fd, POLLIN, 0 };

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		ibv_async_event ev;
		if (ibv_get_async_event(d.ctx, &ev))
			continue;
		fatal = ev.event_type == IBV_EVENT_DEVICE_FATAL;
		ibv_ack_async_event(&ev);
	}
	result(fatal, tag + ".device-fatal-event");
	result(*mark == 0, tag + ".uar-mapping-zapped",
	       "still reads " + str(*mark));
	/* the stream thread ends on its own: nothing completes any more */
	st.t.join();
	result(st.ended != "stopped" && !st.ended.empty(),
	       tag + ".stream-stops",
	       st.ended + " after " + str(st.messages - at_go) +
		       " messages more");
	ibv_pd *pd = ibv_alloc_pd(d.ctx);
	int err = errno;
	result(!pd && err == EIO, tag + ".commands-fail-eio",
	       pd ? "alloc_pd succeeded" : strerror(err));
}

/*
 * Allocate PDs until the device or the rdma cgroup says no: print how
 * many, and check the count against @want (a cgroup limit; -1: the
 * device's max_pd) and the errno against @err.
 */
/*
 * The PDs the kernel's clients of the device hold (the MAD layer's for
 * the GSI QP): "rdma resource show pd" names their owner in brackets.
 */
long kernel_pds()
{
	std::string cmd = "rdma resource show pd 2>/dev/null | grep -c '^dev " +
			  dev_name + " .*comm \\['";
	FILE *f = popen(cmd.c_str(), "r");
	long n = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld", &n) != 1)
		n = 0;
	pclose(f);
	return n;
}

/*
 * Allocate PDs until the card (or the rdma cgroup) refuses: the count must
 * be @want (the card's max_pd less ib_core's own when @want < 0) and every
 * refusal @err. Two threads allocate and free, as two callers may: each
 * PD is a command to the card (ALLOC_PD, DEALLOC_PD), and two can be in
 * flight on the command queue, which halves the check's time on the debug
 * kernel (65534 PDs). Neither frees before both are refused, so the count
 * is the limit's.
 */
void test_pd_limit(const std::string &name, long want, int err)
{
	Dev d;
	ibv_device_attr da = {};
	constexpr int kThreads = 2;
	std::array<std::vector<ibv_pd *>, kThreads> pds;
	std::array<int, kThreads> got_err = {};

	if (want < 0) {
		/* all the card has, but the PDs of ib_core's own clients */
		ibv_query_device(d.ctx, &da);
		want = da.max_pd - kernel_pds();
	}
	/* fn(t) on each of the threads at once, until all return */
	auto on_threads = [](const std::function<void(int)> &fn) {
		std::vector<std::thread> th;
		for (int t = 0; t < kThreads; t++)
			th.emplace_back(fn, t);
		for (auto &t : th)
			t.join();
	};
	on_threads([&](int t) {
		for (;;) {
			ibv_pd *pd = ibv_alloc_pd(d.ctx);
			if (!pd) {
				got_err[t] = errno;
				break;
			}
			pds[t].push_back(pd);
		}
	});
	/* Dev holds one PD already */
	long n = 1;
	std::string errs;
	bool all_err = true;
	for (int t = 0; t < kThreads; t++) {
		n += static_cast<long>(pds[t].size());
		errs += std::string(t ? ", " : "") + strerror(got_err[t]);
		all_err = all_err && got_err[t] == err;
	}
	printf("  %ld PDs, then %s\n", n, errs.c_str());
	result(n == want && all_err, name,
	       str(n) + " PDs (want " + str(want) + "), then " + errs);
	on_threads([&](int t) {
		for (ibv_pd *pd : pds[t])
			ibv_dealloc_pd(pd);
	});
}

/* ---- the wake-up file ---------------------------------------------- */

/* SOFTHCA_IB_METHOD_WAKE_FD_ALLOC with @nattrs attributes: the fd or -errno */
int alloc_wake_file(ibv_context *ctx, uint16_t nattrs)
{
	ib_uverbs_ioctl_hdr hdr = {};
	ib_uverbs_attr attr = {};
	alignas(8) unsigned char cmd[sizeof(hdr) + sizeof(attr)];

	hdr.length = sizeof(hdr) + nattrs * sizeof(attr);
	hdr.object_id = SOFTHCA_IB_OBJECT_WAKE_FD;
	hdr.method_id = SOFTHCA_IB_METHOD_WAKE_FD_ALLOC;
	hdr.num_attrs = nattrs;
	attr.attr_id = SOFTHCA_IB_ATTR_WAKE_FD_ALLOC_HANDLE;
	attr.flags = UVERBS_ATTR_F_MANDATORY;
	memcpy(cmd, &hdr, sizeof(hdr));
	memcpy(cmd + sizeof(hdr), &attr, sizeof(attr));
	if (ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, cmd))
		return -errno;
	memcpy(&attr, cmd + sizeof(hdr), sizeof(attr));
	return static_cast<int>(attr.data);
}

/* softhca's module reference count, or -1 */
long module_refcnt()
{
	FILE *f = fopen("/sys/module/softhca/refcnt", "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* ioctl(@fd, @cmd, @arg): 0 or errno */
int wake_call(int fd, unsigned long cmd, unsigned long arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

void test_wake_file()
{
	auto *d = new Dev;
	int fd = alloc_wake_file(d->ctx, 1);

	result(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "wake.alloc",
	       "fd " + std::to_string(fd));
	if (fd < 0) {
		delete d;
		return;
	}
	{
		Pair p(*d);
		int e = wake_call(fd, SOFTHCA_WAKE_IOCTL, p.a->qp_num);

		result(!e, "wake.call", "errno " + str(e));
		/* and the card still works after it */
		std::string why;
		bool ok = write_roundtrip(*d, p, &why);
		result(ok, "wake.then-write", why);
	}
	{
		/* the CQ doorbell: the context's own CQs only */
		Dev other;
		ibv_cq *mine = ibv_create_cq(d->ctx, 4, nullptr, nullptr, 0);
		ibv_cq *theirs =
			ibv_create_cq(other.ctx, 4, nullptr, nullptr, 0);
		int own = wake_call(fd, SOFTHCA_CQ_DB_IOCTL,
				    softhca::to_cq(mine)->cqn);
		int foreign = wake_call(fd, SOFTHCA_CQ_DB_IOCTL,
					softhca::to_cq(theirs)->cqn);
		int none = wake_call(fd, SOFTHCA_CQ_DB_IOCTL, SOFTHCA_CQN_NONE);

		result(own == 0 && foreign == EINVAL && none == EINVAL,
		       "wake.cq-doorbell-own-cqs-only",
		       "own " + str(own) + " other context's " + str(foreign) +
			       " no CQ " + str(none));
		ibv_destroy_cq(theirs);
		ibv_destroy_cq(mine);
	}
	{
		/* the wake-up doorbell: the context's own QPs only */
		Dev other;
		Pair mine(*d), theirs(other);
		int own = wake_call(fd, SOFTHCA_WAKE_IOCTL, mine.a->qp_num);
		int foreign =
			wake_call(fd, SOFTHCA_WAKE_IOCTL, theirs.a->qp_num);
		/* QP1 is the kernel's (the MAD layer's GSI QP) */
		int kernel = wake_call(fd, SOFTHCA_WAKE_IOCTL, 1);
		int none = wake_call(fd, SOFTHCA_WAKE_IOCTL, 0xfffff0);

		result(own == 0 && foreign == EINVAL && kernel == EINVAL &&
			       none == EINVAL,
		       "wake.qp-doorbell-own-qps-only",
		       "own " + str(own) + " other context's " + str(foreign) +
			       " kernel QP " + str(kernel) + " no QP " +
			       str(none));
	}
	int e = wake_call(fd, _IO(RDMA_IOCTL_MAGIC, 0x9f), 0);
	result(e == ENOTTY, "wake.unknown-ioctl-enotty", "errno " + str(e));
	e = wake_call(fd, SOFTHCA_WAKE_IOCTL, 1UL << 32);
	result(e == EINVAL, "wake.qpn-over-32-bits-einval", "errno " + str(e));
	int none = alloc_wake_file(d->ctx, 0);
	result(none == -EINVAL, "wake.alloc-without-handle-einval",
	       "returned " + std::to_string(none));
	/* the context goes away: the file stays open and says the card left */
	delete d;
	e = wake_call(fd, SOFTHCA_WAKE_IOCTL, 0);
	result(e == EIO, "wake.after-context-closed-eio", "errno " + str(e));
	/*
	 * Closing it releases the file: it was the wake-up file and the last
	 * reference to it, and its release drops the module reference its
	 * file operations hold (a file left open, or released twice, shows
	 * in softhca's reference count).
	 */
	char link[64] = {};
	std::string path = "/proc/self/fd/" + std::to_string(fd);
	ssize_t ln = readlink(path.c_str(), link, sizeof(link) - 1);
	long refs0 = module_refcnt();
	int crc = close(fd);
	long refs1 = module_refcnt();
	bool gone = fcntl(fd, F_GETFD) == -1 && errno == EBADF;
	result(ln > 0 && strstr(link, "softhca_wake") && crc == 0 && gone &&
		       refs0 > 0 && refs1 == refs0 - 1,
	       "wake.close",
	       std::string("fd was ") + (ln > 0 ? link : "?") + ", close " +
		       std::to_string(crc) + ", softhca refcnt " +
		       std::to_string(refs0) + " -> " + std::to_string(refs1));
}

/* ---- UD: datagrams, their GRH, Q_Keys, unknown QPNs ----------------- */

/*
 * A port counter of the device (sysfs hw_counters, from the card's
 * QUERY_COUNTERS), or -1 when it cannot be read.
 */
long long port_counter(const char *name)
{
	std::string path = "/sys/class/infiniband/" + dev_name +
			   "/ports/1/hw_counters/" + name;
	FILE *f = fopen(path.c_str(), "r");
	long long v = -1;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Until the counter reaches @want (or the deadline); its last value. */
long long wait_counter(const char *name, long long want,
		       double ms = kDeadlineMs)
{
	double end = now_ms() + ms;
	long long v;

	while ((v = port_counter(name)) >= 0 && v < want && now_ms() < end)
		usleep(1000);
	return v;
}

/* The index of @addr (an IPv6 address, or IPv4-mapped) in the GID table. */
int find_gid(Dev &d, const char *addr)
{
	union ibv_gid want, g;
	ibv_port_attr pa;

	if (inet_pton(AF_INET6, addr, want.raw) != 1 ||
	    ibv_query_port(d.ctx, 1, &pa))
		return -1;
	for (int i = 0; i < pa.gid_tbl_len; i++)
		if (!ibv_query_gid(d.ctx, 1, i, &g) &&
		    memcmp(g.raw, want.raw, sizeof(g.raw)) == 0)
			return i;
	return -1;
}

/* A UD QP with its own CQ, in RTS, taking datagrams with @qkey. */
struct UdQp {
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;

	UdQp(Dev &d, uint32_t qkey)
	{
		ibv_qp_init_attr ia = {};
		ibv_qp_attr at = {};

		cq = ibv_create_cq(d.ctx, 64, nullptr, nullptr, 0);
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = IBV_QPT_UD;
		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 16;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp = cq ? ibv_create_qp(d.pd, &ia) : nullptr;
		if (!qp) {
			fprintf(stderr, "UD QP: %s\n", strerror(errno));
			exit(2);
		}
		at.qp_state = IBV_QPS_INIT;
		at.port_num = 1;
		at.qkey = qkey;
		Pair::check(ibv_modify_qp(qp, &at,
					  IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						  IBV_QP_PORT | IBV_QP_QKEY),
			    "UD INIT");
		at = {};
		at.qp_state = IBV_QPS_RTR;
		Pair::check(ibv_modify_qp(qp, &at, IBV_QP_STATE), "UD RTR");
		at.qp_state = IBV_QPS_RTS;
		at.sq_psn = 0;
		Pair::check(
			ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN),
			"UD RTS");
	}
	~UdQp()
	{
		ibv_destroy_qp(qp);
		ibv_destroy_cq(cq);
	}
};

/* What the datagram's AH says, and so what its GRH must say. */
struct UdPath {
	int sgid_index;
	union ibv_gid gid; /* source and destination: this port's */
	uint8_t hop_limit;
	uint8_t tclass;
	uint32_t flow_label;
};

ibv_ah *make_ah(Dev &d, const UdPath &path)
{
	ibv_ah_attr aa = {};

	aa.is_global = 1;
	aa.port_num = 1;
	aa.grh.dgid = path.gid;
	aa.grh.sgid_index = static_cast<uint8_t>(path.sgid_index);
	aa.grh.hop_limit = path.hop_limit;
	aa.grh.traffic_class = path.tclass;
	aa.grh.flow_label = path.flow_label;
	return ibv_create_ah(d.pd, &aa);
}

int post_ud(ibv_qp *qp, ibv_ah *ah, uint32_t qpn, uint32_t qkey, const Buf &b,
	    size_t off, uint32_t len, uint64_t wr_id)
{
	ibv_sge sge = { b.addr(off), len, b.mr->lkey };
	ibv_send_wr wr = {}, *bad;

	wr.wr_id = wr_id;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	return ibv_post_send(qp, &wr, &bad);
}

constexpr size_t kGrh = 40;

/* The UDP length of a UD SEND of @len bytes: UDP, BTH, DETH, pad, ICRC. */
uint32_t ud_udp_len(uint32_t len)
{
	return 8 + 12 + 8 + ((len + 3) & ~3U) + 4;
}

uint16_t be16_at(const uint8_t *p)
{
	return static_cast<uint16_t>(p[0] << 8 | p[1]);
}

/* Check the 40 bytes in front of a datagram of @len bytes. */
std::string check_grh(const uint8_t *g, const UdPath &path, uint32_t len)
{
	bool v4 = IN6_IS_ADDR_V4MAPPED(
		reinterpret_cast<const in6_addr *>(path.gid.raw));

	if (v4) {
		const uint8_t *ip = g + 20;
		uint32_t sum = 0;

		for (int i = 0; i < 20; i++)
			if (g[i])
				return "byte " + str(i) +
				       " of the first 20 is " + str(g[i]);
		for (int i = 0; i < 20; i += 2)
			sum += be16_at(ip + i);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		if (ip[0] != 0x45)
			return "version/IHL " + str(ip[0]);
		if (ip[1] != path.tclass)
			return "TOS " + str(ip[1]);
		if (be16_at(ip + 2) != 20 + ud_udp_len(len))
			return "total length " + str(be16_at(ip + 2));
		if (ip[8] != path.hop_limit)
			return "TTL " + str(ip[8]);
		if (ip[9] != IPPROTO_UDP)
			return "protocol " + str(ip[9]);
		if (sum != 0xffff)
			return "header checksum does not add up";
		if (memcmp(ip + 12, path.gid.raw + 12, 4) != 0 ||
		    memcmp(ip + 16, path.gid.raw + 12, 4) != 0)
			return "addresses are not this port's";
		return "";
	}
	uint32_t w = static_cast<uint32_t>(g[0]) << 24 | g[1] << 16 |
		     g[2] << 8 | g[3];
	if (w >> 28 != 6)
		return "version " + str(w >> 28);
	if (((w >> 20) & 0xff) != path.tclass)
		return "traffic class " + str((w >> 20) & 0xff);
	if ((w & 0xfffff) != path.flow_label)
		return "flow label " + str(w & 0xfffff);
	if (be16_at(g + 4) != ud_udp_len(len))
		return "payload length " + str(be16_at(g + 4));
	if (g[6] != IPPROTO_UDP)
		return "next header " + str(g[6]);
	if (g[7] != path.hop_limit)
		return "hop limit " + str(g[7]);
	if (memcmp(g + 8, path.gid.raw, 16) != 0 ||
	    memcmp(g + 24, path.gid.raw, 16) != 0)
		return "addresses are not this port's";
	return "";
}

/*
 * A datagram from A to B on GID @path: the sender completes, and the
 * receive holds the GRH and then the payload, with GRH, source QP and
 * P_Key index in its completion.
 */
void ud_grh_case(Dev &d, const UdPath &path, const std::string &name)
{
	const uint32_t qkey = 0x1234567, len = 100;
	UdQp a(d, qkey), b(d, qkey);
	Buf buf(d.pd, 8192, IBV_ACCESS_LOCAL_WRITE);
	ibv_ah *ah = make_ah(d, path);
	std::string why;

	if (!ah) {
		result(false, name,
		       std::string("create_ah: ") + strerror(errno));
		return;
	}
	fill_random(buf.p, 4096);
	memset(buf.p + 4096, 0xee, 4096);
	post_recv(b.qp, { { buf.addr(4096), kGrh + len + 64, buf.mr->lkey } },
		  7);
	post_ud(a.qp, ah, b.qp->qp_num, qkey, buf, 0, len, 8);
	auto wa = poll_n(a.cq, 1);
	auto wb = poll_n(b.cq, 1);
	if (wa.size() != 1 || wa[0].status != IBV_WC_SUCCESS ||
	    wa[0].wr_id != 8 || wa[0].opcode != IBV_WC_SEND)
		why = "sender: " + (wa.empty() ? "none" : wc_desc(wa[0]));
	else if (wb.size() != 1 || wb[0].status != IBV_WC_SUCCESS ||
		 wb[0].wr_id != 7 || wb[0].opcode != IBV_WC_RECV ||
		 wb[0].byte_len != kGrh + len)
		why = "receiver: " + (wb.empty() ? "none" : wc_desc(wb[0]));
	else if (!(wb[0].wc_flags & IBV_WC_GRH))
		why = "no IBV_WC_GRH";
	else if (wb[0].src_qp != a.qp->qp_num)
		why = "src_qp " + str(wb[0].src_qp) + ", sender is " +
		      str(a.qp->qp_num);
	else if (wb[0].pkey_index != 0)
		why = "pkey_index " + str(wb[0].pkey_index);
	else if (memcmp(buf.p + 4096 + kGrh, buf.p, len) != 0)
		why = "payload differs";
	else if (buf.p[4096 + kGrh + len] != 0xee)
		why = "written past the datagram";
	else
		why = check_grh(buf.p + 4096, path, len);
	result(why.empty(), name, why);
	ibv_destroy_ah(ah);
}

void test_ud()
{
	Dev d;
	UdPath v4 = { gid_index, d.gid, 7, 0x28, 0 };

	if (!IN6_IS_ADDR_V4MAPPED(reinterpret_cast<in6_addr *>(d.gid.raw)))
		result(false, "ud.grh-ipv4",
		       "GID index " + str(gid_index) + " is not IPv4-mapped");
	else
		ud_grh_case(d, v4, "ud.grh-ipv4");

	/* an IPv6 GID: the address SOFTHCA_GID6 of the netdev */
	const char *a6 = getenv("SOFTHCA_GID6");
	int i6 = a6 ? find_gid(d, a6) : -1;
	if (!a6) {
		printf("SKIP ud.grh-ipv6: no SOFTHCA_GID6\n");
	} else if (i6 < 0) {
		result(false, "ud.grh-ipv6", std::string("no GID ") + a6);
	} else {
		UdPath v6 = { i6, {}, 9, 0x60, 0x5a5a5 };

		ibv_query_gid(d.ctx, 1, i6, &v6.gid);
		ud_grh_case(d, v6, "ud.grh-ipv6");
	}

	const uint32_t qkey = 0x1111, len = 64;
	UdQp a(d, qkey), b(d, qkey);
	Buf buf(d.pd, 8192, IBV_ACCESS_LOCAL_WRITE);
	ibv_ah *ah = make_ah(d, v4);
	if (!ah) {
		result(false, "ud.ah",
		       std::string("create_ah: ") + strerror(errno));
		return;
	}
	std::string why;

	/*
	 * A Q_Key the receiver does not have: the sender completes (a
	 * datagram is gone once sent), the receiver takes nothing and counts
	 * a drop, and its receive stays posted for the next datagram.
	 */
	long long q0 = port_counter("rx_drop_qkey");
	post_recv(b.qp, { { buf.addr(4096), kGrh + len, buf.mr->lkey } }, 21);
	post_ud(a.qp, ah, b.qp->qp_num, qkey ^ 1, buf, 0, len, 22);
	auto wa = poll_n(a.cq, 1);
	long long q1 = wait_counter("rx_drop_qkey", q0 + 1);
	auto wb = poll_n(b.cq, 1, 200);
	if (q0 < 0)
		why = "cannot read the rx_drop_qkey counter";
	else if (wa.size() != 1 || wa[0].status != IBV_WC_SUCCESS)
		why = "sender: " + (wa.empty() ? "none" : wc_desc(wa[0]));
	else if (!wb.empty())
		why = "the receiver completed: " + wc_desc(wb[0]);
	else if (q1 != q0 + 1)
		why = "rx_drop_qkey " + str(q0) + " -> " + str(q1);
	result(why.empty(), "ud.qkey-mismatch-dropped-and-counted", why);
	post_ud(a.qp, ah, b.qp->qp_num, qkey, buf, 0, len, 23);
	wa = poll_n(a.cq, 1);
	wb = poll_n(b.cq, 1);
	result(wb.size() == 1 && wb[0].status == IBV_WC_SUCCESS &&
		       wb[0].wr_id == 21 && wb[0].byte_len == kGrh + len,
	       "ud.qkey-mismatch-leaves-the-receive-posted",
	       wb.empty() ? "no completion" : wc_desc(wb[0]));

	/*
	 * A QPN nobody owns (one that existed and is gone): the sender
	 * completes successfully, as on a wire; the card counts the drop.
	 */
	uint32_t gone;
	{
		UdQp c(d, qkey);
		gone = c.qp->qp_num;
	}
	why.clear();
	long long n0 = port_counter("rx_drop_no_qp");
	post_recv(b.qp, { { buf.addr(4096), kGrh + len, buf.mr->lkey } }, 31);
	post_ud(a.qp, ah, gone, qkey, buf, 0, len, 32);
	wa = poll_n(a.cq, 1);
	long long n1 = wait_counter("rx_drop_no_qp", n0 + 1);
	wb = poll_n(b.cq, 1, 200);
	if (n0 < 0)
		why = "cannot read the rx_drop_no_qp counter";
	else if (wa.size() != 1 || wa[0].status != IBV_WC_SUCCESS ||
		 wa[0].wr_id != 32)
		why = "sender: " + (wa.empty() ? "none" : wc_desc(wa[0]));
	else if (!wb.empty())
		why = "another QP completed: " + wc_desc(wb[0]);
	else if (n1 != n0 + 1)
		why = "rx_drop_no_qp " + str(n0) + " -> " + str(n1);
	result(why.empty(), "ud.unknown-qpn-sender-completes-receiver-drops",
	       why);
	ibv_destroy_ah(ah);
}

/* ---- SRQ: the limit event, a QP in error ---------------------------- */

/* Is there an async event of @type for @srq within @ms? */
bool srq_event(ibv_context *ctx, ibv_event_type type, ibv_srq *srq, int ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end) {
		pollfd pfd = { ctx->async_fd, POLLIN, 0 };

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		ibv_async_event ev;
		if (ibv_get_async_event(ctx, &ev))
			continue;
		bool hit = ev.event_type == type && ev.element.srq == srq;
		ibv_ack_async_event(&ev);
		if (hit)
			return true;
	}
	return false;
}

ibv_srq *make_srq(Dev &d, uint32_t max_wr)
{
	ibv_srq_init_attr sa = {};

	sa.attr.max_wr = max_wr;
	sa.attr.max_sge = 1;
	ibv_srq *srq = ibv_create_srq(d.pd, &sa);
	if (!srq) {
		fprintf(stderr, "create_srq: %s\n", strerror(errno));
		exit(2);
	}
	return srq;
}

int post_srq(ibv_srq *srq, const Buf &b, size_t off, uint32_t len,
	     uint64_t wr_id)
{
	ibv_sge sge = { b.addr(off), len, b.mr->lkey };
	ibv_recv_wr wr = {}, *bad;

	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_srq_recv(srq, &wr, &bad);
}

/* @n SENDs from @p's A to its B: both sides complete; B's wr_ids. */
std::vector<uint64_t> srq_sends(Pair &p, Buf &b, int n, std::string *why)
{
	std::vector<uint64_t> ids;

	for (int i = 0; i < n; i++)
		post_send(p.a, IBV_WR_SEND, { { b.addr(), 32, b.mr->lkey } },
			  1000 + i);
	auto wa = poll_n(p.cqa, n);
	auto wb = poll_n(p.cqb, n);
	for (auto &wc : wa)
		if (wc.status != IBV_WC_SUCCESS)
			*why = "sender: " + wc_desc(wc);
	for (auto &wc : wb) {
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
		    wc.qp_num != p.b->qp_num)
			*why = "receiver: " + wc_desc(wc);
		ids.push_back(wc.wr_id);
	}
	if (why->empty() && (wa.size() != size_t(n) || wb.size() != size_t(n)))
		*why = str(wa.size()) + " sends, " + str(wb.size()) +
		       " receives of " + str(n);
	return ids;
}

void test_srq()
{
	Dev d;
	Buf b(d.pd, 65536, kAllAccess);
	std::string why;

	/*
	 * The limit: 16 receives posted, limit 8. Eight taken leave 8, not
	 * below the limit: no event. The ninth leaves 7: SRQ_LIMIT_REACHED,
	 * once, and the limit reads 0 again (disarmed).
	 */
	{
		ibv_srq *srq = make_srq(d, 16);
		QpOpts o;
		o.srq_b = srq;
		Pair p(d, o);
		for (int i = 0; i < 16; i++)
			post_srq(srq, b, 4096 + i * 64, 64, 100 + i);
		ibv_srq_attr sa = {};
		sa.srq_limit = 8;
		int rc = ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT);
		srq_sends(p, b, 8, &why);
		bool early =
			srq_event(d.ctx, IBV_EVENT_SRQ_LIMIT_REACHED, srq, 300);
		srq_sends(p, b, 1, &why);
		bool fired = srq_event(d.ctx, IBV_EVENT_SRQ_LIMIT_REACHED, srq,
				       kDeadlineMs);
		ibv_srq_attr qa = {};
		int qrc = ibv_query_srq(srq, &qa);
		if (rc)
			why = std::string("modify_srq: ") + strerror(rc);
		else if (why.empty() && early)
			why = "the event came with 8 receives left, limit 8";
		else if (why.empty() && !fired)
			why = "no SRQ_LIMIT_REACHED with 7 left";
		else if (why.empty() && (qrc || qa.srq_limit != 0))
			why = "after the event the limit reads " +
			      str(qa.srq_limit);
		result(why.empty(), "srq.limit-event", why);
		ibv_destroy_qp(p.b);
		p.b = nullptr;
		ibv_destroy_srq(srq);
	}

	/*
	 * A QP in error stops taking from its SRQ: LAST_WQE_REACHED, its
	 * sends flush, and the SRQ's receives are not flushed with it: the
	 * next QP on the SRQ gets them, in the order they were posted.
	 */
	why.clear();
	{
		ibv_srq *srq = make_srq(d, 16);
		QpOpts o;
		o.srq_b = srq;
		Pair p(d, o), q(d, o);
		for (int i = 0; i < 4; i++)
			post_srq(srq, b, 4096 + i * 64, 64, 200 + i);
		auto first = srq_sends(p, b, 1, &why);
		ibv_qp_attr at = {};
		at.qp_state = IBV_QPS_ERR;
		ibv_modify_qp(p.b, &at, IBV_QP_STATE);
		bool last = async_event(d.ctx, IBV_EVENT_QP_LAST_WQE_REACHED,
					p.b, kDeadlineMs);
		post_send(p.b, IBV_WR_SEND, { { b.addr(), 8, b.mr->lkey } },
			  300);
		auto wf = poll_n(p.cqb, 1);
		auto stray = poll_n(p.cqb, 1, 200);
		auto rest = srq_sends(q, b, 3, &why);
		if (why.empty() && (first.size() != 1 || first[0] != 200))
			why = "the first receive was not the SRQ's first";
		else if (why.empty() && !last)
			why = "no LAST_WQE_REACHED for the QP in error";
		else if (why.empty() && (wf.size() != 1 ||
					 wf[0].status != IBV_WC_WR_FLUSH_ERR ||
					 wf[0].wr_id != 300))
			why = "send in error: " +
			      (wf.empty() ? "none" : wc_desc(wf[0]));
		else if (why.empty() && !stray.empty())
			why = "the QP in error completed " + wc_desc(stray[0]);
		else if (why.empty() &&
			 rest != std::vector<uint64_t>{ 201, 202, 203 })
			why = "the other QP did not get the SRQ's 3 receives";
		result(why.empty(), "srq.qp-in-error-leaves-srq-receives", why);
		ibv_destroy_qp(p.b);
		p.b = nullptr;
		ibv_destroy_qp(q.b);
		q.b = nullptr;
		ibv_destroy_srq(srq);
	}
}
} // namespace

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s <ibdev> <gid-index> [test...]\n",
			argv[0]);
		return 2;
	}
	dev_name = argv[1];
	gid_index = atoi(argv[2]);
	const char *absent = getenv("SOFTHCA_ABSENT_GID");
	if (absent && inet_pton(AF_INET6, absent, absent_gid.raw) != 1) {
		fprintf(stderr, "bad SOFTHCA_ABSENT_GID %s\n", absent);
		return 2;
	}
	std::vector<std::string> tests(argv + 3, argv + argc);
	if (tests.empty())
		tests = { "integrity",	 "imm",	      "unsignaled",
			  "wrap",	 "errors",    "flush",
			  "rnr",	 "retry",     "events",
			  "overrun",	 "uc",	      "psn",
			  "large",	 "stale",     "wake",
			  "garbage",	 "cross",     "atomic-inline",
			  "event-flood", "iova-wrap", "cq-numbers",
			  "resize" };
	for (auto &t : tests) {
		if (t == "integrity") {
			test_integrity(IBV_QPT_RC, 60);
			test_integrity(IBV_QPT_UC, 20);
		} else if (t == "imm") {
			test_imm_inline();
		} else if (t == "unsignaled") {
			test_unsignaled_wrap();
		} else if (t == "wrap") {
			test_counter_wrap();
		} else if (t == "errors") {
			test_errors();
		} else if (t == "flush") {
			test_flush();
		} else if (t == "rnr") {
			test_rnr();
		} else if (t == "retry") {
			test_retry();
		} else if (t == "events") {
			test_events();
			test_arm_pending();
		} else if (t == "overrun") {
			test_overrun();
			test_overrun_ignored();
		} else if (t == "uc") {
			test_uc();
		} else if (t == "psn") {
			test_psn(IBV_MTU_1024, 1024);
			test_psn(IBV_MTU_4096, 4096);
		} else if (t == "large") {
			test_large();
		} else if (t == "stale") {
			test_stale_lookups();
		} else if (t == "garbage") {
			const char *n = getenv("SOFTHCA_GARBAGE_ROUNDS");

			test_garbage_wqes(n ? atoi(n) : 200);
		} else if (t == "wake") {
			test_wake_file();
		} else if (t == "cross") {
			test_cross_qp();
		} else if (t == "atomic-inline") {
			test_atomic_inline();
		} else if (t == "event-flood") {
			test_event_flood();
		} else if (t == "iova-wrap") {
			test_iova_wrap();
		} else if (t == "ud") {
			test_ud();
		} else if (t == "srq") {
			test_srq();
		} else if (t == "cq-numbers") {
			test_cq_numbers();
		} else if (t == "resize") {
			test_resize();
		} else if (t == "cmd-timeout") {
			test_cmd_timeout();
		} else if (t == "uar-zap") {
			test_uar_zap("zap", false);
		} else if (t.rfind("uar-zap=", 0) == 0) {
			test_uar_zap(t.substr(8), false);
		} else if (t.rfind("hold=", 0) == 0) {
			test_uar_zap(t.substr(5), true);
		} else if (t == "pd-max") {
			test_pd_limit("limit.pd-count-is-max-pd", -1, ENOMEM);
		} else if (t.rfind("pd-cgroup=", 0) == 0) {
			test_pd_limit("limit.pd-count-is-cgroup-limit",
				      atol(t.c_str() + 10), EAGAIN);
		} else {
			fprintf(stderr, "unknown test %s\n", t.c_str());
			return 2;
		}
	}
	return failures ? 1 : 0;
}
