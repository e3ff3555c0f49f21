/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softhca device model tracepoints (system softhca_hw): the card's side of
 * the hardware interface, what a logic analyser on the bus would show:
 * commands run, WQEs fetched, arm words seen, CQEs and EQEs written,
 * interrupt lines raised, the engine going idle and being woken. The
 * driver's side is in ../softhca_trace.h. Cards are named by their bus
 * device (softhca.N.auto); each costs a static branch when off.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM softhca_hw

#if !defined(_SOFTHCA_HW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SOFTHCA_HW_TRACE_H

#include <linux/platform_device.h>
#include <linux/tracepoint.h>

#include "hw.h"
#include "hw_compat.h"

#define softhca_hw_show_eqe_type(t)					\
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

/* The card ran a command and wrote its status. */
TRACE_EVENT(softhca_hw_cmd,
	    TP_PROTO(struct softhca_hw *hw, u32 slot, u16 opcode, u8 status,
		     u32 syndrome),
	    TP_ARGS(hw, slot, opcode, status, syndrome),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, slot)
			     __field(u16, opcode)
			     __field(u8, status)
			     __field(u32, syndrome)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->slot = slot;
			   __entry->opcode = opcode;
			   __entry->status = status;
			   __entry->syndrome = syndrome;),
	    TP_printk("%s slot %u opcode 0x%x status 0x%x syndrome 0x%x",
		      __get_str(dev), __entry->slot, __entry->opcode,
		      __entry->status, __entry->syndrome));

/* A send WQE fetched from a QP's SQ (by DMA, through its PAS). */
TRACE_EVENT(softhca_hw_wqe,
	    TP_PROTO(struct softhca_hw *hw, u32 qpn, u32 index, u8 opcode,
		     u8 ds, u32 nbb),
	    TP_ARGS(hw, qpn, index, opcode, ds, nbb),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, qpn)
			     __field(u32, index)
			     __field(u8, opcode)
			     __field(u8, ds)
			     __field(u32, nbb)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->qpn = qpn;
			   __entry->index = index;
			   __entry->opcode = opcode;
			   __entry->ds = ds;
			   __entry->nbb = nbb;),
	    TP_printk("%s qpn %u index %u opcode 0x%x ds %u bbs %u",
		      __get_str(dev), __entry->qpn, __entry->index,
		      __entry->opcode, __entry->ds, __entry->nbb));

/* A CQE written at producer index pi (its owner bit last). */
TRACE_EVENT(softhca_hw_cqe,
	    TP_PROTO(struct softhca_hw *hw, u32 cqn, u32 pi,
		     const struct softhca_cqe *cqe),
	    TP_ARGS(hw, cqn, pi, cqe),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, cqn)
			     __field(u32, pi)
			     __field(u32, qpn)
			     __field(u32, wqe_counter)
			     __field(u8, opcode)
			     __field(u8, status)
			     __field(u8, flags)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->cqn = cqn;
			   __entry->pi = pi;
			   __entry->qpn = le32_to_cpu(cqe->qpn);
			   __entry->wqe_counter = le32_to_cpu(cqe->wqe_counter);
			   __entry->opcode = cqe->opcode;
			   __entry->status = cqe->status;
			   __entry->flags = cqe->flags;),
	    TP_printk("%s cqn %u pi %u qpn %u wqe %u opcode 0x%x status 0x%x flags 0x%x",
		      __get_str(dev), __entry->cqn, __entry->pi, __entry->qpn,
		      __entry->wqe_counter, __entry->opcode, __entry->status,
		      __entry->flags));

/*
 * The card found a new arm request in a CQ's doorbell record: when it
 * read the arm word to write a CQE, or because CQ_DB was rung.
 */
TRACE_EVENT(softhca_hw_cq_arm,
	    TP_PROTO(struct softhca_hw *hw, u32 cqn, u32 arm, const char *via),
	    TP_ARGS(hw, cqn, arm, via),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, cqn)
			     __field(u8, sn)
			     __field(bool, solicited)
			     __field(u32, ci)
			     __string(via, via)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->cqn = cqn;
			   __entry->sn = softhca_cq_arm_sn(arm);
			   __entry->solicited = arm & SOFTHCA_CQ_ARM_SOLICITED;
			   __entry->ci = arm & SOFTHCA_CQ_ARM_CI_MASK;
			   softhca_assign_str(via, via);),
	    TP_printk("%s cqn %u sn %u%s ci %u seen at %s", __get_str(dev),
		      __entry->cqn, __entry->sn,
		      __entry->solicited ? " SOLICITED" : "", __entry->ci,
		      __get_str(via)));

/*
 * The card raises a CQ's completion event (a COMP EQE follows): for a
 * CQE, for an arm that found CQEs waiting, or when moderation let it go.
 */
TRACE_EVENT(softhca_hw_cq_event,
	    TP_PROTO(struct softhca_hw *hw, u32 cqn, u32 eqn, u32 sn,
		     const char *why),
	    TP_ARGS(hw, cqn, eqn, sn, why),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, cqn)
			     __field(u32, eqn)
			     __field(u32, sn)
			     __string(why, why)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->cqn = cqn;
			   __entry->eqn = eqn;
			   __entry->sn = sn;
			   softhca_assign_str(why, why);),
	    TP_printk("%s cqn %u eqn %u sn %u why %s", __get_str(dev),
		      __entry->cqn, __entry->eqn, __entry->sn, __get_str(why)));

/* A CQ entered error (overrun, DMA): a CQ_ERROR event follows. */
TRACE_EVENT(softhca_hw_cq_error,
	    TP_PROTO(struct softhca_hw *hw, u32 cqn, u32 syndrome),
	    TP_ARGS(hw, cqn, syndrome),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, cqn)
			     __field(u32, syndrome)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->cqn = cqn;
			   __entry->syndrome = syndrome;),
	    TP_printk("%s cqn %u syndrome 0x%x", __get_str(dev), __entry->cqn,
		      __entry->syndrome));

/* RESIZE_CQ: the new ring starts at base; CQEs from pi on go to it. */
TRACE_EVENT(softhca_hw_cq_resize,
	    TP_PROTO(struct softhca_hw *hw, u32 cqn, u32 log_size, u32 base,
		     u32 pi),
	    TP_ARGS(hw, cqn, log_size, base, pi),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, cqn)
			     __field(u32, entries)
			     __field(u32, base)
			     __field(u32, pi)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->cqn = cqn;
			   __entry->entries = BIT(log_size);
			   __entry->base = base;
			   __entry->pi = pi;),
	    TP_printk("%s cqn %u entries %u base %u pi %u", __get_str(dev),
		      __entry->cqn, __entry->entries, __entry->base,
		      __entry->pi));

/* An EQE written at producer index pi; raise: the EQ was armed. */
TRACE_EVENT(softhca_hw_eqe,
	    TP_PROTO(struct softhca_hw *hw, u32 eqn, u32 pi, u8 type, u32 obj,
		     u32 data0, bool raise),
	    TP_ARGS(hw, eqn, pi, type, obj, data0, raise),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, eqn)
			     __field(u32, pi)
			     __field(u8, type)
			     __field(u32, obj)
			     __field(u32, data0)
			     __field(bool, raise)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->eqn = eqn;
			   __entry->pi = pi;
			   __entry->type = type;
			   __entry->obj = obj;
			   __entry->data0 = data0;
			   __entry->raise = raise;),
	    TP_printk("%s eqn %u pi %u %s obj %u data0 0x%x%s", __get_str(dev),
		      __entry->eqn, __entry->pi,
		      softhca_hw_show_eqe_type(__entry->type), __entry->obj,
		      __entry->data0,
		      __entry->raise ? " raise" : " (not armed)"));

/* An interrupt line raised towards its target CPU. */
TRACE_EVENT(softhca_hw_irq,
	    TP_PROTO(struct softhca_hw *hw, u32 vector, int cpu, bool remote),
	    TP_ARGS(hw, vector, cpu, remote),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, vector)
			     __field(int, cpu)
			     __field(bool, remote)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->vector = vector;
			   __entry->cpu = cpu;
			   __entry->remote = remote;),
	    TP_printk("%s vector %u to cpu %d by %s", __get_str(dev),
		      __entry->vector, __entry->cpu,
		      __entry->remote ? "IPI" : "irq_work"));

/* The engine says IDLE (sleeps) or RUNNING in every UAR. */
TRACE_EVENT(softhca_hw_engine_state,
	    TP_PROTO(struct softhca_hw *hw, u32 state),
	    TP_ARGS(hw, state),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, state)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->state = state;),
	    TP_printk("%s %s", __get_str(dev),
		      __entry->state == SOFTHCA_ENGINE_IDLE ? "IDLE" : "RUNNING"));

/* A wake-up doorbell reached the card (ENGINE_DB or ENGINE_DB_ASYNC). */
TRACE_EVENT(softhca_hw_engine_wake,
	    TP_PROTO(struct softhca_hw *hw, u32 qpn, bool async),
	    TP_ARGS(hw, qpn, async),
	    TP_STRUCT__entry(__string(dev, dev_name(&hw->pdev->dev))
			     __field(u32, qpn)
			     __field(bool, async)),
	    TP_fast_assign(softhca_assign_str(dev, dev_name(&hw->pdev->dev));
			   __entry->qpn = qpn;
			   __entry->async = async;),
	    TP_printk("%s qpn %u %s", __get_str(dev), __entry->qpn,
		      __entry->async ? "engine thread" : "in the ringing thread"));

#endif /* _SOFTHCA_HW_TRACE_H */

/* out of tree: found through the module's -I of kernel/ (Kbuild) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH hw
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE hw_trace
#include <trace/define_trace.h>
