// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: what this silicon can do, reported by QUERY_CAPS.
 * The driver takes every device attribute from here.
 */
#include <linux/etherdevice.h>
#include <linux/sizes.h>

#include "hw.h"

#define SOFTHCA_FW_MAJOR	1
#define SOFTHCA_FW_MINOR	0
#define SOFTHCA_FW_SUB		0

/* EUI-64 from the port's MAC, as a NIC's EEPROM would carry it. */
static u64 softhca_hw_guid(const u8 *mac)
{
	u8 eui[8] = {
		mac[0] ^ 2, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5],
	};

	return be64_to_cpu(*(__be64 *)eui);
}

void softhca_hw_caps_fill(const struct softhca_hw *hw,
			  struct softhca_caps *caps)
{
	u64 guid = softhca_hw_guid(hw->mac);

	memset(caps, 0, sizeof(*caps));
	caps->fw_version = cpu_to_le64((u64)SOFTHCA_FW_MAJOR << 32 |
				       SOFTHCA_FW_MINOR << 16 | SOFTHCA_FW_SUB);
	caps->node_guid = cpu_to_le64(guid);
	caps->sys_image_guid = cpu_to_le64(guid);
	caps->max_mr_size = cpu_to_le64(SOFTHCA_HW_MAX_MR_SIZE);
	/* The MTT takes the CPU's page sizes: 4 KiB, 2 MiB and 1 GiB. */
	caps->page_size_cap = cpu_to_le64(SOFTHCA_HW_BLOCK_SIZES);
	caps->vendor_id = cpu_to_le32(SOFTHCA_VENDOR_ID);
	caps->vendor_part_id = cpu_to_le32(SOFTHCA_PART_ID);
	caps->hw_version = cpu_to_le32(1);
	caps->cap_flags = cpu_to_le32(SOFTHCA_CAP_RC | SOFTHCA_CAP_UC |
				      SOFTHCA_CAP_UD | SOFTHCA_CAP_SRQ |
				      SOFTHCA_CAP_ATOMIC |
				      SOFTHCA_CAP_CMD_EVENTS |
				      SOFTHCA_CAP_GSI | SOFTHCA_CAP_FAST_REG |
				      SOFTHCA_CAP_PA_MKEY |
				      SOFTHCA_CAP_CQ_MODERATION);
	caps->max_qp = cpu_to_le32(SOFTHCA_HW_COUNT(QP));
	caps->max_qp_wr = cpu_to_le32(SOFTHCA_HW_MAX_QP_WR);
	caps->max_sge = cpu_to_le32(SOFTHCA_HW_MAX_SGE);
	caps->max_sge_rd = cpu_to_le32(SOFTHCA_HW_MAX_SGE);
	caps->max_cq = cpu_to_le32(SOFTHCA_HW_COUNT(CQ));
	caps->max_cqe = cpu_to_le32(BIT(SOFTHCA_HW_LOG_MAX_CQ) - 1);
	caps->max_mr = cpu_to_le32(SOFTHCA_HW_COUNT(MKEY));
	caps->max_pd = cpu_to_le32(SOFTHCA_HW_COUNT(PD));
	caps->max_srq = cpu_to_le32(SOFTHCA_HW_COUNT(SRQ));
	caps->max_srq_wr = cpu_to_le32(BIT(SOFTHCA_HW_LOG_MAX_SRQ) - 1);
	caps->max_srq_sge = cpu_to_le32(SOFTHCA_HW_MAX_SGE);
	caps->max_ah = cpu_to_le32(SOFTHCA_HW_MAX_AH);
	caps->max_fast_reg_pages = cpu_to_le32(SOFTHCA_HW_MAX_FAST_REG_PAGES);
	caps->max_cq_count = cpu_to_le32(SOFTHCA_HW_MAX_CQ_COUNT);
	caps->max_cq_period_us = cpu_to_le32(SOFTHCA_HW_MAX_CQ_PERIOD_US);
	caps->max_qp_rd_atom = cpu_to_le32(SOFTHCA_HW_MAX_RD_ATOM);
	caps->max_qp_init_rd_atom = cpu_to_le32(SOFTHCA_HW_MAX_RD_ATOM);
	caps->max_inline_data = cpu_to_le32(SOFTHCA_HW_MAX_INLINE);
	caps->max_uar = cpu_to_le32(SOFTHCA_HW_COUNT(UAR));
	caps->max_eq = cpu_to_le32(SOFTHCA_HW_COUNT(EQ));
	caps->max_comp_vectors = cpu_to_le32(SOFTHCA_HW_MAX_COMP_VECTORS);
	caps->log_max_eq_size = cpu_to_le32(SOFTHCA_HW_LOG_MAX_EQ);
	caps->max_msg_size = cpu_to_le32(SOFTHCA_HW_MAX_MSG);
	caps->max_mtu = cpu_to_le32(SOFTHCA_HW_MAX_MTU);
	caps->gid_table_len = cpu_to_le32(SOFTHCA_HW_GID_TBL_LEN);
	caps->local_ca_ack_delay = cpu_to_le32(SOFTHCA_HW_ACK_DELAY);
	caps->cqe_size = cpu_to_le32(SOFTHCA_CQE_SIZE);
	caps->dbrec_align = cpu_to_le32(8);
}

u8 softhca_hw_cmd_query_caps(struct softhca_hw *hw,
			     struct softhca_hw_cmd_ctx *c)
{
	softhca_hw_caps_fill(hw, c->out);
	return SOFTHCA_CMD_STAT_OK;
}
