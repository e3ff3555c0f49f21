// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the BTH opcode table. What each opcode carries
 * (extension headers, payload) and does (first or last packet of a
 * message, consumes a receive WQE, ...), for the requester building
 * packets, the responder and completer taking them, and the wire
 * (de)serialising them. IBTA vol 1, 9.2 and 9.3; the same table rxe's
 * rxe_opcode.c spells out.
 */
#include "hw.h"

#define OP_F	SOFTHCA_OPM_FIRST
#define OP_L	SOFTHCA_OPM_LAST
#define OP_P	SOFTHCA_OPM_PAYLOAD
#define OP_Q	(SOFTHCA_OPM_REQUEST | SOFTHCA_OPM_VALID)
#define OP_A	(SOFTHCA_OPM_VALID)
#define OP_SEND	(SOFTHCA_OPM_SEND | OP_Q | OP_P)
#define OP_WRITE	(SOFTHCA_OPM_WRITE | OP_Q | OP_P)
#define OP_RRESP	(SOFTHCA_OPM_READ_RESP | OP_A | OP_P)

/* By operation (the opcode's low 5 bits), for RC; UC and UD take a subset. */
static const u32 softhca_hw_ops[32] = {
	[SOFTHCA_OP_SEND_FIRST]		= OP_SEND | OP_F,
	[SOFTHCA_OP_SEND_MIDDLE]	= OP_SEND,
	[SOFTHCA_OP_SEND_LAST]		= OP_SEND | OP_L,
	[SOFTHCA_OP_SEND_LAST_IMM]	= OP_SEND | OP_L | SOFTHCA_OPM_IMMDT,
	[SOFTHCA_OP_SEND_ONLY]		= OP_SEND | OP_F | OP_L,
	[SOFTHCA_OP_SEND_ONLY_IMM]	= OP_SEND | OP_F | OP_L | SOFTHCA_OPM_IMMDT,
	[SOFTHCA_OP_WRITE_FIRST]	= OP_WRITE | OP_F | SOFTHCA_OPM_RETH,
	[SOFTHCA_OP_WRITE_MIDDLE]	= OP_WRITE,
	[SOFTHCA_OP_WRITE_LAST]		= OP_WRITE | OP_L,
	[SOFTHCA_OP_WRITE_LAST_IMM]	= OP_WRITE | OP_L | SOFTHCA_OPM_IMMDT |
					  SOFTHCA_OPM_SEND,
	[SOFTHCA_OP_WRITE_ONLY]		= OP_WRITE | OP_F | OP_L | SOFTHCA_OPM_RETH,
	[SOFTHCA_OP_WRITE_ONLY_IMM]	= OP_WRITE | OP_F | OP_L | SOFTHCA_OPM_RETH |
					  SOFTHCA_OPM_IMMDT | SOFTHCA_OPM_SEND,
	[SOFTHCA_OP_READ_REQUEST]	= SOFTHCA_OPM_READ | OP_Q | OP_F | OP_L |
					  SOFTHCA_OPM_RETH,
	[SOFTHCA_OP_READ_RESP_FIRST]	= OP_RRESP | OP_F | SOFTHCA_OPM_AETH,
	[SOFTHCA_OP_READ_RESP_MIDDLE]	= OP_RRESP,
	[SOFTHCA_OP_READ_RESP_LAST]	= OP_RRESP | OP_L | SOFTHCA_OPM_AETH,
	[SOFTHCA_OP_READ_RESP_ONLY]	= OP_RRESP | OP_F | OP_L | SOFTHCA_OPM_AETH,
	[SOFTHCA_OP_ACK]		= SOFTHCA_OPM_ACK | OP_A | OP_F | OP_L |
					  SOFTHCA_OPM_AETH,
	[SOFTHCA_OP_ATOMIC_ACK]		= SOFTHCA_OPM_ACK | OP_A | OP_F | OP_L |
					  SOFTHCA_OPM_AETH | SOFTHCA_OPM_ATMACK,
	[SOFTHCA_OP_CMP_SWAP]		= SOFTHCA_OPM_ATOMIC | OP_Q | OP_F | OP_L |
					  SOFTHCA_OPM_ATMETH,
	[SOFTHCA_OP_FETCH_ADD]		= SOFTHCA_OPM_ATOMIC | OP_Q | OP_F | OP_L |
					  SOFTHCA_OPM_ATMETH,
	[SOFTHCA_OP_SEND_LAST_INV]	= OP_SEND | OP_L | SOFTHCA_OPM_IETH,
	[SOFTHCA_OP_SEND_ONLY_INV]	= OP_SEND | OP_F | OP_L | SOFTHCA_OPM_IETH,
};

/**
 * softhca_hw_opcode_mask - what a BTH opcode is
 * @opcode: the opcode
 *
 * Return: its softhca_hw_op_mask bits (DETH for UD), or 0 for an opcode
 * this transport does not have.
 */
u32 softhca_hw_opcode_mask(u8 opcode)
{
	u8 op = opcode & SOFTHCA_OP_OPERATION_MASK;

	switch (opcode & SOFTHCA_OP_TRANSPORT_MASK) {
	case SOFTHCA_OP_RC:
		return softhca_hw_ops[op];
	case SOFTHCA_OP_UC:
		return op <= SOFTHCA_OP_WRITE_ONLY_IMM ? softhca_hw_ops[op] : 0;
	case SOFTHCA_OP_UD:
		if (op != SOFTHCA_OP_SEND_ONLY && op != SOFTHCA_OP_SEND_ONLY_IMM)
			return 0;
		return softhca_hw_ops[op] | SOFTHCA_OPM_DETH;
	default:
		return 0;
	}
}
