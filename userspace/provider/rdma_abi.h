/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which rdma-core releases this build of the provider can run with.
 *
 * Every rdma-core release from 34 on exports the same private provider ABI
 * name (IBVERBS_PRIVATE_34, providers named -rdmav34.so), so the dynamic
 * linker lets a provider built for one release load into the libibverbs of
 * another. The private structs softhca restates (rdma_private.h) are the
 * same in 44 and 56, but two public structs that libibverbs and the
 * provider both lay out are not:
 *   45  ibv_qp_ex gains wr_flush: verbs_qp::comp_mask moves 8 bytes, so
 *       ibv_qp_to_qp_ex() of a newer libibverbs reads the provider's
 *       xrcd pointer as comp_mask (and an older one the other way round);
 *   49  ibv_port_attr gains active_speed_ex, which query_port fills.
 * A build serves the releases of its layout epoch only, and only those
 * whose headers were read (up to 56, Debian 13's); alloc_device refuses
 * any other libibverbs, loudly, before any object of it is laid out.
 */
#ifndef SOFTHCA_RDMA_ABI_H
#define SOFTHCA_RDMA_ABI_H

#include <infiniband/verbs.h>

#include <type_traits>

#ifndef SOFTHCA_RDMA_CORE
#error "SOFTHCA_RDMA_CORE (the rdma-core release built against) is unset"
#endif

namespace softhca {
namespace rdma_abi {

/* The release the headers came from (CMake reads it off libibverbs). */
constexpr unsigned built_for = SOFTHCA_RDMA_CORE;

/* Releases laid out alike, oldest first; nothing outside them is served. */
struct Epoch {
	unsigned first;
	unsigned last;
};

constexpr Epoch epochs[] = {
	{ 44, 44 }, /* Debian 12 */
	{ 45, 48 }, /* ibv_qp_ex::wr_flush */
	{ 49, 56 }, /* ibv_port_attr::active_speed_ex; Debian 13 is 56 */
};

/* The index in epochs[] of @release's epoch; -1 when none has it. */
constexpr int epoch_of(unsigned release)
{
	for (unsigned i = 0; i < sizeof(epochs) / sizeof(epochs[0]); i++)
		if (release >= epochs[i].first && release <= epochs[i].last)
			return static_cast<int>(i);
	return -1;
}

static_assert(epoch_of(built_for) >= 0,
	      "rdma-core release outside the ones whose layouts were checked");

/* The headers must be the release's: each epoch's marker member. */
template <typename T, typename = void>
struct has_wr_flush : std::false_type {
};
template <typename T>
struct has_wr_flush<T, std::void_t<decltype(&T::wr_flush)>> : std::true_type {
};
template <typename T, typename = void>
struct has_active_speed_ex : std::false_type {
};
template <typename T>
struct has_active_speed_ex<T, std::void_t<decltype(&T::active_speed_ex)>>
    : std::true_type {
};

static_assert(has_wr_flush<ibv_qp_ex>::value == (built_for >= 45),
	      "SOFTHCA_RDMA_CORE does not match verbs.h (ibv_qp_ex::wr_flush)");
static_assert(has_active_speed_ex<ibv_port_attr>::value == (built_for >= 49),
	      "SOFTHCA_RDMA_CORE does not match verbs.h (active_speed_ex)");

/* A build for @built serves libibverbs of release @running. */
constexpr bool serves(unsigned built, unsigned running)
{
	return epoch_of(built) >= 0 && epoch_of(built) == epoch_of(running);
}

/*
 * The release in a libibverbs file name, libibverbs.so.1.<minor>.<release>
 * [.<patch>] (any directory before it); 0 when @path is not one.
 */
unsigned release_of_path(const char *path);

/*
 * The release of the libibverbs this process runs (the file that defines
 * ibv_get_device_list, its links followed); 0 when it cannot be told.
 */
unsigned running_release();

/*
 * true when this build may run with the libibverbs of @running; otherwise
 * says why on stderr (once per process) and returns false.
 */
bool check(unsigned running);

} /* namespace rdma_abi */
} /* namespace softhca */

#endif /* SOFTHCA_RDMA_ABI_H */
