# nanosm - plain GNU make.  `make` builds every program into build/bin/.
# `make test` installs what is missing, builds, runs the CUnit unit tests and
# the ibsim integration suite.  `make demo` shows a lab fabric coming up;
# `make lab` opens a shell on one to try nanosm by hand.

CC      ?= cc
BUILD   ?= build
WARN    := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes
CFLAGS  ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -D_GNU_SOURCE -I. -MMD -MP
LDFLAGS ?=

BIN     := $(BUILD)/bin
OBJ     := $(BUILD)/obj

# One static archive per folder or role (docs/design.md, "The map"); each
# program links only the archives it needs, so its link line is its
# dependency contract.  Files that touch a foreign I/O API (umad, libev,
# main) are kept out of the unit-test link so the pure core is tested alone.
LIB      := $(BUILD)/lib
MAD_SRC     := $(filter-out mad/mad_port.c mad/mad_port_open.c mad/mad_sender.c mad/mad_ibsim.c,$(sort $(wildcard mad/*.c)))
UMAD_SRC    := mad/mad_port.c mad/mad_port_open.c mad/mad_sender.c mad/mad_ibsim.c
ROUTING_SRC := $(sort $(wildcard routing/*.c))
CONFIG_SRC  := $(sort $(wildcard config/*.c))
SMCORE_SRC   := $(sort $(wildcard sm/core/*.c))
SA_SRC      := $(sort $(wildcard sm/sa/*.c))
DAEMON_SRC  := $(filter-out sm/daemon/main.c sm/daemon/loop.c sm/daemon/loop_ctl.c sm/daemon/http_listen.c,$(sort $(wildcard sm/daemon/*.c)))
CTL_SRC     := $(sort $(wildcard sm/daemon/control_proto*.c))
TOOLLIB_SRC := $(sort $(wildcard tools/lib/*.c))
DRAW_SRC    := $(sort $(wildcard tools/draw/*.c))
# nanosm-ping's verbs side (the only files that include <infiniband/verbs.h>),
# linked into nanosm-ping alone; the pure rest is libnanosm-ping
NPING_SRC   := tools/ping/nanosm-ping.c $(sort $(wildcard tools/ping/nping*.c))
PING_SRC    := $(filter-out $(NPING_SRC),$(sort $(wildcard tools/ping/*.c)))
GEN_SRC     := $(sort $(wildcard tools/gen/*.c))
SHELL_SRC   := sm/daemon/main.c sm/daemon/loop.c sm/daemon/loop_ctl.c sm/daemon/http_listen.c $(UMAD_SRC)
# everything without a foreign I/O API: the unit tests and fuzzers link it
PURE_SRC  := $(MAD_SRC) $(ROUTING_SRC) $(CONFIG_SRC) $(SMCORE_SRC) $(SA_SRC) \
	     $(filter-out $(CTL_SRC),$(DAEMON_SRC)) $(CTL_SRC) $(TOOLLIB_SRC) $(DRAW_SRC) $(PING_SRC)
# the simulated verbs layer (rules below "deps"): its sources and those of
# the archives it reuses, compiled again with -fPIC
VSIM_SRC  := $(sort $(wildcard tests/verbs_sim/*.c))
VSIM_REUSE := $(MAD_SRC) $(UMAD_SRC) routing/dr_walk.c routing/fabric.c routing/verify.c \
	      routing/verify_expect.c
VSIM_SO   := $(LIB)/libnanosm-verbs-sim.so
UNIT_SRC  := $(sort $(wildcard tests/unit/*.c))
UNIT_OBJ  := $(UNIT_SRC:%.c=$(OBJ)/%.o) $(OBJ)/tests/verbs_sim/vsim_path.o

A_MAD     := $(LIB)/libnanosm-mad.a
A_UMAD    := $(LIB)/libnanosm-umad.a
A_ROUTING := $(LIB)/libnanosm-routing.a
A_CONFIG  := $(LIB)/libnanosm-config.a
A_CORE    := $(LIB)/libnanosm-core.a
A_SA      := $(LIB)/libnanosm-sa.a
A_DAEMON  := $(LIB)/libnanosm-daemon.a
A_CTL     := $(if $(CTL_SRC),$(LIB)/libnanosm-ctl.a)
A_TOOLS   := $(LIB)/libnanosm-tools.a
A_PING    := $(LIB)/libnanosm-ping.a
A_DRAW    := $(LIB)/libnanosm-draw.a
A_GEN     := $(LIB)/libnanosm-gen.a
ARCHIVES  := $(A_MAD) $(A_UMAD) $(A_ROUTING) $(A_CONFIG) $(A_CORE) $(A_SA) $(A_DAEMON) \
	     $(A_CTL) $(A_TOOLS) $(A_PING) $(A_DRAW) $(A_GEN)

$(A_MAD):     $(MAD_SRC:%.c=$(OBJ)/%.o)
$(A_UMAD):    $(UMAD_SRC:%.c=$(OBJ)/%.o)
$(A_ROUTING): $(ROUTING_SRC:%.c=$(OBJ)/%.o)
$(A_CONFIG):  $(CONFIG_SRC:%.c=$(OBJ)/%.o)
$(A_CORE):    $(SMCORE_SRC:%.c=$(OBJ)/%.o)
$(A_SA):      $(SA_SRC:%.c=$(OBJ)/%.o)
$(A_DAEMON):  $(filter-out $(CTL_SRC:%.c=$(OBJ)/%.o),$(DAEMON_SRC:%.c=$(OBJ)/%.o))
$(A_CTL):     $(CTL_SRC:%.c=$(OBJ)/%.o)
$(A_TOOLS):   $(TOOLLIB_SRC:%.c=$(OBJ)/%.o)
$(A_PING):    $(PING_SRC:%.c=$(OBJ)/%.o)
$(A_DRAW):    $(DRAW_SRC:%.c=$(OBJ)/%.o) $(OBJ)/tools/draw/view_assets.o
$(A_GEN):     $(GEN_SRC:%.c=$(OBJ)/%.o)
$(ARCHIVES):
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^

# what each program links, highest layer first (the linker reads archives
# in order)
LINK_nanosm        := $(A_DAEMON) $(A_CTL) $(A_CORE) $(A_SA) $(A_CONFIG) $(A_ROUTING) $(A_UMAD) $(A_MAD)
LINK_nanosm-unit   := $(A_PING) $(A_TOOLS) $(A_DRAW) $(A_DAEMON) $(A_CTL) $(A_CORE) $(A_SA) $(A_CONFIG) \
		      $(A_ROUTING) $(A_UMAD) $(A_MAD)
LINK_nanosmctl     := $(A_TOOLS) $(A_DRAW) $(A_CTL) $(A_ROUTING) $(A_MAD)
LINK_nanosm-verify := $(A_TOOLS) $(A_CORE) $(A_CONFIG) $(A_ROUTING) $(A_UMAD) $(A_MAD)
LINK_nanosm-route  := $(A_TOOLS) $(A_DRAW) $(A_CONFIG) $(A_ROUTING) $(A_MAD)
LINK_nanosm-gen    := $(A_GEN)
LINK_nanosm-sa     := $(A_TOOLS) $(A_UMAD) $(A_MAD)
LINK_nanosm-smpset := $(A_TOOLS) $(A_ROUTING) $(A_UMAD) $(A_MAD)
LINK_nanosm-ping   := $(A_PING) $(A_TOOLS) $(A_UMAD) $(A_MAD)

LIBS_SM   := -libumad -libmad -lev -lyaml -lpthread
LIBS_TOOL := -libumad -libmad -lpthread -lm
LIBS_UNIT := -libumad -libmad -lyaml -lcunit -lm -lpthread

PROGS := $(BIN)/nanosm
TOOLS_SRC := $(sort $(wildcard tools/*.c)) tools/ping/nanosm-ping.c
TOOLS := $(addprefix $(BIN)/,$(basename $(notdir $(TOOLS_SRC))))

DEB_BUILD := libibumad-dev libibmad-dev libibverbs-dev libyaml-dev libev-dev libcunit1-dev \
             pkg-config scdoc
DEB_TEST  := ibsim-utils infiniband-diags opensm python3 time clang librsvg2-bin

.PHONY: all deps test unit route gen integration demo lab asan clean valgrind bench bench-routing faults fuzz fuzz-build \
	test-html \
	fuzz-smoke fuzz-seeds
.SECONDARY:

all: $(PROGS) $(TOOLS) $(BIN)/nanosm-unit $(VSIM_SO)

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# the HTML view's page head and script, kept as files, embedded as C strings
$(OBJ)/tools/draw/view_assets.c: tools/draw/view_head.html tools/draw/view.js tools/draw/embed.awk
	@mkdir -p $(dir $@)
	awk -f tools/draw/embed.awk tools/draw/view_head.html tools/draw/view.js > $@
$(OBJ)/tools/draw/view_assets.o: $(OBJ)/tools/draw/view_assets.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(BIN)/nanosm: $(OBJ)/sm/daemon/main.o $(OBJ)/sm/daemon/loop.o $(OBJ)/sm/daemon/loop_ctl.o \
	       $(OBJ)/sm/daemon/http_listen.o \
	       $(LINK_nanosm)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_SM)

$(BIN)/nanosm-unit: $(UNIT_OBJ) $(LINK_nanosm-unit)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_UNIT)

.SECONDEXPANSION:
# a tool: its own object and the archives LINK_<tool> names
# (and libyaml when it links the policy)
$(BIN)/%: $(OBJ)/tools/%.o $$(LINK_$$*)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_TOOL) $(if $(filter $(A_CONFIG),$^),-lyaml)

$(BIN)/nanosmctl: $(OBJ)/tools/nanosmctl.o $(LINK_nanosmctl)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

# the verbs test client is the only program linked with libibverbs
$(BIN)/nanosm-ping: $(NPING_SRC:%.c=$(OBJ)/%.o) $(LINK_nanosm-ping)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -libverbs $(LIBS_TOOL)

# The simulated verbs layer (tests/verbs_sim/, docs/nanosm-ping.md "Running
# it under ibsim"): a test double preloaded next to umad2sim, never
# installed.  A shared object, so it and the archives' sources it reuses
# are compiled again with -fPIC into $(OBJ)/pic/.

$(OBJ)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c -o $@ $<

$(VSIM_SO): $(VSIM_SRC:%.c=$(OBJ)/pic/%.o) $(VSIM_REUSE:%.c=$(OBJ)/pic/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,--no-undefined -o $@ $^ -libumad -libmad -lpthread

# Install the Debian packages that are missing (needs root or sudo).
deps:
	@missing=""; for p in $(DEB_BUILD) $(DEB_TEST); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	else echo "deps: all present"; fi

unit: $(BIN)/nanosm-unit
	$(BIN)/nanosm-unit

# golden tests of nanosm-route's reports (tests/route/)
route: $(BIN)/nanosm-route $(BIN)/nanosm-gen
	tests/route/run.sh

# tests of the fabric generator (tests/gen/): golden files and properties
gen: $(BIN)/nanosm-gen $(BIN)/nanosm-route
	tests/gen/run.sh

integration: all
	tests/integration/run.sh

# Opt-in: the HTML view of the fabric in headless Chromium (hover, hosts,
# routes; screenshots with HTML_SHOTS=DIR).  Not part of `make test`:
# Chromium is a large download.
DEB_HTML := chromium chromium-driver
test-html: deps
	@missing=""; for p in $(DEB_HTML); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	fi
	$(MAKE) all
	tests/route/html_check.py $(if $(HTML_SHOTS),--keep $(HTML_SHOTS))

test: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) route
	$(MAKE) gen
	$(MAKE) integration
	$(MAKE) fuzz-smoke
	$(MAKE) install-check

demo: deps
	$(MAKE) all
	tests/demo.sh

# Try nanosm by hand without an HCA (tools/simlab, docs/lab-guide.md): ibsim
# on FABRIC, nanosm as a daemon with its socket and state in a scratch dir,
# and a shell where nanosmctl and the diags reach them; exit stops it all.
FABRIC ?= tests/fabrics/twosw.topo
lab: deps
	$(MAKE) all
	tools/simlab $(FABRIC)

# AddressSanitizer + UBSan: unit tests, then the integration suite with the
# sanitized daemon (umad2sim must be preloaded, so ASan's link-order check is
# off; asan.supp silences umad2sim's own over-read of its receive buffer).
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:abort_on_error=1:suppressions=$(CURDIR)/tests/integration/asan.supp \
	    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
asan:
	$(MAKE) BUILD=build/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  LDFLAGS="-fsanitize=address,undefined" all
	$(ASAN_ENV) build/asan/bin/nanosm-unit
	$(ASAN_ENV) NANOSM_ROUTE=$(CURDIR)/build/asan/bin/nanosm-route tests/route/run.sh
	$(ASAN_ENV) NANOSM=$(CURDIR)/build/asan/bin/nanosm tests/integration/run.sh

# Routing benchmark: not a test, never part of `make test` (docs/bench.md).
bench: deps
	$(MAKE) all
	tests/bench/run.sh

# nanosm's engines against OpenSM's on generated fabrics (docs/bench.md,
# docs/routing.md "Compared with OpenSM"): not a test either.  CMP_FABRICS,
# CMP_OSM_ENGINES, CMP_NANOSM_ENGINES choose (tests/bench/routing_compare.sh -h).
bench-routing: deps
	$(MAKE) all
	tests/bench/routing_compare.sh

# Fault injection under ibsim (tests/faults/README.md): cable flaps and MAD
# drops, with figures.  Not part of `make test` (minutes); FAULTS_ARGS
# passes options, e.g. FAULTS_ARGS=--quick or "--flaps 20 --seed 4242".
faults: deps
	$(MAKE) all
	tests/faults/run.sh $(FAULTS_ARGS)

# valgrind memcheck on the integration suite (nanosm exits 99 on any error).
valgrind: all
	NANOSM=$(CURDIR)/tests/integration/valgrind-nanosm tests/integration/run.sh

# libFuzzer targets (docs/fuzzing.md): every tests/fuzz/fuzz_NAME.c is one
# target, linked with the core built by clang with coverage and ASan/UBSan
# into its own directory.  The core goes into an archive, so each target
# pulls in only the objects it needs.  `make fuzz` runs each target for
# FUZZ_SECONDS on a copy of tests/fuzz/corpus/NAME/; `make fuzz-smoke`
# runs each for a few seconds and replays tests/fuzz/regress/NAME/.
# FUZZ_TARGETS=sa limits either to the targets named.
FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build/fuzz
FUZZ_SECONDS ?= 600
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=gnu11 $(WARN) -D_GNU_SOURCE -I. -MMD -MP -O1 -g $(FUZZ_SAN)
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/bin/fuzz_%)
FUZZ_CORE    := $(PURE_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_LIB     := $(FUZZ_BUILD)/libnanosm-core.a

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_CORE)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/bin/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ -libmad -lyaml

fuzz-build: $(FUZZ_BINS)

# Rewrite the seed corpora: binary ones from tests/fuzz/seeds.c (built
# with the codecs), text ones copied from the repo's fixtures.
fuzz-seeds: $(OBJ)/tests/fuzz/seeds.o $(LINK_nanosm-unit)
	@mkdir -p $(BIN) tests/fuzz/corpus/smp tests/fuzz/corpus/sa tests/fuzz/corpus/topo \
	  tests/fuzz/corpus/policy
	$(CC) $(CFLAGS) $(LDFLAGS) -o $(BIN)/fuzz-seeds $^ -libmad -lyaml
	$(BIN)/fuzz-seeds tests/fuzz/corpus/smp tests/fuzz/corpus/sa
	cp tests/fabrics/*.topo tests/fuzz/corpus/topo/
	for f in tests/config/*.yaml config/examples/*.yaml; do \
	  cp $$f tests/fuzz/corpus/policy/$$(basename $$(dirname $$f))-$$(basename $$f); done

fuzz:
	@tests/fuzz/run.sh --check-cc $(FUZZ_CC) || { echo "fuzz: $(FUZZ_CC) with libFuzzer not found (make deps installs clang)"; exit 1; }
	$(MAKE) fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Part of `make test`; skipped (not failed) when clang is missing.
fuzz-smoke:
	@if tests/fuzz/run.sh --check-cc $(FUZZ_CC); then \
	  $(MAKE) fuzz-build && \
	  FUZZ_BUILD=$(FUZZ_BUILD) tests/fuzz/run.sh --smoke 5 $(FUZZ_TARGETS); \
	else echo "fuzz-smoke: SKIPPED ($(FUZZ_CC) with libFuzzer not found; make deps installs clang)"; fi

# ---- install ----
# `make install` puts the programs, the example policy, the systemd units
# and the man pages under DESTDIR + their directories; `make uninstall`
# takes the same files away again (docs/install.md).  `make man` renders
# docs/man/*.scd with scdoc into build/man/.  `make install-check` is the
# packaging test (tests/install/run.sh): an install into a scratch
# DESTDIR, its checks, and an uninstall that must leave no file behind.
# nanosm-smpset is not installed: it writes LFT entries behind the SM's
# back and exists only for the tests.
PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
ifeq ($(origin SYSTEMD_UNITDIR),undefined)
SYSTEMD_UNITDIR := $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
endif
INSTALL    ?= install

INSTALL_SBIN  := nanosm
INSTALL_BIN   := nanosmctl nanosm-verify nanosm-route nanosm-ping nanosm-sa nanosm-gen
INSTALL_UNITS := nanosm.service nanosm@.service
MAN_SRC       := $(sort $(wildcard docs/man/*.scd))
MAN_PAGES     := $(MAN_SRC:docs/man/%.scd=$(BUILD)/man/%)
UNIT_FILES    := $(INSTALL_UNITS:%=$(BUILD)/systemd/%)
# nanosm looks for /etc/nanosm/nanosm.yaml whatever the PREFIX (compiled in).
CONF_DIR      := $(DESTDIR)/etc/nanosm

.PHONY: install uninstall man install-check

man: $(MAN_PAGES)

$(BUILD)/man/%: docs/man/%.scd
	@command -v scdoc >/dev/null || { echo "man: scdoc not found (make deps installs it)"; exit 1; }
	@mkdir -p $(dir $@)
	scdoc < $< > $@.tmp && mv $@.tmp $@ || { rm -f $@.tmp; exit 1; }

# The units name the daemon by its installed path, so they depend on SBINDIR.
$(BUILD)/systemd/%: config/systemd/% nanosm-units-force
	@mkdir -p $(dir $@)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' $< > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

.PHONY: nanosm-units-force
nanosm-units-force:

# An existing nanosm.yaml that differs from the example is the admin's: it
# stays, and the example goes next to it as nanosm.yaml.example.
install: $(PROGS) $(TOOLS) man $(UNIT_FILES)
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(CONF_DIR) \
	  $(DESTDIR)$(SYSTEMD_UNITDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	  $(DESTDIR)$(MANDIR)/man8
	$(INSTALL) -m 0755 $(INSTALL_SBIN:%=$(BIN)/%) $(DESTDIR)$(SBINDIR)/
	$(INSTALL) -m 0755 $(INSTALL_BIN:%=$(BIN)/%) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 0644 $(UNIT_FILES) $(DESTDIR)$(SYSTEMD_UNITDIR)/
	for m in $(MAN_PAGES); do \
	  $(INSTALL) -m 0644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/ || exit 1; done
	@if [ -e $(CONF_DIR)/nanosm.yaml ] && ! cmp -s config/nanosm.yaml $(CONF_DIR)/nanosm.yaml; then \
	  echo "install: $(CONF_DIR)/nanosm.yaml exists: kept; the example goes to nanosm.yaml.example"; \
	  echo "$(INSTALL) -m 0600 config/nanosm.yaml $(CONF_DIR)/nanosm.yaml.example"; \
	  $(INSTALL) -m 0600 config/nanosm.yaml $(CONF_DIR)/nanosm.yaml.example; \
	else \
	  echo "$(INSTALL) -m 0600 config/nanosm.yaml $(CONF_DIR)/nanosm.yaml"; \
	  $(INSTALL) -m 0600 config/nanosm.yaml $(CONF_DIR)/nanosm.yaml; \
	fi

# Removes what install put there.  nanosm.yaml goes only while it is
# still the shipped example: an edited policy is the admin's, and stays.
uninstall:
	rm -f $(INSTALL_SBIN:%=$(DESTDIR)$(SBINDIR)/%) $(INSTALL_BIN:%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(INSTALL_UNITS:%=$(DESTDIR)$(SYSTEMD_UNITDIR)/%)
	rm -f $(foreach m,$(MAN_PAGES),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
	rm -f $(CONF_DIR)/nanosm.yaml.example
	@if [ -e $(CONF_DIR)/nanosm.yaml ]; then \
	  if cmp -s config/nanosm.yaml $(CONF_DIR)/nanosm.yaml; then \
	    echo "rm -f $(CONF_DIR)/nanosm.yaml"; rm -f $(CONF_DIR)/nanosm.yaml; \
	  else echo "uninstall: $(CONF_DIR)/nanosm.yaml differs from the example: kept"; fi; \
	fi
	@rmdir $(CONF_DIR) 2>/dev/null || true

install-check: all man
	tests/install/run.sh
# ---- end install ----

clean:
	rm -rf $(BUILD)

-include $(PURE_SRC:%.c=$(OBJ)/%.d) $(SHELL_SRC:%.c=$(OBJ)/%.d) $(UNIT_OBJ:.o=.d) $(TOOLS_SRC:%.c=$(OBJ)/%.d) \
	   $(GEN_SRC:%.c=$(OBJ)/%.d) $(NPING_SRC:%.c=$(OBJ)/%.d)
-include $(wildcard $(OBJ)/pic/*/*.d $(OBJ)/pic/*/*/*.d $(OBJ)/pic/*/*/*/*.d)
-include $(wildcard $(FUZZ_BUILD)/obj/*/*.d $(FUZZ_BUILD)/obj/*/*/*.d $(FUZZ_BUILD)/obj/*/*/*/*.d)
