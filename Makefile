# slipway: one non-recursive Makefile.  See README.md for the two set-up commands.
#
#   make            build/slipway (optimised, no sanitizers)
#   make test       every test: unit + model checks + e2e (ASan/UBSan), purity, docs-check
#   make docs       regenerate docs/ from tables/
#   make docs-check fail when a committed generated file is stale
#   make bench      benchmarks (not tests)
#   make fuzz       libFuzzer harnesses for a bounded time (clang)
#   make install    PREFIX=/usr/local DESTDIR=

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
CC       ?= cc
LD       ?= ld
PYTHON   ?= /usr/bin/python3
PKGS      = jansson libgit2 openssl libxxhash
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CRIT_LIBS  := $(shell pkg-config --libs criterion 2>/dev/null)

WARN     = -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes \
	   -Wswitch-enum -Wvla -Wwrite-strings -fno-common -Wshadow \
	   -Wno-missing-field-initializers
CSTD     = -std=c11 -D_GNU_SOURCE
INC      = -I. -include io/banned.h
CFLAGS_REL = $(CSTD) $(WARN) -O2 -g $(INC) $(PKG_CFLAGS)
CFLAGS_SAN = $(CSTD) $(WARN) -O1 -g -fno-omit-frame-pointer \
	     -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	     -DSW_TESTING=1 $(INC) $(PKG_CFLAGS)
LDFLAGS_SAN = -fsanitize=address,undefined

# Sources are picked up by wildcard so that adding a module needs no edit here.
PURE_SRCS = $(sort $(wildcard tables/*.c fsm/*.c))
IO_SRCS   = $(sort $(wildcard io/*.c))
CLI_SRCS  = $(sort $(filter-out cli/main.c,$(wildcard cli/*.c)))
GEN_SRCS  = build/gen/capabilities.c
LIB_SRCS  = $(PURE_SRCS) $(IO_SRCS) $(CLI_SRCS)
TEST_SRCS = $(sort $(wildcard tests/*/test_*.c))
HDRS      = $(wildcard tables/*.h tables/*.def fsm/*.h io/*.h cli/*.h)

REL_OBJS  = $(patsubst %.c,build/rel/%.o,$(LIB_SRCS)) build/rel/gen/capabilities.o
SAN_OBJS  = $(patsubst %.c,build/san/%.o,$(LIB_SRCS)) build/san/gen/capabilities.o
PURE_OBJS = $(patsubst %.c,build/rel/%.o,$(PURE_SRCS))
TEST_BINS = $(patsubst tests/%.c,build/san/tests/%,$(TEST_SRCS))
TEST_HELPERS = $(sort $(wildcard tests/support/*.c))
TEST_HELPER_OBJS = $(patsubst %.c,build/san/%.o,$(TEST_HELPERS))

# Symbols the pure core may reference (R1): no allocation, I/O, clock, env.
PURE_ALLOWED = __assert_fail memcmp memset memcpy strcmp strlen __stack_chk_fail

DEBIAN_PKGS = build-essential pkg-config git libjansson-dev libssl-dev libgit2-dev libxxhash-dev \
	      libcriterion-dev python3-jsonschema jq graphviz clang libclang-rt-14-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps demo all test unit e2e fuzz fuzz-smoke bench bench-build check-purity check-headers docs docs-check \
	install uninstall clean
.DELETE_ON_ERROR:
.SECONDARY: $(TEST_HELPER_OBJS)

all: build/slipway

# Installs the Debian packages that are missing (root, or sudo).
deps:
	@missing=$$(for p in $(DEBIAN_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	else echo "deps: all Debian packages present"; fi

# The main job: build, then drive a first Run in a scratch repository.
demo: build/slipway
	sh tests/e2e/demo.sh $(CURDIR)/build/slipway

# Each object lists the headers it includes in a .d file next to it (-MMD);
# -MP adds an empty rule per header, so deleting a header breaks no build.
DEPFLAGS = -MMD -MP

build/rel/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS_REL) $(DEPFLAGS) -c -o $@ $<

build/san/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS_SAN) $(DEPFLAGS) -c -o $@ $<

# Capability texts are embedded at build time.  Plain NAME.md texts have
# their contract sections expanded by build/gendocs from tables/ and the
# Outcome decoder; NAME.md.in templates are expanded by build/captext with
# the source parser's spellings (mk/captext.mk).
CAP_GEN = $(patsubst cli/%,build/gen/%,$(sort $(wildcard cli/capabilities/*.md))) \
	  $(patsubst cli/capabilities/%.md.in,build/gen/capabilities/%.md,$(sort $(wildcard cli/capabilities/*.md.in)))

build/gen/capabilities/%.md: cli/capabilities/%.md build/gendocs
	@mkdir -p $(dir $@)
	build/gendocs capability $< > $@

build/gen/capabilities.c: $(CAP_GEN) cli/embed.sh
	@mkdir -p $(dir $@)
	sh cli/embed.sh $@ $(sort $(CAP_GEN))

build/rel/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) -c -o $@ $<

build/san/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) -c -o $@ $<

build/slipway: build/rel/cli/main.o $(REL_OBJS)
	$(CC) -o $@ $^ $(PKG_LIBS)

build/san/slipway: build/san/cli/main.o $(SAN_OBJS)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(PKG_LIBS)

build/san/tests/%: tests/%.c $(SAN_OBJS) $(TEST_HELPER_OBJS)
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	@$(CC) $(CFLAGS_SAN) $(DEPFLAGS) -MF $@.d -MT $@ -Wno-missing-prototypes -o $@ $< $(SAN_OBJS) $(TEST_HELPER_OBJS) \
		$(PKG_LIBS) $(CRIT_LIBS) $(LDFLAGS_SAN)

# The test command: unit and model checks, the end-to-end CLI suite against the
# sanitizer binary, the purity link check and the generated-docs check.
test: check-purity check-headers docs-check unit e2e fuzz-smoke bench-build
	@echo "make test: all checks passed"

unit: $(TEST_BINS)
	@set -e; for t in $(TEST_BINS); do \
		echo "== $$t"; \
		ASAN_OPTIONS=detect_leaks=1 SLIPWAY_SHARED=$(CURDIR)/../shared \
		SLIPWAY_TEST_ROOT=$(CURDIR) $$t --jobs 2 --short-filename; \
	done

e2e: build/san/slipway
	@set -e; for t in $(sort $(wildcard tests/e2e/test_*.py)); do \
		echo "== $$t"; \
		SLIPWAY_BIN=$(CURDIR)/build/san/slipway SLIPWAY_SHARED=$(CURDIR)/../shared \
		$(PYTHON) $$t; \
	done

# PURE_EXTRA_OBJS lets the self-test add a stray object and watch this fail.
check-purity: $(PURE_OBJS)
	@mkdir -p build
	@$(LD) -r -o build/pure.o $(PURE_OBJS) $(PURE_EXTRA_OBJS)
	@bad=$$(nm -u build/pure.o | awk '{print $$2}' | grep -vxF $(addprefix -e ,$(PURE_ALLOWED)) || true); \
	if [ -n "$$bad" ]; then echo "check-purity: fsm/ and tables/ reference: $$bad"; exit 1; fi; \
	echo "check-purity: fsm/ and tables/ are pure ($(words $(PURE_OBJS)) objects)"

# Every header compiles on its own.
check-headers:
	@set -e; for h in $(filter %.h,$(HDRS)); do \
		printf '#include "%s"\n#include "%s"\n' $$h $$h | \
		$(CC) $(CSTD) $(WARN) $(INC) $(PKG_CFLAGS) -x c -fsyntax-only - ; \
	done; echo "check-headers: $(words $(filter %.h,$(HDRS))) headers compile alone"

build/rel/libsw.a: $(PURE_OBJS) $(patsubst %.c,build/rel/%.o,$(IO_SRCS))
	@rm -f $@
	ar rcs $@ $^

build/gendocs: docs/gendocs.c docs/gencap.c docs/gencap.h build/rel/libsw.a
	$(CC) $(CFLAGS_REL) -Wno-missing-prototypes -o $@ docs/gendocs.c docs/gencap.c build/rel/libsw.a $(PKG_LIBS)

GENERATED_DOCS = docs/protocol-tables.md docs/run-states.dot

docs: build/gendocs
	build/gendocs tables > docs/protocol-tables.md
	build/gendocs dot > docs/run-states.dot
	@if command -v dot >/dev/null; then dot -Tsvg docs/run-states.dot > docs/run-states.svg; fi

docs-check: build/gendocs
	@mkdir -p build/docs-check
	@build/gendocs tables > build/docs-check/protocol-tables.md
	@build/gendocs dot > build/docs-check/run-states.dot
	@if command -v dot >/dev/null; then \
		dot -Tsvg build/docs-check/run-states.dot > build/docs-check/run-states.svg; \
		cmp -s docs/run-states.svg build/docs-check/run-states.svg || \
		{ echo "docs-check: docs/run-states.svg is stale; run make docs"; exit 1; }; fi
	@for f in $(GENERATED_DOCS); do \
		if ! cmp -s $$f build/docs-check/$$(basename $$f); then \
			echo "docs-check: $$f is stale; run make docs"; exit 1; fi; \
	done; echo "docs-check: generated docs are current"

install: build/slipway
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 build/slipway $(DESTDIR)$(BINDIR)/slipway

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/slipway

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)

# Extra targets (bench, fuzz) live in mk/*.mk, one file per area.
-include $(sort $(wildcard mk/*.mk))
