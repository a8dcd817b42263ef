# slipway: one non-recursive Makefile.  See README.md for the two set-up commands.
#
#   make            build/slipway (optimised, no sanitizers)
#   make test       every test: unit + model checks + e2e (ASan/UBSan), purity,
#                   docs-check, the macOS compile check, a fixed-seed fuzz
#                   smoke run; quiet, V=1 verbose
#   make test PORTABLE=1   the same with io/util/os_posix.c, the POSIX side of
#                   the OS seam, in place of os_linux.c
#   make check-clang-test  make test with CC=clang
#   make check-posix       lists the sources that do not yet build as POSIX.1-2008
#   make check-fortify     every source compiles with -O2 -D_FORTIFY_SOURCE=2
#   make check-macos       compiles every source for macOS (mk/check-macos.mk)
#   make docs       regenerate docs/ and schemas/ from tables/
#   make docs-check fail when a committed generated file is stale
#   make bench      benchmarks (not tests)
#   make fuzz       libFuzzer harnesses for a bounded time (clang)
#   make install    PREFIX=/usr/local DESTDIR= BINDIR= MANDIR= ...; make uninstall
#
# User CFLAGS, CPPFLAGS and LDFLAGS are honoured (Debian's hardening flags
# included).  Warnings are errors only in developer mode (DEVELOPER=1) and in
# every test build.  `make deps X` installs the Debian packages first and then
# builds X in a second make that reads pkg-config afresh (safe with -j).

# `make` alone builds build/slipway (`deps` below is the first rule).
.DEFAULT_GOAL := all

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
DATADIR  ?= $(PREFIX)/share
MANDIR   ?= $(DATADIR)/man
DOCDIR   ?= $(DATADIR)/doc/slipway
SCHEMADIR ?= $(DATADIR)/slipway/schemas
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
CC       ?= cc
LD       ?= ld
PKG_CONFIG ?= pkg-config
PYTHON   ?= /usr/bin/python3
INSTALL  ?= install
CFLAGS   ?= -O2 -g
PKGS      = jansson libgit2 openssl libxxhash

# groff-base, zsh and fish let the tests check the man pages and completions,
# strace the order of a mutation's writes and fsyncs (tests/e2e/test_durability.py);
# python3-markdown-it reads the Markdown report (tests/e2e/test_report.py).
DEBIAN_PKGS = build-essential pkg-config git libjansson-dev libssl-dev libgit2-dev libxxhash-dev \
	      libcriterion-dev python3-jsonschema jq graphviz clang libclang-rt-14-dev groff-base \
	      zsh fish strace python3-markdown-it
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Installs the Debian packages that are missing (root, or sudo), and the
# MCP SDK.  Heavy tools have targets of their own, which .ci/run calls:
# deps-zig (zig, ~350 MB, for make check-macos), deps-release.
deps:
	@missing=$$(for p in $(DEBIAN_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	else echo "deps: all Debian packages present"; fi
	@if ! command -v node >/dev/null 2>&1; then \
		echo "installing: nodejs npm (for the MCP SDK tests)"; \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends nodejs npm; \
	fi
	@$(MAKE) --no-print-directory mcp-sdk

# The official MCP TypeScript SDK for tests/e2e/test_mcp.py, pinned by
# tests/mcp/package-lock.json, installed into tests/mcp/node_modules (never
# globally).
MCP_SDK_STAMP = tests/mcp/node_modules/.package-lock.json
mcp-sdk: $(MCP_SDK_STAMP)
$(MCP_SDK_STAMP): tests/mcp/package-lock.json tests/mcp/package.json
	cd tests/mcp && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

# `make deps X Y`: this make only installs; a second make, started after
# `deps` has finished, builds X Y and so reads pkg-config once the packages
# are there.  Under -j the two never overlap.  Without a -j of its own, the
# second make runs one job per CPU (the README's two commands have none).
DEPS_THEN := $(filter-out deps,$(MAKECMDGOALS))
DEPS_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
ifneq ($(and $(filter deps,$(MAKECMDGOALS)),$(DEPS_THEN)),)
.PHONY: deps deps-then $(DEPS_THEN)
$(DEPS_THEN): deps-then
	@:
deps-then: deps
	@$(MAKE) --no-print-directory $(DEPS_JOBS) $(DEPS_THEN)
else

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CRIT_LIBS  := $(shell $(PKG_CONFIG) --libs criterion 2>/dev/null)
PKG_OK     := $(shell $(PKG_CONFIG) --exists $(PKGS) 2>/dev/null && echo yes)

# slipway itself links the libraries' static archives, which Debian's -dev
# packages ship: no dynamic loading of 19 shared objects per command, and
# io/git/vcs_notls.c keeps libgit2's TLS (a CA bundle parsed at init), SSH and
# GSSAPI out (see there).  STATIC=0, or a system without libgit2.a, links
# the shared libraries instead.
PKG_LIBDIR := $(shell $(PKG_CONFIG) --variable=libdir libgit2 2>/dev/null)
STATIC     ?= $(if $(wildcard $(PKG_LIBDIR)/libgit2.a),1,0)
PKG_LIBS_ALL := $(shell $(PKG_CONFIG) --static --libs-only-l $(PKGS) 2>/dev/null)
PKG_LIBS_STATIC := -Wl,-Bstatic $(filter-out -lrt -ldl -lpthread,$(PKG_LIBS_ALL)) \
	-Wl,-Bdynamic -lpthread -ldl -lrt
BIN_LIBS    = $(if $(filter 1,$(STATIC)),$(PKG_LIBS_STATIC),$(PKG_LIBS))
# build/slipway (what `make install` installs) links glibc's archive too when
# the compiler has one (libc6-dev ships libc.a) and builds position-
# independent code: a static-pie binary like the release's (mk/release.mk),
# with no dynamic loader.  Measured side by side (issue #37), a submit in a
# 20-file repository takes 8-10% less wall time and 12% less CPU than with
# glibc shared, the loader's relocations and symbol lookups being most of the
# difference; `make bench` times the start of both.  STATIC_LIBC=0 keeps
# glibc shared; the sanitizer builds always do.
LIBC_A      := $(if $(filter 1,$(STATIC)),$(shell $(CC) -print-file-name=libc.a 2>/dev/null))
CC_PIE      := $(if $(filter /%,$(LIBC_A)),$(shell $(CC) -dM -E -x c /dev/null 2>/dev/null | grep -c __PIE__))
STATIC_LIBC ?= $(if $(and $(filter /%,$(LIBC_A)),$(wildcard $(LIBC_A)),$(filter-out 0,$(CC_PIE))),1,0)
PROG_LIBS    = $(if $(filter 1,$(STATIC_LIBC)),-static-pie $(PKG_LIBS_ALL),$(BIN_LIBS))
# glibc's linker notes on getpwuid_r and getaddrinfo in a static link, which
# mk/release.mk explains (libgit2 calls neither in slipway's use), are left
# out of the build's output; every other message of the link is shown.
LINK_NOTES   = 2>$@.notes; rc=$$?; grep -v -e "libgit2\.a(.*): in function" \
	-e "Using 'getpwuid_r' in statically linked" -e "Using 'getaddrinfo' in statically linked" \
	$@.notes >&2; rm -f $@.notes; exit $$rc

# V=1 shows every command; the default prints one short line per step.
ifeq ($(V),1)
Q =
QUIET_CC =
QUIET_LINK =
QUIET_GEN =
else
Q = @
QUIET_CC = @echo "  CC      $@";
QUIET_LINK = @echo "  LINK    $@";
QUIET_GEN = @echo "  GEN     $@";
endif

WARN     = -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
	   -Wswitch-enum -Wvla -Wwrite-strings -fno-common -Wshadow \
	   -Wno-missing-field-initializers
DEV_WERROR = $(if $(filter 1,$(DEVELOPER)),-Werror)
UNAME_S := $(shell uname -s 2>/dev/null)
# C11 and POSIX.1-2008 with XSI, no GNU or BSD extension: what every file
# but io/util/os_linux.c is written in (the OS seam, io/util/os.h, holds
# the rest).  Apple's headers hide O_NOFOLLOW, and before macOS 13
# O_DIRECTORY, both POSIX.1-2008, unless _DARWIN_C_SOURCE is defined.
CSTD_POSIX = $(strip -std=c11 -D_XOPEN_SOURCE=700 $(if $(filter Darwin,$(UNAME_S)),-D_DARWIN_C_SOURCE))
# Every product source is built with it; io/util/os_linux.c, the Linux
# side of the seam, alone defines _GNU_SOURCE (at its top).
CSTD     = $(CSTD_POSIX)
# tests/, tests/bench/ and mk/gen/ keep _GNU_SOURCE: they run only here
# (Linux and glibc) and some use glibc's extensions.  `private`: the
# product objects they link keep CSTD.
CSTD_GNU = -std=c11 -D_GNU_SOURCE
# What $(CC_STAMP) holds, expanded once here: the CSTD_GNU of tests/ and
# mk/gen/ (set for their targets below) must not change it.
CC_FLAGS_TEXT := $(CC) | $(CSTD) | $(CSTD_GNU) | $(CPPFLAGS) | $(CFLAGS)
INC      = -I. -include io/util/banned.h
CFLAGS_REL = $(CSTD) $(WARN) $(DEV_WERROR) $(INC) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
CFLAGS_SAN = $(CSTD) $(WARN) -Werror -O1 -g -fno-omit-frame-pointer \
	     -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	     -DSW_TESTING=1 $(INC) $(PKG_CFLAGS) $(CPPFLAGS)
LDFLAGS_SAN = -fsanitize=address,undefined

# The OS seam (io/util/os.h) has one implementation per system, and only
# the chosen one is compiled and linked: io/util/os_linux.c on Linux,
# io/util/os_posix.c elsewhere.  PORTABLE=1 takes os_posix.c on Linux too,
# so the whole suite runs it (make test PORTABLE=1); a change of choice
# relinks everything through $(OS_STAMP).
OS_IMPL   = $(if $(filter 1,$(PORTABLE)),posix,$(if $(filter Linux,$(UNAME_S)),linux,posix))
OS_SRCS   = io/util/os_linux.c io/util/os_posix.c
OS_UNUSED = $(filter-out io/util/os_$(OS_IMPL).c,$(OS_SRCS))
OS_STAMP  = build/os-impl
LINK_STAMP = build/link-mode
CC_STAMP  = build/cc-flags

# Sources are picked up by wildcard so that adding a module needs no edit here.
PURE_SRCS = $(sort $(wildcard tables/*.c fsm/*.c))
IO_SRCS   = $(sort $(filter-out $(OS_UNUSED),$(wildcard io/*/*.c)))
SVC_SRCS  = $(sort $(wildcard service/*.c))
CLI_SRCS  = $(sort $(filter-out cli/main.c,$(wildcard cli/*.c)))
MCP_SRCS  = $(sort $(wildcard mcp/*.c))
GEN_SRCS  = build/gen/capabilities.c build/gen/schemas.c
LIB_SRCS  = $(PURE_SRCS) $(IO_SRCS) $(SVC_SRCS) $(CLI_SRCS) $(MCP_SRCS)
TEST_SRCS = $(sort $(wildcard tests/*/test_*.c))
HDRS      = $(wildcard tables/*.h tables/*.def fsm/*.h io/*/*.h io/*/*.def service/*.h cli/*.h cli/*.def mcp/*.h)

REL_OBJS  = $(patsubst %.c,build/rel/%.o,$(LIB_SRCS)) $(patsubst build/gen/%.c,build/rel/gen/%.o,$(GEN_SRCS))
SAN_OBJS  = $(patsubst %.c,build/san/%.o,$(LIB_SRCS)) $(patsubst build/gen/%.c,build/san/gen/%.o,$(GEN_SRCS))
PURE_OBJS = $(patsubst %.c,build/rel/%.o,$(PURE_SRCS))
TEST_BINS = $(patsubst tests/%.c,build/san/tests/%,$(TEST_SRCS))
TEST_HELPERS = $(sort $(wildcard tests/support/*.c))
TEST_HELPER_OBJS = $(patsubst %.c,build/san/%.o,$(TEST_HELPERS))

# Symbols the pure core may reference (R1): no allocation, I/O, clock, env.
PURE_ALLOWED = __assert_fail memcmp memset memcpy strcmp strlen __stack_chk_fail

.PHONY: deps mcp-sdk demo all test unit e2e fuzz fuzz-smoke bench bench-build check-purity check-headers check-cli check-layers docs docs-check docs-i18n-stamp \
	install install-strip uninstall clean check-clang check-clang-test check-fortify check-posix check-pkgs pkg-flags schemas schemas-check FORCE
.DELETE_ON_ERROR:
.SECONDARY: $(TEST_HELPER_OBJS)

all: build/slipway

# A clear message instead of a link failure when the libraries are missing.
check-pkgs:
	@[ "$(PKG_OK)" = yes ] || { echo "slipway: $(PKG_CONFIG) cannot find: $(PKGS);" \
		"run 'make deps' first (see README.md)"; exit 1; }

# `make pkg-flags` shows what the build reads from pkg-config.
pkg-flags: check-pkgs
	@echo "PKG_CFLAGS=$(PKG_CFLAGS)"; echo "PKG_LIBS=$(PKG_LIBS)"

# The main job: build, then drive a first Run in a scratch repository.
demo: build/slipway
	sh tests/e2e/demo.sh $(CURDIR)/build/slipway

# Each object lists the headers it includes in a .d file next to it (-MMD);
# -MP adds an empty rule per header, so deleting a header breaks no build.
DEPFLAGS = -MMD -MP

build/rel/%.o: %.c $(CC_STAMP) | check-pkgs
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CFLAGS_REL) $(DEPFLAGS) -c -o $@ $<

build/san/%.o: %.c $(CC_STAMP) | check-pkgs
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CFLAGS_SAN) $(DEPFLAGS) -c -o $@ $<

$(TEST_BINS) $(TEST_HELPER_OBJS) build/gendocs: private CSTD = $(CSTD_GNU)
build/rel/mk/gen/%.o build/bench/%: private CSTD = $(CSTD_GNU)

# The compiler and the flags that shape the objects (git's GIT-CFLAGS),
# rewritten, and so rebuilding every object, only when they change, as
# with `make CC=clang test` after a gcc build.  Warnings are left out:
# they change no object.
$(CC_STAMP): FORCE
	@mkdir -p $(dir $@)
	@flags='$(subst ','\'',$(CC_FLAGS_TEXT))'; \
	if [ "$$(cat $@ 2>/dev/null)" != "$$flags" ]; then printf '%s\n' "$$flags" > $@; \
		echo "  GEN     $@ ($(CC))"; fi

# Names the OS implementation the binaries hold; rewritten (and so
# relinking them) only when PORTABLE or the system changes it.
$(OS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@if [ "$$(cat $@ 2>/dev/null)" != "$(OS_IMPL)" ]; then echo "$(OS_IMPL)" > $@; \
		echo "  GEN     $@ (io/util/os_$(OS_IMPL).c)"; fi

# How build/slipway links its libraries; rewritten (and so relinking it)
# only when STATIC or STATIC_LIBC changes it.
$(LINK_STAMP): FORCE
	@mkdir -p $(dir $@)
	@if [ "$$(cat $@ 2>/dev/null)" != "STATIC=$(STATIC) STATIC_LIBC=$(STATIC_LIBC)" ]; then \
		echo "STATIC=$(STATIC) STATIC_LIBC=$(STATIC_LIBC)" > $@; \
		echo "  GEN     $@ (STATIC=$(STATIC) STATIC_LIBC=$(STATIC_LIBC))"; fi

# Version, commit and build date for --version: git describe, and the date
# from SOURCE_DATE_EPOCH when set (reproducible builds).  Rewritten only
# when its text changes, so an unchanged tree relinks nothing.
build/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@sh mk/version.sh $@ > $@.tmp && \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; echo "  GEN     $@"; fi

build/rel/cli/main.o build/san/cli/main.o build/rel/cli/cmd_mcp.o build/san/cli/cmd_mcp.o: build/gen/version.h

# Capability texts are embedded at build time.  Each template NAME.md (and
# each query file NAME.graphql or NAME.jq of the source envelope procedure)
# has its `<!-- slipway:... -->` markers expanded by build/gendocs
# (mk/gen/gencap.c) from tables/, the Outcome decoder and the source
# parser's spellings.
CAP_GEN = $(patsubst io/adapters/%,build/gen/%,$(sort $(wildcard $(addprefix io/adapters/capabilities/*.,md graphql jq))))

build/gen/capabilities/%: io/adapters/capabilities/% build/gendocs
	@mkdir -p $(dir $@)
	$(QUIET_GEN)build/gendocs capability $< $@

build/gen/capabilities.c: $(CAP_GEN) mk/embed.sh
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh mk/embed.sh $@ sw_embedded_capabilities $(sort $(CAP_GEN))

# slipway mcp cuts its tool schemas from our JSON Schemas, embedded.
build/gen/schemas.c: schemas/machine-protocol.schema.json schemas/source-envelope.schema.json mk/embed.sh
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh mk/embed.sh $@ sw_embedded_schemas $(filter %.json,$^)

build/rel/gen/%.o: build/gen/%.c $(CC_STAMP)
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CFLAGS_REL) -c -o $@ $<

build/san/gen/%.o: build/gen/%.c $(CC_STAMP)
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CFLAGS_SAN) -c -o $@ $<

build/slipway: build/rel/cli/main.o $(REL_OBJS) $(OS_STAMP) $(LINK_STAMP)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(PROG_LIBS) $(LINK_NOTES)

build/san/slipway: build/san/cli/main.o $(SAN_OBJS) $(OS_STAMP)
	$(QUIET_LINK)$(CC) $(LDFLAGS_SAN) -o $@ $(filter %.o,$^) $(BIN_LIBS)

build/san/tests/%: tests/%.c $(SAN_OBJS) $(TEST_HELPER_OBJS) $(OS_STAMP)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS_SAN) $(DEPFLAGS) -MF $@.d -MT $@ -Wno-missing-prototypes -o $@ $< $(SAN_OBJS) $(TEST_HELPER_OBJS) \
		$(PKG_LIBS) $(CRIT_LIBS) $(LDFLAGS_SAN)

# The test command: unit and model checks, the end-to-end CLI suite against the
# sanitizer binary, the purity link check, the generated-docs check and a
# fixed-seed fuzz run.  Each step prints one line (its output is kept in
# build/test-logs/ and shown when it fails; V=1 shows it all); the last line
# sums up.  SLIPWAY_SHARED names the reference folder for the conformance
# checks; without it they say they were skipped.
SLIPWAY_SHARED ?= $(abspath $(CURDIR)/../shared)
TEST_ENV = V=$(V) SLIPWAY_SHARED=$(SLIPWAY_SHARED) SLIPWAY_TEST_ROOT=$(CURDIR)
E2E_TESTS = $(sort $(wildcard tests/e2e/test_*.py))

test: DEVELOPER = 1
test: check-purity check-headers check-cli check-record check-layers check-clang check-fortify check-macos-step docs-check unit e2e fuzz-smoke bench-build
	@$(TEST_ENV) sh tests/summary.sh $(TEST_BINS) $(E2E_TESTS) check-macos $(FUZZ_SMOKE_STEPS)

unit: $(TEST_BINS)
	@set -e; for t in $(TEST_BINS); do \
		ASAN_OPTIONS=detect_leaks=1 $(TEST_ENV) \
		sh tests/step.sh $$t $$t --jobs 2 --short-filename; \
	done

# The e2e files that run make in this tree run one after another in one
# lane; every other file works only in its own scratch repositories, and
# E2E_JOBS of them (one per CPU) run at once beside that short lane, the
# longest files first so that the CPUs finish together.  Each file still
# prints its one line when it ends.
E2E_IN_TREE = $(addprefix tests/e2e/,test_build_checks.py test_layers.py test_manpages.py \
	test_next_schema.py test_package.py test_record_check.py test_release.py test_source_schema.py)
E2E_LONG = $(addprefix tests/e2e/,test_real_hosts.py test_journal_fields.py test_wire_system_edges.py \
	test_host_texts.py test_adapters.py test_issue_path.py)
E2E_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# E2E_BIN drives the suite with another binary, and E2E_STEP_PREFIX keeps
# its logs apart (make release-check: the static one).  The default is
# named as its rule names it, so that make builds it first.
E2E_BIN ?= build/san/slipway
e2e: $(E2E_BIN) man $(MCP_SDK_STAMP)
	@export SLIPWAY_BIN=$(abspath $(E2E_BIN)) $(TEST_ENV); \
	{ for t in $(filter $(E2E_IN_TREE),$(E2E_TESTS)); do \
		sh tests/step.sh $(E2E_STEP_PREFIX)$$t $(PYTHON) $$t || exit 1; done; } & lane=$$!; \
	printf '%s\n' $(filter $(E2E_LONG),$(E2E_TESTS)) $(filter-out $(E2E_IN_TREE) $(E2E_LONG),$(E2E_TESTS)) | \
		xargs -P $(E2E_JOBS) -I{} sh tests/step.sh $(E2E_STEP_PREFIX){} $(PYTHON) {}; rc=$$?; \
	wait $$lane || rc=1; exit $$rc

# PURE_EXTRA_OBJS lets the self-test add a stray object and watch this fail.
check-purity: $(PURE_OBJS)
	@mkdir -p build
	@$(LD) -r -o build/pure.o $(PURE_OBJS) $(PURE_EXTRA_OBJS)
	@bad=$$(nm -u build/pure.o | awk '{print $$2}' | grep -vxF $(addprefix -e ,$(PURE_ALLOWED)) || true); \
	if [ -n "$$bad" ]; then echo "check-purity: fsm/ and tables/ reference: $$bad"; exit 1; fi; \
	echo "check-purity: fsm/ and tables/ are pure ($(words $(PURE_OBJS)) objects)"


# The whole suite built with clang: every object is rebuilt with it
# ($(CC_STAMP)), then rebuilt with the default compiler by the next make.
check-clang-test:
	@$(MAKE) --no-print-directory CC=$(CLANG) test

# The sources compile without a warning under clang too (a syntax-only
# pass with the release warnings as errors).
CLANG ?= clang
check-clang: build/gen/version.h | check-pkgs
	@set -e; $(foreach f,$(LIB_SRCS) cli/main.c,\
		$(CLANG) $(CSTD) $(WARN) -Werror $(INC) $(PKG_CFLAGS) -fsyntax-only $(f);) \
	echo "check-clang: $(words $(LIB_SRCS) cli/main.c) sources compile cleanly with $(CLANG)"

# Debian's hardening flags (dpkg-buildflags: -O2 -D_FORTIFY_SOURCE=2, and
# 3 on newer releases): every product source compiles with them and the
# warnings as errors.  glibc then defines some banned functions inline in
# its headers, which io/util/banned.h declares deprecated instead of
# rewriting them.  Compiled to objects (thrown away): some fortify
# warnings come from the optimiser, which -fsyntax-only never runs.
FORTIFY_FLAGS = -O2 -D_FORTIFY_SOURCE=2
check-fortify: build/gen/version.h | check-pkgs
	@set -e; $(foreach f,$(LIB_SRCS) cli/main.c,\
		$(CC) $(CSTD) $(WARN) -Werror $(FORTIFY_FLAGS) $(INC) $(PKG_CFLAGS) -c -o /dev/null $(f);) \
	echo "check-fortify: $(words $(LIB_SRCS) cli/main.c) sources compile with $(FORTIFY_FLAGS)"

# Issue #32: every product source but io/util/os_linux.c compiles as C11
# and POSIX.1-2008 ($(CSTD_POSIX)), with the release warnings as errors.
# Lists the files that do not yet (V=1 shows why); fails if there is one.
POSIX_CHECK_SRCS = $(filter-out io/util/os_linux.c,$(LIB_SRCS)) cli/main.c
check-posix: build/gen/version.h | check-pkgs
	@bad=; for f in $(POSIX_CHECK_SRCS); do \
		if [ "$(V)" = 1 ]; then \
			$(CC) $(CSTD_POSIX) $(WARN) -Werror $(INC) $(PKG_CFLAGS) -fsyntax-only $$f || bad="$$bad $$f"; \
		else \
			$(CC) $(CSTD_POSIX) $(WARN) -Werror $(INC) $(PKG_CFLAGS) -fsyntax-only $$f 2>/dev/null || bad="$$bad $$f"; \
		fi; \
	done; \
	if [ -n "$$bad" ]; then \
		echo "check-posix: $$(echo $$bad | wc -w) of $(words $(POSIX_CHECK_SRCS)) sources do not compile with $(CSTD_POSIX):"; \
		for f in $$bad; do echo "  $$f"; done; exit 1; \
	fi; echo "check-posix: $(words $(POSIX_CHECK_SRCS)) sources compile with $(CSTD_POSIX)"

# Every header compiles on its own.
check-headers:
	@set -e; for h in $(filter %.h,$(HDRS)); do \
		printf '#include "%s"\n#include "%s"\n' $$h $$h | \
		$(CC) $(CSTD) $(WARN) -Werror $(INC) $(PKG_CFLAGS) -x c -fsyntax-only - ; \
	done; echo "check-headers: $(words $(filter %.h,$(HDRS))) headers compile alone"

# cli/ reads an option through its destination (struct cli_args, the
# destination column of cli/flags.def), never as the Nth element of an
# array: no `x[3].member` or `x[3]->member` in cli/ (CLI_CHECK_EXTRA lets
# the self-test add a file and watch this fail).
check-cli:
	@if grep -nE '\[[0-9]+\][[:space:]]*(\.|->)' cli/*.c cli/*.h $(CLI_CHECK_EXTRA); then \
		echo "check-cli: cli/ reads an element by its index; read the destination"; exit 1; fi; \
	echo "check-cli: cli/ reads every option through its destination"

# The rooms of the tree and the one way their dependencies run (see
# mk/check_layers.py): includes, circles among objects, the run
# directory's names, host ids in conditions, file sizes.  LAYERS_EXTRA lets
# the self-test (tests/e2e/test_layers.py) add a stray file and watch it fail.
LAYER_OBJS = $(patsubst %.c,build/rel/%.o,$(PURE_SRCS) $(IO_SRCS) $(SVC_SRCS) $(MCP_SRCS) \
	$(sort $(wildcard mk/gen/gendocs*.c mk/gen/gencap*.c)))
# The generator's objects, for the circle check only (build/gendocs links
# its sources in one command).
build/rel/mk/gen/%.o: CFLAGS_REL += -Wno-missing-prototypes
check-layers: $(LAYER_OBJS)
	@$(PYTHON) mk/check_layers.py $(LAYERS_EXTRA) $(LAYER_OBJS)

build/rel/libsw.a: $(PURE_OBJS) $(patsubst %.c,build/rel/%.o,$(IO_SRCS)) $(OS_STAMP)
	@rm -f $@
	$(QUIET_GEN)ar rcs $@ $(filter %.o,$^)

GENDOCS_SRCS = $(sort $(wildcard mk/gen/gendocs*.c)) mk/gen/gencap.c mk/gen/gencap_source.c \
	       tests/support/fsm_explore.c

build/gendocs: $(GENDOCS_SRCS) $(wildcard mk/gen/gen*.h mk/gen/gendocs*.def docs/*/reference/*.def) \
	       tests/support/fsm_explore.h \
	       $(HDRS) build/rel/libsw.a
	$(QUIET_LINK)$(CC) $(CFLAGS_REL) -Wno-missing-prototypes $(LDFLAGS) -o $@ \
		$(GENDOCS_SRCS) build/rel/libsw.a $(PKG_LIBS)

# The generated docs (committed; docs-check keeps them current): the
# reference pages docs/<lang>/reference/NAME.md, each from its template
# NAME.md.in and the code, and the diagrams docs/diagrams/NAME.{dot,svg}
# (mk/diagrams.sh).  The layers diagram reads the #include lines of the
# program's sources; the protocol sequence replays one spec scenario.
REF_PAGES = $(patsubst %.md.in,%.md,$(sort $(wildcard docs/*/reference/*.md.in)))
DIAGRAMS  = layers run-states protocol-sequence run-store issue-source adapter-ownership
DIAGRAM_FILES = $(foreach d,$(DIAGRAMS),docs/diagrams/$(d).dot docs/diagrams/$(d).svg)
DIAGRAM_ARGS = spec/scenarios/happy-path.json $(LIB_SRCS) cli/main.c $(filter %.h,$(HDRS))
GENERATED_DOCS = $(REF_PAGES) $(DIAGRAM_FILES)

# schemas/: our JSON Schemas, generated from the shapes in schemas/src/ and
# the wire spellings in tables/ (committed; docs-check keeps them current).
SCHEMA_SRCS = $(sort $(wildcard schemas/src/*.in.json))
SCHEMAS     = $(patsubst schemas/src/%.in.json,schemas/%.schema.json,$(SCHEMA_SRCS))

build/genschema: mk/gen/genschema.c $(PURE_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS_REL) $(LDFLAGS) -o $@ $< $(PURE_OBJS) $(PKG_LIBS)

schemas: build/genschema
	@set -e; for s in $(SCHEMA_SRCS); do \
		out=schemas/$$(basename $$s .in.json).schema.json; \
		build/genschema $$s > $$out.tmp || { rm -f $$out.tmp; exit 1; }; mv $$out.tmp $$out; echo "  GEN     $$out"; \
	done

schemas-check: build/genschema
	@mkdir -p build/docs-check/schemas
	@set -e; for s in $(SCHEMA_SRCS); do \
		out=schemas/$$(basename $$s .in.json).schema.json; \
		build/genschema $$s > build/docs-check/$$out; \
		cmp -s $$out build/docs-check/$$out || \
		{ echo "schemas-check: $$out is stale; run make schemas"; exit 1; }; \
	done

docs: build/gendocs schemas
	build/gendocs pages docs docs
	sh mk/diagrams.sh build/gendocs docs/diagrams $(DIAGRAM_ARGS)

# Also fails on a generated file that nothing generates any more: a page
# without its template, a diagram no longer drawn.
docs-check: build/gendocs schemas-check
	@rm -rf build/docs-check/docs && mkdir -p build/docs-check/docs
	@build/gendocs pages docs build/docs-check/docs
	@sh mk/diagrams.sh build/gendocs build/docs-check/docs/diagrams $(DIAGRAM_ARGS)
	@for f in $(GENERATED_DOCS); do \
		if ! cmp -s $$f build/docs-check/$$f; then \
			echo "docs-check: $$f is stale; run make docs"; exit 1; fi; \
	done
	@for f in $(filter-out $(GENERATED_DOCS),$(wildcard docs/*/reference/*.md docs/diagrams/*)); do \
		echo "docs-check: $$f is generated by nothing; remove it or add its template"; exit 1; \
	done; echo "docs-check: generated docs are current ($(words $(GENERATED_DOCS)) files)"

# The translated-from lines of docs/zh and docs/ja: without PAGES, which
# translations are stale; PAGES="zh/index.md ..." stamps pages whose
# translation was brought up to date (mk/docs_translated.sh).
docs-i18n-stamp:
	@sh mk/docs_translated.sh $(PAGES)

clean:
	rm -rf build

-include $(shell find build -name '*.d' -type f 2>/dev/null)

# Extra targets (bench, fuzz, install) live in mk/*.mk, one file per area.
-include $(sort $(wildcard mk/*.mk))

endif # deps-then
