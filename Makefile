# memreg - top-level build.
#
#   make            the library, the tool and the Python packages (what
#                   make install installs; the packages where python3-dev
#                   and pybind11-dev are)
#   make all        ... and the test programs (userspace)
#   make module     memreg.ko for KDIR (default: the running kernel)
#   make check      install what is missing, build, run every test; ends
#                   with every leg's seconds and "N passed, N failed"
#   make check-quick  the unit suites' cmocka tests and one 6.1 boot of the
#                   core VM cases (the inner loop; a few minutes)
#   make bench      every benchmark (one VM boot per kernel, native micro-
#                   benchmarks); report in build/bench/report.md
#   make fuzz       the fuzzer for 30 minutes in a VM on the debug kernel
#                   (scripts/fuzz: --minutes, --seed, --kernel; here
#                   FUZZ_ARGS='--minutes 5 --seed N')
#   make demo       boot a VM with the module and show two processes'
#                   registrations with the memreg tool
#   make install    (root) DKMS module, udev rule, library, headers, tool,
#                   man pages; make uninstall removes all of it.  PREFIX
#                   (/usr/local) and DESTDIR (a packager's staging root:
#                   no DKMS run, no root needed) as usual
# The one version of memreg (the package, the library file, the tool, the
# module, DKMS): the file VERSION, read by every part that shows it.
VERSION		:= $(shell cat $(CURDIR)/VERSION)
BUILD		:= $(CURDIR)/build
PREFIX		?= /usr/local
KVER		?= $(shell uname -r)
KDIR		?= /lib/modules/$(KVER)/build

# Plain `make` builds what `make install` installs, with only the packages
# the README's Install section names; `make all` adds the test programs,
# which need the test rig's (scripts/install-deps).
.DEFAULT_GOAL := build
build: lib tool python

all: lib tool python tests

lib:
	$(MAKE) -C lib BUILD=$(BUILD)

tool:
	$(MAKE) -C tools/memreg BUILD=$(BUILD)

# hixl and llm_datadist (python/Makefile), on lib's libraries.
python: lib
	$(MAKE) -C python BUILD=$(BUILD)

# The VM suite runs the library's example against the real module too,
# and the Python packages with the python3 of tests/vm/python-tree.
tests: lib python
	$(MAKE) -C tests/vm/progs BUILD=$(BUILD)
	$(MAKE) -C examples BUILD=$(BUILD)
	cp $(BUILD)/examples/register $(BUILD)/tests/bin/example_register
	tests/vm/python-tree $(BUILD)

module:
	scripts/build-module $(KDIR) $(BUILD)/kmod/$(KVER)

check:
	scripts/check

check-quick:
	scripts/check --quick

demo:
	scripts/demo

fuzz:
	scripts/fuzz $(FUZZ_ARGS)

bench:
	scripts/bench

# Not "install: lib tool": under sudo that would build as root in the
# user's tree.  scripts/install builds as the checkout's owner.
install:
	VERSION=$(VERSION) PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) scripts/install

uninstall:
	VERSION=$(VERSION) PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) scripts/uninstall

clean:
	rm -rf $(BUILD)

.PHONY: build all lib tool python tests module check check-quick demo fuzz bench install uninstall clean
