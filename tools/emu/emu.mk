# SPDX-License-Identifier: GPL-2.0
#
# Path emulator: builds the NFQUEUE delay-line daemon (and keepawake).
# Included by the top-level Makefile; also works alone:
#   make -f tools/emu/emu.mk OUT=build
# Runtime needs (not build): iproute2, ethtool, nftables, iptables (the kernel
# here lacks nft's "queue" expression, so the NFQUEUE rule is an xt target),
# iperf3 for the self-test.

_emu_standalone := $(if $(filter 1,$(words $(MAKEFILE_LIST))),y)
_emu_saved_goal := $(.DEFAULT_GOAL)

OUT ?= build
CC ?= gcc
CFLAGS ?= -O2 -g -Wall -Wextra -Werror
EMU_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
EMU_BIN := $(OUT)/delayq
# the CPU keeper the differential tester holds while it plays (tools/lib)
KEEPAWAKE_BIN := $(OUT)/keepawake
EMU_LIBS := $(shell pkg-config --libs libnetfilter_queue 2>/dev/null || echo -lnetfilter_queue -lnfnetlink)

.PHONY: emu
emu: $(EMU_BIN) $(KEEPAWAKE_BIN)

$(EMU_BIN): $(EMU_DIR)/delayq.c $(EMU_DIR)/../lib/keepawake.h $(EMU_DIR)/emu.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $< $(EMU_LIBS)

$(KEEPAWAKE_BIN): $(EMU_DIR)/../lib/keepawake.c $(EMU_DIR)/../lib/keepawake.h $(EMU_DIR)/emu.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $<

# Never steal the includer's default goal; standalone, build the daemon.
ifeq ($(_emu_standalone),y)
.DEFAULT_GOAL := emu
else
.DEFAULT_GOAL := $(_emu_saved_goal)
endif
