// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca-churn: many users doing many things at once, most of them wrong,
 * for a bounded time. Worker threads create, modify, post to and destroy
 * random objects with random (often invalid) parameters, through
 * libibverbs and through raw uverbs commands carrying random driver data;
 * a spawner starts child processes that stream traffic and are SIGKILLed
 * mid-transfer, children that unmap registered memory under a transfer,
 * that close their files in odd orders, and forks that use the parent's
 * context. Meanwhile a sentinel pair, untouched by the others, moves and
 * checks data the whole time.
 *
 *   softhca-churn <ibdev> <gid-index> <seconds> [workers]
 *
 * Checks (PASS/FAIL lines):
 *   churn.ran                     operations were made, none hung
 *   churn.valid-creates-succeed   a create with valid parameters worked
 *                                 (only the device's limits may refuse)
 *   churn.invalid-inputs-refused  inputs that must fail did fail
 *   churn.sentinel-traffic        every sentinel message arrived intact
 *   churn.children                no child died of anything but our kill
 *                                 or its own exit
 *   churn.teardown                every object destroyed in order
 * and a table of operations, their outcomes and errnos, and
 * "TOTAL ops <n> bad-inputs <n> children-killed <n> ... seconds <s>".
 * Exits 1 if a check failed. SOFTHCA_CHURN_SEED sets the random seed.
 */
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <mutex>
#include <poll.h>
#include <random>
#include <string>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "../../include/softhca_abi.h"

namespace {

std::string dev_name;
int gid_index;
std::string self_exe;
std::atomic<bool> stop{ false };

const int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

double now_s()
{
	using namespace std::chrono;
	return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/* ---- statistics ----------------------------------------------------- */

struct OpStats {
	unsigned long tries = 0, ok = 0, bad_inputs = 0;
	std::map<int, unsigned long> errnos;
};

std::mutex stats_mu;
std::map<std::string, OpStats> stats;
std::atomic<unsigned long> total_ops{ 0 }, total_bad{ 0 };
std::atomic<unsigned long> valid_create_failures{ 0 };
std::atomic<unsigned long> accepted_invalid{ 0 };
std::vector<std::string> anomalies; /* under stats_mu, the first few */
/* how often each kind of a worker's operation ran (Worker::step) */
constexpr size_t max_op_kinds = 32;
std::atomic<unsigned long> op_runs[max_op_kinds];
std::atomic<size_t> op_kinds{ 0 };

void note_anomaly(const std::string &s)
{
	std::lock_guard<std::mutex> g(stats_mu);
	if (anomalies.size() < 20)
		anomalies.push_back(s);
}

/*
 * Count an operation. @err is 0 on success; @bad: its input was invalid
 * on purpose; @must_fail: an input no device may accept.
 */
void count(const std::string &op, int err, bool bad, bool must_fail = false)
{
	total_ops++;
	if (bad)
		total_bad++;
	{
		std::lock_guard<std::mutex> g(stats_mu);
		OpStats &s = stats[op];
		s.tries++;
		if (bad)
			s.bad_inputs++;
		if (err)
			s.errnos[err]++;
		else
			s.ok++;
	}
	if (must_fail && !err) {
		accepted_invalid++;
		note_anomaly(op + ": an input that must fail was accepted");
	}
}

/* A create with valid parameters: only the device's limits may refuse. */
void count_valid_create(const std::string &op, int err)
{
	count(op, err, false);
	if (err && err != ENOMEM && err != EAGAIN && err != EMFILE &&
	    err != ENOSPC) {
		valid_create_failures++;
		note_anomaly(op +
			     " with valid parameters failed: " + strerror(err));
	}
}

/* ---- random inputs -------------------------------------------------- */

struct Rng {
	std::mt19937_64 g;

	explicit Rng(uint64_t seed) : g(seed)
	{
	}
	uint64_t u()
	{
		return g();
	}
	unsigned below(unsigned n)
	{
		return static_cast<unsigned>(g() % n);
	}
	bool chance(unsigned pct)
	{
		return below(100) < pct;
	}
	template <typename T>
	T &pick(std::vector<T> &v)
	{
		return v[below(static_cast<unsigned>(v.size()))];
	}
	template <typename T>
	T pick(std::vector<T> &&v)
	{
		return v[below(static_cast<unsigned>(v.size()))];
	}
};

/* ---- a world: one context and what lives in it ------------------------ */

struct Region {
	uint8_t *p;
	size_t len;
	bool mapped;
};

struct Mr {
	ibv_mr *mr;
	size_t region; /* index into World::regions */
};

struct World {
	ibv_context *ctx = nullptr;
	ibv_comp_channel *ch = nullptr;
	std::vector<ibv_pd *> pds;
	std::vector<Mr> mrs;
	std::vector<ibv_cq *> cqs;
	std::vector<ibv_qp *> qps;
	std::vector<ibv_srq *> srqs;
	std::vector<ibv_ah *> ahs;
	std::vector<Region> regions;
	/* raw objects (uverbs handles): kind 0 CQ, 1 QP, 2 SRQ */
	std::vector<std::pair<int, uint32_t>> raw;
	std::vector<int> wake_fds;
	ibv_gid gid = {};
	int vectors = 1;
};

ibv_device *find_device(ibv_device ***keep)
{
	int n;
	ibv_device **list = ibv_get_device_list(&n);

	*keep = list;
	for (int i = 0; list && i < n; i++)
		if (dev_name == ibv_get_device_name(list[i]))
			return list[i];
	return nullptr;
}

bool open_world(World &w)
{
	ibv_device **list;
	ibv_device *d = find_device(&list);

	if (d)
		w.ctx = ibv_open_device(d);
	ibv_free_device_list(list);
	if (!w.ctx)
		return false;
	w.vectors = w.ctx->num_comp_vectors;
	ibv_query_gid(w.ctx, 1, gid_index, &w.gid);
	return true;
}

uint8_t *map_region(size_t len)
{
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	return p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
}

/* Destroy a raw object by its uverbs handle: 0 or an errno. */
int raw_destroy(ibv_context *ctx, int kind, uint32_t handle)
{
	alignas(8) uint8_t buf[64] = {};
	alignas(8) uint8_t resp[64] = {};
	auto *hdr = reinterpret_cast<ib_uverbs_cmd_hdr *>(buf);
	/* the three destroy commands: response, handle, reserved */
	auto *c = reinterpret_cast<ib_uverbs_destroy_cq *>(hdr + 1);

	c->response = reinterpret_cast<uintptr_t>(resp);
	c->cq_handle = handle;
	hdr->command = kind == 0   ? IB_USER_VERBS_CMD_DESTROY_CQ
		       : kind == 1 ? IB_USER_VERBS_CMD_DESTROY_QP
				   : IB_USER_VERBS_CMD_DESTROY_SRQ;
	hdr->in_words = (sizeof(*hdr) + sizeof(*c)) / 4;
	hdr->out_words = sizeof(ib_uverbs_destroy_cq_resp) / 4;
	if (write(ctx->cmd_fd, buf, sizeof(*hdr) + sizeof(*c)) < 0)
		return errno;
	return 0;
}

/* Destroy everything of @w in dependency order; count what failed. */
unsigned close_world(World &w, bool check)
{
	unsigned bad = 0;
	auto chk = [&](int rc, const char *what) {
		if (rc && check) {
			bad++;
			note_anomaly(std::string("teardown: ") + what + ": " +
				     strerror(rc));
		}
	};

	for (int fd : w.wake_fds)
		close(fd);
	/* raw QPs hold CQs, PDs and SRQs: they go first */
	for (int kind : { 1, 2, 0 })
		for (auto &o : w.raw)
			if (o.first == kind)
				chk(raw_destroy(w.ctx, o.first, o.second),
				    "raw destroy");
	for (ibv_qp *q : w.qps)
		chk(ibv_destroy_qp(q), "destroy_qp");
	for (ibv_ah *a : w.ahs)
		chk(ibv_destroy_ah(a), "destroy_ah");
	for (ibv_srq *s : w.srqs)
		chk(ibv_destroy_srq(s), "destroy_srq");
	for (ibv_cq *c : w.cqs)
		chk(ibv_destroy_cq(c), "destroy_cq");
	for (Mr &m : w.mrs)
		chk(ibv_dereg_mr(m.mr), "dereg_mr");
	for (ibv_pd *p : w.pds)
		chk(ibv_dealloc_pd(p), "dealloc_pd");
	if (w.ch)
		chk(ibv_destroy_comp_channel(w.ch), "destroy_comp_channel");
	/* raw objects go with the context */
	if (w.ctx)
		chk(ibv_close_device(w.ctx), "close_device");
	for (Region &r : w.regions)
		if (r.mapped)
			munmap(r.p, r.len);
	w = World();
	return bad;
}

/* ---- operations -------------------------------------------------------- */

struct Worker {
	Rng r;
	World w;
	size_t steps = 0;
	explicit Worker(uint64_t seed) : r(seed)
	{
	}

	ibv_pd *any_pd()
	{
		return w.pds.empty() ? nullptr : r.pick(w.pds);
	}
	ibv_cq *any_cq()
	{
		return w.cqs.empty() ? nullptr : r.pick(w.cqs);
	}

	void op_alloc_pd()
	{
		if (w.pds.size() >= 8)
			return;
		ibv_pd *pd = ibv_alloc_pd(w.ctx);
		count_valid_create("alloc_pd", pd ? 0 : errno);
		if (pd)
			w.pds.push_back(pd);
	}

	/*
	 * A PD, CQ or SRQ still in use (also by raw objects this code does
	 * not track) must be refused: EBUSY, and the provider keeps it.
	 */
	void op_dealloc_pd()
	{
		if (w.pds.empty())
			return;
		size_t i = r.below(static_cast<unsigned>(w.pds.size()));
		bool used = false;
		for (Mr &m : w.mrs)
			used = used || m.mr->pd == w.pds[i];
		for (ibv_qp *q : w.qps)
			used = used || q->pd == w.pds[i];
		for (ibv_srq *s : w.srqs)
			used = used || s->pd == w.pds[i];
		for (ibv_ah *a : w.ahs)
			used = used || a->pd == w.pds[i];
		int rc = ibv_dealloc_pd(w.pds[i]);
		count("dealloc_pd", rc, used, used);
		if (!rc)
			w.pds.erase(w.pds.begin() +
				    static_cast<std::ptrdiff_t>(i));
	}

	void op_region()
	{
		if (w.regions.size() >= 12)
			return;
		size_t len = static_cast<size_t>(4096)
			     << r.below(9); /* to 1M */
		uint8_t *p = map_region(len);
		count("mmap", p ? 0 : errno, false);
		if (p)
			w.regions.push_back({ p, len, true });
	}

	void op_reg_mr()
	{
		ibv_pd *pd = any_pd();
		if (!pd || w.regions.empty() || w.mrs.size() >= 24)
			return;
		size_t ri = r.below(static_cast<unsigned>(w.regions.size()));
		Region &reg = w.regions[ri];
		uint8_t *addr = reg.p;
		size_t len = reg.len;
		int access = kAccess;
		bool bad = false, must_fail = false;
		switch (r.below(12)) {
		case 0: /* nothing mapped there */
			addr = reinterpret_cast<uint8_t *>(0x10000);
			bad = must_fail = true;
			break;
		case 1: /* a kernel address */
			addr = reinterpret_cast<uint8_t *>(
				0xffff888000000000ULL);
			bad = must_fail = true;
			break;
		case 2: /* wrapping around the address space */
			len = ~static_cast<size_t>(0) - 4095;
			bad = must_fail = true;
			break;
		case 3: /* larger than the mapping */
			len = reg.len +
			      (static_cast<size_t>(1) << (12 + r.below(20)));
			bad = true;
			break;
		case 4: /* remote write without local write */
			access = IBV_ACCESS_REMOTE_WRITE;
			bad = must_fail = true;
			break;
		case 5: /* access bits nobody defines */
			access = static_cast<int>(r.u() & 0x7fffffff);
			bad = true;
			break;
		case 6: /* unaligned start and length */
			addr += r.below(4096);
			len = 1 + r.below(static_cast<unsigned>(
					  reg.len - (addr - reg.p)));
			break;
		case 7:
			len = 0;
			bad = true;
			break;
		default:
			break;
		}
		/* an unmapped region: something else may be mapped there now */
		if (!reg.mapped)
			bad = true;
		ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);
		int err = mr ? 0 : errno;
		if (!bad)
			count_valid_create("reg_mr", err);
		else
			count("reg_mr", err, bad, must_fail);
		if (mr)
			w.mrs.push_back({ mr, ri });
	}

	void op_dereg_mr()
	{
		if (w.mrs.empty())
			return;
		size_t i = r.below(static_cast<unsigned>(w.mrs.size()));
		int rc = ibv_dereg_mr(w.mrs[i].mr);
		count("dereg_mr", rc, false);
		if (rc)
			note_anomaly(std::string("dereg_mr: ") + strerror(rc));
		else
			w.mrs.erase(w.mrs.begin() +
				    static_cast<std::ptrdiff_t>(i));
	}

	/* Unmap a registered region: the MR keeps its pinned pages. */
	void op_munmap_registered()
	{
		for (Mr &m : w.mrs) {
			Region &reg = w.regions[m.region];
			if (!reg.mapped)
				continue;
			int rc = munmap(reg.p, reg.len);
			count("munmap-registered", rc ? errno : 0, false);
			if (!rc)
				reg.mapped = false;
			return;
		}
	}

	void op_create_cq()
	{
		if (w.cqs.size() >= 12)
			return;
		int cqe = 1 + static_cast<int>(r.below(500));
		int vec = static_cast<int>(
			r.below(static_cast<unsigned>(w.vectors)));
		bool bad = false, must_fail = false;
		switch (r.below(8)) {
		case 0:
			cqe = -1 - static_cast<int>(r.below(100));
			bad = must_fail = true;
			break;
		case 1:
			cqe = (1 << 22) + static_cast<int>(r.below(1 << 20));
			bad = must_fail = true;
			break;
		case 2:
			vec = w.vectors + static_cast<int>(r.below(1000));
			bad = must_fail = true;
			break;
		case 3:
			cqe = 0;
			bad = true;
			break;
		default:
			break;
		}
		if (!w.ch && r.chance(30))
			w.ch = ibv_create_comp_channel(w.ctx);
		ibv_cq *cq = ibv_create_cq(w.ctx, cqe, nullptr,
					   r.chance(50) ? w.ch : nullptr, vec);
		int err = cq ? 0 : errno;
		if (bad)
			count("create_cq", err, bad, must_fail);
		else
			count_valid_create("create_cq", err);
		if (cq)
			w.cqs.push_back(cq);
	}

	void op_destroy_cq()
	{
		if (w.cqs.empty())
			return;
		size_t i = r.below(static_cast<unsigned>(w.cqs.size()));
		bool used = false;
		for (ibv_qp *q : w.qps)
			used = used || q->send_cq == w.cqs[i] ||
			       q->recv_cq == w.cqs[i];
		int rc = ibv_destroy_cq(w.cqs[i]);
		count("destroy_cq", rc, used, used);
		if (!rc)
			w.cqs.erase(w.cqs.begin() +
				    static_cast<std::ptrdiff_t>(i));
	}

	void op_create_srq()
	{
		ibv_pd *pd = any_pd();
		if (!pd || w.srqs.size() >= 6)
			return;
		ibv_srq_init_attr a = {};
		a.attr.max_wr = 1 + r.below(256);
		a.attr.max_sge = 1 + r.below(4);
		bool bad = false, must_fail = false;
		switch (r.below(6)) {
		case 0:
			a.attr.max_wr = 1u << (24 + r.below(8));
			bad = must_fail = true;
			break;
		case 1:
			a.attr.max_sge = 1000 + r.below(1000);
			bad = must_fail = true;
			break;
		case 2:
			a.attr.srq_limit = a.attr.max_wr + 1 + r.below(10);
			bad = true;
			break;
		default:
			break;
		}
		ibv_srq *s = ibv_create_srq(pd, &a);
		int err = s ? 0 : errno;
		if (bad)
			count("create_srq", err, bad, must_fail);
		else
			count_valid_create("create_srq", err);
		if (s)
			w.srqs.push_back(s);
	}

	void op_destroy_srq()
	{
		if (w.srqs.empty())
			return;
		size_t i = r.below(static_cast<unsigned>(w.srqs.size()));
		bool used = false;
		for (ibv_qp *q : w.qps)
			used = used || q->srq == w.srqs[i];
		int rc = ibv_destroy_srq(w.srqs[i]);
		count("destroy_srq", rc, used, used);
		if (!rc)
			w.srqs.erase(w.srqs.begin() +
				     static_cast<std::ptrdiff_t>(i));
	}

	void op_create_qp()
	{
		ibv_pd *pd = any_pd();
		ibv_cq *scq = any_cq(), *rcq = any_cq();
		if (!pd || !scq || w.qps.size() >= 16)
			return;
		ibv_qp_init_attr a = {};
		a.qp_type = r.pick(std::vector<ibv_qp_type>{
			IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD });
		a.send_cq = scq;
		a.recv_cq = rcq;
		a.cap.max_send_wr = 1 + r.below(128);
		a.cap.max_recv_wr = 1 + r.below(128);
		a.cap.max_send_sge = 1 + r.below(4);
		a.cap.max_recv_sge = 1 + r.below(4);
		a.cap.max_inline_data = r.below(256);
		a.sq_sig_all = static_cast<int>(r.below(2));
		if (!w.srqs.empty() && r.chance(20)) {
			ibv_srq *s = r.pick(w.srqs);
			if (s->pd == pd) {
				a.srq = s;
				a.cap.max_recv_wr = 0;
				a.cap.max_recv_sge = 0;
			}
		}
		bool bad = false, must_fail = false;
		switch (r.below(10)) {
		case 0:
			a.cap.max_send_wr = 1u << (16 + r.below(16));
			bad = must_fail = true;
			break;
		case 1:
			a.cap.max_send_sge = 17 + r.below(100);
			bad = must_fail = true;
			break;
		case 2:
			a.cap.max_inline_data = 1u << (12 + r.below(20));
			bad = must_fail = true;
			break;
		case 3: /* types the card does not have */
			a.qp_type = static_cast<ibv_qp_type>(r.pick(
				std::vector<int>{ 0, 1, 8, 9, 10, 255 }));
			bad = must_fail = true;
			break;
		case 4:
			a.cap.max_send_wr = 0;
			a.cap.max_recv_wr = 0;
			bad = true;
			break;
		default:
			break;
		}
		ibv_qp *q = ibv_create_qp(pd, &a);
		int err = q ? 0 : errno;
		if (bad)
			count("create_qp", err, bad, must_fail);
		else
			count_valid_create("create_qp", err);
		if (q)
			w.qps.push_back(q);
	}

	void op_destroy_qp()
	{
		if (w.qps.empty())
			return;
		size_t i = r.below(static_cast<unsigned>(w.qps.size()));
		int rc = ibv_destroy_qp(w.qps[i]);
		count("destroy_qp", rc, false);
		if (!rc)
			w.qps.erase(w.qps.begin() +
				    static_cast<std::ptrdiff_t>(i));
	}

	/* Random transitions with random attributes. */
	void op_modify_qp()
	{
		if (w.qps.empty())
			return;
		ibv_qp *q = r.pick(w.qps);
		ibv_qp_attr at = {};
		int mask = IBV_QP_STATE;
		bool bad = r.chance(40);
		at.qp_state = static_cast<ibv_qp_state>(r.below(bad ? 9 : 5));
		at.port_num = bad ? static_cast<uint8_t>(r.below(4)) : 1;
		at.pkey_index = bad ? static_cast<uint16_t>(r.below(4)) : 0;
		at.qp_access_flags =
			static_cast<unsigned>(bad ? r.u() & 0xffff : kAccess);
		at.qkey = static_cast<uint32_t>(r.u());
		at.path_mtu =
			static_cast<ibv_mtu>(bad ? r.below(8) : 1 + r.below(5));
		at.dest_qp_num =
			!w.qps.empty() && !bad
				? r.pick(w.qps)->qp_num
				: static_cast<uint32_t>(r.u() & 0xffffff);
		at.rq_psn =
			static_cast<uint32_t>(r.u() & (bad ? ~0u : 0xffffff));
		at.sq_psn =
			static_cast<uint32_t>(r.u() & (bad ? ~0u : 0xffffff));
		at.ah_attr.is_global = bad ? r.below(2) : 1;
		at.ah_attr.grh.dgid = w.gid;
		if (bad && r.chance(50))
			for (auto &b : at.ah_attr.grh.dgid.raw)
				b = static_cast<uint8_t>(r.u());
		at.ah_attr.grh.sgid_index = static_cast<uint8_t>(
			bad ? r.below(256) : static_cast<unsigned>(gid_index));
		at.ah_attr.grh.hop_limit = static_cast<uint8_t>(r.below(256));
		at.ah_attr.port_num =
			bad ? static_cast<uint8_t>(r.below(4)) : 1;
		at.timeout = static_cast<uint8_t>(r.below(bad ? 256 : 20));
		at.retry_cnt = static_cast<uint8_t>(r.below(bad ? 256 : 8));
		at.rnr_retry = static_cast<uint8_t>(r.below(bad ? 256 : 8));
		at.min_rnr_timer =
			static_cast<uint8_t>(r.below(bad ? 256 : 32));
		at.max_rd_atomic =
			static_cast<uint8_t>(r.below(bad ? 256 : 16));
		at.max_dest_rd_atomic =
			static_cast<uint8_t>(r.below(bad ? 256 : 16));
		switch (at.qp_state) {
		case IBV_QPS_INIT:
			mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				(q->qp_type == IBV_QPT_UD
					 ? IBV_QP_QKEY
					 : IBV_QP_ACCESS_FLAGS);
			break;
		case IBV_QPS_RTR:
			mask |= q->qp_type == IBV_QPT_UD
					? 0
					: IBV_QP_AV | IBV_QP_PATH_MTU |
						  IBV_QP_DEST_QPN |
						  IBV_QP_RQ_PSN |
						  (q->qp_type == IBV_QPT_RC
							   ? IBV_QP_MAX_DEST_RD_ATOMIC |
								     IBV_QP_MIN_RNR_TIMER
							   : 0);
			break;
		case IBV_QPS_RTS:
			mask |= IBV_QP_SQ_PSN |
				(q->qp_type == IBV_QPT_RC
					 ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						   IBV_QP_RNR_RETRY |
						   IBV_QP_MAX_QP_RD_ATOMIC
					 : 0);
			break;
		default:
			break;
		}
		if (bad)
			mask = static_cast<int>(r.u() & 0x1fffff) |
			       IBV_QP_STATE;
		int rc = ibv_modify_qp(q, &at, mask);
		count("modify_qp", rc, bad);
	}

	/* A random send WR on a random QP: opcodes, SGEs, keys, flags. */
	void op_post_send()
	{
		if (w.qps.empty())
			return;
		ibv_qp *q = r.pick(w.qps);
		ibv_sge sge[20];
		ibv_send_wr wr = {}, *bad_wr;
		bool bad = r.chance(50);
		int n = static_cast<int>(r.below(bad ? 20 : 4));
		for (int i = 0; i < n; i++) {
			if (!w.mrs.empty() && r.chance(80)) {
				Mr &m = r.pick(w.mrs);
				sge[i].addr = reinterpret_cast<uintptr_t>(
						      m.mr->addr) +
					      r.below(64);
				sge[i].length = r.below(static_cast<unsigned>(
					std::min<size_t>(m.mr->length, 65536) +
					1));
				sge[i].lkey =
					bad && r.chance(30)
						? static_cast<uint32_t>(r.u())
						: m.mr->lkey;
			} else {
				sge[i].addr = r.u();
				sge[i].length = static_cast<uint32_t>(r.u());
				sge[i].lkey = static_cast<uint32_t>(r.u());
			}
		}
		wr.wr_id = r.u();
		wr.sg_list = sge;
		wr.num_sge = n;
		wr.opcode = static_cast<ibv_wr_opcode>(r.below(bad ? 16 : 7));
		wr.send_flags = static_cast<unsigned>(
			r.u() & (IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
				 IBV_SEND_FENCE));
		/* inline data is copied by the provider: valid memory only */
		if (r.chance(10) && !w.mrs.empty()) {
			Mr &m = r.pick(w.mrs);
			Region &reg = w.regions[m.region];
			auto *a = static_cast<uint8_t *>(m.mr->addr);
			if (reg.mapped && a >= reg.p && a < reg.p + reg.len) {
				size_t room = static_cast<size_t>(reg.p +
								  reg.len - a);
				wr.num_sge = 1;
				sge[0].addr = reinterpret_cast<uintptr_t>(a);
				sge[0].length = r.below(static_cast<unsigned>(
					std::min<size_t>(room, 512) + 1));
				wr.send_flags |= IBV_SEND_INLINE;
			}
		}
		if (!w.mrs.empty() && r.chance(70)) {
			Mr &m = r.pick(w.mrs);
			wr.wr.rdma.remote_addr =
				reinterpret_cast<uintptr_t>(m.mr->addr) +
				(bad ? r.u() % (2 * m.mr->length + 1) : 0);
			wr.wr.rdma.rkey = m.mr->rkey;
		} else {
			wr.wr.rdma.remote_addr = r.u();
			wr.wr.rdma.rkey = static_cast<uint32_t>(r.u());
		}
		if (wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr.wr.atomic.remote_addr =
				wr.wr.rdma.remote_addr & ~7ULL;
			wr.wr.atomic.rkey = wr.wr.rdma.rkey;
			wr.wr.atomic.compare_add = r.u();
			wr.wr.atomic.swap = r.u();
		}
		if (q->qp_type == IBV_QPT_UD) {
			if (w.ahs.empty())
				return;
			wr.wr.ud.ah = r.pick(w.ahs);
			wr.wr.ud.remote_qpn =
				!w.qps.empty() && r.chance(70)
					? r.pick(w.qps)->qp_num
					: static_cast<uint32_t>(r.u() &
								0xffffff);
			wr.wr.ud.remote_qkey = static_cast<uint32_t>(r.u());
		}
		int rc = ibv_post_send(q, &wr, &bad_wr);
		count("post_send", rc, bad);
	}

	void op_post_recv()
	{
		if (w.qps.empty() && w.srqs.empty())
			return;
		ibv_sge sge[20];
		ibv_recv_wr wr = {}, *bad_wr;
		bool bad = r.chance(40);
		int n = static_cast<int>(r.below(bad ? 20 : 4));
		for (int i = 0; i < n; i++) {
			if (!w.mrs.empty() && !bad) {
				Mr &m = r.pick(w.mrs);
				sge[i].addr =
					reinterpret_cast<uintptr_t>(m.mr->addr);
				sge[i].length = static_cast<uint32_t>(
					std::min<size_t>(m.mr->length, 65536));
				sge[i].lkey = m.mr->lkey;
			} else {
				sge[i].addr = r.u();
				sge[i].length = static_cast<uint32_t>(r.u());
				sge[i].lkey = static_cast<uint32_t>(r.u());
			}
		}
		wr.wr_id = r.u();
		wr.sg_list = sge;
		wr.num_sge = n;
		int rc;
		if (!w.srqs.empty() && (w.qps.empty() || r.chance(30))) {
			rc = ibv_post_srq_recv(r.pick(w.srqs), &wr, &bad_wr);
			count("post_srq_recv", rc, bad);
		} else {
			ibv_qp *q = r.pick(w.qps);
			if (q->srq)
				return; /* a QP on an SRQ has no RQ */
			rc = ibv_post_recv(q, &wr, &bad_wr);
			count("post_recv", rc, bad);
		}
	}

	void op_poll()
	{
		for (ibv_cq *cq : w.cqs) {
			ibv_wc wc[16];
			int n = ibv_poll_cq(cq, 16, wc);
			count("poll_cq", n < 0 ? EIO : 0, false);
			if (r.chance(30))
				count("req_notify_cq",
				      ibv_req_notify_cq(
					      cq, static_cast<int>(r.below(2))),
				      false);
		}
		if (w.ch) {
			/* take the events the arming raised */
			pollfd p = { w.ch->fd, POLLIN, 0 };
			int fl = fcntl(w.ch->fd, F_GETFL);
			fcntl(w.ch->fd, F_SETFL, fl | O_NONBLOCK);
			while (poll(&p, 1, 0) > 0) {
				ibv_cq *cq;
				void *cctx;
				if (ibv_get_cq_event(w.ch, &cq, &cctx))
					break;
				ibv_ack_cq_events(cq, 1);
			}
		}
		pollfd p = { w.ctx->async_fd, POLLIN, 0 };
		int fl = fcntl(w.ctx->async_fd, F_GETFL);
		fcntl(w.ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
		while (poll(&p, 1, 0) > 0) {
			ibv_async_event ev;
			if (ibv_get_async_event(w.ctx, &ev))
				break;
			ibv_ack_async_event(&ev);
			count("async_event", 0, false);
		}
	}

	void op_srq_modify()
	{
		if (w.srqs.empty())
			return;
		ibv_srq_attr a = {};
		bool bad = r.chance(50);
		a.max_wr = static_cast<uint32_t>(r.u());
		a.srq_limit = bad ? static_cast<uint32_t>(r.u()) : r.below(8);
		int mask = bad ? static_cast<int>(r.below(4)) : IBV_SRQ_LIMIT;
		count("modify_srq", ibv_modify_srq(r.pick(w.srqs), &a, mask),
		      bad);
	}

	void op_create_ah()
	{
		ibv_pd *pd = any_pd();
		if (!pd || w.ahs.size() >= 8)
			return;
		ibv_ah_attr a = {};
		bool bad = r.chance(40);
		a.is_global = bad ? r.below(2) : 1;
		a.grh.dgid = w.gid;
		a.grh.sgid_index = static_cast<uint8_t>(
			bad ? r.below(256) : static_cast<unsigned>(gid_index));
		a.grh.hop_limit = static_cast<uint8_t>(r.below(256));
		a.port_num = bad ? static_cast<uint8_t>(r.below(4)) : 1;
		if (bad && r.chance(50))
			for (auto &b : a.grh.dgid.raw)
				b = static_cast<uint8_t>(r.u());
		ibv_ah *ah = ibv_create_ah(pd, &a);
		int err = ah ? 0 : errno;
		if (bad)
			count("create_ah", err, bad);
		else
			count_valid_create("create_ah", err);
		if (ah)
			w.ahs.push_back(ah);
	}

	void op_destroy_ah()
	{
		if (w.ahs.empty())
			return;
		size_t i = r.below(static_cast<unsigned>(w.ahs.size()));
		int rc = ibv_destroy_ah(w.ahs[i]);
		count("destroy_ah", rc, false);
		if (!rc)
			w.ahs.erase(w.ahs.begin() +
				    static_cast<std::ptrdiff_t>(i));
	}

	/* A random address for a queue buffer: mapped, unmapped, odd. */
	uint64_t random_addr(size_t need, bool &bad)
	{
		if (!w.regions.empty() && r.chance(60)) {
			Region &reg = r.pick(w.regions);
			if (reg.mapped && reg.len >= need && r.chance(70))
				return reinterpret_cast<uintptr_t>(reg.p);
			bad = true;
			return reinterpret_cast<uintptr_t>(reg.p) +
			       r.below(static_cast<unsigned>(reg.len));
		}
		bad = true;
		return r.pick(std::vector<uint64_t>{ 0, 8, 0x10000,
						     0xffff888000000000ULL,
						     ~0ULL - 4095, r.u() });
	}

	/*
	 * Raw uverbs write() commands carrying random driver data: queue
	 * buffers and doorbell records anywhere, any geometry, short or long
	 * driver data, a response pointer nowhere.
	 */
	void op_raw_create()
	{
		ibv_pd *pd = any_pd();
		ibv_cq *cq = any_cq();
		if (w.raw.size() >= 16)
			return;
		unsigned kind = r.below(3);
		bool bad = false;
		alignas(8) uint8_t buf[512] = {};
		alignas(8) uint8_t resp[256] = {};
		auto *hdr = reinterpret_cast<ib_uverbs_cmd_hdr *>(buf);
		size_t len;
		uint64_t respp = reinterpret_cast<uintptr_t>(resp);
		if (r.chance(5)) {
			respp = 0x10000; /* the answer cannot be written */
			bad = true;
		}
		if (kind == 0) {
			auto *c = reinterpret_cast<ib_uverbs_create_cq *>(hdr +
									  1);
			auto *d = reinterpret_cast<softhca_create_cq_req *>(
				c->driver_data);
			c->response = respp;
			c->user_handle = r.u();
			c->cqe = r.chance(70) ? 1 + r.below(300)
					      : static_cast<uint32_t>(r.u());
			c->comp_vector =
				r.below(static_cast<unsigned>(w.vectors) +
					(r.chance(10) ? 100 : 0));
			c->comp_channel = -1;
			d->buf_addr = random_addr(64 * 512, bad);
			d->db_addr = random_addr(64, bad) + r.below(64);
			d->cqe_size = r.chance(80) ? 64 : r.below(512);
			hdr->command = IB_USER_VERBS_CMD_CREATE_CQ;
			len = sizeof(*hdr) + sizeof(*c) + sizeof(*d);
			hdr->out_words = (sizeof(ib_uverbs_create_cq_resp) +
					  sizeof(softhca_create_cq_resp)) /
					 4;
		} else if (kind == 1) {
			if (!pd || !cq)
				return;
			auto *c = reinterpret_cast<ib_uverbs_create_qp *>(hdr +
									  1);
			auto *d = reinterpret_cast<softhca_create_qp_req *>(
				c->driver_data);
			c->response = respp;
			c->user_handle = r.u();
			c->pd_handle = pd->handle;
			c->send_cq_handle = cq->handle;
			c->recv_cq_handle = cq->handle;
			c->qp_type = static_cast<uint8_t>(
				r.chance(80) ? static_cast<unsigned>(IBV_QPT_RC)
					     : r.below(16));
			c->max_send_wr = 1 + r.below(64);
			c->max_recv_wr = 1 + r.below(64);
			c->max_send_sge = 1 + r.below(4);
			c->max_recv_sge = 1 + r.below(4);
			c->max_inline_data = r.below(128);
			d->buf_addr = random_addr(1 << 16, bad);
			d->db_addr = random_addr(64, bad) + r.below(64);
			d->max_send_wr = r.chance(70)
						 ? c->max_send_wr
						 : static_cast<uint32_t>(r.u());
			d->max_recv_wr = c->max_recv_wr;
			d->max_send_sge = c->max_send_sge;
			d->max_recv_sge = c->max_recv_sge;
			d->max_inline_data = c->max_inline_data;
			d->log_sq_size = static_cast<uint8_t>(r.below(20));
			d->log_rq_size = static_cast<uint8_t>(r.below(20));
			d->log_rq_stride = static_cast<uint8_t>(r.below(16));
			bad = true; /* the geometry is random */
			hdr->command = IB_USER_VERBS_CMD_CREATE_QP;
			len = sizeof(*hdr) + sizeof(*c) + sizeof(*d);
			hdr->out_words = (sizeof(ib_uverbs_create_qp_resp) +
					  sizeof(softhca_create_qp_resp)) /
					 4;
		} else {
			if (!pd)
				return;
			auto *c = reinterpret_cast<ib_uverbs_create_srq *>(hdr +
									   1);
			auto *d = reinterpret_cast<softhca_create_srq_req *>(
				c->driver_data);
			c->response = respp;
			c->user_handle = r.u();
			c->pd_handle = pd->handle;
			c->max_wr = 1 + r.below(64);
			c->max_sge = 1 + r.below(4);
			d->buf_addr = random_addr(1 << 16, bad);
			d->db_addr = random_addr(64, bad) + r.below(64);
			d->max_wr = c->max_wr;
			d->max_sge = c->max_sge;
			d->log_size = static_cast<uint8_t>(r.below(20));
			d->log_stride = static_cast<uint8_t>(r.below(16));
			bad = true;
			hdr->command = IB_USER_VERBS_CMD_CREATE_SRQ;
			len = sizeof(*hdr) + sizeof(*c) + sizeof(*d);
			hdr->out_words = (sizeof(ib_uverbs_create_srq_resp) +
					  sizeof(softhca_create_srq_resp)) /
					 4;
		}
		/* driver data cut short or padded */
		if (r.chance(10)) {
			len -= 8 * (1 + r.below(3));
			bad = true;
		} else if (r.chance(10)) {
			len += 8 * (1 + r.below(8));
			bad = true;
		}
		hdr->in_words = static_cast<uint16_t>(len / 4);
		ssize_t n = write(w.ctx->cmd_fd, buf, len);
		int err = n < 0 ? errno : 0;
		count(kind == 0	  ? "raw-create-cq"
		      : kind == 1 ? "raw-create-qp"
				  : "raw-create-srq",
		      err, bad);
		if (!err && respp == reinterpret_cast<uintptr_t>(resp))
			w.raw.push_back(
				{ static_cast<int>(kind),
				  *reinterpret_cast<uint32_t *>(resp) });
	}

	void op_raw_destroy()
	{
		if (w.raw.empty())
			return;
		size_t i = r.below(static_cast<unsigned>(w.raw.size()));
		/* a raw QP holds its CQ: EBUSY until the QP goes */
		int err = raw_destroy(w.ctx, w.raw[i].first, w.raw[i].second);
		count("raw-destroy", err, false);
		if (!err)
			w.raw.erase(w.raw.begin() +
				    static_cast<std::ptrdiff_t>(i));
	}

	/* The wake-up file: made, rung with good and bad QPNs, closed. */
	void op_wake()
	{
		if (w.wake_fds.size() < 2 && r.chance(50)) {
			ib_uverbs_ioctl_hdr hdr = {};
			ib_uverbs_attr attr = {};
			alignas(8) unsigned char
				cmd[sizeof(hdr) + sizeof(attr)];
			hdr.length = sizeof(cmd);
			hdr.object_id = SOFTHCA_IB_OBJECT_WAKE_FD;
			hdr.method_id = SOFTHCA_IB_METHOD_WAKE_FD_ALLOC;
			hdr.num_attrs = 1;
			attr.attr_id = SOFTHCA_IB_ATTR_WAKE_FD_ALLOC_HANDLE;
			attr.flags = UVERBS_ATTR_F_MANDATORY;
			memcpy(cmd, &hdr, sizeof(hdr));
			memcpy(cmd + sizeof(hdr), &attr, sizeof(attr));
			int rc = ioctl(w.ctx->cmd_fd, RDMA_VERBS_IOCTL, cmd);
			count("wake-alloc", rc ? errno : 0, false);
			if (!rc) {
				memcpy(&attr, cmd + sizeof(hdr), sizeof(attr));
				w.wake_fds.push_back(
					static_cast<int>(attr.data));
			}
			return;
		}
		if (w.wake_fds.empty())
			return;
		int fd = r.pick(w.wake_fds);
		bool bad = r.chance(50);
		unsigned long arg = bad		     ? r.u()
				    : !w.qps.empty() ? r.pick(w.qps)->qp_num
						     : 0;
		unsigned cmd = bad && r.chance(30)
				       ? static_cast<unsigned>(r.u())
				       : SOFTHCA_WAKE_IOCTL;
		int rc = ioctl(fd, cmd, arg);
		count("wake-ioctl", rc ? errno : 0, bad,
		      bad && (arg > 0xffffffffUL || cmd != SOFTHCA_WAKE_IOCTL));
		if (r.chance(10)) {
			close(fd);
			w.wake_fds.erase(std::find(w.wake_fds.begin(),
						   w.wake_fds.end(), fd));
		}
	}

	void op_query()
	{
		ibv_device_attr da;
		count("query_device", ibv_query_device(w.ctx, &da), false);
		ibv_port_attr pa;
		count("query_port", ibv_query_port(w.ctx, 1, &pa), false);
		if (!w.qps.empty()) {
			ibv_qp_attr a;
			ibv_qp_init_attr ia;
			count("query_qp",
			      ibv_query_qp(r.pick(w.qps), &a,
					   static_cast<int>(r.u() & 0x1fffff),
					   &ia),
			      false);
		}
		if (!w.srqs.empty()) {
			ibv_srq_attr a;
			count("query_srq", ibv_query_srq(r.pick(w.srqs), &a),
			      false);
		}
	}

	/* Close the context with everything alive, or tear down in order. */
	void op_reopen()
	{
		if (r.chance(50)) {
			for (int fd : w.wake_fds)
				close(fd);
			w.wake_fds.clear();
			/* the channel's file first, as the CQs still use it */
			if (w.ch)
				close(w.ch->fd);
			/* the kernel cleans up; libibverbs' memory is lost */
			int rc = ibv_close_device(w.ctx);
			count("close-with-objects", rc, false);
			for (Region &reg : w.regions)
				if (reg.mapped)
					munmap(reg.p, reg.len);
			w = World();
		} else {
			unsigned bad = close_world(w, true);
			count("teardown", bad ? EBUSY : 0, false);
		}
		bool ok = open_world(w);
		count_valid_create("open_device", ok ? 0 : errno);
		if (!ok)
			stop = true;
	}

	void step()
	{
		using Op = void (Worker::*)();
		static const std::vector<std::pair<Op, unsigned>> ops = {
			{ &Worker::op_alloc_pd, 4 },
			{ &Worker::op_dealloc_pd, 2 },
			{ &Worker::op_region, 4 },
			{ &Worker::op_reg_mr, 8 },
			{ &Worker::op_dereg_mr, 5 },
			{ &Worker::op_munmap_registered, 1 },
			{ &Worker::op_create_cq, 6 },
			{ &Worker::op_destroy_cq, 3 },
			{ &Worker::op_create_srq, 3 },
			{ &Worker::op_destroy_srq, 2 },
			{ &Worker::op_create_qp, 8 },
			{ &Worker::op_destroy_qp, 5 },
			{ &Worker::op_modify_qp, 12 },
			{ &Worker::op_post_send, 16 },
			{ &Worker::op_post_recv, 10 },
			{ &Worker::op_poll, 8 },
			{ &Worker::op_srq_modify, 2 },
			{ &Worker::op_create_ah, 3 },
			{ &Worker::op_destroy_ah, 2 },
			{ &Worker::op_raw_create, 6 },
			{ &Worker::op_raw_destroy, 3 },
			{ &Worker::op_wake, 4 },
			{ &Worker::op_query, 3 },
			{ &Worker::op_reopen, 1 },
		};
		static const unsigned total = [] {
			unsigned t = 0;
			for (auto &o : ops)
				t += o.second;
			op_kinds = ops.size();
			return t;
		}();
		static_assert(max_op_kinds >= 24, "op_runs too small");
		/* every kind once first, in turn; then at random, by weight */
		if (steps < ops.size()) {
			op_runs[steps]++;
			(this->*ops[steps++].first)();
			return;
		}
		unsigned x = r.below(total);
		for (size_t i = 0; i < ops.size(); i++) {
			if (x < ops[i].second) {
				op_runs[i]++;
				(this->*ops[i].first)();
				return;
			}
			x -= ops[i].second;
		}
	}
};

/* ---- the sentinel: a pair nobody else touches, checked all along ------ */

struct Sentinel {
	std::atomic<unsigned long> messages{ 0 };
	std::string why; /* set once, by its thread */
};

void run_sentinel(Sentinel &s, double end)
{
	World w;
	if (!open_world(w)) {
		s.why = "cannot open the device";
		return;
	}
	ibv_pd *pd = ibv_alloc_pd(w.ctx);
	ibv_cq *cq = ibv_create_cq(w.ctx, 64, nullptr, nullptr, 0);
	const size_t len = 65536;
	uint8_t *src = map_region(len), *dst = map_region(len);
	ibv_mr *smr = pd && src ? ibv_reg_mr(pd, src, len, kAccess) : nullptr;
	ibv_mr *dmr = pd && dst ? ibv_reg_mr(pd, dst, len, kAccess) : nullptr;
	ibv_qp *q[2] = {};
	for (auto &qp : q) {
		ibv_qp_init_attr ia = {};
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 8;
		ia.cap.max_recv_wr = 8;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp = pd && cq ? ibv_create_qp(pd, &ia) : nullptr;
	}
	if (!smr || !dmr || !q[0] || !q[1]) {
		s.why = "setup failed";
		return;
	}
	for (int i = 0; i < 2; i++) {
		ibv_qp_attr at = {};
		at.qp_state = IBV_QPS_INIT;
		at.port_num = 1;
		at.qp_access_flags = kAccess;
		int rc = ibv_modify_qp(q[i], &at,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT |
					       IBV_QP_ACCESS_FLAGS);
		at = {};
		at.qp_state = IBV_QPS_RTR;
		at.path_mtu = IBV_MTU_1024;
		at.dest_qp_num = q[1 - i]->qp_num;
		at.ah_attr.is_global = 1;
		at.ah_attr.grh.dgid = w.gid;
		at.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index);
		at.ah_attr.grh.hop_limit = 64;
		at.ah_attr.port_num = 1;
		at.max_dest_rd_atomic = 1;
		at.min_rnr_timer = 1;
		rc = rc
			     ?: ibv_modify_qp(
					q[i], &at,
					IBV_QP_STATE | IBV_QP_AV |
						IBV_QP_PATH_MTU |
						IBV_QP_DEST_QPN |
						IBV_QP_RQ_PSN |
						IBV_QP_MAX_DEST_RD_ATOMIC |
						IBV_QP_MIN_RNR_TIMER);
		at = {};
		at.qp_state = IBV_QPS_RTS;
		at.timeout = 14;
		at.retry_cnt = 7;
		at.rnr_retry = 7;
		at.max_rd_atomic = 1;
		rc = rc
			     ?: ibv_modify_qp(q[i], &at,
					      IBV_QP_STATE | IBV_QP_SQ_PSN |
						      IBV_QP_TIMEOUT |
						      IBV_QP_RETRY_CNT |
						      IBV_QP_RNR_RETRY |
						      IBV_QP_MAX_QP_RD_ATOMIC);
		if (rc) {
			s.why = std::string("connect: ") + strerror(rc);
			return;
		}
	}
	for (uint32_t seq = 1; now_s() < end && s.why.empty(); seq++) {
		size_t n = 1 + (seq * 7919u) % (len / 2);
		for (size_t i = 0; i < n; i++)
			src[i] = static_cast<uint8_t>(seq + i * 31);
		memset(dst, 0, 2 * n <= len ? 2 * n : len);
		ibv_sge rs = { reinterpret_cast<uintptr_t>(dst),
			       static_cast<uint32_t>(n), dmr->lkey };
		ibv_recv_wr rw = {}, *rb;
		rw.sg_list = &rs;
		rw.num_sge = 1;
		ibv_sge ss = { reinterpret_cast<uintptr_t>(src),
			       static_cast<uint32_t>(n), smr->lkey };
		ibv_send_wr sw = {}, *sb;
		sw.sg_list = &ss;
		sw.num_sge = 1;
		sw.send_flags = IBV_SEND_SIGNALED;
		sw.opcode = IBV_WR_RDMA_WRITE;
		sw.wr.rdma.remote_addr =
			reinterpret_cast<uintptr_t>(dst) + len / 2;
		sw.wr.rdma.rkey = dmr->rkey;
		ibv_send_wr sw2 = sw;
		sw2.opcode = IBV_WR_SEND;
		sw.next = &sw2;
		if (ibv_post_recv(q[1], &rw, &rb) ||
		    ibv_post_send(q[0], &sw, &sb)) {
			s.why = "post failed at message " + std::to_string(seq);
			break;
		}
		int need = 3;
		double deadline = now_s() + 120;
		while (need > 0 && now_s() < deadline) {
			ibv_wc wc;
			int got = ibv_poll_cq(cq, 1, &wc);
			if (got < 0) {
				s.why = "poll failed";
				break;
			}
			if (got == 0) {
				usleep(50);
				continue;
			}
			if (wc.status != IBV_WC_SUCCESS) {
				s.why = std::string("message ") +
					std::to_string(seq) + ": " +
					ibv_wc_status_str(wc.status);
				break;
			}
			need--;
		}
		if (s.why.empty() && need)
			s.why = "message " + std::to_string(seq) +
				" did not complete in 120 s";
		for (size_t i = 0; i < n && s.why.empty(); i++)
			if (dst[i] != src[i] || dst[len / 2 + i] != src[i])
				s.why = "message " + std::to_string(seq) +
					": byte " + std::to_string(i) +
					" wrong";
		if (s.why.empty())
			s.messages++;
	}
	ibv_destroy_qp(q[0]);
	ibv_destroy_qp(q[1]);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(dmr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(w.ctx);
	munmap(src, len);
	munmap(dst, len);
}

/* ---- children ---------------------------------------------------------- */

/*
 * "--child stream <ibdev> <gid> <seed> [unmap]": a pair streaming SENDs and
 * WRITEs of 64 KiB until killed; with "unmap" it unmaps its registered buffers
 * under the transfer first. "--child odd-close <ibdev> <gid> <seed>": objects
 * of every kind, then its files closed in a random order, then calls on the
 * closed context, then an exit with everything alive.
 */
int child_stream(uint64_t seed, bool unmap)
{
	Rng r(seed);
	World w;
	if (!open_world(w))
		return 3;
	ibv_pd *pd = ibv_alloc_pd(w.ctx);
	ibv_cq *cq = ibv_create_cq(w.ctx, 256, nullptr, nullptr, 0);
	const size_t len = 1 << 20;
	uint8_t *a = map_region(len), *b = map_region(len);
	ibv_mr *ma = ibv_reg_mr(pd, a, len, kAccess);
	ibv_mr *mb = ibv_reg_mr(pd, b, len, kAccess);
	ibv_qp *q[2];
	for (auto &qp : q) {
		ibv_qp_init_attr ia = {};
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = 64;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp = ibv_create_qp(pd, &ia);
		if (!qp)
			return 3;
	}
	if (!ma || !mb)
		return 3;
	for (int i = 0; i < 2; i++) {
		ibv_qp_attr at = {};
		at.qp_state = IBV_QPS_INIT;
		at.port_num = 1;
		at.qp_access_flags = kAccess;
		ibv_modify_qp(q[i], &at,
			      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS);
		at = {};
		at.qp_state = IBV_QPS_RTR;
		at.path_mtu = IBV_MTU_4096;
		at.dest_qp_num = q[1 - i]->qp_num;
		at.ah_attr.is_global = 1;
		at.ah_attr.grh.dgid = w.gid;
		at.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index);
		at.ah_attr.grh.hop_limit = 64;
		at.ah_attr.port_num = 1;
		at.max_dest_rd_atomic = 1;
		at.min_rnr_timer = 1;
		ibv_modify_qp(q[i], &at,
			      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				      IBV_QP_MAX_DEST_RD_ATOMIC |
				      IBV_QP_MIN_RNR_TIMER);
		at = {};
		at.qp_state = IBV_QPS_RTS;
		at.timeout = 14;
		at.retry_cnt = 7;
		at.rnr_retry = 7;
		at.max_rd_atomic = 1;
		if (ibv_modify_qp(q[i], &at,
				  IBV_QP_STATE | IBV_QP_SQ_PSN |
					  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY |
					  IBV_QP_MAX_QP_RD_ATOMIC))
			return 3;
	}
	printf("streaming\n");
	fflush(stdout);
	bool unmapped = false;
	for (unsigned long i = 0;; i++) {
		if (unmap && !unmapped && i == 16) {
			munmap(a, len);
			munmap(b, len);
			unmapped = true;
		}
		ibv_sge s = { reinterpret_cast<uintptr_t>(a), 65536, ma->lkey };
		ibv_sge rs = { reinterpret_cast<uintptr_t>(b), 65536,
			       mb->lkey };
		ibv_recv_wr rw = {}, *rb;
		rw.sg_list = &rs;
		rw.num_sge = 1;
		ibv_send_wr sw = {}, *sb;
		sw.sg_list = &s;
		sw.num_sge = 1;
		sw.send_flags = IBV_SEND_SIGNALED;
		sw.opcode = r.chance(50) ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
		sw.wr.rdma.remote_addr =
			reinterpret_cast<uintptr_t>(b) + r.below(len - 65536);
		sw.wr.rdma.rkey = mb->rkey;
		ibv_post_recv(q[1], &rw, &rb);
		ibv_post_send(q[0], &sw, &sb);
		ibv_wc wc[8];
		ibv_poll_cq(cq, 8, wc);
	}
}

int child_odd_close(uint64_t seed)
{
	Rng r(seed);
	World w;
	if (!open_world(w))
		return 3;
	w.ch = ibv_create_comp_channel(w.ctx);
	ibv_pd *pd = ibv_alloc_pd(w.ctx);
	ibv_cq *cq = ibv_create_cq(w.ctx, 64, nullptr, w.ch, 0);
	uint8_t *buf = map_region(1 << 16);
	ibv_mr *mr =
		pd && buf ? ibv_reg_mr(pd, buf, 1 << 16, kAccess) : nullptr;
	ibv_qp_init_attr ia = {};
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ibv_qp *qp = pd && cq ? ibv_create_qp(pd, &ia) : nullptr;
	if (!qp || !mr)
		return 3;
	if (cq)
		ibv_req_notify_cq(cq, 0);
	std::vector<int> fds = { w.ctx->cmd_fd, w.ctx->async_fd, w.ch->fd };
	std::shuffle(fds.begin(), fds.end(), r.g);
	for (int fd : fds)
		close(fd);
	/* calls on a context whose files are gone: errors, nothing else */
	ibv_pd *pd2 = ibv_alloc_pd(w.ctx);
	ibv_mr *mr2 = pd2 ? ibv_reg_mr(pd2, buf, 4096, kAccess) : nullptr;
	ibv_destroy_qp(qp);
	(void)mr2;
	_exit(pd2 ? 4 : 0);
}

/* A forked child of a threaded process: use the parent's contexts briefly. */
void forked_child(World *w, uint64_t seed)
{
	Rng r(seed);
	alarm(10); /* a lock held by another thread at fork stays held */
	if (w && w->ctx) {
		ibv_pd *pd = ibv_alloc_pd(w->ctx);
		uint8_t *buf = map_region(1 << 16);
		if (pd && buf) {
			ibv_mr *mr = ibv_reg_mr(pd, buf, 1 << 16, kAccess);
			ibv_cq *cq =
				ibv_create_cq(w->ctx, 16, nullptr, nullptr, 0);
			if (r.chance(50)) {
				/* leave them to the parent's context */
				_exit(0);
			}
			if (cq)
				ibv_destroy_cq(cq);
			if (mr)
				ibv_dereg_mr(mr);
		}
		if (pd)
			ibv_dealloc_pd(pd);
	}
	_exit(0);
}

struct Children {
	std::atomic<unsigned long> started{ 0 }, killed{ 0 }, exited{ 0 },
		forks{ 0 }, unexpected{ 0 };
};

pid_t spawn(const std::vector<std::string> &args)
{
	pid_t pid = fork();
	if (pid == 0) {
		std::vector<char *> av;
		for (auto &a : args)
			av.push_back(const_cast<char *>(a.c_str()));
		av.push_back(nullptr);
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		execv(self_exe.c_str(), av.data());
		_exit(127);
	}
	return pid;
}

void reap(pid_t pid, bool we_killed, Children &c, const std::string &what)
{
	int st;
	double end = now_s() + 60;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_s() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			c.unexpected++;
			note_anomaly(what + ": did not end in 60 s");
			return;
		}
		usleep(10000);
	}
	/* a fork may stay stuck on a lock another thread held: its alarm */
	bool alarm_of_fork =
		WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM && what == "fork";
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && we_killed) {
		c.killed++;
	} else if (alarm_of_fork || (WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		c.exited++;
	} else {
		c.unexpected++;
		note_anomaly(
			what + ": " +
			(WIFSIGNALED(st)
				 ? std::string("signal ") +
					   strsignal(WTERMSIG(st))
				 : "exit " + std::to_string(WEXITSTATUS(st))));
	}
}

void run_spawner(Children &c, uint64_t seed, double end, World *shared,
		 std::mutex *shared_mu)
{
	Rng r(seed);
	while (now_s() < end) {
		unsigned k = r.below(10);
		if (k < 5) {
			bool unmap = r.chance(30);
			pid_t pid = spawn({ self_exe, "--child", "stream",
					    dev_name, std::to_string(gid_index),
					    std::to_string(r.u()),
					    unmap ? "unmap" : "keep" });
			c.started++;
			usleep(20000 + r.below(400000));
			kill(pid, SIGKILL);
			reap(pid, true, c, "stream");
		} else if (k < 8) {
			pid_t pid = spawn({ self_exe, "--child", "odd-close",
					    dev_name, std::to_string(gid_index),
					    std::to_string(r.u()) });
			c.started++;
			reap(pid, false, c, "odd-close");
		} else {
			std::lock_guard<std::mutex> g(*shared_mu);
			pid_t pid = fork();
			if (pid == 0)
				forked_child(shared, r.u());
			c.forks++;
			reap(pid, false, c, "fork");
		}
	}
}

} /* namespace */

int main(int argc, char **argv)
{
	setvbuf(stdout, nullptr, _IOLBF, 0);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 2;
	exe[n] = 0;
	self_exe = exe;
	if (argc >= 6 && std::string(argv[1]) == "--child") {
		std::string mode = argv[2];
		dev_name = argv[3];
		gid_index = atoi(argv[4]);
		uint64_t seed = strtoull(argv[5], nullptr, 10);
		if (mode == "stream")
			return child_stream(seed,
					    argc > 6 && std::string(argv[6]) ==
								"unmap");
		if (mode == "odd-close")
			return child_odd_close(seed);
		return 2;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: softhca-churn <ibdev> <gid-index> "
				"<seconds> [workers]\n");
		return 2;
	}
	dev_name = argv[1];
	gid_index = atoi(argv[2]);
	double seconds = atof(argv[3]);
	int workers = argc > 4 ? atoi(argv[4]) : 3;
	const char *seed_env = getenv("SOFTHCA_CHURN_SEED");
	uint64_t seed = seed_env ? strtoull(seed_env, nullptr, 10)
				 : static_cast<uint64_t>(time(nullptr));
	signal(SIGPIPE, SIG_IGN);
	printf("churn: %s, %d workers, %.0f s, seed %" PRIu64 "\n", argv[1],
	       workers, seconds, seed);

	double t0 = now_s(), end = t0 + seconds;
	Sentinel sentinel;
	std::thread st([&] {
		run_sentinel(sentinel, end);
	});

	/* the fork children use worker 0's world: it is locked meanwhile */
	std::vector<std::unique_ptr<Worker>> ws;
	std::mutex w0_mu;
	for (int i = 0; i < workers; i++) {
		ws.push_back(std::make_unique<Worker>(seed + 1 + i));
		if (!open_world(ws.back()->w)) {
			fprintf(stderr, "churn: cannot open %s\n", argv[1]);
			return 2;
		}
	}
	std::vector<std::thread> ts;
	std::atomic<unsigned> teardown_bad{ 0 };
	for (int i = 0; i < workers; i++) {
		ts.emplace_back([&, i] {
			Worker &wk = *ws[i];
			while (now_s() < end && !stop) {
				if (i == 0) {
					std::lock_guard<std::mutex> g(w0_mu);
					wk.step();
				} else {
					wk.step();
				}
			}
			std::lock_guard<std::mutex> g(w0_mu);
			teardown_bad += close_world(wk.w, true);
		});
	}
	Children ch;
	std::thread sp([&] {
		run_spawner(ch, seed + 1000, end, &ws[0]->w, &w0_mu);
	});
	/* a hung worker (a call that never returns) fails the run */
	bool hung = false;
	for (auto &t : ts)
		t.join();
	sp.join();
	st.join();
	double took = now_s() - t0;
	if (took > seconds + 300)
		hung = true;

	printf("\n%-22s %9s %9s %9s  errnos\n", "operation", "tries", "ok",
	       "bad-input");
	for (auto &kv : stats) {
		std::string e;
		for (auto &en : kv.second.errnos)
			e += std::string(" ") + strerrorname_np(en.first) +
			     ":" + std::to_string(en.second);
		printf("%-22s %9lu %9lu %9lu %s\n", kv.first.c_str(),
		       kv.second.tries, kv.second.ok, kv.second.bad_inputs,
		       e.c_str());
	}
	for (auto &a : anomalies)
		printf("anomaly: %s\n", a.c_str());
	printf("TOTAL ops %lu bad-inputs %lu sentinel-messages %lu children "
	       "%lu killed %lu exited %lu forks %lu seconds %.0f\n",
	       total_ops.load(), total_bad.load(), sentinel.messages.load(),
	       ch.started.load(), ch.killed.load(), ch.exited.load(),
	       ch.forks.load(), took);

	int failures = 0;
	auto result = [&](bool ok, const char *name, const std::string &why) {
		if (ok) {
			printf("PASS %s\n", name);
		} else {
			printf("FAIL %s: %s\n", name, why.c_str());
			failures++;
		}
	};
	/*
	 * It ran: every kind of operation did (each worker runs every kind
	 * once before it draws at random), no call hung and no context was
	 * lost. How many operations fit in the time is the machine's speed,
	 * which a test does not judge.
	 */
	size_t kinds_run = 0;
	for (size_t i = 0; i < op_kinds; i++)
		kinds_run += op_runs[i] > 0;
	result(op_kinds > 0 && kinds_run == op_kinds && !hung && !stop,
	       "churn.ran",
	       std::to_string(total_ops.load()) + " operations in " +
		       std::to_string(static_cast<int>(took)) + " s, " +
		       std::to_string(kinds_run) + " of " +
		       std::to_string(op_kinds.load()) + " kinds" +
		       (hung ? ", a call hung" : "") +
		       (stop ? ", a context could not be reopened" : ""));
	result(valid_create_failures == 0, "churn.valid-creates-succeed",
	       std::to_string(valid_create_failures.load()) + " failed");
	result(accepted_invalid == 0, "churn.invalid-inputs-refused",
	       std::to_string(accepted_invalid.load()) + " accepted");
	result(sentinel.why.empty() && sentinel.messages > 0,
	       "churn.sentinel-traffic",
	       sentinel.why.empty() ? "no message" : sentinel.why);
	result(ch.unexpected == 0 && ch.started > 0, "churn.children",
	       std::to_string(ch.unexpected.load()) + " ended otherwise");
	result(teardown_bad == 0, "churn.teardown",
	       std::to_string(teardown_bad.load()) + " destroys failed");
	return failures ? 1 : 0;
}
