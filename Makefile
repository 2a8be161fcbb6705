# SPDX-License-Identifier: GPL-2.0-only
#
# rdma-ha: RDMA CM high-availability mode, IPoIB-CM keepalives and UC, and a
# soft InfiniBand test device, as a patch series for Linux 6.12.
#
# Everything generated goes to out/ (OUT=...).  See README.md.

SHELL := /bin/bash
DEV := $(CURDIR)/dev
SELFTESTS := $(CURDIR)/vm
export OUT ?= $(CURDIR)/out
# FRESH=1: repeat guest runs whose inputs passed before (see dev/check.sh)
export RDMA_HA_FRESH = $(FRESH)
# LANES=N: guest runs at once (default 2, see dev/check.sh)
# KASAN=1: check, kunit and vmtest with the KASAN kernel too (not CI's check:
# README; see dev/check.sh, kasan_lane)
export RDMA_HA_KASAN = $(KASAN)
ifneq ($(LANES),)
export RDMA_HA_LANES = $(LANES)
endif

.PHONY: all help demo check static kunit vmtest bench dkms check-dkms base src kernel stock debug \
	release stock-release check-seed tools initramfs tree export roundtrip series series-all \
	clean distclean

all: kernel

help:
	@echo "make demo        build the patched kernel, run the failover demo, print the timeline"
	@echo "make check       all tests; ends with 'N passed, N failed, N skipped'"
	@echo "                 (FRESH=1: also repeat guest runs that passed with identical inputs;"
	@echo "                  LANES=N: N guest runs at once, default 2;"
	@echo "                  KASAN=1: with the KASAN kernel's KUnit boot and scenarios)"
	@echo "make static      series, build and static checks only"
	@echo "make kunit       KUnit suites in the patched debug kernel (KASAN=1: and the KASAN one)"
	@echo "make vmtest T=x[,y]  QEMU scenarios (vm/x.sh); K=debian|patched|stock: one kernel"
	@echo "make bench       benchmarks, stock vs patched release kernels (out/bench/report.txt)"
	@echo "make dkms        replacement modules for Debian's kernel (out/dkms); make check-dkms: their checks"
	@echo "make kernel      patched debug kernel  (out/patched/build-debug)"
	@echo "make stock       stock debug kernel    (out/stock/build-debug)"
	@echo "make release     patched release kernel; stock-release likewise"
	@echo "make check-seed  prove a stock kernel seeded from the patched build is the stock kernel"
	@echo "make tree        git work tree of base + new files + series (out/tree)"
	@echo "make export      write out/tree back into the repository"
	@echo "make roundtrip   prove export(import(x)) == x"
	@echo "make series      one bisectable git format-patch series per topic (out/series/N-TOPIC)"
	@echo "make series-all  the whole work as one series (out/series-all)"
	@echo "make clean       remove build outputs; distclean removes out/ entirely"

demo:
	$(DEV)/demo.sh

check:
	$(DEV)/check.sh

static:
	$(DEV)/check.sh --only static

kunit:
	$(DEV)/check.sh --only kunit

vmtest:
	$(DEV)/check.sh --scenario $(T) $(if $(K),--kernel $(K))

dkms:
	$(DEV)/dkms.sh all

check-dkms:
	$(DEV)/check.sh --only dkms

bench:
	$(DEV)/bench.sh

base:
	$(DEV)/prepare-src.sh base

src:
	$(DEV)/prepare-src.sh patched

kernel:
	$(DEV)/build-kernel.sh patched debug

debug: kernel

stock:
	$(DEV)/build-kernel.sh stock debug

release:
	$(DEV)/build-kernel.sh patched release

stock-release:
	$(DEV)/build-kernel.sh stock release

check-seed:
	$(DEV)/check-seed.sh debug

tools:
	$(MAKE) -C tools/rdma O=$(OUT)/tools

initramfs: tools
	$(SELFTESTS)/qemu/build-initramfs.sh $(OUT)/initramfs.cpio
	NVME_TOOLS=1 $(SELFTESTS)/qemu/build-initramfs.sh $(OUT)/initramfs-nvme.cpio
	PYVERBS=1 $(SELFTESTS)/qemu/build-initramfs.sh $(OUT)/initramfs-pyverbs.cpio

tree:
	$(DEV)/tree.sh import

export:
	$(DEV)/tree.sh export

roundtrip:
	$(DEV)/check-roundtrip.sh

series:
	$(DEV)/series.sh --topics $(OUT)/series

series-all:
	$(DEV)/series.sh $(OUT)/series-all

clean:
	rm -rf $(OUT)/patched $(OUT)/stock $(OUT)/check $(OUT)/tools \
		$(OUT)/initramfs*.cpio* $(OUT)/series $(OUT)/series-all $(OUT)/dkms

distclean:
	rm -rf $(OUT)
