# nanosm - plain GNU make.  `make` builds every program into build/bin/.
# `make test` installs what is missing, builds, runs the CUnit unit tests and
# the ibsim integration suite.  `make demo` shows a lab fabric coming up.

CC      ?= cc
BUILD   ?= build
WARN    := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes
CFLAGS  ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -D_GNU_SOURCE -I. -MMD -MP
LDFLAGS ?=

BIN     := $(BUILD)/bin
OBJ     := $(BUILD)/obj

# Files that touch a foreign I/O API (umad, libev, main): kept out of the
# unit-test link so the pure core is tested alone.
SHELL_SRC := mad/mad_port.c sm/main.c sm/loop.c
CORE_SRC  := $(filter-out $(SHELL_SRC),$(sort $(wildcard mad/*.c routing/*.c sm/*.c config/*.c)))
UNIT_SRC  := $(sort $(wildcard tests/unit/*.c))

CORE_OBJ  := $(CORE_SRC:%.c=$(OBJ)/%.o)
SHELL_OBJ := $(SHELL_SRC:%.c=$(OBJ)/%.o)
UNIT_OBJ  := $(UNIT_SRC:%.c=$(OBJ)/%.o)

LIBS_SM   := -libumad -libmad -lev -lyaml -lpthread
LIBS_UNIT := -libmad -lyaml -lcunit

PROGS := $(BIN)/nanosm
TOOLS_SRC := $(sort $(wildcard tools/*.c))
TOOLS := $(TOOLS_SRC:tools/%.c=$(BIN)/%)

DEB_BUILD := libibumad-dev libibmad-dev libibverbs-dev libyaml-dev libev-dev libcunit1-dev \
             pkg-config
DEB_TEST  := ibsim-utils infiniband-diags opensm python3 time

.PHONY: all deps test unit route integration demo asan clean valgrind bench
.SECONDARY:

all: $(PROGS) $(TOOLS) $(BIN)/nanosm-unit

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BIN)/nanosm: $(CORE_OBJ) $(SHELL_OBJ)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_SM)

$(BIN)/nanosm-unit: $(CORE_OBJ) $(UNIT_OBJ)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_UNIT)

# tools talk to the fabric through mad_port's client mode (the one umad file)
$(BIN)/%: $(OBJ)/tools/%.o $(CORE_OBJ) $(OBJ)/mad/mad_port.o
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_SM)

# the verbs test client is the only program linked with libibverbs
$(BIN)/nanosm-ping: $(OBJ)/tools/nanosm-ping.o $(CORE_OBJ) $(OBJ)/mad/mad_port.o
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -libverbs $(LIBS_SM)

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
route: $(BIN)/nanosm-route
	tests/route/run.sh

integration: all
	tests/integration/run.sh

test: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) route
	$(MAKE) integration

demo: deps
	$(MAKE) all
	tests/demo.sh

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

# valgrind memcheck on the integration suite (nanosm exits 99 on any error).
valgrind: all
	NANOSM=$(CURDIR)/tests/integration/valgrind-nanosm tests/integration/run.sh

clean:
	rm -rf $(BUILD)

-include $(CORE_OBJ:.o=.d) $(SHELL_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
