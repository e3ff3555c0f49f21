// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the port's GID table. The driver loads it from
 * ib_core's RoCE GID management (add_gid/del_gid); the loopback transport
 * accepts a destination GID only if it is one of these. Every packet reads
 * it, SET_GID rarely writes it: a seqlock, so readers write no shared
 * cache line.
 */
#include "hw.h"

u8 softhca_hw_cmd_set_gid(struct softhca_hw *hw, struct softhca_hw_cmd_ctx *c)
{
	const struct softhca_set_gid_in *in = c->in;
	u32 index = le32_to_cpu(in->index);

	if (index >= SOFTHCA_HW_GID_TBL_LEN) {
		c->syndrome = SOFTHCA_SYND_GID_INDEX;
		return SOFTHCA_CMD_STAT_BAD_PARAM;
	}
	write_seqlock_bh(&hw->gid_lock);
	memcpy(hw->gids[index], in->gid, sizeof(in->gid));
	if (in->valid)
		__set_bit(index, hw->gid_valid);
	else
		__clear_bit(index, hw->gid_valid);
	write_sequnlock_bh(&hw->gid_lock);
	atomic64_inc(&hw->path_gen);
	return SOFTHCA_CMD_STAT_OK;
}

/* Is GID table entry @index valid and equal to @gid? */
bool softhca_hw_gid_matches(struct softhca_hw *hw, u32 index, const u8 *gid)
{
	unsigned int seq;
	bool ret;

	if (index >= SOFTHCA_HW_GID_TBL_LEN)
		return false;
	do {
		seq = read_seqbegin(&hw->gid_lock);
		ret = test_bit(index, hw->gid_valid) &&
		      !memcmp(hw->gids[index], gid, 16);
	} while (read_seqretry(&hw->gid_lock, seq));
	return ret;
}

/* GID table entry @index into @gid; false if it is not valid. */
bool softhca_hw_gid_get(struct softhca_hw *hw, u32 index, u8 *gid)
{
	unsigned int seq;
	bool ret;

	if (index >= SOFTHCA_HW_GID_TBL_LEN)
		return false;
	do {
		seq = read_seqbegin(&hw->gid_lock);
		ret = test_bit(index, hw->gid_valid);
		if (ret)
			memcpy(gid, hw->gids[index], 16);
	} while (read_seqretry(&hw->gid_lock, seq));
	return ret;
}

/* Is @gid one of the port's GIDs? */
bool softhca_hw_gid_is_local(struct softhca_hw *hw, const u8 *gid)
{
	unsigned int i, seq;
	bool ret;

	do {
		seq = read_seqbegin(&hw->gid_lock);
		ret = false;
		for_each_set_bit(i, hw->gid_valid, SOFTHCA_HW_GID_TBL_LEN) {
			if (!memcmp(hw->gids[i], gid, 16)) {
				ret = true;
				break;
			}
		}
	} while (read_seqretry(&hw->gid_lock, seq));
	return ret;
}
