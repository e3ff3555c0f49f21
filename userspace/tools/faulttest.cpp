// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca-faulttest: every create path of the device with its kernel
 * allocations failed one at a time, through the fault injection's fail-nth
 * file (Documentation/fault-injection/fault-injection.rst; a kernel with
 * CONFIG_FAULT_INJECTION, failslab, fail_page_alloc and fail_usercopy
 * taking GFP_KERNEL calls: tests/vm/t45-faults.sh sets them up).
 *
 *   softhca-faulttest <ibdev> <gid-index> <path>...
 *   softhca-faulttest link <name> <netdev>
 *
 * Paths: context, pd, mr, cq, qp-rc, qp-uc, qp-ud, srq, qp-srq, ah,
 * qp-rtr (the INIT to RTR transition), wake (the driver's wake-up file);
 * "link" is "rdma link add <name> type softhca netdev <netdev>" (probe:
 * the card, its command queue, EQs and IRQs, ib_core's registration),
 * sent as the netlink request the rdma tool sends.
 *
 * For n = 1, 2, ...: n goes to /proc/thread-self/fail-nth, the call is
 * made, and fail-nth is read back. 0 means the n-th fault point of the
 * call failed: the call must fail with an errno, or succeed with an
 * object that works (a fault some path absorbs: a page fault retried, a
 * fallback); the object is then destroyed. Not 0: the call has fewer than
 * n fault points and ran without a fault; it must succeed, and the path
 * is done. After each path the process has the files it had, the card's
 * listings (debugfs) and ib_core's counts (rdma resource) hold what they
 * held, and an RC SEND and RDMA WRITE on a pair made beforehand deliver
 * their data.
 *
 * "link" has too many points (each failed add is slow under KASAN) to
 * fail them all: one add without a fault (fail-nth armed at its largest
 * count) says how many the add has, N; then a fixed sample of them is
 * failed, SOFTHCA_FAULT_LINK_PROBES (40): points 1..8 (the request's own
 * and the card's first setup, see kLinkFirst) and the rest spread evenly
 * up to N; SOFTHCA_FAULT_STRIDE=s fails every s-th point instead (1: all
 * of them). After each add whatever it made is checked: a failed add
 * leaves no trace of the device (ib_core's netlink listing, sysfs, the
 * card's platform device, its IRQs, debugfs); a device that was made
 * works (ibv_open_device, a PD and a CQ) and is deleted again without a
 * trace, unless ib_core absorbed the fault by leaving the device without
 * its uverbs character device ("absorbed by the kernel", see
 * settle_add()), which is only deleted. Its checks read the files and
 * talk netlink (NETLINK_RDMA) themselves: no subprocess per probe.
 *
 * The context path runs in a child process (inject_in_child(): Linux
 * 6.1's ioctl GET_CONTEXT leaks the task of a failed open, and the child's
 * name lets t45 tell that leak of ib_core's from any other).
 *
 * Prints "PASS faults.<path>" or "FAIL faults.<path>: <why>", and a line
 * "  <path>: <n> fault points, <f> failed calls (<errno> <count>...),
 * <a> absorbed"; for link also N, the points probed, a line per probe,
 * the number absorbed by the kernel and the time taken; "TOTAL ..." at
 * the end. Exits 1 if a path failed, 2 if it could not run. SOFTHCA_FAULT_MAX
 * bounds n for the verbs paths (5000; a path with more points fails).
 */
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <map>
#include <string>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <infiniband/verbs.h>

#include "../../include/softhca_abi.h"

namespace {

int failures;
unsigned long total_points, total_injected, total_failed, total_absorbed,
	total_kernel_absorbed;

void result(bool ok, const std::string &name, const std::string &why = "")
{
	if (ok)
		printf("PASS %s\n", name.c_str());
	else
		printf("FAIL %s: %s\n", name.c_str(), why.c_str());
	if (!ok)
		failures++;
	fflush(stdout);
}

[[noreturn]] void die(const std::string &what)
{
	fprintf(stderr, "faulttest: %s: %s\n", what.c_str(), strerror(errno));
	exit(2);
}

/* The task's fail-nth file: the n-th fault point from now on fails. */
struct FailNth {
	int fd;

	FailNth()
	{
		fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
		if (fd < 0)
			die("/proc/thread-self/fail-nth "
			    "(CONFIG_FAULT_INJECTION?)");
	}
	void arm(unsigned n)
	{
		char b[16];
		int l = snprintf(b, sizeof(b), "%u", n);

		if (pwrite(fd, b, l, 0) != l)
			die("write fail-nth");
	}
	/*
	 * What is left of the count: 0 once the fault was injected. The
	 * file's own copy to user space is a fault point too (fail_usercopy):
	 * it takes one from the count after the count was printed, and when
	 * that was the last one the read fails with EFAULT: the count was 1.
	 */
	unsigned left()
	{
		char b[16] = {};
		ssize_t l = pread(fd, b, sizeof(b) - 1, 0);

		if (l < 0 && errno == EFAULT)
			return 1;
		if (l <= 0)
			die("read fail-nth");
		return static_cast<unsigned>(strtoul(b, nullptr, 10));
	}
	/*
	 * Nothing armed any more. The write's copy from user space is a
	 * fault point as well: EFAULT says the count ran out right there,
	 * which leaves nothing armed either.
	 */
	void disarm()
	{
		if (pwrite(fd, "0", 1, 0) != 1 && errno != EFAULT)
			die("write fail-nth");
	}
};

unsigned max_n()
{
	const char *e = getenv("SOFTHCA_FAULT_MAX");

	return e ? static_cast<unsigned>(atoi(e)) : 5000;
}

int count_fds()
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		die("/proc/self/fd");
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* lines of a file, -1 if it cannot be read */
long count_lines(const std::string &path)
{
	FILE *f = fopen(path.c_str(), "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

std::string run(const std::string &cmd)
{
	std::string out;
	char buf[512];
	FILE *p = popen(cmd.c_str(), "r");

	if (!p)
		return "";
	while (fgets(buf, sizeof(buf), p))
		out += buf;
	int st = pclose(p);
	if (st != 0)
		out += "(wait status " + std::to_string(st) + ")";
	return out;
}

/*
 * What the kernel holds for @dev: the card's listings and ib_core's
 * object counts ("rdma resource show": "N: dev: pd 1 cq 2 ...").
 */
std::string snapshot(const std::string &dev)
{
	std::string s;
	std::string d = "/sys/kernel/debug/softhca/" + dev + "/";

	/* a listing that cannot be read would compare equal: no check */
	for (const char *f : { "cqs", "mrs", "qps", "dbrec_pages", "eqs" }) {
		long n = count_lines(d + f);

		if (n < 0)
			die(d + f);
		s += std::string(f) + " " + std::to_string(n) + "; ";
	}
	std::string res = run("rdma resource show 2>&1");
	size_t at = res.find(": " + dev + ": ");
	if (at == std::string::npos) {
		fprintf(stderr,
			"faulttest: rdma resource has no line for %s: %s\n",
			dev.c_str(), res.c_str());
		exit(2);
	}
	size_t end = res.find('\n', at);
	return s + res.substr(at + 2, end - at - 2);
}

std::string errno_name(int e)
{
	const char *name = strerrorname_np(e);

	return name ? name : "errno" + std::to_string(e);
}

/* A path: make one object (nullptr and errno on failure), use it, drop it. */
struct Path {
	std::string name;
	std::function<void *()> create;
	std::function<bool(void *)> works;
	std::function<int(void *)> destroy; /* 0 or an errno */
};

struct Stats {
	unsigned points = 0, failed = 0, absorbed = 0;
	std::map<int, unsigned> errnos;
	std::string why;
};

/*
 * Run @p with its n-th fault point failed, for every n. @settle, when
 * given, checks that a failed call left nothing behind.
 */
Stats inject(FailNth &fn, const Path &p,
	     const std::function<std::string()> &settle = nullptr)
{
	Stats st;
	unsigned limit = max_n();

	for (unsigned n = 1;; n++) {
		if (n > limit) {
			st.why = "more than " + std::to_string(limit) +
				 " fault points (SOFTHCA_FAULT_MAX)";
			break;
		}
		fn.arm(n);
		void *obj = p.create();
		int err = errno;
		unsigned left = fn.left();
		if (left)
			fn.disarm();
		if (left) {
			/* fewer than n points: a run without a fault */
			st.points = n - 1;
			if (!obj) {
				st.why = "the call failed without a fault: " +
					 errno_name(err);
				break;
			}
			if (!p.works(obj))
				st.why = "the object made without a fault does "
					 "not work";
			int derr = p.destroy(obj);
			if (derr && st.why.empty())
				st.why = "destroy failed: " + errno_name(derr);
			break;
		}
		total_injected++;
		if (!obj) {
			if (err == 0) {
				st.why = "fault point " + std::to_string(n) +
					 ": the call failed with errno 0";
				break;
			}
			st.failed++;
			st.errnos[err]++;
			if (settle) {
				std::string s = settle();
				if (!s.empty()) {
					st.why = "fault point " +
						 std::to_string(n) + ": " + s;
					break;
				}
			}
			continue;
		}
		st.absorbed++;
		if (!p.works(obj)) {
			st.why = "fault point " + std::to_string(n) +
				 ": the call succeeded but the object does not "
				 "work";
			p.destroy(obj);
			break;
		}
		int derr = p.destroy(obj);
		if (derr) {
			st.why = "fault point " + std::to_string(n) +
				 ": destroy failed: " + errno_name(derr);
			break;
		}
	}
	return st;
}

void report(const std::string &name, const Stats &st, const std::string &extra)
{
	std::string e;

	for (auto &kv : st.errnos)
		e += " " + errno_name(kv.first) + " " +
		     std::to_string(kv.second);
	printf("  %s: %u fault points, %u failed calls (%s ), %u absorbed\n",
	       name.c_str(), st.points, st.failed, e.c_str(), st.absorbed);
	total_points += st.points;
	total_failed += st.failed;
	total_absorbed += st.absorbed;
	std::string why = st.why;
	if (why.empty())
		why = extra;
	result(why.empty(), "faults." + name, why);
}

/* ---- the verbs paths ------------------------------------------------ */

const int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

struct Env {
	std::string dev_name;
	int gid_index = 0;
	ibv_device *ibdev = nullptr;
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_srq *srq = nullptr;
	ibv_gid gid = {};
	/* a connected RC pair and its buffers: the device still works */
	ibv_cq *pcq = nullptr;
	ibv_qp *qa = nullptr, *qb = nullptr;
	uint8_t *src = nullptr, *dst = nullptr;
	ibv_mr *smr = nullptr, *dmr = nullptr;
	/* memory the mr path registers: 4 MiB, a PAS of three list pages */
	uint8_t *mrbuf = nullptr;
	size_t mrlen = 4 << 20;
	unsigned seq = 0;
};

ibv_qp *make_qp(Env &e, ibv_qp_type type, ibv_cq *cq, ibv_srq *srq)
{
	ibv_qp_init_attr ia = {};

	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.srq = srq;
	ia.qp_type = type;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = srq ? 0 : 16;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = srq ? 0 : 2;
	ia.cap.max_inline_data = 64;
	return ibv_create_qp(e.pd, &ia);
}

int to_init(ibv_qp *qp)
{
	ibv_qp_attr at = {};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	if (qp->qp_type == IBV_QPT_UD) {
		at.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		at.qp_access_flags = kAccess;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return ibv_modify_qp(qp, &at, mask);
}

int to_rtr(Env &e, ibv_qp *qp, uint32_t dest)
{
	ibv_qp_attr at = {};

	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.dest_qp_num = dest;
	at.rq_psn = 0;
	at.ah_attr.is_global = 1;
	at.ah_attr.grh.dgid = e.gid;
	at.ah_attr.grh.sgid_index = static_cast<uint8_t>(e.gid_index);
	at.ah_attr.grh.hop_limit = 64;
	at.ah_attr.port_num = 1;
	at.max_dest_rd_atomic = 4;
	at.min_rnr_timer = 1;
	return ibv_modify_qp(qp, &at,
			     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				     IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER);
}

int to_rts(ibv_qp *qp)
{
	ibv_qp_attr at = {};

	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = 0;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &at,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

bool wait_wc(ibv_cq *cq, int n, std::string &why)
{
	for (int i = 0; i < 300000 && n > 0; i++) {
		ibv_wc wc;
		int got = ibv_poll_cq(cq, 1, &wc);

		if (got < 0) {
			why = "poll_cq failed";
			return false;
		}
		if (got == 0) {
			usleep(100);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			why = std::string("completion ") +
			      ibv_wc_status_str(wc.status);
			return false;
		}
		n--;
	}
	if (n)
		why = "completions missing";
	return n == 0;
}

/* An RC SEND and an RDMA WRITE between the pair, data checked. */
std::string transfer(Env &e)
{
	std::string why;
	uint8_t tag = static_cast<uint8_t>(++e.seq);

	memset(e.src, tag, 8192);
	memset(e.dst, 0, 8192);
	ibv_sge rs = { reinterpret_cast<uintptr_t>(e.dst), 4096, e.dmr->lkey };
	ibv_recv_wr rw = {}, *rbad;
	rw.sg_list = &rs;
	rw.num_sge = 1;
	if (ibv_post_recv(e.qb, &rw, &rbad))
		return "post_recv failed";
	ibv_sge ss = { reinterpret_cast<uintptr_t>(e.src), 4096, e.smr->lkey };
	ibv_send_wr sw = {}, *sbad;
	sw.sg_list = &ss;
	sw.num_sge = 1;
	sw.opcode = IBV_WR_SEND;
	sw.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(e.qa, &sw, &sbad))
		return "post_send SEND failed";
	ibv_sge ws = { reinterpret_cast<uintptr_t>(e.src + 4096), 4096,
		       e.smr->lkey };
	sw.sg_list = &ws;
	sw.opcode = IBV_WR_RDMA_WRITE;
	sw.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(e.dst + 4096);
	sw.wr.rdma.rkey = e.dmr->rkey;
	if (ibv_post_send(e.qa, &sw, &sbad))
		return "post_send WRITE failed";
	/* both sends and the receive complete on the pair's CQ */
	if (!wait_wc(e.pcq, 3, why))
		return why;
	for (int i = 0; i < 8192; i++)
		if (e.dst[i] != tag)
			return "byte " + std::to_string(i) + " not delivered";
	return "";
}

uint8_t *map_buf(size_t len)
{
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 0, len);
	return static_cast<uint8_t *>(p);
}

void setup(Env &e)
{
	int n;
	ibv_device **list = ibv_get_device_list(&n);

	for (int i = 0; list && i < n; i++)
		if (e.dev_name == ibv_get_device_name(list[i]))
			e.ibdev = list[i];
	if (!e.ibdev)
		die("no device " + e.dev_name);
	/* the list stays: e.ibdev points into it */
	e.ctx = ibv_open_device(e.ibdev);
	if (!e.ctx)
		die("open_device");
	e.pd = ibv_alloc_pd(e.ctx);
	e.cq = ibv_create_cq(e.ctx, 64, nullptr, nullptr, 0);
	ibv_srq_init_attr sa = {};
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 2;
	e.srq = ibv_create_srq(e.pd, &sa);
	if (!e.pd || !e.cq || !e.srq ||
	    ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid))
		die("setup");
	e.pcq = ibv_create_cq(e.ctx, 64, nullptr, nullptr, 0);
	e.qa = make_qp(e, IBV_QPT_RC, e.pcq, nullptr);
	e.qb = make_qp(e, IBV_QPT_RC, e.pcq, nullptr);
	if (!e.pcq || !e.qa || !e.qb || to_init(e.qa) || to_init(e.qb) ||
	    to_rtr(e, e.qa, e.qb->qp_num) || to_rtr(e, e.qb, e.qa->qp_num) ||
	    to_rts(e.qa) || to_rts(e.qb))
		die("pair setup");
	e.src = map_buf(8192);
	e.dst = map_buf(8192);
	e.smr = ibv_reg_mr(e.pd, e.src, 8192, kAccess);
	e.dmr = ibv_reg_mr(e.pd, e.dst, 8192, kAccess);
	/* 4 MiB, 4 KiB into a mapping: 1024 blocks at any block size */
	e.mrbuf = map_buf(e.mrlen + 8192) + 4096;
	if (!e.smr || !e.dmr)
		die("reg_mr");
}

std::vector<Path> verbs_paths(Env &e)
{
	std::vector<Path> v;
	auto qp_path = [&e](const std::string &name, ibv_qp_type t,
			    bool on_srq) {
		return Path{
			name,
			[&e, t, on_srq]() -> void * {
				return make_qp(e, t, e.cq,
					       on_srq ? e.srq : nullptr);
			},
			[](void *o) {
				return to_init(static_cast<ibv_qp *>(o)) == 0;
			},
			[](void *o) {
				return ibv_destroy_qp(static_cast<ibv_qp *>(o));
			}
		};
	};

	v.push_back({ "context",
		      [&e]() -> void * {
			      return ibv_open_device(e.ibdev);
		      },
		      [](void *o) {
			      ibv_pd *pd = ibv_alloc_pd(
				      static_cast<ibv_context *>(o));
			      return pd && ibv_dealloc_pd(pd) == 0;
		      },
		      [](void *o) {
			      return ibv_close_device(
				      static_cast<ibv_context *>(o));
		      } });
	v.push_back({ "pd",
		      [&e]() -> void * {
			      return ibv_alloc_pd(e.ctx);
		      },
		      [&e](void *o) {
			      ibv_mr *mr = ibv_reg_mr(static_cast<ibv_pd *>(o),
						      e.src, 4096,
						      IBV_ACCESS_LOCAL_WRITE);
			      return mr && ibv_dereg_mr(mr) == 0;
		      },
		      [](void *o) {
			      return ibv_dealloc_pd(static_cast<ibv_pd *>(o));
		      } });
	v.push_back(
		{ "mr",
		  [&e]() -> void * {
			  return ibv_reg_mr(e.pd, e.mrbuf, e.mrlen, kAccess);
		  },
		  [&e](void *o) {
			  /* the pair WRITEs into it: the card's MKEY */
			  auto *mr = static_cast<ibv_mr *>(o);
			  std::string why;
			  memset(e.mrbuf + e.mrlen - 64, 0, 64);
			  memset(e.src, 0x3c, 64);
			  ibv_sge s = { reinterpret_cast<uintptr_t>(e.src), 64,
					e.smr->lkey };
			  ibv_send_wr w = {}, *bad;
			  w.sg_list = &s;
			  w.num_sge = 1;
			  w.opcode = IBV_WR_RDMA_WRITE;
			  w.send_flags = IBV_SEND_SIGNALED;
			  w.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(
				  e.mrbuf + e.mrlen - 64);
			  w.wr.rdma.rkey = mr->rkey;
			  return ibv_post_send(e.qa, &w, &bad) == 0 &&
				 wait_wc(e.pcq, 1, why) &&
				 e.mrbuf[e.mrlen - 1] == 0x3c;
		  },
		  [](void *o) {
			  return ibv_dereg_mr(static_cast<ibv_mr *>(o));
		  } });
	v.push_back({ "cq",
		      [&e]() -> void * {
			      return ibv_create_cq(e.ctx, 300, nullptr, nullptr,
						   e.ctx->num_comp_vectors - 1);
		      },
		      [](void *o) {
			      auto *cq = static_cast<ibv_cq *>(o);
			      ibv_wc wc;
			      return ibv_req_notify_cq(cq, 0) == 0 &&
				     ibv_poll_cq(cq, 1, &wc) == 0;
		      },
		      [](void *o) {
			      return ibv_destroy_cq(static_cast<ibv_cq *>(o));
		      } });
	v.push_back(qp_path("qp-rc", IBV_QPT_RC, false));
	v.push_back(qp_path("qp-uc", IBV_QPT_UC, false));
	v.push_back(qp_path("qp-ud", IBV_QPT_UD, false));
	v.push_back({ "srq",
		      [&e]() -> void * {
			      ibv_srq_init_attr sa = {};
			      sa.attr.max_wr = 64;
			      sa.attr.max_sge = 2;
			      return ibv_create_srq(e.pd, &sa);
		      },
		      [&e](void *o) {
			      ibv_sge s = { reinterpret_cast<uintptr_t>(e.dst),
					    64, e.dmr->lkey };
			      ibv_recv_wr w = {}, *bad;
			      w.sg_list = &s;
			      w.num_sge = 1;
			      return ibv_post_srq_recv(
					     static_cast<ibv_srq *>(o), &w,
					     &bad) == 0;
		      },
		      [](void *o) {
			      return ibv_destroy_srq(static_cast<ibv_srq *>(o));
		      } });
	v.push_back(qp_path("qp-srq", IBV_QPT_RC, true));
	v.push_back({ "ah",
		      [&e]() -> void * {
			      ibv_ah_attr a = {};
			      a.is_global = 1;
			      a.grh.dgid = e.gid;
			      a.grh.sgid_index =
				      static_cast<uint8_t>(e.gid_index);
			      a.grh.hop_limit = 64;
			      a.port_num = 1;
			      return ibv_create_ah(e.pd, &a);
		      },
		      [](void *) {
			      return true;
		      },
		      [](void *o) {
			      return ibv_destroy_ah(static_cast<ibv_ah *>(o));
		      } });
	/* INIT to RTR: its own loop, inject_rtr() */
	v.push_back({ "qp-rtr", nullptr, nullptr, nullptr });
	v.push_back({ "wake",
		      [&e]() -> void * {
			      ib_uverbs_ioctl_hdr hdr = {};
			      ib_uverbs_attr attr = {};
			      alignas(8) unsigned char
				      cmd[sizeof(hdr) + sizeof(attr)];
			      hdr.length = sizeof(cmd);
			      hdr.object_id = SOFTHCA_IB_OBJECT_WAKE_FD;
			      hdr.method_id = SOFTHCA_IB_METHOD_WAKE_FD_ALLOC;
			      hdr.num_attrs = 1;
			      attr.attr_id =
				      SOFTHCA_IB_ATTR_WAKE_FD_ALLOC_HANDLE;
			      attr.flags = UVERBS_ATTR_F_MANDATORY;
			      memcpy(cmd, &hdr, sizeof(hdr));
			      memcpy(cmd + sizeof(hdr), &attr, sizeof(attr));
			      if (ioctl(e.ctx->cmd_fd, RDMA_VERBS_IOCTL, cmd))
				      return nullptr;
			      memcpy(&attr, cmd + sizeof(hdr), sizeof(attr));
			      /* fd + 1: fd 0 is not a null object */
			      return reinterpret_cast<void *>(attr.data + 1);
		      },
		      [&e](void *o) {
			      int fd = static_cast<int>(
				      reinterpret_cast<uintptr_t>(o) - 1);
			      return ioctl(fd, SOFTHCA_WAKE_IOCTL,
					   static_cast<unsigned long>(
						   e.qa->qp_num)) == 0;
		      },
		      [](void *o) {
			      int fd = static_cast<int>(
				      reinterpret_cast<uintptr_t>(o) - 1);
			      return close(fd) ? errno : 0;
		      } });
	return v;
}

/*
 * The qp-rtr path: INIT to RTR resolves the path (the GID's attributes,
 * the destination MAC) and runs MODIFY_QP. A fresh QP in INIT for each
 * call, faults in the transition only; a failed transition leaves the QP
 * in INIT, from where it still moves to RTR.
 */
Stats inject_rtr(FailNth &fn, Env &e)
{
	Stats st;
	unsigned limit = max_n();

	for (unsigned n = 1;; n++) {
		if (n > limit) {
			st.why = "more than " + std::to_string(limit) +
				 " fault points";
			break;
		}
		ibv_qp *qp = make_qp(e, IBV_QPT_RC, e.cq, nullptr);
		if (!qp || to_init(qp)) {
			st.why = "a QP without faults failed";
			break;
		}
		fn.arm(n);
		int rc = to_rtr(e, qp, e.qa->qp_num);
		unsigned left = fn.left();
		if (left)
			fn.disarm();
		ibv_qp_attr at = {};
		ibv_qp_init_attr ia = {};
		int qrc = ibv_query_qp(qp, &at, IBV_QP_STATE, &ia);
		if (left) {
			st.points = n - 1;
			if (rc)
				st.why = "RTR failed without a fault: " +
					 errno_name(rc);
			else if (qrc || at.qp_state != IBV_QPS_RTR)
				st.why = "not in RTR after a clean RTR";
			ibv_destroy_qp(qp);
			break;
		}
		total_injected++;
		if (rc) {
			st.failed++;
			st.errnos[rc]++;
			/* a failed transition leaves the state as it was */
			if (qrc || at.qp_state != IBV_QPS_INIT) {
				st.why = "fault point " + std::to_string(n) +
					 ": after a failed RTR the QP is in "
					 "state " +
					 std::to_string(at.qp_state);
			} else if (to_rtr(e, qp, e.qa->qp_num)) {
				st.why = "fault point " + std::to_string(n) +
					 ": RTR again without a fault failed";
			}
		} else {
			st.absorbed++;
			if (qrc || at.qp_state != IBV_QPS_RTR)
				st.why = "fault point " + std::to_string(n) +
					 ": RTR succeeded, state " +
					 std::to_string(at.qp_state);
		}
		int drc = ibv_destroy_qp(qp);
		if (drc && st.why.empty())
			st.why = "destroy failed: " + errno_name(drc);
		if (!st.why.empty())
			break;
	}
	return st;
}

/*
 * Linux 6.1's ioctl GET_CONTEXT (UVERBS_METHOD_GET_CONTEXT,
 * drivers/infiniband/core/uverbs_std_types_device.c), which rdma-core's
 * ibv_open_device() uses, frees a ucontext whose alloc_ucontext() failed
 * with kfree() alone: the reference on the calling task that
 * rdma_restrack_set_name() took for it in ib_alloc_ucontext() is never
 * dropped (the write() command's error path, ib_uverbs_get_context(),
 * does drop it). So every failed open leaks its caller's task_struct and,
 * once the process has exited, the signal_struct and creds it holds.
 * That is ib_core's, not the driver's: the "context" path runs in a child
 * forked while this process is named kCtxForkComm, which kmemleak records
 * as the allocator of exactly those three objects (copy_process()), and
 * t45 allows them by that name (allowed-leaks); any other leak, the
 * child's own allocations included, still counts.
 */
const char kCtxForkComm[] = "softhca-ctxfork";

/* A Stats through a pipe: counts, errnos, then the reason to the end. */
std::string stats_pack(const Stats &st, unsigned long injected)
{
	std::string s = std::to_string(st.points) + " " +
			std::to_string(st.failed) + " " +
			std::to_string(st.absorbed) + " " +
			std::to_string(injected) + " " +
			std::to_string(st.errnos.size());
	for (auto &kv : st.errnos)
		s += " " + std::to_string(kv.first) + " " +
		     std::to_string(kv.second);
	return s + "\n" + st.why;
}

bool stats_unpack(const std::string &s, Stats &st, unsigned long &injected)
{
	size_t nl = s.find('\n');
	unsigned n = 0;
	int off = 0;

	if (nl == std::string::npos ||
	    sscanf(s.c_str(), "%u %u %u %lu %u%n", &st.points, &st.failed,
		   &st.absorbed, &injected, &n, &off) != 5)
		return false;
	const char *c = s.c_str() + off;
	for (unsigned i = 0; i < n; i++) {
		int e, k, used;
		if (sscanf(c, " %d %d%n", &e, &k, &used) != 2)
			return false;
		st.errnos[e] = static_cast<unsigned>(k);
		c += used;
	}
	st.why = s.substr(nl + 1);
	return true;
}

/* inject(@p) in a child forked under kCtxForkComm (see above). */
Stats inject_in_child(const Path &p)
{
	char comm[16] = {};
	int fds[2];
	Stats st;

	if (prctl(PR_GET_NAME, comm) || pipe2(fds, O_CLOEXEC))
		die("prctl/pipe2");
	fflush(stdout);
	fflush(stderr);
	if (prctl(PR_SET_NAME, kCtxForkComm))
		die("prctl(PR_SET_NAME)");
	pid_t pid = fork();
	int ferr = errno;
	if (prctl(PR_SET_NAME, comm))
		die("prctl(PR_SET_NAME)");
	if (pid < 0) {
		errno = ferr;
		die("fork");
	}
	if (pid == 0) {
		close(fds[0]);
		unsigned long before = total_injected;
		int nfd = count_fds();
		FailNth fn;
		Stats c = inject(fn, p);
		int more = count_fds() - nfd - 1; /* less fn's own file */
		if (more && c.why.empty())
			c.why = std::to_string(more) +
				" files more in the child";
		std::string out = stats_pack(c, total_injected - before);
		ssize_t w = write(fds[1], out.data(), out.size());
		fflush(stdout);
		_exit(w == static_cast<ssize_t>(out.size()) ? 0 : 3);
	}
	close(fds[1]);
	std::string in;
	char b[512];
	ssize_t r;
	while ((r = read(fds[0], b, sizeof(b))) > 0)
		in.append(b, static_cast<size_t>(r));
	close(fds[0]);
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	unsigned long injected = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    !stats_unpack(in, st, injected)) {
		st = Stats();
		st.why = "the child running the path ended with status " +
			 std::to_string(status);
		return st;
	}
	total_injected += injected;
	return st;
}

int verbs_main(const std::string &dev, int gid_index,
	       const std::vector<std::string> &want)
{
	Env e;
	e.dev_name = dev;
	e.gid_index = gid_index;
	setup(e);
	FailNth fn;
	std::string why = transfer(e);
	if (!why.empty()) {
		fprintf(stderr, "faulttest: the pair does not work: %s\n",
			why.c_str());
		return 2;
	}

	for (Path &p : verbs_paths(e)) {
		bool run_it = want.empty();
		for (auto &w : want)
			run_it = run_it || w == p.name;
		if (!run_it)
			continue;
		int fds = count_fds();
		std::string before = snapshot(dev);
		Stats st = p.name == "qp-rtr"	 ? inject_rtr(fn, e)
			   : p.name == "context" ? inject_in_child(p)
						 : inject(fn, p);
		std::string extra;
		int fds_after = count_fds();
		std::string after = snapshot(dev);
		if (fds_after != fds) {
			extra = std::to_string(fds_after - fds) +
				" files more in the process";
		} else if (after != before) {
			extra = "left behind: before {";
			extra.append(before).append("}, after {");
			extra.append(after).append("}");
		} else if (!(why = transfer(e)).empty()) {
			extra = "the pair's transfer after the path: " + why;
		}
		report(p.name, st, extra);
	}
	return 0;
}

/* ---- rdma link add --------------------------------------------------- */

/*
 * Every check of the link path talks to ib_core's nldev directly
 * (NETLINK_RDMA, drivers/infiniband/core/nldev.c) and reads its files
 * itself: under the debug kernel each fork and exec of a shell or of the
 * rdma tool costs more than a failed add.
 */

const size_t kNlHdr = NLMSG_HDRLEN, kNlaHdr = NLA_HDRLEN;

void put_attr(std::vector<char> &m, uint16_t type, const void *data, size_t len)
{
	nlattr a = {};
	size_t at = m.size();

	a.nla_type = type;
	a.nla_len = static_cast<uint16_t>(kNlaHdr + len);
	m.resize(at + NLA_ALIGN(a.nla_len));
	memcpy(&m[at], &a, sizeof(a));
	memcpy(&m[at + kNlaHdr], data, len);
}

void put_str(std::vector<char> &m, uint16_t type, const std::string &s)
{
	put_attr(m, type, s.c_str(), s.size() + 1);
}

void put_u32(std::vector<char> &m, uint16_t type, uint32_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

/* The header of an nldev request @m (its attributes already appended). */
void seal(std::vector<char> &m, uint16_t cmd, uint16_t flags, uint32_t seq)
{
	nlmsghdr h = {};

	h.nlmsg_len = static_cast<uint32_t>(m.size());
	h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	h.nlmsg_flags = flags;
	h.nlmsg_seq = seq;
	memcpy(m.data(), &h, sizeof(h));
}

int nl_socket()
{
	int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);

	if (sock < 0)
		die("netlink socket");
	return sock;
}

/*
 * Send @m, sealed as @cmd with @flags, on a socket of its own and read
 * the answers up to the ack (or a dump's NLMSG_DONE), each message of a
 * dump passed to @each. Returns 0 or -errno (the kernel's answer, or the
 * socket's). Never under fail-nth.
 */
int nl_talk(std::vector<char> &m, uint16_t cmd, uint16_t flags,
	    const std::function<void(const nlmsghdr *)> &each = nullptr)
{
	static uint32_t seq = 1u << 24; /* the probes' are their n */
	std::vector<char> buf(1 << 16);
	int sock = nl_socket();
	int rc = -EPROTO;
	bool done = false;

	seal(m, cmd, flags, ++seq);
	if (send(sock, m.data(), m.size(), 0) < 0) {
		rc = -errno;
		done = true;
	}
	while (!done) {
		ssize_t got = recv(sock, buf.data(), buf.size(), MSG_TRUNC);
		if (got < 0) {
			rc = -errno;
			break;
		}
		auto len = static_cast<size_t>(got);
		if (len > buf.size()) {
			rc = -EMSGSIZE;
			break;
		}
		for (size_t off = 0; !done && off + kNlHdr <= len;) {
			const auto *h =
				reinterpret_cast<const nlmsghdr *>(&buf[off]);
			if (h->nlmsg_len < kNlHdr || h->nlmsg_len > len - off)
				break;
			const char *data = &buf[off + kNlHdr];
			size_t plen = h->nlmsg_len - kNlHdr;
			off += NLMSG_ALIGN(h->nlmsg_len);
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				nlmsgerr e = {};
				if (plen >= sizeof(e)) {
					memcpy(&e, data, sizeof(e));
					rc = e.error;
				}
				done = true;
			} else if (h->nlmsg_type == NLMSG_DONE) {
				/* the dump's own status */
				int dst = 0;
				if (plen >= sizeof(dst))
					memcpy(&dst, data, sizeof(dst));
				rc = dst;
				done = true;
			} else if (each) {
				each(h);
			}
		}
	}
	close(sock);
	return rc;
}

/* One device of an RDMA_NLDEV_CMD_GET dump: its name and index. */
void add_device(std::map<std::string, uint32_t> &devs, const nlmsghdr *h)
{
	const char *p = reinterpret_cast<const char *>(h) + kNlHdr;
	size_t left = h->nlmsg_len - kNlHdr;
	std::string name;
	uint32_t index = 0;
	bool has_index = false;

	if (h->nlmsg_type !=
	    RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET))
		return;
	while (left >= kNlaHdr) {
		nlattr a;
		memcpy(&a, p, sizeof(a));
		size_t alen = a.nla_len;
		if (alen < kNlaHdr || alen > left)
			break;
		const char *d = p + kNlaHdr;
		size_t dl = alen - kNlaHdr;
		switch (a.nla_type & NLA_TYPE_MASK) {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			if (dl >= sizeof(index)) {
				memcpy(&index, d, sizeof(index));
				has_index = true;
			}
			break;
		case RDMA_NLDEV_ATTR_DEV_NAME:
			name.assign(d, strnlen(d, dl));
			break;
		default:
			break;
		}
		size_t step = NLA_ALIGN(alen);
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
	if (!name.empty() && has_index)
		devs[name] = index;
}

/*
 * The RDMA devices ib_core has registered, by name, with their indexes:
 * what "rdma dev" lists (RDMA_NLDEV_CMD_GET, dumped; each message has
 * RDMA_NLDEV_ATTR_DEV_INDEX and RDMA_NLDEV_ATTR_DEV_NAME, nldev.c's
 * fill_nldev_handle()). 0 or -errno: a listing that failed proves nothing.
 */
int rdma_devices(std::map<std::string, uint32_t> &devs)
{
	std::vector<char> m(NLMSG_HDRLEN);

	devs.clear();
	return nl_talk(m, RDMA_NLDEV_CMD_GET, NLM_F_REQUEST | NLM_F_DUMP,
		       [&devs](const nlmsghdr *h) {
			       add_device(devs, h);
		       });
}

/*
 * The NEWLINK request of "rdma link add", on a netlink socket made
 * beforehand. Returns 0, -errno from the kernel's answer or from the send
 * (then nothing reached the kernel), or kAnswerLost when the add ran but
 * its answer did not arrive: the ack's own allocation failed (the socket
 * says ENOBUFS) or its copy to user space did (EFAULT).
 */
const int kAnswerLost = 1;

int newlink(int sock, const std::vector<char> &msg, int &lost_errno)
{
	if (send(sock, msg.data(), msg.size(), 0) < 0)
		return -errno;
	char buf[4096];
	ssize_t n = recv(sock, buf, sizeof(buf), 0);
	if (n < 0 && (errno == ENOBUFS || errno == EFAULT)) {
		lost_errno = errno;
		return kAnswerLost;
	}
	if (n < 0)
		return -errno;
	auto *h = reinterpret_cast<nlmsghdr *>(buf);
	if (n < static_cast<ssize_t>(sizeof(*h) + sizeof(nlmsgerr)) ||
	    h->nlmsg_type != NLMSG_ERROR)
		return -EPROTO;
	return reinterpret_cast<nlmsgerr *>(NLMSG_DATA(h))->error;
}

bool exists(const std::string &path)
{
	return access(path.c_str(), F_OK) == 0;
}

/* A whole file (sysfs, procfs), or false. */
bool read_file(const std::string &path, std::string &out)
{
	char buf[4096];
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	ssize_t n;

	out.clear();
	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		out.append(buf, static_cast<size_t>(n));
	close(fd);
	return n == 0;
}

/* The first line of a sysfs attribute, "" if it cannot be read. */
std::string read_attr(const std::string &path)
{
	std::string s;

	if (!read_file(path, s))
		return "";
	return s.substr(0, s.find('\n'));
}

int count_platform_devices()
{
	int n = 0;
	DIR *d = opendir("/sys/bus/platform/devices");

	if (!d)
		return -1;
	while (dirent *de = readdir(d))
		n += strncmp(de->d_name, "softhca.", 8) == 0;
	closedir(d);
	return n;
}

/* An IRQ "<name>-..." in /proc/interrupts; @why when it cannot be read. */
bool irqs_named(const std::string &name, std::string &why)
{
	std::string s;

	if (!read_file("/proc/interrupts", s)) {
		why = std::string("cannot read /proc/interrupts: ") +
		      strerror(errno);
		return false;
	}
	return s.find(" " + name + "-") != std::string::npos;
}

/* No trace of @name anywhere: ib_core, sysfs, the card, IRQs, debugfs. */
std::string no_trace(const std::string &name, int pdevs)
{
	std::string why;
	std::map<std::string, uint32_t> devs;

	if (exists("/sys/class/infiniband/" + name))
		return "/sys/class/infiniband/" + name + " exists";
	if (count_platform_devices() != pdevs)
		return "a softhca platform device is left";
	if (irqs_named(name, why))
		return "an IRQ " + name + "-* is left";
	if (!why.empty())
		return why;
	if (exists("/sys/kernel/debug/softhca/" + name))
		return "its debugfs directory is left";
	int rc = rdma_devices(devs);
	if (rc)
		return "listing the RDMA devices failed: " + errno_name(-rc);
	if (devs.count(name))
		return "ib_core still lists it (index " +
		       std::to_string(devs[name]) + ")";
	return "";
}

/*
 * "" when ib_uverbs made @name's character device: a node of
 * /sys/class/infiniband_verbs has @name as its ibdev, and
 * /dev/infiniband/<node> is that character device. Else what is missing.
 */
std::string uverbs_missing(const std::string &name)
{
	const std::string cls = "/sys/class/infiniband_verbs/";
	std::string node;
	DIR *d = opendir(cls.c_str());

	if (!d)
		return "no " + cls;
	while (dirent *de = readdir(d)) {
		std::string n = de->d_name;

		if (n.compare(0, 6, "uverbs") == 0 &&
		    read_attr(cls + n + "/ibdev") == name) {
			node = n;
			break;
		}
	}
	closedir(d);
	if (node.empty())
		return "no uverbs device names it";
	unsigned ma, mi;
	if (sscanf(read_attr(cls + node + "/dev").c_str(), "%u:%u", &ma, &mi) !=
	    2)
		return "cannot read " + cls + node + "/dev";
	struct stat sb;
	std::string path = "/dev/infiniband/" + node;
	if (stat(path.c_str(), &sb) || !S_ISCHR(sb.st_mode) ||
	    sb.st_rdev != makedev(ma, mi))
		return path + " is not its character device";
	return "";
}

std::string device_works(const std::string &name)
{
	int n;
	std::string why;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;

	for (int i = 0; list && i < n; i++)
		if (name == ibv_get_device_name(list[i]))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		return "cannot open it";
	ibv_pd *pd = ibv_alloc_pd(ctx);
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
	if (!pd || !cq)
		why = "cannot allocate a PD and a CQ on it";
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return why;
}

/* "rdma link delete": RDMA_NLDEV_CMD_DELLINK of the device's index. */
std::string link_delete(const std::string &name, uint32_t index)
{
	std::vector<char> m(NLMSG_HDRLEN);

	put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	int rc = nl_talk(m, RDMA_NLDEV_CMD_DELLINK, NLM_F_REQUEST | NLM_F_ACK);
	if (rc)
		return "rdma link delete failed: " + errno_name(-rc);
	if (exists("/sys/class/infiniband/" + name))
		return "rdma link delete left /sys/class/infiniband/" + name;
	return "";
}

/* What an add left: nothing, a device that works, or one without uverbs. */
enum class Added { none, works, no_uverbs };

/*
 * After an add (@rc from newlink()): whatever it made is checked, then
 * deleted, and no trace of it may be left. Returns why that failed, or "".
 *
 * ib_core absorbs some failures on purpose: add_client_context()
 * (drivers/infiniband/core/device.c) ignores the error of a client's
 * add() ("If a client fails to add then the error code is ignored"), and
 * ib_uverbs_add_one() (uverbs_main.c) fails on any of its allocations
 * (the ib_uverbs_device, its SRCU, the minor's IDA, the uapi tree,
 * cdev_device_add()); device_add() (drivers/base/core.c) ignores
 * devtmpfs_create_node() as well (uverbs_devnode()'s name). The add then
 * succeeds with a device that ib_core lists but that has no uverbs
 * character device, which ibv_open_device() cannot open: "absorbed by the
 * kernel" (Added::no_uverbs). It must still be deleted without a trace.
 */
std::string settle_add(const std::string &name, int rc, int pdevs, Added &added,
		       std::string &uv)
{
	std::map<std::string, uint32_t> devs;
	std::string why;

	added = Added::none;
	uv.clear();
	int lrc = rdma_devices(devs);
	if (lrc)
		return "listing the RDMA devices failed: " + errno_name(-lrc);
	bool in_sysfs = exists("/sys/class/infiniband/" + name);
	bool listed = devs.count(name) != 0;
	if (!in_sysfs && !listed) {
		if (rc == 0)
			return "the add succeeded but no device exists";
		if (rc == kAnswerLost)
			return "the add's answer was lost and no device exists";
		return no_trace(name, pdevs);
	}
	if (!listed)
		return "in /sys/class/infiniband, not in ib_core's listing";
	if (!in_sysfs) {
		link_delete(name, devs[name]);
		return "in ib_core's listing, not in /sys/class/infiniband";
	}
	if (rc < 0)
		why = "the add failed (" + errno_name(-rc) +
		      ") but the device exists";
	uv = uverbs_missing(name);
	if (uv.empty()) {
		added = Added::works;
		if (why.empty())
			why = device_works(name);
	} else {
		added = Added::no_uverbs;
	}
	std::string d = link_delete(name, devs[name]);
	if (why.empty())
		why = d;
	if (why.empty())
		why = no_trace(name, pdevs);
	if (!why.empty() && added == Added::no_uverbs)
		why += " (a device without uverbs: " + uv + ")";
	return why;
}

double now_s()
{
	timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return static_cast<double>(t.tv_sec) +
	       static_cast<double>(t.tv_nsec) / 1e9;
}

unsigned env_unsigned(const char *name, unsigned dflt)
{
	const char *e = getenv(name);

	return e && atoi(e) > 0 ? static_cast<unsigned>(atoi(e)) : dflt;
}

/*
 * The first fault points of an add are always failed. They are the
 * NEWLINK request's own send (netlink_sendmsg(): the skb's head and data,
 * a retry absorbs some, then its copy from user space), and then the
 * card's own setup, softhca_hw_plug() (kernel/hw/hw_main.c), which comes
 * first in softhca_probe(): the softhca_hw, its counters and register
 * page, its ordered workqueue. On the debug kernel points 1 and 3 failed
 * the send (ENOBUFS), 2 and 4 were absorbed, 5 was the copy (EFAULT) and
 * 6 the first failure in the card (ENOMEM). Each of those ends at another
 * label of hw_plug's unwinding (or before the kernel saw the request),
 * and an even spread over all of the add's thousands of points would hit
 * one of them at most. The platform device, the IRQs, the command queue,
 * the EQs and ib_register_device() follow, with far more points each.
 */
const unsigned kLinkFirst = 8;

/*
 * Which of the add's @total fault points to fail: with
 * SOFTHCA_FAULT_STRIDE=s every s-th (1, 1+s, ...; 1: all of them), else
 * SOFTHCA_FAULT_LINK_PROBES (40) of them: 1..kLinkFirst, then the rest
 * spread evenly over what follows, ending at the last.
 */
std::vector<unsigned> link_points(unsigned total, std::string &how)
{
	std::vector<unsigned> v;
	unsigned stride = env_unsigned("SOFTHCA_FAULT_STRIDE", 0);

	if (stride) {
		how = "SOFTHCA_FAULT_STRIDE=" + std::to_string(stride);
		for (unsigned n = 1; n <= total; n += stride)
			v.push_back(n);
		return v;
	}
	unsigned budget = env_unsigned("SOFTHCA_FAULT_LINK_PROBES", 40);
	how = "SOFTHCA_FAULT_LINK_PROBES=" + std::to_string(budget);
	unsigned first = std::min({ kLinkFirst, budget, total });
	for (unsigned n = 1; n <= first; n++)
		v.push_back(n);
	unsigned rest = std::min(budget - first, total - first);
	for (unsigned i = 1; i <= rest; i++)
		v.push_back(first +
			    static_cast<unsigned>(
				    static_cast<uint64_t>(total - first) * i /
				    rest));
	return v;
}

/* "1-8,17,26" */
std::string ranges(const std::vector<unsigned> &v)
{
	std::string s;

	for (size_t i = 0; i < v.size();) {
		size_t j = i;
		while (j + 1 < v.size() && v[j + 1] == v[j] + 1)
			j++;
		if (!s.empty())
			s += ",";
		s += std::to_string(v[i]);
		if (j > i)
			s += "-" + std::to_string(v[j]);
		i = j + 1;
	}
	return s;
}

/* What an add's newlink() said, for a message. */
std::string add_said(int rc, int lost)
{
	if (rc == kAnswerLost)
		return "its answer was lost (" + errno_name(lost) + ")";
	if (rc < 0)
		return errno_name(-rc);
	return rc ? "answer " + std::to_string(rc) : "success";
}

int link_main(const std::string &name, const std::string &ndev)
{
	FailNth fn;
	Stats st;
	unsigned kernel_absorbed = 0, unfaulted = 0;
	double t0 = now_s();
	std::vector<char> msg(NLMSG_HDRLEN);
	int pdevs = count_platform_devices();
	Added added;
	std::string uv;

	std::string why = no_trace(name, pdevs);
	if (!why.empty()) {
		fprintf(stderr, "faulttest: before the first add: %s\n",
			why.c_str());
		return 2;
	}
	put_str(msg, RDMA_NLDEV_ATTR_DEV_NAME, name);
	put_str(msg, RDMA_NLDEV_ATTR_LINK_TYPE, "softhca");
	put_str(msg, RDMA_NLDEV_ATTR_NDEV_NAME, ndev);

	/*
	 * How many fault points the add has: one add with fail-nth armed at
	 * its largest count, which no add reaches; what is left of it
	 * afterwards says how many points the add passed. That add must
	 * give a device that works, deleted again without a trace.
	 */
	const unsigned big = UINT_MAX;
	int lost = 0;
	int sock = nl_socket();
	seal(msg, RDMA_NLDEV_CMD_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, 0);
	fn.arm(big);
	int rc = newlink(sock, msg, lost);
	unsigned left = fn.left();
	if (left)
		fn.disarm();
	close(sock);
	unsigned total = big - left;
	st.points = total;
	why = settle_add(name, rc, pdevs, added, uv);
	if (why.empty() && left == 0)
		why = "it passed fail-nth's whole count";
	else if (why.empty() && (rc || added != Added::works))
		why = rc ? add_said(rc, lost) : "its device has no uverbs node";
	if (!why.empty())
		why.insert(0, "the add without a fault: ");
	std::string how;
	std::vector<unsigned> points;
	if (why.empty())
		points = link_points(total, how);
	printf("  link: %u fault points in an add (%.1f s); probing %zu "
	       "(%s): %s\n",
	       total, now_s() - t0, points.size(), how.c_str(),
	       ranges(points).c_str());

	for (unsigned n : points) {
		double t1 = now_s();
		std::string what;

		lost = 0;
		sock = nl_socket();
		seal(msg, RDMA_NLDEV_CMD_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, n);
		fn.arm(n);
		rc = newlink(sock, msg, lost);
		left = fn.left();
		if (left)
			fn.disarm();
		close(sock);
		why = settle_add(name, rc, pdevs, added, uv);
		if (left) {
			/* this add passed fewer points than the first one */
			unfaulted++;
			what = "ran without a fault";
			if (why.empty() && (rc || added != Added::works))
				why = "an add without a fault: " +
				      (rc ? add_said(rc, lost)
					  : "its device has no uverbs node");
		} else if (added == Added::works) {
			/* the fault was absorbed, or only the answer lost */
			total_injected++;
			st.absorbed++;
			what = rc == kAnswerLost ? add_said(rc, lost)
						 : "absorbed";
			what += ", the device works";
		} else if (added == Added::no_uverbs) {
			total_injected++;
			kernel_absorbed++;
			what = "absorbed by the kernel: " + uv;
		} else {
			int e = rc < 0 ? -rc : lost;
			total_injected++;
			st.failed++;
			st.errnos[e]++;
			what = "failed: " + add_said(rc, lost);
		}
		printf("  link: point %u: %s (%.1f s)\n", n, what.c_str(),
		       now_s() - t1);
		if (!why.empty()) {
			why.insert(0,
				   "fault point " + std::to_string(n) + ": ");
			break;
		}
	}
	printf("  link: %zu points probed: %u failed calls, %u absorbed, %u "
	       "absorbed by the kernel (no uverbs device), %u ran without a "
	       "fault; %.0f s in all\n",
	       points.size(), st.failed, st.absorbed, kernel_absorbed,
	       unfaulted, now_s() - t0);
	total_kernel_absorbed += kernel_absorbed;
	st.why = why;
	report("link", st, "");
	return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	setvbuf(stdout, nullptr, _IOLBF, 0);
	if (argc == 4 && std::string(argv[1]) == "link") {
		int rc = link_main(argv[2], argv[3]);
		if (rc)
			return rc;
	} else if (argc >= 3) {
		std::vector<std::string> want(argv + 3, argv + argc);
		int rc = verbs_main(argv[1], atoi(argv[2]), want);
		if (rc)
			return rc;
	} else {
		fprintf(stderr,
			"usage: softhca-faulttest <ibdev> <gid-index> "
			"[path...]\n"
			"       softhca-faulttest link <name> <netdev>\n");
		return 2;
	}
	printf("TOTAL fault points %lu, faults injected %lu, failed calls %lu, "
	       "absorbed %lu, absorbed by the kernel %lu\n",
	       total_points, total_injected, total_failed, total_absorbed,
	       total_kernel_absorbed);
	return failures ? 1 : 0;
}
