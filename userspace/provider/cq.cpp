// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca provider: completion queues. The CQ is a page-aligned ring of
 * 64-byte CQEs the card writes, plus a doorbell record holding the
 * consumer index and the arm word. Polling reads CQEs by owner bit and
 * publishes the consumer index in the record; arming writes the arm word
 * and the UAR's CQ doorbell (and, with a CQE already waiting, has the
 * card's CQ doorbell rung); an event advances the arm sequence number.
 */
#include <cerrno>
#include <cstring>
#include <new>
#include <sys/ioctl.h>

#include "mmio.h"
#include "ring.h"
#include "softhca.h"

namespace softhca {
namespace {

enum ibv_wc_status wc_status(uint8_t st)
{
	switch (st) {
	case SOFTHCA_CQE_ST_SUCCESS:
		return IBV_WC_SUCCESS;
	case SOFTHCA_CQE_ST_LOC_LEN:
		return IBV_WC_LOC_LEN_ERR;
	case SOFTHCA_CQE_ST_LOC_QP_OP:
		return IBV_WC_LOC_QP_OP_ERR;
	case SOFTHCA_CQE_ST_LOC_PROT:
		return IBV_WC_LOC_PROT_ERR;
	case SOFTHCA_CQE_ST_WR_FLUSH:
		return IBV_WC_WR_FLUSH_ERR;
	case SOFTHCA_CQE_ST_MW_BIND:
		return IBV_WC_MW_BIND_ERR;
	case SOFTHCA_CQE_ST_BAD_RESP:
		return IBV_WC_BAD_RESP_ERR;
	case SOFTHCA_CQE_ST_LOC_ACCESS:
		return IBV_WC_LOC_ACCESS_ERR;
	case SOFTHCA_CQE_ST_REM_INV_REQ:
		return IBV_WC_REM_INV_REQ_ERR;
	case SOFTHCA_CQE_ST_REM_ACCESS:
		return IBV_WC_REM_ACCESS_ERR;
	case SOFTHCA_CQE_ST_REM_OP:
		return IBV_WC_REM_OP_ERR;
	case SOFTHCA_CQE_ST_RETRY_EXC:
		return IBV_WC_RETRY_EXC_ERR;
	case SOFTHCA_CQE_ST_RNR_RETRY_EXC:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	case SOFTHCA_CQE_ST_REM_ABORT:
		return IBV_WC_REM_ABORT_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

enum ibv_wc_opcode wc_opcode(uint8_t op)
{
	switch (op) {
	case SOFTHCA_CQE_OP_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case SOFTHCA_CQE_OP_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case SOFTHCA_CQE_OP_CMP_SWAP:
		return IBV_WC_COMP_SWAP;
	case SOFTHCA_CQE_OP_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case SOFTHCA_CQE_OP_RECV:
		return IBV_WC_RECV;
	case SOFTHCA_CQE_OP_RECV_RDMA_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	default:
		return IBV_WC_SEND;
	}
}

} // namespace

void cqe_to_wc(const struct softhca_cqe *cqe, const QpTable &qps,
	       struct ibv_wc *wc)
{
	uint32_t qpn = le32toh(cqe->qpn);
	uint32_t idx = le32toh(cqe->wqe_counter);
	Qp *qp = qps.find(qpn);

	memset(wc, 0, sizeof(*wc));
	wc->qp_num = qpn;
	wc->status = wc_status(cqe->status);
	wc->vendor_err = le32toh(cqe->vendor_err);
	wc->opcode = wc_opcode(cqe->opcode);
	if (!qp) {
		wc->status = IBV_WC_GENERAL_ERR;
		return;
	}
	/* the card moves a QP to error with its first error completion */
	if (wc->status != IBV_WC_SUCCESS)
		__atomic_store_n(&qp->state, IBV_QPS_ERR, __ATOMIC_RELAXED);
	if (cqe->opcode & SOFTHCA_CQE_OP_RECV) {
		if (cqe->flags & SOFTHCA_CQE_F_SRQ) {
			/* the WQE goes back to the SRQ's free list */
			if (!qp->srq || !srq_complete(qp->srq, idx, &wc->wr_id))
				wc->status = IBV_WC_GENERAL_ERR;
		} else if (qp->rq_wqe_cnt) {
			wc->wr_id = qp->rq_wrid[idx & (qp->rq_wqe_cnt - 1)];
			__atomic_store_n(&qp->rq_tail, idx + 1,
					 __ATOMIC_RELEASE);
		} else {
			wc->status = IBV_WC_GENERAL_ERR; /* no RQ */
		}
	} else {
		uint32_t slot = idx & (qp->sq.wqe_cnt - 1);

		wc->wr_id = qp->sq_wrid[slot];
		/* this WQE and every unsignaled one before it are done */
		qp->sq_tail_bb = idx + qp->sq_nbb[slot];
		__atomic_store_n(&qp->sq_tail, qp->sq_wqe_head[slot] + 1,
				 __ATOMIC_RELEASE);
	}
	wc->byte_len = le32toh(cqe->byte_cnt);
	wc->src_qp = le32toh(cqe->src_qp);
	wc->pkey_index = le16toh(cqe->pkey_index);
	if (cqe->flags & SOFTHCA_CQE_F_IMM) {
		wc->imm_data = cqe->imm;
		wc->wc_flags |= IBV_WC_WITH_IMM;
	} else if (cqe->flags & SOFTHCA_CQE_F_INV) {
		wc->invalidated_rkey = be32toh(cqe->imm);
		wc->wc_flags |= IBV_WC_WITH_INV;
	}
	/* UD: the GRH (or the IPv4 header in its last 20 bytes) leads */
	if (cqe->flags & SOFTHCA_CQE_F_GRH)
		wc->wc_flags |= IBV_WC_GRH;
}

namespace {

/* The slot of CQE number @j in @cq's ring. */
struct softhca_cqe *cq_slot(Cq *cq, uint32_t j)
{
	return &cq->ring[softhca_cq_slot(j, cq->base, cq->log_size)];
}

/* The next CQE the card wrote, or null. */
const struct softhca_cqe *cq_next_cqe(Cq *cq)
{
	const struct softhca_cqe *cqe = cq_slot(cq, cq->ci);

	if (!cqe_is_new(load_u8(&cqe->op_own), cq->ci, cq->log_size, cq->base))
		return nullptr;
	/* its body after its owner bit */
	from_device_barrier();
	return cqe;
}

void cq_publish_ci(Cq *cq)
{
	/* the CQEs are read before the card may overwrite them */
	to_device_barrier();
	store_le32(&cq->db->ci, cq->ci & SOFTHCA_CQ_ARM_CI_MASK);
}

} // namespace

int cq_poll(Cq *cq, int ne, struct ibv_wc *wc)
{
	int n = 0;

	while (n < ne) {
		const struct softhca_cqe *cqe = cq_next_cqe(cq);

		if (!cqe)
			break;
		cqe_to_wc(cqe, *cq->qps, &wc[n++]);
		cq->ci++;
	}
	if (n)
		cq_publish_ci(cq);
	return n;
}

void cq_clean(Cq *cq, uint32_t qpn, Srq *srq)
{
	uint32_t mask = (1u << cq->log_size) - 1;
	uint32_t pi, nfreed = 0;

	cq->lock.lock();
	/* the CQEs the card has written and software not yet read */
	for (pi = cq->ci; pi - cq->ci <= mask; pi++)
		if (!cqe_is_new(load_u8(&cq_slot(cq, pi)->op_own), pi,
				cq->log_size, cq->base))
			break;
	from_device_barrier();
	/*
	 * From the newest back: drop @qpn's, move the others up over the
	 * holes, each keeping the owner bit of the slot it lands in.
	 */
	while (pi-- != cq->ci) {
		struct softhca_cqe *cqe = cq_slot(cq, pi);

		if (le32toh(cqe->qpn) == qpn) {
			uint64_t wr_id;

			if (srq && (cqe->opcode & SOFTHCA_CQE_OP_RECV) &&
			    (cqe->flags & SOFTHCA_CQE_F_SRQ))
				srq_complete(srq, le32toh(cqe->wqe_counter),
					     &wr_id);
			nfreed++;
		} else if (nfreed) {
			struct softhca_cqe *dest = cq_slot(cq, pi + nfreed);
			uint8_t owner = dest->op_own & SOFTHCA_CQE_OWNER;

			memcpy(dest, cqe, sizeof(*dest));
			dest->op_own = static_cast<uint8_t>(
				(dest->op_own & ~SOFTHCA_CQE_OWNER) | owner);
		}
	}
	if (nfreed) {
		cq->ci += nfreed;
		cq_publish_ci(cq);
	}
	cq->lock.unlock();
}

bool cq_arm(Cq *cq, bool solicited)
{
	uint32_t arm = softhca_cq_arm(cq->arm_sn, solicited,
				      cq->ci & SOFTHCA_CQ_ARM_CI_MASK);
	const struct softhca_cqe *cqe = cq_slot(cq, cq->ci);

	store_le32(&cq->db->arm, arm);
	/* the record first, then the doorbell */
	to_device_barrier();
	if (cq->ctx && cq->ctx->uar)
		store_le64(cq->ctx->uar + SOFTHCA_UAR_CQ_DB,
			   softhca_cq_db(arm, cq->cqn));
	/*
	 * The card writes a CQE, then reads the arm word; we wrote the arm
	 * word and now read the CQE: with a full barrier on both sides one
	 * of us sees the other. A CQE already there was written before the
	 * card could see this arm: it raises the event only when told.
	 */
	full_barrier();
	return cqe_is_new(load_u8(&cqe->op_own), cq->ci, cq->log_size,
			  cq->base);
}

void cq_doorbell(Cq *cq)
{
	Context *ctx = cq->ctx;

	if (ctx->wake_fd < 0) {
		softhca_dbg(ctx,
			    "CQ %u armed with CQEs waiting: no wake-up file "
			    "for the CQ doorbell, the event waits for the "
			    "next CQE",
			    cq->cqn);
		return;
	}
	if (ioctl(ctx->wake_fd, SOFTHCA_CQ_DB_IOCTL,
		  static_cast<unsigned long>(cq->cqn)))
		softhca_dbg(ctx, "CQ doorbell of CQ %u failed (%d)", cq->cqn,
			    errno);
}

int poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	Cq *cq = to_cq(ibcq);
	int n;

	cq->lock.lock();
	n = cq_poll(cq, ne, wc);
	cq->lock.unlock();
	return n;
}

int req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	Cq *cq = to_cq(ibcq);
	bool waiting;

	cq->lock.lock();
	waiting = cq_arm(cq, solicited_only != 0);
	cq->lock.unlock();
	/* as an mlx5 HCA armed below its producer index: an event now */
	if (waiting)
		cq_doorbell(cq);
	return 0;
}

void cq_event(struct ibv_cq *ibcq)
{
	to_cq(ibcq)->arm_sn++;
}

namespace {

/*
 * ibv_cq_ex polling. start_poll takes the CQ lock and stands on the first
 * new completion (ENOENT, unlocked, if there is none); next_poll moves on
 * (ENOENT at the end, still locked); end_poll publishes the consumer index
 * and unlocks. The completion is read once into cq->cur (the same
 * conversion poll_cq makes, wr_id bookkeeping included); status and wr_id
 * go into the ibv_cq_ex, the other fields come from the read functions.
 */
int cq_ex_take(Cq *cq)
{
	const struct softhca_cqe *cqe = cq_next_cqe(cq);

	if (!cqe)
		return ENOENT;
	cqe_to_wc(cqe, *cq->qps, &cq->cur);
	cq->ci++;
	cq->vcq.cq_ex.status = cq->cur.status;
	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	return 0;
}

int cq_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	Cq *cq = to_cq(ibcq);

	if (attr->comp_mask)
		return EINVAL;
	cq->lock.lock();
	int err = cq_ex_take(cq);
	if (err)
		cq->lock.unlock();
	return err;
}

int cq_next_poll(struct ibv_cq_ex *ibcq)
{
	return cq_ex_take(to_cq(ibcq));
}

void cq_end_poll(struct ibv_cq_ex *ibcq)
{
	Cq *cq = to_cq(ibcq);

	cq_publish_ci(cq);
	cq->lock.unlock();
}

enum ibv_wc_opcode cq_read_opcode(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.opcode;
}

uint32_t cq_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.vendor_err;
}

uint32_t cq_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.byte_len;
}

/* Immediate data; for IBV_WC_WITH_INV the rkey (host order, as mlx5). */
__be32 cq_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.imm_data;
}

uint32_t cq_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.qp_num;
}

uint32_t cq_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.src_qp;
}

unsigned int cq_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.wc_flags;
}

/* RoCE has no LIDs, and the CQE carries no SL: these read 0. */
uint32_t cq_read_slid(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.slid;
}

uint8_t cq_read_sl(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.sl;
}

uint8_t cq_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return to_cq(ibcq)->cur.dlid_path_bits;
}

constexpr uint64_t kCqWcFlags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
				IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
				IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
				IBV_WC_EX_WITH_DLID_PATH_BITS;

struct ibv_cq_ex *create_cq_common(struct ibv_context *context,
				   const struct ibv_cq_init_attr_ex *attr)
{
	Context *ctx = to_ctx(context);
	ExWriteCmd<ib_uverbs_ex_create_cq, softhca_create_cq_req> cmd = {};
	WriteResp<ib_uverbs_ex_create_cq_resp, softhca_create_cq_resp>
		resp = {};
	struct ibv_cq_init_attr_ex kattr = *attr;
	uint32_t nent = attr->cqe > 0 && attr->cqe < 0x80000000u
				? cq_entries_for(attr->cqe)
				: 0;
	int err;

	if (!nent) {
		softhca_dbg(ctx, "create_cq: %u CQEs", attr->cqe);
		errno = EINVAL;
		return nullptr;
	}
	auto *cq = new (std::nothrow) Cq{};
	if (!cq) {
		errno = ENOMEM;
		return nullptr;
	}
	cq->ctx = ctx;
	cq->qps = &ctx->qps;
	cq->log_size = log2_of_pow2(nent);
	err = cq_ex_setup(cq, attr);
	if (err) {
		softhca_dbg(ctx, "create_cq_ex: unsupported attributes");
		goto err_free;
	}
	err = cq->buf.alloc(static_cast<size_t>(nent) *
				    sizeof(struct softhca_cqe),
			    ctx->page_size);
	if (!err)
		err = cq->db.alloc(ctx->dbrecs);
	if (err)
		goto err_free;
	cq->ring = reinterpret_cast<struct softhca_cqe *>(cq->buf.data());
	/* every CQE starts owned by the card: owner bit of no pass yet */
	for (uint32_t i = 0; i < nent; i++)
		cq->ring[i].op_own = SOFTHCA_CQE_OWNER;

	cmd.drv.buf_addr = reinterpret_cast<uintptr_t>(cq->ring);
	cmd.drv.db_addr = reinterpret_cast<uintptr_t>(cq->db.get());
	cmd.drv.cqe_size = sizeof(struct softhca_cqe);
	/*
	 * ibv_cmd_create_cq_ex sends IGNORE_OVERRUN as the CQ's flag
	 * (UVERBS_ATTR_CREATE_CQ_FLAGS); without flags it is the plain
	 * ioctl ibv_cmd_create_cq would send.
	 */
	kattr.cqe = nent - 1;
	err = ibv_cmd_create_cq_ex(
		context, &kattr, &cq->vcq,
		reinterpret_cast<struct ibv_create_cq_ex *>(&cmd), sizeof(cmd),
		reinterpret_cast<ib_uverbs_ex_create_cq_resp *>(&resp),
		sizeof(resp), 0);
	if (err) {
		softhca_dbg(ctx, "create_cq: the kernel refused (%d)", err);
		goto err_free;
	}
	cq->cqn = resp.drv.cqn;
	return &cq->vcq.cq_ex;

err_free:
	delete cq; /* its members free the ring and the record */
	errno = err;
	return nullptr;
}

} // namespace

int cq_ex_setup(Cq *cq, const struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *x = &cq->vcq.cq_ex;

	/* parent domains (IBV_CQ_INIT_ATTR_MASK_PD) are not supported */
	if (attr->comp_mask &
	    ~static_cast<uint32_t>(IBV_CQ_INIT_ATTR_MASK_FLAGS))
		return EOPNOTSUPP;
	/*
	 * Single-threaded use needs nothing; with IGNORE_OVERRUN a full CQ
	 * is written on (the card's SOFTHCA_CQ_F_IGNORE_OVERRUN).
	 */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags &
	     ~static_cast<uint32_t>(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
				    IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)))
		return EOPNOTSUPP;
	/* no timestamps, VLANs, flow tags or tag matching */
	if (attr->wc_flags & ~kCqWcFlags)
		return EOPNOTSUPP;
	cq->wc_flags = attr->wc_flags;
	x->start_poll = cq_start_poll;
	x->next_poll = cq_next_poll;
	x->end_poll = cq_end_poll;
	x->read_opcode = cq_read_opcode;
	x->read_vendor_err = cq_read_vendor_err;
	x->read_byte_len = cq_read_byte_len;
	x->read_imm_data = cq_read_imm_data;
	x->read_qp_num = cq_read_qp_num;
	x->read_src_qp = cq_read_src_qp;
	x->read_wc_flags = cq_read_wc_flags;
	x->read_slid = cq_read_slid;
	x->read_sl = cq_read_sl;
	x->read_dlid_path_bits = cq_read_dlid_path_bits;
	return 0;
}

struct ibv_cq *create_cq(struct ibv_context *context, int cqe,
			 struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {};

	if (cqe <= 0) {
		errno = EINVAL;
		return nullptr;
	}
	attr.cqe = static_cast<uint32_t>(cqe);
	attr.channel = channel;
	attr.comp_vector = static_cast<uint32_t>(comp_vector);
	attr.wc_flags = IBV_WC_STANDARD_FLAGS;
	struct ibv_cq_ex *cq = create_cq_common(context, &attr);

	return cq ? ibv_cq_ex_to_cq(cq) : nullptr;
}

struct ibv_cq_ex *create_cq_ex(struct ibv_context *context,
			       struct ibv_cq_init_attr_ex *attr)
{
	return create_cq_common(context, attr);
}

void cq_take_ring(Cq *cq, struct softhca_cqe *ring, uint32_t log_size,
		  uint32_t base, uint32_t pi)
{
	/* the CQEs before pi are the card's last in the old ring */
	from_device_barrier();
	for (uint32_t j = cq->ci; j != pi; j++) {
		const struct softhca_cqe *from = cq_slot(cq, j);
		struct softhca_cqe *to =
			&ring[softhca_cq_slot(j, base, log_size)];

		memcpy(to, from, sizeof(*to));
		to->op_own = static_cast<uint8_t>(
			(from->op_own & ~SOFTHCA_CQE_OWNER) |
			softhca_cq_owner(j, base, log_size));
	}
	cq->ring = ring;
	cq->log_size = log_size;
	cq->base = base;
}

/*
 * ibv_resize_cq: a new ring, RESIZE_CQ, and under the CQ's lock the CQEs
 * the card wrote into the old ring before it switched move to the new
 * one (cq_take_ring()), which then takes over; the old one is freed. The
 * card says where it switched in its answer (RESIZE_CQ in softhca_prm.h);
 * mlx5's provider moves its CQEs the same way, up to the RESIZE CQE its
 * HCA writes (mlx5_cq_resize_copy_cqes()).
 */
int resize_cq(struct ibv_cq *ibcq, int cqe)
{
	Cq *cq = to_cq(ibcq);
	Context *ctx = cq->ctx;
	WriteCmd<ib_uverbs_resize_cq, softhca_resize_cq_req> cmd = {};
	WriteResp<ib_uverbs_resize_cq_resp, softhca_resize_cq_resp> resp = {};
	uint32_t nent =
		cqe > 0 ? cq_entries_for(static_cast<uint32_t>(cqe)) : 0;
	DmaBuf buf;
	int err;

	if (!nent) {
		softhca_dbg(ctx, "resize_cq: %d CQEs", cqe);
		return EINVAL;
	}
	if (nent == 1u << cq->log_size)
		return 0; /* that size already (mlx5 does the same) */
	err = buf.alloc(static_cast<size_t>(nent) * sizeof(struct softhca_cqe),
			ctx->page_size);
	if (err)
		return err;
	auto *ring = reinterpret_cast<struct softhca_cqe *>(buf.data());
	/* every CQE starts owned by the card: owner bit of no pass yet */
	for (uint32_t i = 0; i < nent; i++)
		ring[i].op_own = SOFTHCA_CQE_OWNER;
	cmd.drv.buf_addr = reinterpret_cast<uintptr_t>(ring);
	cmd.drv.cqe_size = sizeof(struct softhca_cqe);

	cq->lock.lock();
	err = ibv_cmd_resize_cq(
		ibcq, static_cast<int>(nent - 1),
		reinterpret_cast<struct ibv_resize_cq *>(&cmd), sizeof(cmd),
		reinterpret_cast<ib_uverbs_resize_cq_resp *>(&resp),
		sizeof(resp));
	if (!err) {
		if (resp.drv.base != cq->ci)
			softhca_err(ctx,
				    "resize_cq: CQ %u switched at %u, consumer "
				    "index %u",
				    cq->cqn, resp.drv.base, cq->ci);
		cq_take_ring(cq, ring, log2_of_pow2(nent), resp.drv.base,
			     resp.drv.pi);
		cq->buf = std::move(buf); /* the old ring goes */
	}
	cq->lock.unlock();
	if (err)
		softhca_dbg(ctx, "resize_cq: the kernel refused (%d)", err);
	return err;
}

int destroy_cq(struct ibv_cq *ibcq)
{
	Cq *cq = to_cq(ibcq);
	int ret = ibv_cmd_destroy_cq(ibcq);

	if (ret)
		return ret;
	delete cq;
	return 0;
}

} // namespace softhca
