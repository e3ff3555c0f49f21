# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# softhca: one entry point. See README.md.
#
#   make            build kernel/softhca.ko (against the Debian kernel the
#                   test VM boots) and the provider, in build/
#   make demo       set everything up, boot the VM, show softhca0
#   make test       install what is missing, build, lint, run every test;
#                   ends with "N passed, N failed"
#   make lint       checkpatch --strict, sparse, clang-format, clang-tidy
#   make kunit      KUnit suites in a QEMU-booted KUnit kernel
#   make vm-test    the VM integration tests only
#   make vm-test-debug  the VM tests on the debug kernel (KASAN, lockdep,
#                   kmemleak, UBSAN, fault injection; built from
#                   linux-source-6.1, the kernel KUnit runs in too): the
#                   groups make test runs there
#   make vm-test-debug-all  the whole VM suite on it (but t90, the Debian
#                   packages; about 40 minutes)
#   make debug-kernel   build (or reuse) that kernel
#   make host-test  the provider's host unit tests only
#   make bench      perftest (and NVMe/RDMA) on softhca vs rxe in one VM
#                   boot, then across two VMs (SOFTHCA_BENCH_PARTS)
#   make shell      a root shell in the test VM with softhca0 up (for
#                   learners: Documentation/watching.rst; not a test)
#   make htmldocs   Documentation/ as HTML in build/htmldocs (Sphinx, -W)
#   make install [DESTDIR=dir]   module and provider
#   make deb        Debian packages softhca-dkms and libsofthca in build/deb
#                   (debhelper, dh-dkms), checked with lintian
#
# KABI=6.1.0-N picks another Debian kernel ABI (default: what bookworm's
# linux-image-amd64 depends on). KSERIES=6.12 builds the module for, and
# boots the VM tests on, Debian 12's 6.12 kernel instead (the series Debian
# 13 ships; the module goes to build/kernel-<kver>/kernel/softhca.ko; the
# groups marked k612, t10, unless SOFTHCA_VM_TESTS names others), e.g.
#   make KSERIES=6.12 module
#   make KSERIES=6.12 vm-test SOFTHCA_VM_TESTS=tests/vm/t30-datapath.sh
# KSERIES=d13 is the Debian 13 guest: its root file system (mmdebstrap,
# .cache/debian13/root) with Debian 13's kernel and rdma-core 56, the
# module and the provider built inside it (the provider and test programs
# in build/userspace-d13), e.g.
#   make KSERIES=d13 vm-test      (the groups marked debian13: t10, t30)
#   make KSERIES=d13 shell
# Caches live in .cache/ (git-ignored).

SHELL := /bin/bash
ifdef KABI
export SOFTHCA_KABI := $(KABI)
endif
ifdef KSERIES
export SOFTHCA_KSERIES := $(KSERIES)
endif

.PHONY: all module provider deps kernel demo test lint kunit vm-test \
	vm-test-debug vm-test-debug-all debug-kernel module-debug host-test bench shell \
	htmldocs install deb clean distclean

all: module provider

module:
	@scripts/build.sh module

provider:
	@scripts/build.sh provider $(if $(filter d13,$(KSERIES)),provider-d13)

module-debug:
	@scripts/build.sh module-debug

debug-kernel:
	@scripts/debug-kernel.sh >/dev/null

deps:
	@scripts/deps.sh

kernel:
	@scripts/fetch-kernel.sh

demo:
	@scripts/demo.sh

test:
	@tests/run.sh

lint:
	@scripts/lint.sh

kunit:
	@scripts/kunit.sh

vm-test: all
	@tests/vm-tests.sh

vm-test-debug: provider module-debug
	@SOFTHCA_VM_KERNEL=debug tests/vm-tests.sh

vm-test-debug-all: provider module-debug
	@tests/vm-tests-debug-all.sh

host-test: provider
	@tests/host-tests.sh

bench: all
	@scripts/bench.sh

shell: all
	@scripts/shell.sh

htmldocs:
	@scripts/htmldocs.sh

install:
	@scripts/install.sh

deb:
	@scripts/deb.sh

clean:
	rm -rf build
	rm -f kernel/*.o kernel/hw/*.o kernel/*.ko kernel/*.mod kernel/*.mod.c \
	      kernel/.*.cmd kernel/hw/.*.cmd kernel/Module.symvers \
	      kernel/modules.order
	rm -f tests/kunit/*.o tests/kunit/*.ko tests/kunit/*.mod \
	      tests/kunit/*.mod.c tests/kunit/.*.cmd tests/kunit/Module.symvers \
	      tests/kunit/modules.order

distclean: clean
	rm -rf .cache
