// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca-isolation: two unprivileged users on one device. The victim
 * (user A) holds a context, a connected pair streaming checked traffic,
 * and a target: an MR open to remote writes and reads and a QP with a
 * receive posted, both connected only to the victim's own QP. The
 * attacker (user B, a small RLIMIT_MEMLOCK) knows everything about them
 * (the victim writes it into a file) and tries:
 *
 *   - to open the victim's command file through /proc (EACCES);
 *   - to map the victim's UAR: every mmap offset of its own context maps
 *     its own UAR or nothing, never the victim's page;
 *   - to read the victim's keys and addresses from "rdma resource" (its
 *     driver attributes too) and from debugfs;
 *   - to WRITE, READ and SEND to the victim's target QP with the target's
 *     rkey: the target is connected to the victim's QP only, so nothing
 *     answers (RETRY_EXC_ERR) and nothing lands;
 *   - the victim's rkey through its own connected pair (REM_ACCESS_ERR:
 *     another PD) and the victim's lkey in its own SGE (LOC_PROT_ERR);
 *   - to pin more than its RLIMIT_MEMLOCK (ENOMEM), and the accounting
 *     coming back when it unpins;
 *   - then to flood the card: QPs posting large WRITEs back to back, and
 *     objects made and destroyed, for the rest of the time,
 *
 * while the victim's traffic keeps flowing (no message slower than
 * kStallS, every byte checked) and, at the end, the target memory holds
 * its pattern, the target QP's receive was not taken and still works.
 *
 *   softhca-isolation victim <ibdev> <gid-index> <dir> <seconds>
 *   softhca-isolation attacker <ibdev> <gid-index> <dir> [flood-seconds]
 *
 * The victim writes <dir>/victim.info and prints READY, then streams for
 * <seconds> (at least until <dir>/attacker.done appears). Each prints
 * "PASS isolation.<case>" or "FAIL isolation.<case>: <why>" lines and
 * exits 1 if a case failed.
 */
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>

#include "../provider/softhca.h"

namespace {

int failures;
std::string dev_name;
int gid_index;
constexpr double kStallS = 10; /* the longest a victim's message may take */

void result(bool ok, const std::string &name, const std::string &why = "")
{
	if (ok) {
		printf("PASS isolation.%s\n", name.c_str());
	} else {
		printf("FAIL isolation.%s: %s\n", name.c_str(), why.c_str());
		failures++;
	}
	fflush(stdout);
}

double now_s()
{
	using namespace std::chrono;
	return duration<double>(steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void die(const std::string &what)
{
	fprintf(stderr, "isolation: %s: %s\n", what.c_str(), strerror(errno));
	exit(2);
}

const int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

struct Buf {
	uint8_t *p = nullptr;
	size_t len = 0;
	ibv_mr *mr = nullptr;

	void make(ibv_pd *pd, size_t n, uint8_t fill)
	{
		len = n;
		void *m = mmap(nullptr, n, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			die("mmap");
		p = static_cast<uint8_t *>(m);
		memset(p, fill, n);
		mr = ibv_reg_mr(pd, p, n, kAccess);
		if (!mr)
			die("reg_mr");
	}
	uint64_t addr(size_t off = 0) const
	{
		return reinterpret_cast<uintptr_t>(p) + off;
	}
};

struct Dev {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_gid gid = {};

	void open()
	{
		int n;
		ibv_device **list = ibv_get_device_list(&n);

		for (int i = 0; list && i < n; i++)
			if (dev_name == ibv_get_device_name(list[i]))
				ctx = ibv_open_device(list[i]);
		ibv_free_device_list(list);
		if (!ctx)
			die("open " + dev_name);
		pd = ibv_alloc_pd(ctx);
		if (!pd || ibv_query_gid(ctx, 1, gid_index, &gid))
			die("pd/gid");
	}
};

ibv_qp *make_qp(Dev &d, ibv_cq *cq, uint32_t wr = 64)
{
	ibv_qp_init_attr ia = {};

	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = wr;
	ia.cap.max_recv_wr = wr;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ibv_qp *qp = ibv_create_qp(d.pd, &ia);
	if (!qp)
		die("create_qp");
	return qp;
}

void connect(Dev &d, ibv_qp *qp, uint32_t dest, uint8_t timeout = 14,
	     uint8_t retry = 7)
{
	ibv_qp_attr at = {};

	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	at.qp_access_flags = kAccess;
	if (ibv_modify_qp(qp, &at,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		die("INIT");
	at = {};
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.dest_qp_num = dest;
	at.ah_attr.is_global = 1;
	at.ah_attr.grh.dgid = d.gid;
	at.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index);
	at.ah_attr.grh.hop_limit = 64;
	at.ah_attr.port_num = 1;
	at.max_dest_rd_atomic = 4;
	at.min_rnr_timer = 1;
	if (ibv_modify_qp(qp, &at,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		die("RTR");
	at = {};
	at.qp_state = IBV_QPS_RTS;
	at.timeout = timeout;
	at.retry_cnt = retry;
	at.rnr_retry = 7;
	at.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &at,
			  IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTS");
}

int post(ibv_qp *qp, ibv_wr_opcode op, uint64_t laddr, uint32_t len,
	 uint32_t lkey, uint64_t raddr = 0, uint32_t rkey = 0,
	 uint64_t wr_id = 0)
{
	ibv_sge s = { laddr, len, lkey };
	ibv_send_wr w = {}, *bad;

	w.wr_id = wr_id;
	w.sg_list = &s;
	w.num_sge = 1;
	w.opcode = op;
	w.send_flags = IBV_SEND_SIGNALED;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &w, &bad);
}

int post_recv(ibv_qp *qp, uint64_t addr, uint32_t len, uint32_t lkey)
{
	ibv_sge s = { addr, len, lkey };
	ibv_recv_wr w = {}, *bad;

	w.sg_list = &s;
	w.num_sge = 1;
	return ibv_post_recv(qp, &w, &bad);
}

/* Up to @n completions within @s seconds. */
std::vector<ibv_wc> poll_n(ibv_cq *cq, size_t n, double s)
{
	std::vector<ibv_wc> out;
	double end = now_s() + s;

	while (out.size() < n && now_s() < end) {
		ibv_wc wc[8];
		int got = ibv_poll_cq(cq, 8, wc);

		if (got < 0)
			break;
		if (got == 0)
			usleep(100);
		out.insert(out.end(), wc, wc + got);
	}
	return out;
}

std::string wc_str(const std::vector<ibv_wc> &w)
{
	if (w.empty())
		return "no completion";
	return std::string(ibv_wc_status_str(w[0].status)) + " (op " +
	       std::to_string(w[0].opcode) + ")";
}

/* ---- the victim -------------------------------------------------------- */

int victim(const std::string &dir, double seconds)
{
	Dev d;
	d.open();
	ibv_cq *cq = ibv_create_cq(d.ctx, 256, nullptr, nullptr, 0);
	ibv_cq *tcq = ibv_create_cq(d.ctx, 16, nullptr, nullptr, 0);
	if (!cq || !tcq)
		die("create_cq");
	/* the streaming pair */
	ibv_qp *sa = make_qp(d, cq), *sb = make_qp(d, cq);
	connect(d, sa, sb->qp_num);
	connect(d, sb, sa->qp_num);
	Buf src, dst, target, tsrc;
	const size_t len = 256 << 10;
	src.make(d.pd, len, 0);
	dst.make(d.pd, len, 0);
	target.make(d.pd, 64 << 10, 0x5a);
	tsrc.make(d.pd, 4096, 0x77);
	/* the target pair: tb takes SENDs from ta only */
	ibv_qp *ta = make_qp(d, tcq, 4), *tb = make_qp(d, tcq, 4);
	connect(d, ta, tb->qp_num);
	connect(d, tb, ta->qp_num);
	if (post_recv(tb, target.addr(32 << 10), 4096, target.mr->lkey))
		die("post_recv");

	/* a mark in the UAR page (the doorbells are at 0x40 and 0x80) */
	uint32_t mark = static_cast<uint32_t>(getpid()) * 2654435761u | 1;
	*reinterpret_cast<volatile uint32_t *>(softhca::to_ctx(d.ctx)->uar +
					       0x800) = mark;
	std::ofstream info(dir + "/victim.info.tmp");
	info << "pid " << getpid() << "\n"
	     << "uar_mark " << mark << "\n"
	     << "cmd_fd " << d.ctx->cmd_fd << "\n"
	     << "target_qpn " << tb->qp_num << "\n"
	     << "target_addr " << target.addr() << "\n"
	     << "target_len " << target.len << "\n"
	     << "target_rkey " << target.mr->rkey << "\n"
	     << "target_lkey " << target.mr->lkey << "\n"
	     << "stream_rkey " << dst.mr->rkey << "\n"
	     << "stream_addr " << dst.addr() << "\n";
	info.close();
	if (rename((dir + "/victim.info.tmp").c_str(),
		   (dir + "/victim.info").c_str()))
		die("rename");
	printf("READY\n");
	fflush(stdout);

	double t0 = now_s(), end = t0 + seconds, worst = 0;
	unsigned long msgs = 0;
	std::string why;
	for (uint32_t seq = 1; why.empty(); seq++) {
		bool done = access((dir + "/attacker.done").c_str(), F_OK) == 0;
		if (now_s() > end && done)
			break;
		if (now_s() > end + 1800) {
			why = "the attacker never finished";
			break;
		}
		size_t n = 4096 + (seq * 7919u) % (len / 2 - 4096);
		for (size_t i = 0; i < n; i += 64)
			src.p[i] = static_cast<uint8_t>(seq + i);
		double ts = now_s();
		if (post_recv(sb, dst.addr(), static_cast<uint32_t>(n),
			      dst.mr->lkey) ||
		    post(sa, IBV_WR_SEND, src.addr(), static_cast<uint32_t>(n),
			 src.mr->lkey) ||
		    post(sa, IBV_WR_RDMA_WRITE, src.addr(),
			 static_cast<uint32_t>(n), src.mr->lkey,
			 dst.addr(len / 2), dst.mr->rkey)) {
			why = "post failed";
			break;
		}
		auto w = poll_n(cq, 3, 120);
		double took = now_s() - ts;
		worst = std::max(worst, took);
		if (w.size() != 3) {
			why = "message " + std::to_string(seq) + ": " +
			      std::to_string(w.size()) +
			      " of 3 completions in 120 s";
			break;
		}
		for (auto &c : w)
			if (c.status != IBV_WC_SUCCESS)
				why = "message " + std::to_string(seq) + ": " +
				      ibv_wc_status_str(c.status);
		for (size_t i = 0; i < n && why.empty(); i += 64)
			if (dst.p[i] != src.p[i] ||
			    dst.p[len / 2 + i] != src.p[i])
				why = "message " + std::to_string(seq) +
				      ": byte " + std::to_string(i) + " wrong";
		msgs++;
	}
	printf("victim: %lu messages in %.0f s, the slowest %.3f s\n", msgs,
	       now_s() - t0, worst);
	result(why.empty() && worst < kStallS, "victim-traffic-flows",
	       why.empty() ? "a message took " + std::to_string(worst) + " s"
			   : why);

	size_t bad = 0;
	for (size_t i = 0; i < target.len; i++)
		bad += target.p[i] != 0x5a;
	result(bad == 0, "victim-memory-untouched",
	       std::to_string(bad) + " bytes changed");
	auto tw = poll_n(tcq, 1, 0.2);
	result(tw.empty(), "victim-receive-untaken", wc_str(tw));
	/* its own peer still reaches the target QP */
	post(ta, IBV_WR_SEND, tsrc.addr(), 64, tsrc.mr->lkey);
	tw = poll_n(tcq, 2, 30);
	bool ok = tw.size() == 2 && tw[0].status == IBV_WC_SUCCESS &&
		  tw[1].status == IBV_WC_SUCCESS && target.p[32 << 10] == 0x77;
	result(ok, "victim-target-still-works", wc_str(tw));
	return failures ? 1 : 0;
}

/* ---- the attacker ------------------------------------------------------ */

std::map<std::string, uint64_t> read_info(const std::string &path)
{
	std::map<std::string, uint64_t> m;
	std::ifstream f(path);
	std::string k;
	uint64_t v;

	while (f >> k >> v)
		m[k] = v;
	if (m.size() < 10)
		die("read " + path);
	return m;
}

std::string run(const std::string &cmd, int *status = nullptr)
{
	std::string out;
	char buf[1024];
	FILE *p = popen((cmd + " 2>&1").c_str(), "r");

	if (!p)
		return "";
	while (fgets(buf, sizeof(buf), p))
		out += buf;
	int st = pclose(p);
	if (status)
		*status = st;
	return out;
}

std::string hex(uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	return b;
}

void attack_files(const std::map<std::string, uint64_t> &vi)
{
	std::string p = "/proc/" + std::to_string(vi.at("pid")) + "/fd/" +
			std::to_string(vi.at("cmd_fd"));
	int fd = open(p.c_str(), O_RDWR);
	int err = errno;
	result(fd < 0 && (err == EACCES || err == EPERM),
	       "no-open-of-victim-command-file",
	       fd >= 0 ? "opened " + p : p + ": " + strerror(err));
	if (fd >= 0)
		close(fd);

	int rfd = open("/sys/kernel/debug/softhca", O_RDONLY);
	err = errno;
	result(rfd < 0 && (err == EACCES || err == EPERM), "no-debugfs",
	       rfd >= 0 ? "debugfs opened" : strerror(err));
	if (rfd >= 0)
		close(rfd);
}

/*
 * Every page offset of our own command file: what maps is our own UAR,
 * never a page carrying the victim's mark nor anything but one page.
 */
void attack_uar(Dev &d, uint32_t victim_mark)
{
	long pg = sysconf(_SC_PAGESIZE);
	int mapped = 0;
	std::string why;
	auto *own = softhca::to_ctx(d.ctx)->uar;

	/* offsets are UAR indexes: ours, and the first 4096 */
	std::vector<long> offs;
	for (long off = 0; off < 4096; off++)
		offs.push_back(off);
	if (softhca::to_ctx(d.ctx)->uar_index >= 4096)
		offs.push_back(softhca::to_ctx(d.ctx)->uar_index);
	for (long off : offs) {
		if (!why.empty())
			break;
		for (size_t pages : { 1, 2 }) {
			void *m = mmap(nullptr, pages * pg,
				       PROT_READ | PROT_WRITE, MAP_SHARED,
				       d.ctx->cmd_fd, off * pg);
			if (m == MAP_FAILED)
				continue;
			mapped++;
			auto *u = static_cast<volatile uint32_t *>(m);
			if (pages != 1)
				why = "a mapping of " + std::to_string(pages) +
				      " pages at offset " + std::to_string(off);
			else if (u[0x800 / 4] == victim_mark)
				why = "offset " + std::to_string(off) +
				      " maps the victim's UAR";
			/* the page is our own UAR: a mark shows on both */
			u[0x804 / 4] = 0xb0b0b0b0u;
			if (why.empty() &&
			    *reinterpret_cast<volatile uint32_t *>(
				    own + 0x804) != 0xb0b0b0b0u)
				why = "offset " + std::to_string(off) +
				      " maps a page that is not our UAR";
			munmap(m, pages * pg);
		}
		/* a private mapping of the UAR is refused */
		void *m = mmap(nullptr, pg, PROT_READ, MAP_PRIVATE,
			       d.ctx->cmd_fd, off * pg);
		if (m != MAP_FAILED) {
			why = "a private mapping at offset " +
			      std::to_string(off);
			munmap(m, pg);
		}
	}
	/* our context's UAR is the only page, mapped already by the provider */
	result(why.empty() && mapped == 1, "uar-only-own-page",
	       why.empty() ? std::to_string(mapped) + " offsets map" : why);
}

/* Does @text name @word on its own: "word 0x..", or JSON's "word": ..? */
bool has_word(const std::string &text, const std::string &word)
{
	for (size_t at = text.find(word); at != std::string::npos;
	     at = text.find(word, at + 1)) {
		char before = at ? text[at - 1] : ' ';
		size_t end = at + word.size();
		char after = end < text.size() ? text[end] : ' ';
		if ((before == ' ' || before == '"' || before == '\n') &&
		    (after == ' ' || after == '"' || after == '\n'))
			return true;
	}
	return false;
}

/* What "rdma resource" tells us of the victim's objects. */
void attack_restrack(const std::map<std::string, uint64_t> &vi)
{
	std::vector<std::string> secrets = {
		std::to_string(vi.at("target_rkey")), hex(vi.at("target_rkey")),
		std::to_string(vi.at("target_lkey")), hex(vi.at("target_lkey")),
		std::to_string(vi.at("target_addr")), hex(vi.at("target_addr")),
		std::to_string(vi.at("stream_rkey")), hex(vi.at("stream_rkey")),
	};
	std::string out, leak;
	for (const char *t : { "mr", "cq", "qp", "pd", "srq", "ctx" })
		for (const char *opt : { "", "-d ", "-dd ", "-j -dd " }) {
			std::string cmd = std::string("rdma ") + opt +
					  "resource show " + t;
			std::string o = run(cmd);
			out.append("$ ").append(cmd).append("\n").append(o);
			for (auto &s : secrets)
				if (o.find(" " + s) != std::string::npos ||
				    o.find(":" + s) != std::string::npos ||
				    o.find("\"" + s) != std::string::npos)
					leak.append(cmd)
						.append(": ")
						.append(s)
						.append("; ");
			/*
			 * attribute names as whole words ("dbrec_slot", a
			 * slot index within its page, is not an address)
			 */
			for (const char *attr :
			     { "mkey", "iova", "dbrec", "dbrec_addr", "rkey",
			       "lkey" })
				if (has_word(o, attr))
					leak += cmd + ": " + attr + "; ";
		}
	/* the victim's objects are listed (the test sees them at all) */
	std::string mrs = run("rdma resource show mr");
	bool listed = mrs.find(dev_name) != std::string::npos;
	fprintf(stderr, "%s", out.c_str());
	result(listed && leak.empty(), "restrack-hides-keys",
	       !listed ? "no MR of " + dev_name + " listed: " + mrs : leak);
}

/* Our QPs at the victim's target QP, with its rkey. */
void attack_cross(Dev &d, const std::map<std::string, uint64_t> &vi)
{
	ibv_cq *cq = ibv_create_cq(d.ctx, 64, nullptr, nullptr, 0);
	Buf mine;
	mine.make(d.pd, 4096, 0xee);
	uint32_t tq = static_cast<uint32_t>(vi.at("target_qpn"));
	uint64_t ta = vi.at("target_addr");
	uint32_t trk = static_cast<uint32_t>(vi.at("target_rkey"));
	uint32_t tlk = static_cast<uint32_t>(vi.at("target_lkey"));

	struct Try {
		const char *name;
		ibv_wr_opcode op;
	};
	for (Try t : { Try{ "cross-write-unanswered", IBV_WR_RDMA_WRITE },
		       Try{ "cross-read-unanswered", IBV_WR_RDMA_READ },
		       Try{ "cross-send-unanswered", IBV_WR_SEND } }) {
		/* aimed at the victim's QP; 4 ms a try, one retry */
		ibv_qp *q = make_qp(d, cq, 4);
		connect(d, q, tq, 10, 1);
		memset(mine.p, 0xee, 64);
		post(q, t.op, mine.addr(), 64, mine.mr->lkey, ta, trk);
		auto w = poll_n(cq, 1, 30);
		bool ok = w.size() == 1 && w[0].status == IBV_WC_RETRY_EXC_ERR;
		if (t.op == IBV_WR_RDMA_READ)
			ok = ok && mine.p[0] == 0xee && mine.p[63] == 0xee;
		result(ok, t.name, wc_str(w));
		ibv_destroy_qp(q);
	}

	/* our own connected pair, the victim's rkey: another PD's key */
	ibv_qp *a = make_qp(d, cq, 4), *b = make_qp(d, cq, 4);
	connect(d, a, b->qp_num, 10, 1);
	connect(d, b, a->qp_num, 10, 1);
	post(a, IBV_WR_RDMA_WRITE, mine.addr(), 64, mine.mr->lkey, ta, trk);
	auto w = poll_n(cq, 1, 30);
	result(w.size() == 1 && w[0].status == IBV_WC_REM_ACCESS_ERR,
	       "victim-rkey-refused", wc_str(w));
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);

	/* the victim's lkey in our SGE */
	a = make_qp(d, cq, 4);
	b = make_qp(d, cq, 4);
	connect(d, a, b->qp_num, 10, 1);
	connect(d, b, a->qp_num, 10, 1);
	post(a, IBV_WR_RDMA_WRITE, ta, 64, tlk, mine.addr(), mine.mr->rkey);
	w = poll_n(cq, 1, 30);
	result(w.size() == 1 && w[0].status == IBV_WC_LOC_PROT_ERR,
	       "victim-lkey-refused", wc_str(w));
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_dereg_mr(mine.mr);
	ibv_destroy_cq(cq);
}

/* Pinning beyond RLIMIT_MEMLOCK, and the accounting coming back. */
void attack_memlock(Dev &d)
{
	rlimit rl;
	getrlimit(RLIMIT_MEMLOCK, &rl);
	size_t lim = rl.rlim_cur;
	if (lim == RLIM_INFINITY || lim > (256u << 20)) {
		result(false, "memlock-limit-holds",
		       "RLIMIT_MEMLOCK is not small: " + std::to_string(lim));
		return;
	}
	size_t big = lim + (4 << 20);
	void *m = mmap(nullptr, big, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED)
		die("mmap");
	auto *p = static_cast<uint8_t *>(m);
	ibv_mr *over = ibv_reg_mr(d.pd, p, lim + 4096, IBV_ACCESS_LOCAL_WRITE);
	int e1 = errno;
	/* two halves fit one by one, not together with a third */
	size_t half = lim / 2;
	ibv_mr *h1 = ibv_reg_mr(d.pd, p, half, IBV_ACCESS_LOCAL_WRITE);
	ibv_mr *h2 =
		ibv_reg_mr(d.pd, p + half, half / 2, IBV_ACCESS_LOCAL_WRITE);
	ibv_mr *h3 = ibv_reg_mr(d.pd, p + half + half / 2, half,
				IBV_ACCESS_LOCAL_WRITE);
	int e3 = errno;
	bool ok = !over && e1 == ENOMEM && h1 && h2 && !h3 && e3 == ENOMEM;
	std::string why =
		std::string("over the limit: ") +
		(over ? "registered" : strerror(e1)) +
		"; the third part: " + (h3 ? "registered" : strerror(e3));
	if (h1)
		ibv_dereg_mr(h1);
	if (h2)
		ibv_dereg_mr(h2);
	if (h3)
		ibv_dereg_mr(h3);
	if (over)
		ibv_dereg_mr(over);
	result(ok, "memlock-limit-holds", why);
	/* unpinned, the whole limit is there again */
	ibv_mr *again =
		ibv_reg_mr(d.pd, p, lim - (64 << 10), IBV_ACCESS_LOCAL_WRITE);
	result(again != nullptr, "memlock-returned-on-dereg",
	       again ? "" : strerror(errno));
	if (again)
		ibv_dereg_mr(again);
	munmap(m, big);
}

/* Back-to-back large WRITEs on several QPs, and objects churned. */
void flood(Dev &d, double seconds)
{
	ibv_cq *cq = ibv_create_cq(d.ctx, 4096, nullptr, nullptr, 0);
	Buf big;
	big.make(d.pd, 2 << 20, 0x11);
	std::vector<ibv_qp *> qs;
	for (int i = 0; i < 4; i++) {
		ibv_qp *a = make_qp(d, cq, 256), *b = make_qp(d, cq, 256);
		connect(d, a, b->qp_num);
		connect(d, b, a->qp_num);
		qs.push_back(a);
		qs.push_back(b);
	}
	double end = now_s() + seconds;
	unsigned long posted = 0, done = 0, churned = 0;
	std::vector<int> inflight(qs.size(), 0);
	while (now_s() < end) {
		for (size_t i = 0; i < qs.size(); i += 2)
			while (inflight[i] < 64) {
				if (post(qs[i], IBV_WR_RDMA_WRITE, big.addr(),
					 1 << 20, big.mr->lkey,
					 big.addr(1 << 20), big.mr->rkey, i))
					break;
				inflight[i]++;
				posted++;
			}
		ibv_wc wc[64];
		int n = ibv_poll_cq(cq, 64, wc);
		for (int k = 0; k < n; k++) {
			inflight[wc[k].wr_id]--;
			done++;
		}
		/* objects made and destroyed */
		ibv_cq *c = ibv_create_cq(d.ctx, 64, nullptr, nullptr, 0);
		ibv_qp *q = c ? make_qp(d, c, 16) : nullptr;
		if (q)
			ibv_destroy_qp(q);
		if (c)
			ibv_destroy_cq(c);
		churned++;
	}
	/* let the writes in flight finish */
	double dl = now_s() + 120;
	unsigned long left = posted - done;
	while (left && now_s() < dl) {
		ibv_wc wc[64];
		int n = ibv_poll_cq(cq, 64, wc);
		left -= n > 0 ? n : 0;
	}
	printf("attacker: flood of %lu writes of 1 MiB (%lu done), %lu object "
	       "rounds\n",
	       posted, posted - left, churned);
	for (ibv_qp *q : qs)
		ibv_destroy_qp(q);
	ibv_dereg_mr(big.mr);
	ibv_destroy_cq(cq);
}

int attacker(const std::string &dir, double seconds)
{
	std::string path = dir + "/victim.info";
	auto vi = read_info(path);
	Dev d;
	d.open();
	attack_files(vi);
	attack_uar(d, static_cast<uint32_t>(vi.at("uar_mark")));
	attack_restrack(vi);
	attack_cross(d, vi);
	attack_memlock(d);
	flood(d, seconds);
	std::ofstream(dir + "/attacker.done") << "done\n";
	return failures ? 1 : 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	setvbuf(stdout, nullptr, _IOLBF, 0);
	bool victim_args = argc == 6 && std::string(argv[1]) == "victim";
	bool attacker_args =
		(argc == 5 || argc == 6) && std::string(argv[1]) == "attacker";
	if (!victim_args && !attacker_args) {
		fprintf(stderr, "usage: softhca-isolation victim <ibdev> "
				"<gid-index> <dir> <seconds>\n"
				"       softhca-isolation attacker <ibdev> "
				"<gid-index> <dir> [flood-seconds]\n");
		return 2;
	}
	std::string mode = argv[1];
	dev_name = argv[2];
	gid_index = atoi(argv[3]);
	if (mode == "victim")
		return victim(argv[4], atof(argv[5]));
	if (mode == "attacker")
		return attacker(argv[4], argc > 5 ? atof(argv[5]) : 60);
	return 2;
}
