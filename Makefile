# SPDX-License-Identifier: GPL-2.0
#
#   make            build build/bpf_cubic.bpf.o, its skeleton and ./cubicctl
#   sudo make load  install what is missing, build, load bpf_cubic
#   sudo make test  unit tests (host) and integration tests (root, namespaces)
#   sudo make test-quick  unit tests, docs checks, one integration test per suite
#   sudo make eval  evaluation on emulated paths -> docs/eval, docs/EVALUATION.md
#   sudo make bench datapath cost, bpf_cubic vs the kernel's cubic
#   sudo make difftest-guest  the differential tester in a qemu guest (about an hour)
#   sudo make soak  SOAK_TIME seconds (600) of short and long flows on every rule and
#                   datapath, an instance churned meanwhile; nothing lost or left
#   make deps       install missing Debian packages (root)
#   make vmlinux    regenerate vmlinux.h from /sys/kernel/btf/vmlinux
#   make clean
#
# Generated files go to build/ (git-ignored). Quiet unless V=1.

OUT	:= build
# the release (cubicctl --version); the git description is added at build time
VERSION	:= 0.5.0
CLANG	?= clang
BPFTOOL	?= bpftool
CC	:= gcc
ARCH	:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS	:= -O2 -g -std=gnu11 -Wall -Wextra -Werror -Iinclude -I$(OUT)
LDLIBS	:= -lbpf -lelf -lz
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror -Iinclude -I.
SAN_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Werror -Iinclude -Isrc \
	      -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

ifeq ($(V),1)
Q	:=
msg	=
else
Q	:= @
msg	= @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CTL_SRCS := $(wildcard src/*.c)
CTL_OBJS := $(patsubst src/%.c,$(OUT)/%.o,$(CTL_SRCS))
HDRS	 := $(wildcard include/*.h) $(wildcard src/*.h)
SKEL	 := $(OUT)/bpf_cubic.skel.h $(OUT)/attach.skel.h $(OUT)/flows.skel.h
DEPS_BUILD := $(OUT)/.deps-build
DEPS_TEST  := $(OUT)/.deps-test
DEPS_EVAL  := $(OUT)/.deps-eval

UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUT)/unit/%,$(wildcard tests/unit/test_*.c))
# Pure user-space sources the unit tests link against (no libbpf).
UNIT_LIBSRC := src/tunables.c src/json.c src/vocab.c src/objpatch.c src/prom.c
UNIT_LIBSRC += src/loadconf.c src/attach_rules.c

.PHONY: FORCE all deps load unload soak test test-quick test-unit test-integration eval eval-quick bench vmlinux clean

all: cubicctl emu $(OUT)/floor.bpf.o $(OUT)/vocab.json $(OUT)/replay

-include tools/emu/emu.mk
emu: $(EMU_BIN)
# its headers come with the build packages (a parallel make from a fresh machine raced them)
$(EMU_BIN): | $(DEPS_BUILD)

$(OUT) $(OUT)/unit:
	$(Q)mkdir -p $@

$(DEPS_BUILD): tools/deps.sh | $(OUT)
	$(Q)tools/deps.sh build
	$(Q)touch $@

$(DEPS_TEST): tools/deps.sh | $(OUT)
	$(Q)tools/deps.sh test
	$(Q)touch $@

$(DEPS_EVAL): tools/deps.sh | $(OUT)
	$(Q)tools/deps.sh eval
	$(Q)touch $@

deps: $(DEPS_BUILD) $(DEPS_TEST)

# The slow-start rules' glue: bpf/bpf_cubic.bpf.c includes every
# bpf/rule_*.bpf.h through $(OUT)/bpf_rules.h (rewritten only when the list
# changes), so that a new rule is its core, its glue file and its row in
# include/cubic_rules.h.
BPF_RULES := $(sort $(wildcard bpf/rule_*.bpf.h))
$(OUT)/bpf_rules.h: FORCE | $(OUT)
	$(Q)printf '#include "%s"\n' $(BPF_RULES) >$@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(OUT)/bpf_cubic.tmp.o: bpf/bpf_cubic.bpf.c $(wildcard bpf/*.bpf.h) $(OUT)/bpf_rules.h \
			$(wildcard include/*.h) vmlinux.h | $(DEPS_BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -I$(OUT) -c $< -o $@

# bench.sh --floor: a BPF Reno of kfunc calls, the struct_ops dispatch floor
$(OUT)/floor.tmp.o: tools/bench/floor.bpf.c vmlinux.h | $(DEPS_BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/floor.bpf.o: $(OUT)/floor.tmp.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OUT)/bpf_cubic.bpf.o: $(OUT)/bpf_cubic.tmp.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OUT)/bpf_cubic.skel.h: $(OUT)/bpf_cubic.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name bpf_cubic_bpf > $@.tmp && mv $@.tmp $@

# cubicctl attach's cgroup sock_ops program (src/attach.c)
$(OUT)/attach.tmp.o: bpf/attach.bpf.c include/attach_abi.h vmlinux.h | $(DEPS_BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/attach.bpf.o: $(OUT)/attach.tmp.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OUT)/attach.skel.h: $(OUT)/attach.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name attach_bpf > $@.tmp && mv $@.tmp $@

# cubicctl flows' iter/tcp program (src/cmd_flows.c)
$(OUT)/flows.tmp.o: bpf/flows.bpf.c bpf/stores.bpf.h include/flows_abi.h include/cubic_stores.h \
		    include/flow_core.h include/predict_core.h include/verdict_core.h vmlinux.h | $(DEPS_BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Wno-unused-function -c $< -o $@

$(OUT)/flows.bpf.o: $(OUT)/flows.tmp.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OUT)/flows.skel.h: $(OUT)/flows.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name flows_bpf > $@.tmp && mv $@.tmp $@

$(OUT)/%.o: src/%.c $(HDRS) $(SKEL) | $(DEPS_BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# cubicctl --version: the release and the git description of the tree built
# (rewritten only when it changes, so a rebuild is not forced every time)
$(OUT)/version.h: FORCE | $(OUT)
	$(Q)printf '#define CUBICCTL_VERSION "%s"\n#define CUBICCTL_GIT "%s"\n' \
		'$(VERSION)' "$$(git describe --always --dirty --tags 2>/dev/null || echo 'no git')" \
		> $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(OUT)/main.o $(OUT)/cmd_status.o: $(OUT)/version.h

FORCE:

cubicctl: $(CTL_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# The exit reasons, counters and datapaths of include/cubic_abi.h, for tools/ (Python)
$(OUT)/vocab.json: cubicctl
	$(call msg,GEN,$@)
	$(Q)./cubicctl help --reasons-json > $@.tmp && mv $@.tmp $@

$(OUT)/unit/%: tests/unit/%.c $(UNIT_LIBSRC) $(HDRS) tests/unit/unit.h | $(OUT)/unit $(DEPS_BUILD)
	$(call msg,CC-TEST,$@)
	$(Q)$(CC) $(SAN_CFLAGS) $< $(UNIT_LIBSRC) -lm -o $@

load: all
	$(Q)tools/make-load.sh

unload: cubicctl
	$(Q)./cubicctl unload

# On the VM platform that skips struct_ops programs in PID 1's context
# (docs/IMPOSSIBLE_WINDOWS.md), runs that emulate paths keep PID 1 off the
# CPUs their softirqs are steered to; elsewhere it only runs the command.
ASIDE := tools/lib/pid1-aside.sh

test: $(UNIT_TESTS) all $(DEPS_TEST)
	$(Q)$(ASIDE) tests/run.sh all

test-quick: $(UNIT_TESTS) all $(DEPS_TEST)
	$(Q)$(ASIDE) tests/run.sh quick

test-unit: $(UNIT_TESTS) cubicctl $(OUT)/replay
	$(Q)tests/run.sh unit

test-integration: all $(DEPS_TEST)
	$(Q)$(ASIDE) tests/run.sh integration

# sudo make test-kernels: tools/kernels/suite.sh on Debian 12's 6.1 and 6.12
# kernels in qemu (TCG), then on the host's (tools/kernels/README.md). The
# kernel packages are kept in $${XDG_CACHE_HOME:-/var/cache}/bpf_cubic/kernels,
# which make clean leaves alone.
DEPS_KERNELS := $(OUT)/.deps-kernels
$(DEPS_KERNELS): tools/deps.sh | $(OUT)
	$(Q)tools/deps.sh kernels
	$(Q)touch $@

.PHONY: test-kernels
test-kernels: all $(DEPS_KERNELS)
	$(Q)$(ASIDE) tools/kernels/run.sh

eval: all $(DEPS_EVAL)
	$(Q)$(ASIDE) tools/eval/run.sh --out docs/eval --doc docs/EVALUATION.md

eval-quick: all $(DEPS_EVAL)
	$(Q)$(ASIDE) tools/eval/run.sh --quick --out $(OUT)/eval-quick

# sudo make fct: flow completion time of 1, 5 and 20 MB transfers, every rule next to
# the kernel's cubic and bbr (tools/fct/README.md) -> build/fct/report.md; fct-quick:
# the SUSS testbed path only, 3 repetitions -> build/fct-quick
.PHONY: fct fct-quick
fct: all $(DEPS_TEST)
	$(Q)$(ASIDE) tools/fct/run.sh --out $(OUT)/fct

fct-quick: all $(DEPS_TEST)
	$(Q)$(ASIDE) tools/fct/run.sh --quick --out $(OUT)/fct-quick

bench: all $(OUT)/corebench $(DEPS_TEST)
	$(Q)$(OUT)/corebench
	$(Q)$(ASIDE) tools/bench/bench.sh

# the differential tester in a qemu guest with an instruction-counted clock:
# a verdict on every scenario whatever the host's load, in about an hour
# (tools/difftest/README.md); make test runs it on the host, in real time
.PHONY: difftest-guest
difftest-guest: all $(DEPS_TEST)
	$(Q)DIFFTEST_GUEST=1 TESTS=difftest.bats $(ASIDE) tests/run.sh integration

# not part of make test: tools/soak/README.md
SOAK_TIME ?= 600
soak: all $(DEPS_TEST)
	$(Q)$(ASIDE) tools/soak/soak --max-time $(SOAK_TIME) --flows 1000000 --parallel 8

# the exit rules' cores per ACK, on the host (tools/bench/corebench.c)
$(OUT)/corebench: tools/bench/corebench.c $(HDRS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

# PREDICT's core on a kept tcp_probe trace's ACKs (tools/eval/replay.py)
$(OUT)/replay: tools/eval/replay.c $(HDRS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

vmlinux:
	$(call msg,GEN,vmlinux.h)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux.h.tmp && mv vmlinux.h.tmp vmlinux.h

clean:
	$(Q)rm -rf $(OUT) cubicctl

# ---- install (README.md "Install"; tools/install.sh records what it put, so
# uninstall with the same PREFIX and DESTDIR removes exactly that)
#   sudo make install [PREFIX=/usr/local] [SYSCONFDIR=/etc] [DESTDIR=]
#   sudo make uninstall
#   make man        docs/man/cubicctl.8's generated parts from ./cubicctl
PREFIX		?= /usr/local
SYSCONFDIR	?= /etc
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR	?= $(PREFIX)/lib/systemd/system
# cubicctl-metrics.service writes cubicctl.prom here (Debian's node_exporter)
TEXTFILEDIR	?= /var/lib/prometheus/node-exporter
INSTALL_ENV	= DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' SYSCONFDIR='$(SYSCONFDIR)' \
		  SBINDIR='$(SBINDIR)' MANDIR='$(MANDIR)' BASHCOMPDIR='$(BASHCOMPDIR)' \
		  SYSTEMDUNITDIR='$(SYSTEMDUNITDIR)' TEXTFILEDIR='$(TEXTFILEDIR)'

.PHONY: install uninstall man

install: cubicctl
	$(Q)$(INSTALL_ENV) tools/install.sh install

uninstall:
	$(Q)$(INSTALL_ENV) tools/install.sh uninstall

man: cubicctl
	$(Q)tools/doc/manpage.py update docs/man/cubicctl.8
