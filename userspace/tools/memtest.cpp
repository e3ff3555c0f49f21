// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca-memtest: checks of PDs, MRs, CQs, dbrec pages, UAR mmap and EQs
 * through libibverbs and raw uverbs commands, with the card's view read
 * back from debugfs. Run as root in the test VM (it reads
 * /proc/self/pagemap to know which block size the driver must choose).
 *
 *   softhca-memtest <ibdev> <test> [arg]
 *
 * Prints "PASS <case>" or "FAIL <case>: <why>" per case; exits 1 if any
 * case failed.
 */
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "../../include/softhca_abi.h"

namespace {

int failures;
std::string dev_name;

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

std::string read_file(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream ss;

	ss << f.rdbuf();
	return ss.str();
}

std::string debugfs(const std::string &file)
{
	return read_file("/sys/kernel/debug/softhca/" + dev_name + "/" + file);
}

/* "key value key value ..." lines of a debugfs file. */
std::vector<std::map<std::string, std::string>>
debugfs_records(const std::string &file)
{
	std::vector<std::map<std::string, std::string>> out;
	std::istringstream in(debugfs(file));
	std::string line;

	while (std::getline(in, line)) {
		std::istringstream ls(line);
		std::map<std::string, std::string> rec;
		std::string k, v;

		while (ls >> k >> v)
			rec[k] = v;
		out.push_back(rec);
	}
	return out;
}

uint64_t num(const std::string &s)
{
	return strtoull(s.c_str(), nullptr, 0);
}

struct Dev {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;

	explicit Dev(bool with_pd = true)
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
		if (with_pd)
			pd = ibv_alloc_pd(ctx);
	}
	~Dev()
	{
		if (pd)
			ibv_dealloc_pd(pd);
		ibv_close_device(ctx);
	}
};

/*
 * ib_umem_find_best_pgsz() over the physical pages of [va, va + len), read
 * from /proc/self/pagemap (DMA addresses are physical addresses here), up
 * to kBatch entries a read: one read a page took a minute for 1 GiB on
 * the debug kernel.
 */
uint64_t best_block(uint64_t va, uint64_t len, uint64_t bitmap, uint64_t iova)
{
	const uint64_t page = 4096;
	constexpr uint64_t kBatch = 4096;
	std::vector<uint64_t> entries(kBatch);
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t first = va & ~(page - 1), last = (va + len - 1) & ~(page - 1);
	uint64_t mask = 0, cur_end = ~0ULL, v = iova;
	uint64_t pgoff = va & (page - 1);
	uint64_t x = iova ^ (iova + len - 1);
	unsigned bits = x ? 64 - __builtin_clzll(x) : 0;

	if (bits < 64)
		mask = bitmap & ~((1ULL << bits) - 1);
	for (uint64_t p = first, i = 0; p <= last; p += page, i++) {
		uint64_t k = i % kBatch;

		if (k == 0) {
			uint64_t n = std::min(kBatch, (last - p) / page + 1);
			ssize_t want = static_cast<ssize_t>(n * 8);

			if (pread(fd, entries.data(), n * 8,
				  static_cast<off_t>(p / page * 8)) != want) {
				close(fd);
				return 0;
			}
		}
		uint64_t e = entries[k];

		if (!(e >> 63)) {
			close(fd);
			return 0;
		}
		uint64_t pa = (e & ((1ULL << 55) - 1)) * page;

		if (pa != cur_end) {
			mask |= (pa + pgoff) ^ v;
			if (i)
				mask |= v;
		}
		cur_end = pa + page;
		v += page - pgoff;
		pgoff = 0;
	}
	close(fd);
	if (mask)
		bitmap &= (mask & -mask) | ((mask & -mask) - 1);
	if (!bitmap)
		return 0;
	return 1ULL << (63 - __builtin_clzll(bitmap));
}

uint64_t nblocks(uint64_t iova, uint64_t len, uint64_t block)
{
	uint64_t start = iova & ~(block - 1);
	uint64_t end = (iova + len + block - 1) & ~(block - 1);

	return (end - start) / block;
}

uint64_t page_size_cap(ibv_context *ctx)
{
	ibv_device_attr attr;

	ibv_query_device(ctx, &attr);
	return attr.page_size_cap;
}

/* ---- CQs ------------------------------------------------------------ */

std::map<int, uint64_t> ceq_eqns()
{
	std::map<int, uint64_t> m;

	for (auto &r : debugfs_records("eqs")) {
		std::string name = r["name"];

		if (name.find("-ceq") == std::string::npos)
			continue;
		m[atoi(name.substr(name.rfind("-ceq") + 4).c_str())] =
			num(r["eqn"]);
	}
	return m;
}

std::set<uint64_t> cq_numbers()
{
	std::set<uint64_t> s;

	for (auto &r : debugfs_records("cqs"))
		if (r.count("cqn"))
			s.insert(num(r["cqn"]));
	return s;
}

int test_cq_churn(int iterations)
{
	Dev d(false);
	const int sizes[] = { 1, 63, 64, 4096, 65535 };
	std::map<int, uint64_t> eqns = ceq_eqns();
	int nvec = d.ctx->num_comp_vectors;
	uint64_t bitmap = page_size_cap(d.ctx);

	result(nvec >= 1 && static_cast<int>(eqns.size()) == nvec,
	       "cq.comp-vectors-have-ceqs",
	       str(nvec) + " vectors, " + str(eqns.size()) + " CEQs");
	for (int size : sizes) {
		for (int v = 0; v < nvec; v++) {
			std::string name =
				"cq.size-" + str(size) + "-vector-" + str(v);
			std::string why;
			uint32_t nent = 1;

			while (nent < static_cast<uint32_t>(size) + 1)
				nent <<= 1;
			for (int it = 0; it < iterations && why.empty(); it++) {
				auto before = cq_numbers();
				ibv_cq *cq = ibv_create_cq(d.ctx, size, nullptr,
							   nullptr, v);
				if (!cq) {
					why = "create: " +
					      std::string(strerror(errno));
					break;
				}
				if (cq->cqe != static_cast<int>(nent - 1))
					why = "cqe " + str(cq->cqe);
				ibv_wc wc;
				if (ibv_poll_cq(cq, 1, &wc) != 0)
					why = "poll on an empty CQ";
				if (ibv_req_notify_cq(cq, it & 1))
					why = "req_notify_cq failed";
				if (it == 0) {
					/* the card's context matches */
					for (auto &r : debugfs_records("cqs")) {
						if (!r.count("cqn") ||
						    before.count(num(r["cqn"])))
							continue;
						if (num(r["entries"]) != nent)
							why = "entries " +
							      r["entries"];
						if (num(r["eqn"]) != eqns[v])
							why = "eqn " + r["eqn"];
						if (num(r["cqe_size"]) != 64)
							why = "cqe_size " +
							      r["cqe_size"];
						uint64_t b =
							num(r["block_size"]);
						if (!(b & bitmap) ||
						    num(r["pas_entries"]) !=
							    (nent * 64ULL +
							     num(r["page_"
								   "offset"]) *
								     (b / 64) +
							     b - 1) /
								    b)
							why = "block " +
							      r["block_size"] +
							      " entries " +
							      r["pas_entries"];
					}
				}
				if (ibv_destroy_cq(cq))
					why = "destroy failed";
			}
			result(why.empty(), name, why);
		}
	}
	return 0;
}

int test_cq_overmax()
{
	Dev d(false);
	ibv_device_attr attr;

	ibv_query_device(d.ctx, &attr);
	errno = 0;
	ibv_cq *cq =
		ibv_create_cq(d.ctx, attr.max_cqe + 1, nullptr, nullptr, 0);
	result(!cq && errno == EINVAL, "cq.over-max-einval",
	       cq ? "created" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	cq = ibv_create_cq(d.ctx, attr.max_cqe, nullptr, nullptr, 0);
	result(cq != nullptr, "cq.max-size-ok", cq ? "" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	cq = ibv_create_cq(d.ctx, 16, nullptr, nullptr, 0);
	if (cq) {
		/* the card's context follows: 128 CQEs on two 4 KiB blocks */
		int err = ibv_resize_cq(cq, 100);
		bool card = false;

		for (auto &r : debugfs_records("cqs"))
			card |= r["entries"] == "128" &&
				r["pas_entries"] == "2";
		result(err == 0 && cq->cqe == 127 && card,
		       "cq.resize-moves-the-card-to-a-new-ring",
		       "resize returned " + str(err) + ", cqe " + str(cq->cqe) +
			       "; card: " + debugfs("cqs"));
		err = ibv_resize_cq(cq, static_cast<int>(attr.max_cqe) + 1);
		result(err == EINVAL && cq->cqe == 127,
		       "cq.resize-over-max-einval",
		       "resize returned " + str(err) + ", cqe " + str(cq->cqe));
		ibv_destroy_cq(cq);
	}
	errno = 0;
	cq = ibv_create_cq(d.ctx, 16, nullptr, nullptr,
			   d.ctx->num_comp_vectors);
	result(!cq && errno == EINVAL, "cq.bad-vector-einval",
	       cq ? "created" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	return 0;
}

int test_dbrec_share(int ncq)
{
	Dev d(false);
	std::vector<ibv_cq *> cqs;
	auto pinned = [&]() -> long {
		for (auto &r : debugfs_records("dbrec_pages"))
			if (r.count("pid") &&
			    num(r["pid"]) == (uint64_t)getpid())
				return static_cast<long>(
					num(r["pinned_pages"]));
		return -1;
	};

	for (int i = 0; i < ncq; i++) {
		ibv_cq *cq = ibv_create_cq(d.ctx, 4, nullptr, nullptr, 0);

		if (!cq)
			break;
		cqs.push_back(cq);
	}
	result(static_cast<int>(cqs.size()) == ncq, "dbrec.create-" + str(ncq));
	long want = (ncq + 63) / 64;
	long got = pinned();
	result(got == want, "dbrec.pinned-pages-" + str(want),
	       "pinned " + str(got));
	/* free half: pages stay pinned while any record on them lives */
	for (size_t i = 0; i < cqs.size(); i += 2)
		ibv_destroy_cq(cqs[i]);
	got = pinned();
	result(got == want, "dbrec.half-freed-still-" + str(want),
	       "pinned " + str(got));
	for (size_t i = 1; i < cqs.size(); i += 2)
		ibv_destroy_cq(cqs[i]);
	got = pinned();
	result(got == 0, "dbrec.all-freed-released", "pinned " + str(got));
	return 0;
}

/* ---- MRs ------------------------------------------------------------ */

int check_mr(ibv_pd *pd, void *buf, size_t len, const std::string &name,
	     uint64_t must_block = 0)
{
	uint64_t bitmap = page_size_cap(pd->context);
	ibv_mr *mr =
		ibv_reg_mr(pd, buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE);

	if (!mr) {
		result(false, name, std::string("reg: ") + strerror(errno));
		return 1;
	}
	uint64_t va = reinterpret_cast<uintptr_t>(buf);
	uint64_t want = best_block(va, len, bitmap, va);
	std::string why = "no debugfs record";

	for (auto &r : debugfs_records("mrs")) {
		if (!r.count("mkey") || num(r["mkey"]) != mr->lkey)
			continue;
		uint64_t b = num(r["block_size"]), n = num(r["pas_entries"]);
		why = "";
		if (b != want)
			why = "block " + str(b) + " want " + str(want);
		else if (n != nblocks(va, len, b))
			why = "pas_entries " + str(n) + " want " +
			      str(nblocks(va, len, b));
		else if (must_block && b != must_block)
			why = "block " + str(b) + " want " + str(must_block);
		else if (num(r["length"]) != len || num(r["iova"]) != va)
			why = "iova/length " + r["iova"] + "/" + r["length"];
		printf("  %s: block %" PRIu64 " entries %" PRIu64 "\n",
		       name.c_str(), b, n);
	}
	result(why.empty() && mr->lkey == mr->rkey, name, why);
	ibv_dereg_mr(mr);
	return 0;
}

int test_mr(const std::string &kind)
{
	Dev d;

	if (kind == "1byte") {
		static char c[4096] __attribute__((aligned(4096)));
		check_mr(d.pd, c + 7, 1, "mr.1-byte");
	} else if (kind == "unaligned") {
		void *p =
			mmap(nullptr, 3 * 4096, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		check_mr(d.pd, static_cast<char *>(p) + 100, 4097,
			 "mr.unaligned-4k-plus-1");
		munmap(p, 3 * 4096);
	} else if (kind == "1g") {
		size_t len = 1UL << 30;
		void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			result(false, "mr.1-gib", strerror(errno));
			return 0;
		}
		memset(p, 1, len);
		check_mr(d.pd, p, len, "mr.1-gib");
		munmap(p, len);
	} else if (kind == "huge64m") {
		size_t len = 64UL << 20;
		void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
				       MAP_POPULATE,
			       -1, 0);
		if (p == MAP_FAILED) {
			result(false, "mr.64-mib-hugepages", strerror(errno));
			return 0;
		}
		check_mr(d.pd, p, len, "mr.64-mib-hugepages", 2UL << 20);
		munmap(p, len);
	} else {
		return 2;
	}
	return 0;
}

/* Run unprivileged with a small RLIMIT_MEMLOCK: pinning is charged. */
int test_mr_memlock()
{
	Dev d;
	size_t len = 16UL << 20;
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	errno = 0;
	ibv_mr *mr = ibv_reg_mr(d.pd, p, len, IBV_ACCESS_LOCAL_WRITE);
	result(!mr && errno == ENOMEM, "mr.memlock-limit-enomem",
	       mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(d.pd, p, 4096, IBV_ACCESS_LOCAL_WRITE);
	result(mr != nullptr, "mr.memlock-small-ok", mr ? "" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	munmap(p, len);
	return 0;
}

/* ---- malformed input ------------------------------------------------ */

struct RawCreateCq {
	ib_uverbs_cmd_hdr hdr;
	alignas(8) unsigned char core[sizeof(ib_uverbs_create_cq)];
	unsigned char drv[64];
};

/* CREATE_CQ through write() with @drv_len bytes of driver data. */
int raw_create_cq(ibv_context *ctx, uint32_t cqe, uint32_t vector,
		  const void *drv, size_t drv_len, uint32_t *handle)
{
	RawCreateCq cmd = {};
	struct {
		ib_uverbs_create_cq_resp core;
		softhca_create_cq_resp drv;
	} resp = {};
	ib_uverbs_create_cq core = {};
	size_t len = sizeof(cmd.hdr) + sizeof(cmd.core) + drv_len;

	core.response = reinterpret_cast<uintptr_t>(&resp);
	core.cqe = cqe;
	core.comp_vector = vector;
	core.comp_channel = -1;
	memcpy(cmd.core, &core, sizeof(cmd.core));
	memcpy(cmd.drv, drv, drv_len);
	cmd.hdr.command = IB_USER_VERBS_CMD_CREATE_CQ;
	cmd.hdr.in_words = static_cast<__u16>(len / 4);
	cmd.hdr.out_words = sizeof(resp) / 4;
	if (write(ctx->cmd_fd, &cmd, len) != static_cast<ssize_t>(len))
		return errno;
	*handle = resp.core.cq_handle;
	return 0;
}

void raw_destroy_cq(ibv_context *ctx, uint32_t handle)
{
	struct {
		ib_uverbs_cmd_hdr hdr;
		ib_uverbs_destroy_cq core;
	} cmd = {};
	ib_uverbs_destroy_cq_resp resp = {};

	cmd.hdr.command = IB_USER_VERBS_CMD_DESTROY_CQ;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.core.response = reinterpret_cast<uintptr_t>(&resp);
	cmd.core.cq_handle = handle;
	if (write(ctx->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		perror("destroy_cq");
}

void expect_cq_errno(ibv_context *ctx, const std::string &name, uint32_t cqe,
		     uint32_t vector, const void *drv, size_t drv_len, int want)
{
	uint32_t handle = 0;
	int err = raw_create_cq(ctx, cqe, vector, drv, drv_len, &handle);

	result(err == want, name,
	       "got " + std::string(err ? strerror(err) : "success") +
		       ", want " + strerror(want));
	if (!err)
		raw_destroy_cq(ctx, handle);
}

int test_malformed()
{
	/* the CQs there before (the MAD layer's): none is added */
	const std::set<uint64_t> before = cq_numbers();
	Dev d;
	ibv_context *ctx = d.ctx;
	ibv_device_attr attr;
	void *ring = nullptr;
	void *dbp = nullptr;

	ibv_query_device(ctx, &attr);
	posix_memalign(&ring, 4096, 64 * 4096);
	posix_memalign(&dbp, 4096, 4096);
	memset(ring, 0, 64 * 4096);
	memset(dbp, 0, 4096);
	softhca_create_cq_req good = {};
	good.buf_addr = reinterpret_cast<uintptr_t>(ring);
	good.db_addr = reinterpret_cast<uintptr_t>(dbp);
	good.cqe_size = 64;

	/* the well-formed request works: the others differ in one thing */
	expect_cq_errno(ctx, "bad.cq-control-ok", 15, 0, &good, sizeof(good),
			0);
	expect_cq_errno(ctx, "bad.cq-no-driver-data", 15, 0, &good, 0, EINVAL);
	expect_cq_errno(ctx, "bad.cq-short-driver-data", 15, 0, &good, 8,
			EINVAL);
	softhca_create_cq_req r = good;
	r.cqe_size = 32;
	expect_cq_errno(ctx, "bad.cq-cqe-size", 15, 0, &r, sizeof(r), EINVAL);
	r = good;
	r.reserved = 0xdead;
	expect_cq_errno(ctx, "bad.cq-reserved-set", 15, 0, &r, sizeof(r),
			EINVAL);
	unsigned char longer[sizeof(good) + 8] = {};
	memcpy(longer, &good, sizeof(good));
	longer[sizeof(good) + 3] = 0x5a;
	expect_cq_errno(ctx, "bad.cq-trailing-garbage", 15, 0, longer,
			sizeof(longer), EINVAL);
	memset(longer + sizeof(good), 0, 8);
	expect_cq_errno(ctx, "bad.cq-trailing-zeros-ok", 15, 0, longer,
			sizeof(longer), 0);
	expect_cq_errno(ctx, "bad.cq-zero-entries", 0, 0, &good, sizeof(good),
			EINVAL);
	expect_cq_errno(ctx, "bad.cq-over-max", attr.max_cqe + 1, 0, &good,
			sizeof(good), EINVAL);
	expect_cq_errno(ctx, "bad.cq-vector-out-of-range", 15,
			ctx->num_comp_vectors, &good, sizeof(good), EINVAL);
	r = good;
	r.buf_addr += 8;
	expect_cq_errno(ctx, "bad.cq-buffer-misaligned", 15, 0, &r, sizeof(r),
			EINVAL);
	r = good;
	r.buf_addr = 0x1000;
	expect_cq_errno(ctx, "bad.cq-buffer-unmapped", 15, 0, &r, sizeof(r),
			EFAULT);
	/* 511 CQEs need 32 KiB; only 8 KiB are mapped */
	void *small = mmap(nullptr, 4 * 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	munmap(static_cast<char *>(small) + 2 * 4096, 2 * 4096);
	r = good;
	r.buf_addr = reinterpret_cast<uintptr_t>(small);
	expect_cq_errno(ctx, "bad.cq-buffer-too-short", 511, 0, &r, sizeof(r),
			EFAULT);
	munmap(small, 2 * 4096);
	r = good;
	r.db_addr += 4;
	expect_cq_errno(ctx, "bad.cq-dbrec-misaligned", 15, 0, &r, sizeof(r),
			EINVAL);
	r = good;
	r.db_addr = 0x2000;
	expect_cq_errno(ctx, "bad.cq-dbrec-unmapped", 15, 0, &r, sizeof(r),
			EFAULT);

	/* MRs */
	char *buf = static_cast<char *>(ring);
	errno = 0;
	ibv_mr *mr = ibv_reg_mr(d.pd, buf, 0, IBV_ACCESS_LOCAL_WRITE);
	result(!mr && errno == EINVAL, "bad.mr-zero-length",
	       mr ? "registered" : strerror(errno));
	errno = 0;
	mr = ibv_reg_mr(d.pd, reinterpret_cast<void *>(0x3000), 4096,
			IBV_ACCESS_LOCAL_WRITE);
	result(!mr && errno == EFAULT, "bad.mr-unmapped",
	       mr ? "registered" : strerror(errno));
	errno = 0;
	mr = ibv_reg_mr(d.pd, buf, 4096, IBV_ACCESS_MW_BIND);
	result(!mr && errno == EOPNOTSUPP, "bad.mr-unsupported-access",
	       mr ? "registered" : strerror(errno));
	errno = 0;
	mr = ibv_reg_mr(d.pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE);
	result(!mr && errno == EINVAL, "bad.mr-remote-write-without-local",
	       mr ? "registered" : strerror(errno));
	errno = 0;
	mr = ibv_reg_mr(d.pd, buf, 1ULL << 41, IBV_ACCESS_LOCAL_WRITE);
	result(!mr && errno == EINVAL, "bad.mr-over-max-size",
	       mr ? "registered" : strerror(errno));

	result(cq_numbers() == before, "bad.no-cq-left");
	free(ring);
	free(dbp);
	return 0;
}

/* ---- UAR mmap ------------------------------------------------------- */

int test_mmap()
{
	Dev a(false), b(false);
	std::vector<uint64_t> uars;

	for (auto &r : debugfs_records("dbrec_pages"))
		if (r.count("pid") && num(r["pid"]) == (uint64_t)getpid())
			uars.push_back(num(r["uar"]));
	result(uars.size() == 2 && uars[0] != uars[1],
	       "mmap.two-contexts-two-uars", str(uars.size()) + " contexts");
	if (uars.size() != 2)
		return 0;
	long pg = sysconf(_SC_PAGESIZE);
	/* find which UAR is a's: the one it can map */
	int mine = -1;
	for (int i = 0; i < 2; i++) {
		void *p = mmap(nullptr, pg, PROT_READ | PROT_WRITE, MAP_SHARED,
			       a.ctx->cmd_fd, static_cast<off_t>(uars[i] * pg));
		if (p != MAP_FAILED) {
			uint32_t state = *static_cast<volatile uint32_t *>(p);
			result(state <= 1, "mmap.own-uar-readable",
			       "engine state " + str(state));
			munmap(p, pg);
			if (mine >= 0)
				result(false, "mmap.other-context-refused",
				       "both UARs mapped");
			mine = i;
		}
	}
	result(mine >= 0, "mmap.own-uar-maps");
	if (mine < 0)
		return 0;
	off_t own = static_cast<off_t>(uars[mine] * pg);
	off_t other = static_cast<off_t>(uars[1 - mine] * pg);
	void *p = mmap(nullptr, pg, PROT_READ | PROT_WRITE, MAP_SHARED,
		       a.ctx->cmd_fd, other);
	result(p == MAP_FAILED && errno == EINVAL,
	       "mmap.other-context-offset-einval");
	p = mmap(nullptr, pg, PROT_READ | PROT_WRITE, MAP_SHARED, a.ctx->cmd_fd,
		 own + 16 * pg);
	result(p == MAP_FAILED && errno == EINVAL,
	       "mmap.unknown-offset-einval");
	p = mmap(nullptr, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED,
		 a.ctx->cmd_fd, own);
	result(p == MAP_FAILED && errno == EINVAL, "mmap.too-long-einval");
	p = mmap(nullptr, pg, PROT_READ | PROT_EXEC, MAP_SHARED, a.ctx->cmd_fd,
		 own);
	result(p == MAP_FAILED && errno == EPERM, "mmap.exec-eperm");
	p = mmap(nullptr, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 a.ctx->cmd_fd, own);
	result(p == MAP_FAILED && errno == EINVAL, "mmap.private-einval");
	return 0;
}

/* ---- commands complete through the command EQ ----------------------- */

uint64_t irq_count(const std::string &name)
{
	std::istringstream in(read_file("/proc/interrupts"));
	std::string line;

	while (std::getline(in, line)) {
		if (line.find(" " + name) == std::string::npos ||
		    line.size() < name.size() ||
		    line.compare(line.size() - name.size(), name.size(), name))
			continue;
		std::istringstream ls(line);
		std::string tok;
		uint64_t sum = 0;

		ls >> tok; /* "NN:" */
		while (ls >> tok && isdigit(tok[0]))
			sum += num(tok);
		return sum;
	}
	return 0;
}

int test_cmd_irq(int n)
{
	Dev d(false);
	std::string irq = dev_name + "-cmd";
	uint64_t before = irq_count(irq);
	uint64_t async_before = irq_count(dev_name + "-async");

	for (int i = 0; i < n; i++) {
		ibv_pd *pd = ibv_alloc_pd(d.ctx);
		if (!pd || ibv_dealloc_pd(pd)) {
			result(false, "eq.commands", strerror(errno));
			return 0;
		}
	}
	uint64_t after = irq_count(irq);
	/* each command completes by an EQE; interrupts may coalesce but
	 * every one here waited, so no two shared one */
	result(after - before >= static_cast<uint64_t>(2 * n),
	       "eq.cmd-irq-per-command",
	       str(before) + " -> " + str(after) + " for " + str(2 * n) +
		       " commands");
	/* no command completion goes through the async EQ */
	result(irq_count(dev_name + "-async") == async_before,
	       "eq.no-async-irq-for-commands");
	return 0;
}

/* ---- restrack: rdma resource show -dd -------------------------------- */

std::string run(const std::string &cmd)
{
	std::string out;
	char buf[4096];
	FILE *f = popen(cmd.c_str(), "r");

	if (!f)
		return out;
	while (size_t n = fread(buf, 1, sizeof(buf), f))
		out.append(buf, n);
	pclose(f);
	return out;
}

/*
 * The driver attributes ("key value" pairs) of one "rdma -dd" line.
 * iproute2 prints a driver's attributes with a "drv_" prefix (6.1's
 * does); the key is the attribute's own name.
 */
std::map<std::string, std::string> attrs_of(const std::string &line)
{
	std::map<std::string, std::string> out;
	std::istringstream in(line);
	std::string k, v;

	while (in >> k >> v) {
		if (k.rfind("drv_", 0) == 0)
			k = k.substr(4);
		out[k] = v;
	}
	return out;
}

/* The line of "rdma -dd resource show" output that holds "@key @value ". */
std::string line_with(const std::string &out, const std::string &key,
		      const std::string &value)
{
	std::istringstream in(out);
	std::string line, pair = " ";

	pair += key;
	pair += " ";
	pair += value;
	pair += " ";
	while (std::getline(in, line))
		if ((line + " ").find(pair) != std::string::npos ||
		    (line + " ").find(" drv_" + pair.substr(1)) !=
			    std::string::npos)
			return line;
	return "";
}

/*
 * What a user without CAP_NET_ADMIN may read must hold no key and no
 * address: no attribute named after one, and no value wider than 32 bits
 * written in hex. (ib_core adds the MR's keys for an admin only; the
 * test runs as root, so those two names are excused when they are
 * ib_core's own "lkey"/"rkey".)
 */
std::string leaks(const std::string &out)
{
	static const char *const forbidden[] = { "dbrec", "dbrec_addr",
						 "iova",  "mkey",
						 "qkey",  "list_addr",
						 "addr" };
	std::istringstream in(out);
	std::string tok;

	while (in >> tok) {
		for (const char *f : forbidden)
			if (tok == f)
				return "attribute " + tok;
		if (tok.rfind("0x", 0) == 0 && tok.size() > 2 + 8)
			return "value " + tok;
	}
	return "";
}

/* The bytes of the first "data" array in "rdma -j -r" output. */
std::vector<uint8_t> raw_bytes(const std::string &json)
{
	std::vector<uint8_t> out;
	size_t at = json.find("\"data\":[");

	if (at == std::string::npos)
		return out;
	const char *p = json.c_str() + at + 8;
	while (*p && *p != ']') {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		out.push_back(static_cast<uint8_t>(v));
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return out;
}

uint64_t le_at(const std::vector<uint8_t> &b, size_t off, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && off + i < b.size(); i++)
		v |= static_cast<uint64_t>(b[off + i]) << (8 * i);
	return v;
}

int test_restrack()
{
	Dev d;
	static char buf[8192] __attribute__((aligned(4096)));
	ibv_cq *cq = ibv_create_cq(d.ctx, 100, nullptr, nullptr, 0);
	ibv_mr *mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ibv_qp_init_attr ia = {};
	ibv_qp *qp = nullptr;

	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	if (cq)
		qp = ibv_create_qp(d.pd, &ia);
	result(cq && mr && qp, "restrack.objects", strerror(errno));
	if (!cq || !mr || !qp)
		return 0;
	std::string cqs =
		run("rdma -dd resource show cq dev " + dev_name + " 2>&1");
	std::string mrs =
		run("rdma -dd resource show mr dev " + dev_name + " 2>&1");
	std::string qps =
		/* (a QP in RESET has no port: "dev <name>", not "link") */
		run("rdma -dd resource show qp 2>&1 | grep -E '^(link|dev) " +
		    dev_name + "[/ ]'");
	printf("  %s  %s  %s", cqs.c_str(), mrs.c_str(), qps.c_str());

	/* the card's context of this CQ: 128 CQEs of 64 B on 2 pages */
	std::string cline = line_with(cqs, "cqe", "127");
	auto c = attrs_of(cline);
	result(c["log_size"] == "7" && c["cqe_size"] == "64" &&
		       c["block_size"] == "4096" && c["pas_entries"] == "2" &&
		       c.count("eqn") && c["vector"] == "0" && c.count("uar") &&
		       c["pi"] == "0" && c["ci"] == "0" && c["armed"] == "0" &&
		       c["events"] == "0" && c["state"] == "ok" &&
		       c["ignore_overrun"] == "0" && c.count("dbrec_slot") &&
		       c.count("hw_cqn"),
	       "restrack.cq-driver-details", cline);
	std::string mline = line_with(mrs, "pas_entries", "2");
	auto m = attrs_of(mline);
	result(m["kind"] == "user" && m.count("hw_pdn") &&
		       m["block_size"] == "4096" && m["access"] == "0x1",
	       "restrack.mr-driver-details", mline);
	std::string qline = line_with(qps, "lqpn", str(qp->qp_num));
	auto q = attrs_of(qline);
	/* 16 WRs of 1 SGE: 16 basic blocks; RQ 16 WQEs of 16 B */
	result(q["send_cqn"] == c["hw_cqn"] && q["recv_cqn"] == c["hw_cqn"] &&
		       q.count("hw_pdn") && q["sq_bbs"] == "16" &&
		       q["rq_wqes"] == "16" && q["rq_stride"] == "16" &&
		       q["sq_pi"] == "0" && q["sq_ci"] == "0" &&
		       q["kernel"] == "0" && q.count("pas_entries") &&
		       q.count("dbrec_slot"),
	       "restrack.qp-driver-details", qline);
	std::string leak = leaks(cqs + mrs + qps);
	result(leak.empty(), "restrack.no-keys-or-addresses-in-details",
	       leak + " in: " + cqs + mrs + qps);

	/*
	 * The raw context (an admin's "-r") is the card's QUERY_CQ answer:
	 * log_size, eqn and uar as above, and the doorbell record's DMA
	 * address, in the slot the -dd view names.
	 */
	std::string raw =
		run("rdma -j -r resource show cq dev " + dev_name + " 2>&1");
	std::vector<uint8_t> b;
	size_t at = 0;
	while ((at = raw.find("\"data\":[", at)) != std::string::npos) {
		auto one = raw_bytes(raw.substr(at));
		if (one.size() >= 80 && one[0] == 7 &&
		    le_at(one, 4, 4) == num(c["eqn"]) &&
		    le_at(one, 8, 4) == num(c["uar"]))
			b = one;
		at++;
	}
	uint64_t dbrec = le_at(b, 16, 8);
	result(b.size() == 80 && dbrec && !(dbrec & 7) &&
		       (dbrec & 4095) / 64 == num(c["dbrec_slot"]),
	       "restrack.cq-raw-context", raw);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s <ibdev> <test> [arg]\n", argv[0]);
		return 2;
	}
	dev_name = argv[1];
	std::string t = argv[2];
	std::string arg = argc > 3 ? argv[3] : "";
	int rc;

	if (t == "cq-churn")
		rc = test_cq_churn(arg.empty() ? 10 : atoi(arg.c_str()));
	else if (t == "cq-overmax")
		rc = test_cq_overmax();
	else if (t == "dbrec-share")
		rc = test_dbrec_share(arg.empty() ? 100 : atoi(arg.c_str()));
	else if (t == "mr")
		rc = test_mr(arg);
	else if (t == "mr-memlock")
		rc = test_mr_memlock();
	else if (t == "malformed")
		rc = test_malformed();
	else if (t == "mmap")
		rc = test_mmap();
	else if (t == "restrack")
		rc = test_restrack();
	else if (t == "cmd-irq")
		rc = test_cmd_irq(arg.empty() ? 50 : atoi(arg.c_str()));
	else
		rc = 2;
	if (rc)
		return rc;
	return failures ? 1 : 0;
}
