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
 * their data. "link": after each failed add no trace of the device is
 * left (ib_core, sysfs, the card's platform device, its IRQs, debugfs);
 * after a successful one the device works and is deleted again.
 *
 * Prints "PASS faults.<path>" or "FAIL faults.<path>: <why>", and a line
 * "  <path>: <n> fault points, <f> failed calls (<errno> <count>...),
 * <a> absorbed"; "TOTAL <points> <injected> <failed> <absorbed>" at the
 * end. Exits 1 if a path failed. SOFTHCA_FAULT_MAX bounds n (5000; a path
 * with more points fails).
 */
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <map>
#include <string>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <infiniband/verbs.h>

#include "../../include/softhca_abi.h"

namespace {

int failures;
unsigned long total_points, total_injected, total_failed, total_absorbed;

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
	switch (e) {
	case ENOMEM:
		return "ENOMEM";
	case EFAULT:
		return "EFAULT";
	case ENOBUFS:
		return "ENOBUFS";
	case EIO:
		return "EIO";
	case EINVAL:
		return "EINVAL";
	case ENOSPC:
		return "ENOSPC";
	case EAGAIN:
		return "EAGAIN";
	case EMFILE:
		return "EMFILE";
	default:
		return "errno" + std::to_string(e);
	}
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
		Stats st =
			p.name == "qp-rtr" ? inject_rtr(fn, e) : inject(fn, p);
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

void put_attr(std::vector<char> &m, uint16_t type, const std::string &s)
{
	nlattr a = {};
	size_t at = m.size();

	a.nla_type = type;
	a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + s.size() + 1);
	m.resize(at + NLA_ALIGN(a.nla_len));
	memcpy(&m[at], &a, sizeof(a));
	memcpy(&m[at + NLA_HDRLEN], s.c_str(), s.size() + 1);
}

/*
 * The NEWLINK request of "rdma link add", on a netlink socket made
 * beforehand. Returns 0, -errno from the kernel's answer, or 1 when the
 * answer was lost (its own allocation failed: the socket says ENOBUFS).
 */
int newlink(int sock, const std::vector<char> &msg)
{
	if (send(sock, msg.data(), msg.size(), 0) < 0)
		return -errno;
	char buf[4096];
	ssize_t n = recv(sock, buf, sizeof(buf), 0);
	if (n < 0)
		return errno == ENOBUFS ? 1 : -errno;
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

bool irqs_named(const std::string &name)
{
	std::string s = run("cat /proc/interrupts");

	return s.find(" " + name + "-") != std::string::npos;
}

/* No trace of @name anywhere: ib_core, sysfs, the card, IRQs, debugfs. */
std::string no_trace(const std::string &name, int pdevs)
{
	if (exists("/sys/class/infiniband/" + name))
		return "/sys/class/infiniband/" + name + " exists";
	if (count_platform_devices() != pdevs)
		return "a softhca platform device is left";
	if (irqs_named(name))
		return "an IRQ " + name + "-* is left";
	if (exists("/sys/kernel/debug/softhca/" + name))
		return "its debugfs directory is left";
	std::string d = run("rdma dev 2>&1");
	if (d.find(" " + name + ":") != std::string::npos)
		return "rdma dev lists it: " + d;
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

std::string link_delete(const std::string &name)
{
	std::string out = run("rdma link delete " + name + " 2>&1");

	if (exists("/sys/class/infiniband/" + name))
		return "rdma link delete failed: " + out;
	return "";
}

int link_main(const std::string &name, const std::string &ndev)
{
	FailNth fn;
	Stats st;
	unsigned limit = max_n();
	/*
	 * SOFTHCA_FAULT_STRIDE=s: only every s-th fault point of the add
	 * (1, 1+s, 1+2s...); a probe has hundreds, each a slow failed add
	 * under KASAN. The verbs paths always fail every one in turn.
	 */
	const char *se = getenv("SOFTHCA_FAULT_STRIDE");
	unsigned stride =
		se && atoi(se) > 0 ? static_cast<unsigned>(atoi(se)) : 1;
	std::vector<char> msg(NLMSG_HDRLEN);
	int pdevs = count_platform_devices();

	std::string why = no_trace(name, pdevs);
	if (!why.empty()) {
		fprintf(stderr, "faulttest: before the first add: %s\n",
			why.c_str());
		return 2;
	}
	put_attr(msg, RDMA_NLDEV_ATTR_DEV_NAME, name);
	put_attr(msg, RDMA_NLDEV_ATTR_LINK_TYPE, "softhca");
	put_attr(msg, RDMA_NLDEV_ATTR_NDEV_NAME, ndev);
	nlmsghdr h = {};
	h.nlmsg_len = static_cast<uint32_t>(msg.size());
	h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK);
	h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;

	for (unsigned n = 1; why.empty(); n += stride) {
		if (n > limit) {
			why = "more than " + std::to_string(limit) +
			      " fault points";
			break;
		}
		int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				  NETLINK_RDMA);
		if (sock < 0)
			die("netlink socket");
		h.nlmsg_seq = n;
		memcpy(msg.data(), &h, sizeof(h));
		fn.arm(n);
		int rc = newlink(sock, msg);
		unsigned left = fn.left();
		if (left)
			fn.disarm();
		close(sock);
		bool there = exists("/sys/class/infiniband/" + name);
		if (left) {
			st.points = n - 1;
			if (rc || !there)
				why = "add without a fault failed: " +
				      std::to_string(rc);
			else if (!(why = device_works(name)).empty())
				why.insert(0, "added without a fault: ");
			std::string d = link_delete(name);
			if (why.empty())
				why = d;
			if (why.empty())
				why = no_trace(name, pdevs);
			break;
		}
		total_injected++;
		if (there) {
			/* the fault was absorbed, or only the answer lost */
			st.absorbed++;
			why = device_works(name);
			if (why.empty())
				why = link_delete(name);
		} else {
			st.failed++;
			st.errnos[rc < 0 ? -rc : ENOBUFS]++;
			if (rc == 0)
				why = "the add succeeded but no device exists";
		}
		if (why.empty())
			why = no_trace(name, pdevs);
		if (!why.empty())
			why.insert(0,
				   "fault point " + std::to_string(n) + ": ");
	}
	st.why = why;
	report("link", st, "");
	return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	setvbuf(stdout, nullptr, _IOLBF, 0);
	if (argc == 4 && std::string(argv[1]) == "link") {
		link_main(argv[2], argv[3]);
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
	       "absorbed %lu\n",
	       total_points, total_injected, total_failed, total_absorbed);
	return failures ? 1 : 0;
}
