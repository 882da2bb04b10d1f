# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The build the suites of tests/unit share: a change to how a test program
# is compiled, linked, run or cleaned is made here once.  A suite's
# Makefile sets, then includes this file:
#
#   SUITE	    its name: the program is $(BUILD)/tests/unit/test_$(SUITE)
#   LIB_SRCS	    library sources compiled again into it, as paths or
#		    wildcards under the top directory
#   INCLUDES	    its -I directories under the top directory, in order
#   TEST_SRCS	    the tests (default: every .c file of the suite)
#   FAKE	    y: it links the fake module of tests/unit/fake, and every
#		    source has -DMEMREG_TESTING (lib/core's ioctl hook)
#   SANITIZE	    default ASan and UBSan; SANITIZE= builds without
#   CFLAGS	    default -O1 -g
#   PTHREAD	    default -pthread; empty where nothing runs threads
#   EXTRA_LIBS	    libraries after -lcmocka
#   EXTRA_OBJS	    more to link, and to build first
#   EXTRA_CPPFLAGS, EXTRA_LDFLAGS
#   LINK	    default $(CC) $(CFLAGS); a C++ program links with $(CXX)
#
# A setting that names BUILD, ASAN or another variable of this file is
# made with =: it is expanded here, once that variable exists.
#
# It gets ROOT, BUILD (absolute), OBJDIR, BINDIR and BIN; LIB_SRCS and
# FAKE_SRCS as absolute paths, their objects LIB_OBJS and FAKE_OBJS;
# T_CPPFLAGS, T_CFLAGS and T_LDLIBS for its own rules; ASAN, sanitizers
# that stop at the first report; the targets unit (runs $(BIN), after
# UNIT_ENV if the suite sets it) and clean (also removes CLEAN); the
# shipped libraries of $(BUILD)/lib; FORCE; the macro sanitized below.
# all is the default goal; the suite says what all builds and what run
# runs (rdma: nothing to build where <infiniband/verbs.h> is missing).

ROOT	:= $(abspath $(CURDIR)/../../..)
FAKE_DIR := $(ROOT)/tests/unit/fake
BUILD	?= $(ROOT)/build
override BUILD := $(abspath $(BUILD))

CFLAGS	 ?= -O1 -g
SANITIZE ?= -fsanitize=address,undefined -fno-omit-frame-pointer
PTHREAD	 ?= -pthread
LINK	 ?= $(CC) $(CFLAGS)
ASAN	 := -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=all

OBJDIR	:= $(BUILD)/obj/tests/unit/$(SUITE)
BINDIR	:= $(BUILD)/tests/unit
BIN	:= $(BINDIR)/test_$(SUITE)

LIB_SRCS  := $(sort $(wildcard $(addprefix $(ROOT)/,$(LIB_SRCS))))
FAKE_SRCS := $(if $(FAKE),$(sort $(wildcard $(FAKE_DIR)/*.c)))
TEST_SRCS ?= $(sort $(wildcard *.c))
# Sources from elsewhere keep their path under the top directory, so that
# lib/adxl/query.c and lib/core/query.c do not share an object.
LIB_OBJS  := $(patsubst $(ROOT)/%,$(OBJDIR)/%.o,$(basename $(LIB_SRCS)))
FAKE_OBJS := $(patsubst $(ROOT)/%,$(OBJDIR)/%.o,$(basename $(FAKE_SRCS)))
OBJS	  := $(LIB_OBJS) $(FAKE_OBJS) \
	     $(addprefix $(OBJDIR)/,$(addsuffix .o,$(basename $(TEST_SRCS))))

T_CPPFLAGS := -D_GNU_SOURCE $(if $(FAKE),-DMEMREG_TESTING) \
	      $(addprefix -I$(ROOT)/,$(INCLUDES)) -I$(CURDIR) \
	      $(if $(FAKE),-I$(FAKE_DIR)) $(EXTRA_CPPFLAGS)
T_CFLAGS   := -std=c11 -Wall -Wextra -Werror $(PTHREAD)
T_LDLIBS   := -lcmocka $(EXTRA_LIBS) $(PTHREAD)

.DEFAULT_GOAL := all
.PHONY: all run unit clean FORCE

$(OBJDIR)/%.o: $(ROOT)/%.c
	@mkdir -p $(@D)
	$(CC) $(T_CPPFLAGS) $(CPPFLAGS) $(T_CFLAGS) $(CFLAGS) $(SANITIZE) -MMD -MP -c -o $@ $<

# The tests by their own name: __FILE__ in a failed check stays short.
$(OBJDIR)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(T_CPPFLAGS) $(CPPFLAGS) $(T_CFLAGS) $(CFLAGS) $(SANITIZE) -MMD -MP -c -o $@ $<

$(BIN): $(OBJS) $(EXTRA_OBJS)
	@mkdir -p $(@D)
	$(LINK) $(SANITIZE) $(EXTRA_LDFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(EXTRA_OBJS) $(T_LDLIBS)

unit: $(BIN)
	$(UNIT_ENV) $(BIN)

# The shipped libraries, as programs get them.  lib/Makefile knows when
# they are stale, so it is asked every time.
$(BUILD)/lib/%.so: FORCE
	$(MAKE) -C $(ROOT)/lib BUILD=$(BUILD)

# $(1): a name, $(2): sanitizer flags.  test_$(SUITE)_$(1) is every source
# built again in one command with them: ThreadSanitizer cannot share a
# program with ASan, nor valgrind run a sanitized one.
define sanitized
CLEAN += $(BINDIR)/test_$(SUITE)_$(1)
$(BINDIR)/test_$(SUITE)_$(1): $(LIB_SRCS) $(FAKE_SRCS) $(TEST_SRCS) \
		$(wildcard *.h $(addsuffix *.h,$(sort $(dir $(LIB_SRCS) $(FAKE_SRCS)))))
	@mkdir -p $$(@D)
	$$(CC) $$(T_CPPFLAGS) $$(T_CFLAGS) -O1 -g $(2) -o $$@ \
		$$(LIB_SRCS) $$(FAKE_SRCS) $$(TEST_SRCS) $$(T_LDLIBS)
endef

clean:
	rm -rf $(OBJDIR) $(BIN) $(CLEAN)

FORCE:

-include $(OBJS:.o=.d)
