/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca driver tracepoints: the driver's side of every crossing of the
 * hardware interface (commands, doorbells, interrupts, EQ tasklets,
 * completion handlers). The card's side is in hw/hw_trace.h (system
 * softhca_hw). They cost a static branch each when off; turn them on with
 *
 *   echo 1 > /sys/kernel/tracing/events/softhca/enable
 *   cat /sys/kernel/tracing/trace_pipe
 *
 * or trace-cmd record -e softhca -e softhca_hw (Documentation/watching.rst).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM softhca

#if !defined(_SOFTHCA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SOFTHCA_TRACE_H

#include <linux/tracepoint.h>

#include "softhca.h"
#include "softhca_compat.h"

#ifndef _SOFTHCA_TRACE_HELPERS
#define _SOFTHCA_TRACE_HELPERS
/* The device's name: the ib_device's once registered, else the card's. */
static inline const char *softhca_trace_name(struct softhca_dev *dev)
{
	return dev_name(&dev->ibdev.dev) ?: dev_name(softhca_hw_device(dev->hw));
}
#endif

#define softhca_show_cmd(op)						\
	__print_symbolic(op,						\
			 { SOFTHCA_CMD_QUERY_CAPS, "QUERY_CAPS" },	\
			 { SOFTHCA_CMD_ALLOC_PD, "ALLOC_PD" },		\
			 { SOFTHCA_CMD_DEALLOC_PD, "DEALLOC_PD" },	\
			 { SOFTHCA_CMD_ALLOC_UAR, "ALLOC_UAR" },	\
			 { SOFTHCA_CMD_DEALLOC_UAR, "DEALLOC_UAR" },	\
			 { SOFTHCA_CMD_CREATE_EQ, "CREATE_EQ" },	\
			 { SOFTHCA_CMD_DESTROY_EQ, "DESTROY_EQ" },	\
			 { SOFTHCA_CMD_QUERY_EQ, "QUERY_EQ" },		\
			 { SOFTHCA_CMD_CREATE_CQ, "CREATE_CQ" },	\
			 { SOFTHCA_CMD_DESTROY_CQ, "DESTROY_CQ" },	\
			 { SOFTHCA_CMD_QUERY_CQ, "QUERY_CQ" },		\
			 { SOFTHCA_CMD_MODIFY_CQ, "MODIFY_CQ" },	\
			 { SOFTHCA_CMD_RESIZE_CQ, "RESIZE_CQ" },	\
			 { SOFTHCA_CMD_CREATE_MKEY, "CREATE_MKEY" },	\
			 { SOFTHCA_CMD_DESTROY_MKEY, "DESTROY_MKEY" },	\
			 { SOFTHCA_CMD_QUERY_MKEY, "QUERY_MKEY" },	\
			 { SOFTHCA_CMD_CREATE_QP, "CREATE_QP" },	\
			 { SOFTHCA_CMD_DESTROY_QP, "DESTROY_QP" },	\
			 { SOFTHCA_CMD_QUERY_QP, "QUERY_QP" },		\
			 { SOFTHCA_CMD_MODIFY_QP, "MODIFY_QP" },	\
			 { SOFTHCA_CMD_CREATE_SRQ, "CREATE_SRQ" },	\
			 { SOFTHCA_CMD_DESTROY_SRQ, "DESTROY_SRQ" },	\
			 { SOFTHCA_CMD_QUERY_SRQ, "QUERY_SRQ" },	\
			 { SOFTHCA_CMD_MODIFY_SRQ, "MODIFY_SRQ" },	\
			 { SOFTHCA_CMD_SET_GID, "SET_GID" },		\
			 { SOFTHCA_CMD_QUERY_COUNTERS, "QUERY_COUNTERS" })

#define softhca_show_eqe_type(t)					\
	__print_symbolic(t,						\
			 { SOFTHCA_EQE_COMP, "COMP" },			\
			 { SOFTHCA_EQE_CMD_DONE, "CMD_DONE" },		\
			 { SOFTHCA_EQE_CQ_ERROR, "CQ_ERROR" },		\
			 { SOFTHCA_EQE_QP_FATAL, "QP_FATAL" },		\
			 { SOFTHCA_EQE_QP_LAST_WQE, "QP_LAST_WQE" },	\
			 { SOFTHCA_EQE_QP_COMM_EST, "QP_COMM_EST" },	\
			 { SOFTHCA_EQE_QP_REQ_ERR, "QP_REQ_ERR" },	\
			 { SOFTHCA_EQE_QP_ACCESS_ERR, "QP_ACCESS_ERR" },	\
			 { SOFTHCA_EQE_SQ_DRAINED, "SQ_DRAINED" },	\
			 { SOFTHCA_EQE_SRQ_LIMIT, "SRQ_LIMIT" },		\
			 { SOFTHCA_EQE_PORT_CHANGE, "PORT_CHANGE" })

/* A command handed to the card (its doorbell, CMD_DB, is rung). */
TRACE_EVENT(softhca_cmd_issue,
	    TP_PROTO(struct softhca_dev *dev, int slot, u16 opcode, u32 token,
		     u32 in_len),
	    TP_ARGS(dev, slot, opcode, token, in_len),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(int, slot)
			     __field(u16, opcode)
			     __field(u32, token)
			     __field(u32, in_len)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->slot = slot;
			   __entry->opcode = opcode;
			   __entry->token = token;
			   __entry->in_len = in_len;),
	    TP_printk("%s slot %d %s (0x%x) token %u in %u bytes",
		      __get_str(dev), __entry->slot,
		      softhca_show_cmd(__entry->opcode), __entry->opcode,
		      __entry->token, __entry->in_len));

/* The command completed (owner bit, or its CMD_DONE event). */
TRACE_EVENT(softhca_cmd_done,
	    TP_PROTO(struct softhca_dev *dev, int slot, u16 opcode, u8 status,
		     u32 syndrome, int err, u64 latency_ns),
	    TP_ARGS(dev, slot, opcode, status, syndrome, err, latency_ns),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(int, slot)
			     __field(u16, opcode)
			     __field(u8, status)
			     __field(u32, syndrome)
			     __field(int, err)
			     __field(u64, latency_ns)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->slot = slot;
			   __entry->opcode = opcode;
			   __entry->status = status;
			   __entry->syndrome = syndrome;
			   __entry->err = err;
			   __entry->latency_ns = latency_ns;),
	    TP_printk("%s slot %d %s status 0x%x syndrome 0x%x err %d latency %llu ns",
		      __get_str(dev), __entry->slot,
		      softhca_show_cmd(__entry->opcode), __entry->status,
		      __entry->syndrome, __entry->err, __entry->latency_ns));

/* EQ_DB(eqn) written: the consumer index handed back, maybe ARM. */
TRACE_EVENT(softhca_eq_doorbell,
	    TP_PROTO(struct softhca_dev *dev, u32 eqn, u32 ci, bool arm),
	    TP_ARGS(dev, eqn, ci, arm),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, eqn)
			     __field(u32, ci)
			     __field(bool, arm)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->eqn = eqn;
			   __entry->ci = ci;
			   __entry->arm = arm;),
	    TP_printk("%s eqn %u ci %u%s", __get_str(dev), __entry->eqn,
		      __entry->ci, __entry->arm ? " ARM" : ""));

/* The EQ's interrupt handler ran (hardirq): it schedules the tasklet. */
TRACE_EVENT(softhca_eq_irq,
	    TP_PROTO(struct softhca_dev *dev, u32 eqn, int irq),
	    TP_ARGS(dev, eqn, irq),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, eqn)
			     __field(int, irq)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->eqn = eqn;
			   __entry->irq = irq;),
	    TP_printk("%s eqn %u irq %d", __get_str(dev), __entry->eqn,
		      __entry->irq));

/* One EQE taken by the tasklet, before it is dispatched. */
TRACE_EVENT(softhca_eqe,
	    TP_PROTO(struct softhca_dev *dev, u32 eqn, u32 ci,
		     const struct softhca_eqe *eqe),
	    TP_ARGS(dev, eqn, ci, eqe),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, eqn)
			     __field(u32, ci)
			     __field(u8, type)
			     __field(u32, obj)
			     __field(u32, data0)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->eqn = eqn;
			   __entry->ci = ci;
			   __entry->type = eqe->type;
			   __entry->obj = le32_to_cpu(eqe->obj);
			   __entry->data0 = le32_to_cpu(eqe->data0);),
	    TP_printk("%s eqn %u ci %u %s obj %u data0 0x%x", __get_str(dev),
		      __entry->eqn, __entry->ci,
		      softhca_show_eqe_type(__entry->type), __entry->obj,
		      __entry->data0));

/* A tasklet run ended: EQEs consumed, then re-armed or rescheduled. */
TRACE_EVENT(softhca_eq_tasklet,
	    TP_PROTO(struct softhca_dev *dev, u32 eqn, int consumed, u32 ci,
		     bool rearm),
	    TP_ARGS(dev, eqn, consumed, ci, rearm),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, eqn)
			     __field(int, consumed)
			     __field(u32, ci)
			     __field(bool, rearm)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->eqn = eqn;
			   __entry->consumed = consumed;
			   __entry->ci = ci;
			   __entry->rearm = rearm;),
	    TP_printk("%s eqn %u consumed %d ci %u %s", __get_str(dev),
		      __entry->eqn, __entry->consumed, __entry->ci,
		      __entry->rearm ? "re-armed" : "rescheduled"));

/* A CQ's comp_handler is called (ib_uverbs_comp_handler for user CQs). */
TRACE_EVENT(softhca_cq_comp,
	    TP_PROTO(struct softhca_dev *dev, u32 cqn, bool kernel),
	    TP_ARGS(dev, cqn, kernel),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, cqn)
			     __field(bool, kernel)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->cqn = cqn;
			   __entry->kernel = kernel;),
	    TP_printk("%s cqn %u %s CQ", __get_str(dev), __entry->cqn,
		      __entry->kernel ? "kernel" : "user"));

/* A CQ_ERROR event goes to the CQ's event_handler. */
TRACE_EVENT(softhca_cq_error,
	    TP_PROTO(struct softhca_dev *dev, u32 cqn, u32 syndrome),
	    TP_ARGS(dev, cqn, syndrome),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, cqn)
			     __field(u32, syndrome)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->cqn = cqn;
			   __entry->syndrome = syndrome;),
	    TP_printk("%s cqn %u syndrome 0x%x", __get_str(dev), __entry->cqn,
		      __entry->syndrome));

/* A kernel CQ's arm word written (req_notify_cq). */
TRACE_EVENT(softhca_kcq_arm,
	    TP_PROTO(struct softhca_dev *dev, u32 cqn, u32 arm),
	    TP_ARGS(dev, cqn, arm),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, cqn)
			     __field(u8, sn)
			     __field(bool, solicited)
			     __field(u32, ci)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->cqn = cqn;
			   __entry->sn = softhca_cq_arm_sn(arm);
			   __entry->solicited = arm & SOFTHCA_CQ_ARM_SOLICITED;
			   __entry->ci = arm & SOFTHCA_CQ_ARM_CI_MASK;),
	    TP_printk("%s cqn %u sn %u%s ci %u", __get_str(dev), __entry->cqn,
		      __entry->sn, __entry->solicited ? " SOLICITED" : "",
		      __entry->ci));

/* CQ_DB written: a CQ armed while CQEs wait (user CQs: the wake-up file). */
TRACE_EVENT(softhca_cq_doorbell,
	    TP_PROTO(struct softhca_dev *dev, u32 cqn),
	    TP_ARGS(dev, cqn),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, cqn)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->cqn = cqn;),
	    TP_printk("%s cqn %u", __get_str(dev), __entry->cqn));

/* A kernel QP's doorbell record written: send or receive WQEs posted. */
TRACE_EVENT(softhca_kqp_doorbell,
	    TP_PROTO(struct softhca_dev *dev, u32 qpn, bool sq, u32 pi),
	    TP_ARGS(dev, qpn, sq, pi),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, qpn)
			     __field(bool, sq)
			     __field(u32, pi)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->qpn = qpn;
			   __entry->sq = sq;
			   __entry->pi = pi;),
	    TP_printk("%s qpn %u %s_pi %u", __get_str(dev), __entry->qpn,
		      __entry->sq ? "sq" : "rq", __entry->pi));

/* The wake-up doorbell (ENGINE_DB or ENGINE_DB_ASYNC) rung for a QP. */
TRACE_EVENT(softhca_engine_doorbell,
	    TP_PROTO(struct softhca_dev *dev, u32 qpn, const char *via),
	    TP_ARGS(dev, qpn, via),
	    TP_STRUCT__entry(__string(dev, softhca_trace_name(dev))
			     __field(u32, qpn)
			     __string(via, via)),
	    TP_fast_assign(softhca_assign_str(dev, softhca_trace_name(dev));
			   __entry->qpn = qpn;
			   softhca_assign_str(via, via);),
	    TP_printk("%s qpn %u via %s", __get_str(dev), __entry->qpn,
		      __get_str(via)));

#endif /* _SOFTHCA_TRACE_H */

/* out of tree: found through the module's -I of kernel/ (Kbuild) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE softhca_trace
#include <trace/define_trace.h>
