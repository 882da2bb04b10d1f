# SPDX-License-Identifier: GPL-2.0
#
# The legs of make check, one target each (scripts/check runs this file
# and prints the summary; make check-quick runs its quick legs).
#
#   make -f tests/check.mk host-legs  [-j2]   unit suites, style, install, dkms
#   make -f tests/check.mk vm-legs            one VM leg after the other
#   make -f tests/check.mk quick-legs [-j2]   make check-quick's legs
#   make -f tests/check.mk leg-NAME           one leg, e.g. leg-vm-6.1
#   make -f tests/check.mk -s print-legs      the legs check would run
#
# Each leg runs through scripts/leg: LOGS/NAME.log, .status and .secs, and
# it never fails the make run (the summary counts its TAP lines).  A leg
# has a wall-clock bound (scripts/leg --secs, 900 s unless its rule says):
# about three times what it takes on a quiet machine, so that a stuck run
# fails its leg instead of taking CI past its 90 minutes.  A VM's own
# --timeout sits below its leg's bound, so that the VM's verdict (and its
# console) is what a stuck guest reports.  VM legs
# run one at a time: each VM has 2 vCPUs under TCG, so one fills both of
# the machine's cores, and timing-sensitive cases failed beside another.
#
# CHECK_KERNELS (6.1 6.12 debug), CHECK_MODES (root user) and CHECK_RDMA
# (1; 0 leaves the RDMA legs out) narrow it.

TOP	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
BUILD	:= $(TOP)/build
LOGS	?= $(BUILD)/check
LEG	:= $(TOP)/scripts/leg $(LOGS)
VMRUN	:= $(TOP)/tests/vm/run
KERNELS	:= $(or $(CHECK_KERNELS),6.1 6.12 debug)
MODES	:= $(or $(CHECK_MODES),root user)
RDMA	:= $(or $(CHECK_RDMA),1)
has	= $(filter $(1),$(KERNELS))

UNIT_SUITES := core tool adxl llm_datadist abi acl mstx rdma securec python

HOST_LEGS := $(UNIT_SUITES:%=unit-%) style install dkms
# host-legs starts them longest first (make -j2 takes its prerequisites
# in order), so that a long leg does not begin when the others are done:
# style 74 s and dkms 38 s beside the rest in the last clean-clone run
# started last and ran on alone (and unit-core, 77 s with the copy-thread
# tests under valgrind, on 2026-11-28).  The summary keeps HOST_LEGS'
# order.
HOST_ORDER := unit-core style dkms unit-llm_datadist unit-adxl unit-acl \
	      unit-rdma unit-abi install unit-tool unit-mstx unit-python \
	      unit-securec
HOST_ORDER += $(filter-out $(HOST_ORDER),$(HOST_LEGS))
VM_LEGS	:= $(foreach k,debug 6.12 6.1,$(if $(call has,$(k)),vm-$(k))) \
	   $(foreach k,$(KERNELS),pressure-$(k)) \
	   $(if $(call has,6.12),pair-6.12) \
	   $(if $(filter 1,$(RDMA)),$(foreach k,$(filter-out debug,$(KERNELS)),rdma-$(k))) \
	   $(if $(call has,6.1),arm64)
QUICK_LEGS := $(UNIT_SUITES:%=quick-unit-%) quick-vm-6.1

.PHONY: host-legs vm-legs quick-legs print-legs print-quick-legs
host-legs: $(HOST_ORDER:%=leg-%)
vm-legs:
	@for l in $(VM_LEGS); do $(MAKE) -s -f $(lastword $(MAKEFILE_LIST)) leg-$$l || exit 1; done
quick-legs: $(QUICK_LEGS:%=leg-%)
print-legs:
	@echo $(HOST_LEGS) $(VM_LEGS)
print-quick-legs:
	@echo $(QUICK_LEGS)

export CMOCKA_MESSAGE_OUTPUT := TAP

# ------------------------------------------------------------------- host
leg-unit-%:
	@$(LEG) unit-$* -- $(MAKE) -s -C $(TOP)/tests/unit/$* run BUILD=$(BUILD)
leg-quick-unit-%:
	@$(LEG) quick-unit-$* -- $(MAKE) -s -C $(TOP)/tests/unit/$* unit BUILD=$(BUILD)
# style's sparse runs in scripts/build-module's build of memreg.ko for 6.1
# and 6.12 (build/kmod/RELEASE, make C=2): the VM legs of those kernels
# then find the module built, and compile nothing in their set-up.
leg-style:
	@$(LEG) style -- $(TOP)/tests/style/check
leg-install:
	@$(LEG) install -- $(TOP)/tests/install/check
leg-dkms:
	@$(LEG) dkms -- $(TOP)/tests/dkms/check-kernels $(filter-out debug,$(KERNELS))

# --------------------------------------------------------------------- VMs
# One boot per kernel (tests/vm/boot-legs): the suite as root, then as uid
# 1000, then (debug) the fuzzer; a boot of a Debian kernel costs 15-20 s
# under TCG, of the debug kernel 40-60 s.  Devices of 256 MiB, so that
# filling one is quick and fits the guest.
#
# What runs where.  The whole suite as root on 6.12, and as the user all
# but the audit (below).  On
# 6.1 and the debug kernel (KASAN, kmemleak, lockdep) as root, all but the
# library-only cases -- acl.sh, adxl.sh and mstx.sh drive the ioctls that
# the itest_ programs and the other cases drive, and the rest of their time
# is the library's, which does not change with the kernel -- and as the
# user what reaches the kernel's refusals as an unprivileged caller: the
# raw-ioctl programs (not on debug), the adversary and the limits.
#
# The structured fuzzer (memreg_fuzz) runs for 45 s after the suites on
# the debug kernel, as root and as uid 1000 at once (two minutes until
# 2026-11-27: the rest went to the 20-minute budget; each run draws new
# seeds, so CI's runs add up); the long run is make fuzz, 30 minutes.  With the default devices (two of 1 GiB) in a 1 GiB guest
# the fuzzers' device memory left the RAM reserve, and the OOM killer then
# killed a worker (twice in CI, 2026-11-25/26): running out of RAM is the
# 512 MB legs' test.
VM_ROOT_6.12	:= all
# The audit's rows run as uid 1000 in the root run (in a memory cgroup,
# which the user cannot make); run again as the user after the root run in
# the same boot, its MemFree deltas measured the root run's leftovers being
# freed (4620 B an import against a bound of 2048, fresh-ci 2026-11-27).
# python.sh (the Python packages, two processes each) as root, on 6.12
# alone: library code, like acl.sh and adxl.sh.  Its python3 is
# tests/vm/python-tree's, added to this leg's VM only (6 MB gzipped in
# the initramfs); the case skips in a VM without it.
# restart.sh (a peer restarted at its name and addresses: library code
# over the module's EOWNERDEAD, which itest_xfer checks on every kernel)
# as root on 6.12 alone; 20 s under load.
# Not mstx.sh as the user either: library code over the ioctl that
# itest_ programs and the fuzzer drive as uid 1000.  Nor adxl.sh (24 s):
# the same library code as in the root run, over ioctls the itest_
# programs drive as uid 1000; what a user's engine meets from another
# user is adxl_trust.sh's.
VM_USER_6.12	:= -audit -python -restart -mstx -adxl
VM_ADD_6.12	= $(if $(wildcard $(BUILD)/pyvm/bin/python3),--add $(BUILD)/pyvm \
		  --env MEMREG_VM_PYTHON=$(BUILD)/pyvm)
VM_ROOT_6.1	:= -acl -adxl -mstx -python -restart
VM_USER_6.1	:= itest_ adversary limits
# Not the audit on the debug kernel: its rows' bounds are what 6.1 and
# 6.12 allocate (KASAN's redzones and quarantine move MemFree by more than
# a row measures), and the paths that make its objects run there under
# KASAN in the itest_ programs and the fuzzer (39 s a run).
# Nor tool.sh (the tool's output and options, 31 s there): the netlink
# commands it drives run on the debug kernel in itest_netlink,
# itest_devnl, listing.sh, cgroup.sh and the fuzzer's netlink generator.
VM_ROOT_debug	:= $(VM_ROOT_6.1) -audit -tool
# As the user on the debug kernel, only the hostile user and the limits:
# the raw-ioctl programs' refusals as uid 1000 are the same code as on 6.1
# and 6.12, and KASAN sees their paths as root (55 s a run here).
VM_USER_debug	:= adversary limits
VM_EXTRA_debug	:= fuzz.sh
# cgroup.sh (limits per cgroup v2 node) is in every kernel's root run
# (it makes cgroups, so it skips as the user): 10-27 s on 6.1, 26-58 s on
# 6.12, 35 s on the debug kernel, which has CONFIG_CGROUPS for it (host
# load 3 on 2 cores, 2026-11-27).  The fuzzer there moves its workers
# between two cgroups with changing limits.
# A quiet run: debug 430-480 s, 6.12 230-250 s, 6.1 90-100 s.
VM_SECS_debug	:= 1400
VM_SECS_6.12	:= 800
VM_SECS_6.1	:= 400
# The leg's bound is the VM's timeout and 120 s of set-up, and for the
# debug kernel the time to build it where it is not cached yet (a fresh
# machine: 300 s quiet, 820 s beside other work): the VM's --timeout
# counts qemu's run only.
LEG_SECS_debug	:= $(shell echo $$(($(VM_SECS_debug) + 120 + 1200)))
mode	= $(if $(filter $(2),$(MODES)),$(1),none)

leg-vm-%:
	@$(LEG) vm-$* --vm --secs $(or $(LEG_SECS_$*),$$(($(VM_SECS_$*) + 120))) -- \
		$(VMRUN) --kernel $* --timeout $(VM_SECS_$*) \
		--add /usr/bin/jq $(VM_ADD_$*) --modparam dev_capacity=$$((256 << 20)) -- \
		boot-legs "$(call mode,$(VM_ROOT_$*),root)" \
		"$(call mode,$(VM_USER_$*),user)" $(VM_EXTRA_$*)

# make check-quick: the core cases on 6.1, as root, in one boot.
leg-quick-vm-6.1:
	@$(LEG) quick-vm-6.1 --vm -- $(VMRUN) --kernel 6.1 --timeout 600 \
		--add /usr/bin/jq --modparam dev_capacity=$$((256 << 20)) -- \
		boot-legs "itest_ limits lib devxfer" none

# A VM with less RAM (512 MB) than its two emulated devices (1 GiB each, the
# defaults): filling them ends with ENOMEM at the RAM reserve, as root, as
# the user and in a memory cgroup; a holder of device memory that the OOM
# killer must see is the one killed.  A memory cgroup cannot stand in for
# the small VM: the RAM reserve and the OOM killer are the whole machine's.
leg-pressure-%:
	@$(LEG) pressure-$* --vm --secs 400 -- \
		$(VMRUN) --kernel $* --mem 512 --timeout 300 \
		--add /usr/bin/jq -- devmem_pressure.sh

# Two VMs, two modules: ADXL across hosts over UCX (TCP), with one host
# powered off mid-transfer and booted again, and a peer process killed and
# started again at its port and addresses (tests/vm/adxl-pair).  On 6.12
# only: the RDMA legs put the module of both kernels in two VMs.
leg-pair-6.12:
	@$(LEG) pair-6.12 --vm --secs 600 -- $(TOP)/tests/vm/adxl-pair --kernel 6.12

# arm64 (tests/arm64/run): memreg.ko, libmemreg, the tool and test programs
# cross built with Debian's aarch64-linux-gnu toolchain against Debian's
# arm64 6.1 kernel (same ABI as the amd64 6.1 one), then one boot of that
# kernel in qemu-system-aarch64 (TCG, -cpu max: PAC, BTI, LSE) with a
# busybox initramfs: the module loads, libmemreg.so registers, device
# memory is registered as a dma-buf, the tool lists both over netlink, six
# of the suite's itest_ programs run as root, the module unloads, no pin
# is left.  A smoke, not the suite: the rest is the same C on both
# architectures; what only this leg sees is that it builds and runs on the
# other one (the UAPI's layout, the module against arm64's kernel).  With
# 6.1 in CHECK_KERNELS, since it boots a 6.1.
leg-arm64:
	@$(LEG) arm64 --secs 600 -- $(TOP)/tests/arm64/run

# Two VMs with soft-RoCE (rdma_rxe on the same link): each on its own
# device, memreg device memory in an RDMA memory region and the plugin's
# per-peer memory windows (step verbs); then ADXL over RDMA, one-sided READ
# and WRITE of host and device memory, revocation of 15 registrations under
# one Connect and kill -9 of either side mid-transfer (step adxl); a's
# server killed and started again at its port and addresses, b's stale
# transfers refused (step restart, adxl_pair.sh's over RDMA; on 6.1 only:
# the library's code, the same on both kernels, and 6.12's rdma_rxe is the
# one that crashes under TCG).  Then, in
# the same boots: on 6.12, a host that loses power while both read each
# other's memory (--power); on 6.1, fan-in (--fanin): a third VM, c, on a
# hub with a and b, waits while they run the steps, and then a's one engine
# reads from b and c at once.  Debian 6.12's rdma_rxe took a double fault
# in its requester in one of seven runs under TCG: such a crash has no
# memreg function in it, and the leg runs once more (--vm).
leg-rdma-%:
	@$(LEG) rdma-$* --vm --secs 600 -- $(TOP)/tests/vm/rdma-pair --kernel $* \
		--only "verbs adxl$(if $(filter 6.1,$*), restart)" \
		$(if $(filter 6.12,$*),--power,--fanin)
