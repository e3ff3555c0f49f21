// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca-wiretest: two RoCE devices on the two ends of a wire (softhca,
 * rxe, any), driven from one process: QPs of device A talk to QPs of
 * device B through their ports, so every byte crosses the network. Data
 * is checked byte for byte.
 *
 *   softhca-wiretest <devA> <gidA> <devB> <gidB> [option...] case...
 *
 * options: mtu=<256..4096> (path MTU, 1024), seed=<n>, timeout=<s> (how
 * long a completion may take, 120), name=<prefix> (of the cases' names,
 * followed by a dot), psn=<n> (the RC QPs' first PSN, 0xfffc00: in the
 * upper half of the 24-bit space, and wrapping past 0xffffff within the
 * first 16 MiB message at any MTU)
 * cases:
 *   stream[=N]  N RC operations (SEND, SEND with immediate, WRITE, WRITE
 *               with immediate, READ), each way at random, of random
 *               sizes up to 16 MiB (the first is 16 MiB) at random
 *               offsets; the bytes that land are the bytes sent
 *   burst[=N]   N SENDs of up to 8 KiB posted back to back each way
 *   atomics     fetch-and-add and compare-and-swap from A on B's memory
 *   ud          UD datagrams A to B: payload, GRH addresses, source QP
 *   rnr         a SEND with no receive posted: RNR_RETRY_EXC_ERR
 *   access      a WRITE with a wrong rkey: REM_ACCESS_ERR (a NAK)
 *   peer-gone   B's QP destroyed: A's SEND ends in RETRY_EXC_ERR after
 *               the transport timeout, retry_cnt + 1 times
 *
 * Prints "PASS <case>" or "FAIL <case>: <why>"; exits 1 if a case failed,
 * 2 if the setup did.
 */
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <endian.h>
#include <memory>
#include <random>
#include <string>
#include <sys/mman.h>
#include <vector>

#include <infiniband/verbs.h>

namespace {

int failures;
std::string prefix; /* name=: put before each case's name */
std::mt19937_64 rng(4791);
ibv_mtu path_mtu = IBV_MTU_1024;
uint32_t start_psn = 0xfffc00; /* psn=: see the header */
double timeout_s = 120;

void result(bool ok, const std::string &name, const std::string &why = "")
{
	if (ok) {
		printf("PASS %s%s\n", prefix.c_str(), name.c_str());
	} else {
		printf("FAIL %s%s: %s\n", prefix.c_str(), name.c_str(),
		       why.c_str());
		failures++;
	}
	fflush(stdout);
}

[[noreturn]] void die(const std::string &what)
{
	fprintf(stderr, "setup: %s: %s\n", what.c_str(), strerror(errno));
	exit(2);
}

double now_s()
{
	using namespace std::chrono;
	return duration<double>(steady_clock::now().time_since_epoch()).count();
}

const int kAllAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

struct Dev {
	std::string name;
	int gid_index = 0;
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	union ibv_gid gid = {};

	Dev(const std::string &n, int idx) : name(n), gid_index(idx)
	{
		int num;
		ibv_device **list = ibv_get_device_list(&num);

		for (int i = 0; list && i < num; i++)
			if (name == ibv_get_device_name(list[i]))
				ctx = ibv_open_device(list[i]);
		ibv_free_device_list(list);
		if (!ctx)
			die("open " + name);
		pd = ibv_alloc_pd(ctx);
		if (!pd)
			die("alloc_pd on " + name);
		if (ibv_query_gid(ctx, 1, gid_index, &gid))
			die("query_gid on " + name);
	}
	~Dev()
	{
		ibv_dealloc_pd(pd);
		ibv_close_device(ctx);
	}
	Dev(const Dev &) = delete;
	Dev &operator=(const Dev &) = delete;
};

/* Memory registered on a device's PD. */
struct Buf {
	uint8_t *p = nullptr;
	size_t len = 0;
	ibv_mr *mr = nullptr;

	Buf(Dev &d, size_t n)
	{
		len = n;
		void *m = mmap(nullptr, n, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			die("mmap");
		p = static_cast<uint8_t *>(m);
		mr = ibv_reg_mr(d.pd, p, n, kAllAccess);
		if (!mr)
			die("reg_mr on " + d.name);
	}
	~Buf()
	{
		ibv_dereg_mr(mr);
		munmap(p, len);
	}
	Buf(const Buf &) = delete;
	Buf &operator=(const Buf &) = delete;
	uint64_t addr(size_t off = 0) const
	{
		return reinterpret_cast<uintptr_t>(p) + off;
	}
};

struct QpOpts {
	ibv_qp_type type = IBV_QPT_RC;
	uint8_t timeout = 14;
	uint8_t retry_cnt = 7;
	uint8_t rnr_retry = 7;
	uint32_t max_wr = 256;
};

/* A QP with its own CQ on one device. */
struct Qp {
	Dev &d;
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;

	Qp(Dev &dev, const QpOpts &o) : d(dev)
	{
		ibv_qp_init_attr ia = {};

		cq = ibv_create_cq(d.ctx, static_cast<int>(2 * o.max_wr + 16),
				   nullptr, nullptr, 0);
		if (!cq)
			die("create_cq on " + d.name);
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = o.type;
		ia.cap.max_send_wr = o.max_wr;
		ia.cap.max_recv_wr = o.max_wr;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp = ibv_create_qp(d.pd, &ia);
		if (!qp)
			die("create_qp on " + d.name);
	}
	~Qp()
	{
		if (qp)
			ibv_destroy_qp(qp);
		ibv_destroy_cq(cq);
	}
	Qp(const Qp &) = delete;
	Qp &operator=(const Qp &) = delete;

	void destroy_qp()
	{
		ibv_destroy_qp(qp);
		qp = nullptr;
	}

	/* RC: INIT, RTR to @peer, RTS. */
	void connect(const Qp &peer, const QpOpts &o)
	{
		ibv_qp_attr a = {};

		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = kAllAccess;
		if (ibv_modify_qp(qp, &a,
				  IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			die("INIT on " + d.name);
		a = {};
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = path_mtu;
		a.dest_qp_num = peer.qp->qp_num;
		a.rq_psn = start_psn;
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer.d.gid;
		a.ah_attr.grh.sgid_index = d.gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		if (ibv_modify_qp(qp, &a,
				  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
			die("RTR on " + d.name);
		a = {};
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = start_psn;
		a.timeout = o.timeout;
		a.retry_cnt = o.retry_cnt;
		a.rnr_retry = o.rnr_retry;
		a.max_rd_atomic = 16;
		if (ibv_modify_qp(qp, &a,
				  IBV_QP_STATE | IBV_QP_SQ_PSN |
					  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY |
					  IBV_QP_MAX_QP_RD_ATOMIC))
			die("RTS on " + d.name);
	}

	/* UD: INIT, RTR, RTS with a Q_Key. */
	void ud_ready(uint32_t qkey)
	{
		ibv_qp_attr a = {};

		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qkey = qkey;
		if (ibv_modify_qp(qp, &a,
				  IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_QKEY))
			die("UD INIT on " + d.name);
		a = {};
		a.qp_state = IBV_QPS_RTR;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
			die("UD RTR on " + d.name);
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 7;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
			die("UD RTS on " + d.name);
	}

	bool post_recv(const Buf &b, size_t off, uint32_t len, uint64_t id)
	{
		ibv_sge sge = { b.addr(off), len, b.mr->lkey };
		ibv_recv_wr wr = {}, *bad;

		wr.wr_id = id;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		return !ibv_post_recv(qp, &wr, &bad);
	}

	bool post(ibv_wr_opcode op, const Buf &b, size_t off, uint32_t len,
		  uint64_t id, uint64_t raddr = 0, uint32_t rkey = 0,
		  uint32_t imm = 0)
	{
		ibv_sge sge = { b.addr(off), len, b.mr->lkey };
		ibv_send_wr wr = {}, *bad;

		wr.wr_id = id;
		wr.opcode = op;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.imm_data = htobe32(imm);
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		return !ibv_post_send(qp, &wr, &bad);
	}
};

/*
 * Wait for @n completions on @q's CQ into @wc; a failed poll or the
 * deadline fails. Both devices' engines run on their own.
 */
bool wait_wc(Qp &q, std::vector<ibv_wc> &wc, size_t n, std::string &why)
{
	double end = now_s() + timeout_s;
	ibv_wc one;

	wc.clear();
	while (wc.size() < n) {
		int r = ibv_poll_cq(q.cq, 1, &one);

		if (r < 0) {
			why = "poll_cq on " + q.d.name + " failed";
			return false;
		}
		if (r) {
			wc.push_back(one);
			continue;
		}
		if (now_s() > end) {
			why = "no completion on " + q.d.name + " in " +
			      std::to_string(static_cast<int>(timeout_s)) +
			      " s (" + std::to_string(wc.size()) + " of " +
			      std::to_string(n) + ")";
			return false;
		}
	}
	return true;
}

/* No completion beyond what was waited for. */
bool quiet(Qp &q, std::string &why)
{
	ibv_wc one;

	if (ibv_poll_cq(q.cq, 1, &one) == 0)
		return true;
	why = "unexpected completion on " + q.d.name + ": wr_id " +
	      std::to_string(one.wr_id) + " status " +
	      ibv_wc_status_str(one.status);
	return false;
}

bool wc_ok(const ibv_wc &wc, uint64_t id, ibv_wc_opcode op, std::string &why)
{
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != id || wc.opcode != op) {
		why = "completion wr_id " + std::to_string(wc.wr_id) +
		      " (want " + std::to_string(id) + ") opcode " +
		      std::to_string(wc.opcode) + " (want " +
		      std::to_string(op) + ") status " +
		      ibv_wc_status_str(wc.status);
		return false;
	}
	return true;
}

void fill(uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v = rng();

		memcpy(p + i, &v, 8);
	}
	for (; i < n; i++)
		p[i] = static_cast<uint8_t>(rng());
}

bool same(const uint8_t *got, const uint8_t *want, size_t n, std::string &why)
{
	if (!memcmp(got, want, n))
		return true;
	size_t i = 0;

	while (got[i] == want[i])
		i++;
	why = "byte " + std::to_string(i) + " of " + std::to_string(n) +
	      " differs";
	return false;
}

const size_t kMax = 16u << 20; /* the largest message */
const size_t kSlack = 4096;    /* room for offsets and a guard */

/* One RC operation from @rq (requester) to @pq (responder). */
bool rc_op(Qp &rq, Qp &pq, Buf &rsrc, Buf &rdst, Buf &psrc, Buf &pdst, int kind,
	   size_t len, uint64_t id, std::string &why)
{
	size_t loff = rng() % 64, roff = rng() % 64;
	uint32_t imm = static_cast<uint32_t>(rng());
	std::vector<ibv_wc> rwc, pwc;
	bool recv = kind <= 1 || kind == 3;
	const uint8_t guard = 0xa5;

	/* the destination: cleared, with a guard byte after it */
	Buf &dst = kind == 4 ? rdst : pdst;
	size_t doff = kind == 4 ? loff : roff;
	memset(dst.p + doff, 0x5a, len);
	dst.p[doff + len] = guard;
	Buf &src = kind == 4 ? psrc : rsrc;
	size_t soff = kind == 4 ? roff : loff;
	fill(src.p + soff, len);

	if (recv &&
	    !pq.post_recv(pdst, roff, static_cast<uint32_t>(kMax + 64), id)) {
		why = "post_recv failed";
		return false;
	}
	bool posted;
	switch (kind) {
	case 0:
		posted = rq.post(IBV_WR_SEND, rsrc, loff, len, id);
		break;
	case 1:
		posted = rq.post(IBV_WR_SEND_WITH_IMM, rsrc, loff, len, id, 0,
				 0, imm);
		break;
	case 2:
		posted = rq.post(IBV_WR_RDMA_WRITE, rsrc, loff, len, id,
				 pdst.addr(roff), pdst.mr->rkey);
		break;
	case 3:
		posted = rq.post(IBV_WR_RDMA_WRITE_WITH_IMM, rsrc, loff, len,
				 id, pdst.addr(roff), pdst.mr->rkey, imm);
		break;
	default:
		posted = rq.post(IBV_WR_RDMA_READ, rdst, loff, len, id,
				 psrc.addr(roff), psrc.mr->rkey);
		break;
	}
	if (!posted) {
		why = "post_send failed";
		return false;
	}
	static const ibv_wc_opcode sop[] = {
		IBV_WC_SEND,	   IBV_WC_SEND,	     IBV_WC_RDMA_WRITE,
		IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
	};
	if (!wait_wc(rq, rwc, 1, why) || !wc_ok(rwc[0], id, sop[kind], why))
		return false;
	if (recv) {
		if (!wait_wc(pq, pwc, 1, why) ||
		    !wc_ok(pwc[0], id,
			   kind == 3 ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV,
			   why))
			return false;
		if (kind != 0 && (!(pwc[0].wc_flags & IBV_WC_WITH_IMM) ||
				  be32toh(pwc[0].imm_data) != imm)) {
			why = "immediate data lost";
			return false;
		}
		if (kind == 0 && (pwc[0].wc_flags & IBV_WC_WITH_IMM)) {
			why = "immediate data on a plain SEND";
			return false;
		}
		if (kind != 3 && pwc[0].byte_len != len) {
			why = "received " + std::to_string(pwc[0].byte_len) +
			      " bytes of " + std::to_string(len);
			return false;
		}
	}
	if (!same(dst.p + doff, src.p + soff, len, why))
		return false;
	if (dst.p[doff + len] != guard) {
		why = "a byte past the message was written";
		return false;
	}
	return true;
}

struct RcPair {
	Qp a, b;

	RcPair(Dev &da, Dev &db, const QpOpts &o = QpOpts())
	    : a(da, o), b(db, o)
	{
		a.connect(b, o);
		b.connect(a, o);
	}
};

void test_stream(Dev &da, Dev &db, int n)
{
	static const char *const kinds[] = {
		"SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ",
	};
	RcPair p(da, db);
	Buf asrc(da, kMax + kSlack), adst(da, kMax + kSlack);
	Buf bsrc(db, kMax + kSlack), bdst(db, kMax + kSlack);
	std::string why;
	uint64_t bytes = 0;

	for (int i = 0; i < n; i++) {
		bool ab = rng() & 1;
		int kind = static_cast<int>(rng() % 5);
		size_t len =
			i == 0 ? kMax
			       : rng() % ((size_t{ 1 } << (rng() % 25)) + 1);

		len = std::min(len, kMax);
		bool ok = ab ? rc_op(p.a, p.b, asrc, adst, bsrc, bdst, kind,
				     len, i, why)
			     : rc_op(p.b, p.a, bsrc, bdst, asrc, adst, kind,
				     len, i, why);
		if (!ok) {
			result(false, "stream",
			       std::string("op ") + std::to_string(i) + " " +
				       kinds[kind] + " of " +
				       std::to_string(len) + " bytes " +
				       (ab ? "A to B" : "B to A") + ": " + why);
			return;
		}
		bytes += len;
	}
	if (!quiet(p.a, why) || !quiet(p.b, why)) {
		result(false, "stream", why);
		return;
	}
	printf("stream: %d operations, %llu bytes\n", n,
	       static_cast<unsigned long long>(bytes));
	result(true, "stream");
}

/* @n SENDs each way, posted back to back, received in order. */
void test_burst(Dev &da, Dev &db, int n)
{
	QpOpts o;

	o.max_wr = std::max(n, 16);
	RcPair p(da, db, o);
	const size_t slot = 8192;
	Buf asrc(da, n * slot), adst(da, n * slot);
	Buf bsrc(db, n * slot), bdst(db, n * slot);
	std::vector<size_t> alen(n), blen(n);
	std::vector<ibv_wc> wc;
	std::string why;

	fill(asrc.p, n * slot);
	fill(bsrc.p, n * slot);
	for (int i = 0; i < n; i++) {
		alen[i] = rng() % (slot + 1);
		blen[i] = rng() % (slot + 1);
		if (!p.b.post_recv(bdst, i * slot, slot, 1000 + i) ||
		    !p.a.post_recv(adst, i * slot, slot, 2000 + i)) {
			result(false, "burst", "post_recv failed");
			return;
		}
	}
	for (int i = 0; i < n; i++)
		if (!p.a.post(IBV_WR_SEND, asrc, i * slot, alen[i], i) ||
		    !p.b.post(IBV_WR_SEND, bsrc, i * slot, blen[i], i)) {
			result(false, "burst", "post_send failed");
			return;
		}
	/* each CQ gets n send and n receive completions */
	for (Qp *q : { &p.a, &p.b }) {
		bool is_a = q == &p.a;
		int sends = 0, recvs = 0;

		if (!wait_wc(*q, wc, 2 * n, why)) {
			result(false, "burst", why);
			return;
		}
		for (const ibv_wc &w : wc) {
			if (w.status != IBV_WC_SUCCESS) {
				result(false, "burst",
				       std::string("status ") +
					       ibv_wc_status_str(w.status));
				return;
			}
			if (w.opcode == IBV_WC_SEND) {
				if (w.wr_id != static_cast<uint64_t>(sends++)) {
					result(false, "burst",
					       "send completions out of order");
					return;
				}
				continue;
			}
			uint64_t want = (is_a ? 2000 : 1000) + recvs;
			size_t len = is_a ? blen[recvs] : alen[recvs];
			const Buf &dst = is_a ? adst : bdst;
			const Buf &src = is_a ? bsrc : asrc;

			if (w.wr_id != want || w.byte_len != len) {
				result(false, "burst",
				       "receive " + std::to_string(w.wr_id) +
					       " of " +
					       std::to_string(w.byte_len) +
					       " bytes, want " +
					       std::to_string(want) + " of " +
					       std::to_string(len));
				return;
			}
			if (!same(dst.p + recvs * slot, src.p + recvs * slot,
				  len, why)) {
				result(false, "burst",
				       "message " + std::to_string(recvs) +
					       ": " + why);
				return;
			}
			recvs++;
		}
	}
	result(true, "burst");
}

void test_atomics(Dev &da, Dev &db)
{
	RcPair p(da, db);
	Buf target(db, 4096), res(da, 4096);
	std::vector<ibv_wc> wc;
	std::string why;
	uint64_t expect = rng();

	memcpy(target.p + 64, &expect, 8);
	for (int i = 0; i < 200; i++) {
		ibv_sge sge = { res.addr(8 * (i % 64)), 8, res.mr->lkey };
		ibv_send_wr wr = {}, *bad;
		bool cs = i % 3 == 2, hit = cs && (i % 2);
		uint64_t add = rng(), swap = rng();

		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.opcode = cs ? IBV_WR_ATOMIC_CMP_AND_SWP
			       : IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = target.addr(64);
		wr.wr.atomic.rkey = target.mr->rkey;
		wr.wr.atomic.compare_add = cs ? (hit ? expect : ~expect) : add;
		wr.wr.atomic.swap = swap;
		if (ibv_post_send(p.a.qp, &wr, &bad) ||
		    !wait_wc(p.a, wc, 1, why) ||
		    !wc_ok(wc[0], i, cs ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD,
			   why)) {
			result(false, "atomics",
			       "op " + std::to_string(i) + ": " + why);
			return;
		}
		uint64_t orig;

		memcpy(&orig, res.p + 8 * (i % 64), 8);
		if (orig != expect) {
			result(false, "atomics",
			       "op " + std::to_string(i) +
				       " returned a wrong original value");
			return;
		}
		if (!cs)
			expect += add;
		else if (hit)
			expect = swap;
	}
	uint64_t final;

	memcpy(&final, target.p + 64, 8);
	result(final == expect, "atomics", "final value differs");
}

void test_ud(Dev &da, Dev &db)
{
	QpOpts o;

	o.type = IBV_QPT_UD;
	Qp a(da, o), b(db, o);
	const uint32_t qkey = 0x11111111;
	const size_t mtu = 128u << path_mtu;
	const size_t grh = 40;
	Buf src(da, 64 * mtu), dst(db, 64 * (mtu + grh));
	std::vector<ibv_wc> wc;
	std::string why;

	a.ud_ready(qkey);
	b.ud_ready(qkey);
	ibv_ah_attr aa = {};

	aa.is_global = 1;
	aa.grh.dgid = db.gid;
	aa.grh.sgid_index = da.gid_index;
	aa.grh.hop_limit = 64;
	aa.port_num = 1;
	ibv_ah *ah = ibv_create_ah(da.pd, &aa);
	if (!ah) {
		result(false, "ud",
		       std::string("create_ah: ") + strerror(errno));
		return;
	}
	fill(src.p, 64 * mtu);
	for (int i = 0; i < 64; i++)
		b.post_recv(dst, i * (mtu + grh), mtu + grh, i);
	for (int i = 0; i < 64; i++) {
		size_t len = i == 0 ? mtu : rng() % (mtu + 1);
		ibv_sge sge = { src.addr(i * mtu), static_cast<uint32_t>(len),
				src.mr->lkey };
		ibv_send_wr wr = {}, *bad;
		ibv_wc rw;

		wr.wr_id = i;
		wr.opcode = IBV_WR_SEND;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = b.qp->qp_num;
		wr.wr.ud.remote_qkey = qkey;
		if (ibv_post_send(a.qp, &wr, &bad) || !wait_wc(a, wc, 1, why) ||
		    !wc_ok(wc[0], i, IBV_WC_SEND, why) ||
		    !wait_wc(b, wc, 1, why) ||
		    !wc_ok(wc[0], i, IBV_WC_RECV, why)) {
			result(false, "ud",
			       "datagram " + std::to_string(i) + ": " + why);
			ibv_destroy_ah(ah);
			return;
		}
		rw = wc[0];
		const uint8_t *g = dst.p + i * (mtu + grh);
		/* IPv4: 20 zero bytes, then the IPv4 header; else IPv6 */
		bool v4 = g[20] == 0x45;
		bool addr_ok =
			v4 ? !memcmp(g + 32, da.gid.raw + 12, 4) &&
					!memcmp(g + 36, db.gid.raw + 12, 4)
			   : !memcmp(g + 8, da.gid.raw, 16) &&
					!memcmp(g + 24, db.gid.raw, 16);
		if (rw.byte_len != len + grh || !(rw.wc_flags & IBV_WC_GRH) ||
		    rw.src_qp != a.qp->qp_num || !addr_ok ||
		    !same(g + grh, src.p + i * mtu, len, why)) {
			result(false, "ud",
			       "datagram " + std::to_string(i) + ": " +
				       std::to_string(rw.byte_len) +
				       " bytes, src_qp " +
				       std::to_string(rw.src_qp) +
				       (addr_ok ? ""
						: ", GRH addresses wrong ") +
				       why);
			ibv_destroy_ah(ah);
			return;
		}
	}
	ibv_destroy_ah(ah);
	result(true, "ud");
}

/*
 * @q's next completion has @status (the others flush after it); @elapsed,
 * when given, gets the seconds from @posted (now_s() before the post) to
 * the completion. Timing from before the post: the card starts sending,
 * and its transport timer running, while the post still returns.
 */
void expect_status(Qp &q, ibv_wc_status status, const std::string &name,
		   double *elapsed = nullptr, double posted = 0)
{
	std::vector<ibv_wc> wc;
	std::string why;

	if (!wait_wc(q, wc, 1, why)) {
		result(false, name, why);
		return;
	}
	if (elapsed)
		*elapsed = now_s() - posted;
	result(wc[0].status == status, name,
	       std::string("status ") + ibv_wc_status_str(wc[0].status) +
		       ", want " + ibv_wc_status_str(status));
}

void test_rnr(Dev &da, Dev &db)
{
	QpOpts o;

	o.rnr_retry = 1;
	RcPair p(da, db, o);
	Buf b(da, 4096);

	p.a.post(IBV_WR_SEND, b, 0, 100, 1);
	expect_status(p.a, IBV_WC_RNR_RETRY_EXC_ERR, "rnr");
}

void test_access(Dev &da, Dev &db)
{
	RcPair p(da, db);
	Buf a(da, 4096), b(db, 4096);

	p.a.post(IBV_WR_RDMA_WRITE, a, 0, 100, 1, b.addr(), b.mr->rkey ^ 0x80);
	expect_status(p.a, IBV_WC_REM_ACCESS_ERR, "access");
}

void test_peer_gone(Dev &da, Dev &db)
{
	QpOpts o;

	o.timeout = 12; /* 4.096 us << 12: 16.8 ms */
	o.retry_cnt = 3;
	RcPair p(da, db, o);
	Buf a(da, 4096);
	double elapsed = 0, posted;
	int before = failures;

	p.b.destroy_qp();
	posted = now_s();
	p.a.post(IBV_WR_SEND, a, 0, 100, 1);
	expect_status(p.a, IBV_WC_RETRY_EXC_ERR, "peer-gone", &elapsed, posted);
	printf("peer-gone: RETRY_EXC_ERR after %.0f ms\n", elapsed * 1000);
	/* the first send and three retries each waited out the timeout */
	if (failures == before)
		result(elapsed >= 4 * 0.0168, "peer-gone-waited-for-retries",
		       "error after " + std::to_string(elapsed) + " s");
}

int parse_gid(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0 || v > 255) {
		fprintf(stderr, "bad GID index %s\n", s);
		exit(2);
	}
	return static_cast<int>(v);
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr,
			"usage: %s <devA> <gidA> <devB> <gidB> [mtu=N] "
			"[seed=N] [timeout=S] [name=P] [psn=N] case...\n",
			argv[0]);
		return 2;
	}
	Dev da(argv[1], parse_gid(argv[2]));
	Dev db(argv[3], parse_gid(argv[4]));

	for (int i = 5; i < argc; i++) {
		std::string c = argv[i];
		std::string arg;
		size_t eq = c.find('=');

		if (eq != std::string::npos) {
			arg = c.substr(eq + 1);
			c = c.substr(0, eq);
		}
		if (c == "mtu") {
			int m = atoi(arg.c_str());

			path_mtu = m == 256    ? IBV_MTU_256
				   : m == 512  ? IBV_MTU_512
				   : m == 2048 ? IBV_MTU_2048
				   : m == 4096 ? IBV_MTU_4096
					       : IBV_MTU_1024;
		} else if (c == "name") {
			prefix = arg + ".";
		} else if (c == "psn") {
			start_psn = strtoul(arg.c_str(), nullptr, 0) & 0xffffff;
		} else if (c == "seed") {
			rng.seed(strtoull(arg.c_str(), nullptr, 0));
		} else if (c == "timeout") {
			timeout_s = atof(arg.c_str());
		} else if (c == "stream") {
			test_stream(da, db,
				    arg.empty() ? 40 : atoi(arg.c_str()));
		} else if (c == "burst") {
			test_burst(da, db,
				   arg.empty() ? 200 : atoi(arg.c_str()));
		} else if (c == "atomics") {
			test_atomics(da, db);
		} else if (c == "ud") {
			test_ud(da, db);
		} else if (c == "rnr") {
			test_rnr(da, db);
		} else if (c == "access") {
			test_access(da, db);
		} else if (c == "peer-gone") {
			test_peer_gone(da, db);
		} else {
			fprintf(stderr, "unknown case %s\n", c.c_str());
			return 2;
		}
	}
	return failures ? 1 : 0;
}
