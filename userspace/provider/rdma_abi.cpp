// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The run-time half of rdma_abi.h: which libibverbs this process runs. */
#include "rdma_abi.h"

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

namespace softhca {
namespace rdma_abi {

namespace {

/* A decimal number at @s, advancing @s past it; -1 when there is none. */
long number(const char *&s)
{
	long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s++ - '0');
		if (v > 100000)
			return -1;
	}
	return v;
}

} /* namespace */

unsigned release_of_path(const char *path)
{
	static const char stem[] = "libibverbs.so.1.";
	const char *base = path ? std::strrchr(path, '/') : nullptr;
	const char *s = base ? base + 1 : path;

	if (!s || std::strncmp(s, stem, sizeof(stem) - 1) != 0)
		return 0;
	s += sizeof(stem) - 1;
	if (number(s) < 0 || *s++ != '.') /* the library's minor */
		return 0;
	long release = number(s);
	if (release <= 0 || (*s != '\0' && *s != '.'))
		return 0;
	if (*s == '.') { /* the release's patch level */
		++s;
		if (number(s) < 0 || *s != '\0')
			return 0;
	}
	return static_cast<unsigned>(release);
}

unsigned running_release()
{
	Dl_info info{};
	char real[PATH_MAX];
	auto *sym = reinterpret_cast<void *>(&ibv_get_device_list);

	if (!dladdr(sym, &info) || !info.dli_fname)
		return 0;
	if (!realpath(info.dli_fname, real))
		return 0;
	return release_of_path(real);
}

bool check(unsigned running)
{
	static std::atomic<bool> said{ false };

	if (serves(built_for, running))
		return true;
	if (!said.exchange(true)) {
		const Epoch *e = &epochs[epoch_of(built_for)];

		if (running && e->first == e->last)
			(void)std::fprintf(
				stderr,
				"softhca: this provider was built for "
				"rdma-core %u and runs only with libibverbs of "
				"that release, not %u: install the libsofthca "
				"built for rdma-core %u; softhca devices are "
				"left out\n",
				built_for, running, running);
		else if (running)
			(void)std::fprintf(
				stderr,
				"softhca: this provider was built for "
				"rdma-core %u and runs only with libibverbs of "
				"rdma-core %u to %u, not %u: install the "
				"libsofthca built for rdma-core %u; softhca "
				"devices are left out\n",
				built_for, e->first, e->last, running, running);
		else
			(void)std::fprintf(
				stderr,
				"softhca: cannot tell which rdma-core "
				"this libibverbs is (built for %u); "
				"softhca devices are left out\n",
				built_for);
	}
	return false;
}

} /* namespace rdma_abi */
} /* namespace softhca */
