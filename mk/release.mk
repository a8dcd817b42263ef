# Release artefacts (issue #33): one statically linked slipway per
# architecture, the archives, packages, checksums and SBOMs built from it,
# and the checks that run them.
#
#   make static           build/static/amd64/slipway: libgit2, Jansson,
#                         libcrypto, xxHash and glibc inside, no shared library
#   make static-arm64     build/static/arm64/slipway (cross-compiled)
#   make dist             dist/slipway_VERSION_linux_{amd64,arm64}.tar.gz, their
#                         SPDX SBOMs and dist/checksums.txt
#   make deb, make rpm    dist/slipway_*.deb, dist/slipway-*.rpm (both arches)
#   make release          all of the above
#   make deps-release     the release tools (root): the cross toolchain, qemu,
#                         lintian, rpm, rpmlint, and the arm64 libraries
#                         unpacked into build/sysroot/arm64 (never into /usr)
#   make release-check    deps-release, release, then every release check
#                         (tests/e2e/test_release.py, the whole e2e suite
#                         against the static binary, the arm64 subset under
#                         qemu, the .deb installed with apt-get)
#
# RELEASE_ARCHES=amd64 limits dist, deb and rpm to one architecture.
#
# The static binaries are their own build: objects under build/static/ARCH/
# with fixed flags (not the user's CFLAGS), source paths mapped to "." and
# the build date taken from the commit (SOURCE_DATE_EPOCH, unless set), so
# two builds of one commit give the same bytes.  -static-pie keeps address
# randomisation.  The linker warns that getpwuid_r and getaddrinfo need
# glibc's NSS modules at run time: libgit2 calls getpwuid_r only when the
# real and effective uids differ (setuid; it reads HOME otherwise, and an
# unset HOME only means no global configuration) and getaddrinfo only in
# its network transports, which slipway never opens; tests/e2e/test_release.py
# traces a whole Run to show neither NSS nor TLS is touched.

RELEASE_ARCHES ?= amd64 arm64
ARM64_SYSROOT  = build/sysroot/arm64
ARM64_TRIPLET  = aarch64-linux-gnu

STATIC_CFLAGS ?= -O2 -g
# No -D_FORTIFY_SOURCE: glibc's fortified inline sprintf and strcpy collide
# with the macros of io/util/banned.h, which every file includes first.
STATIC_HARDEN  = -fstack-protector-strong -fstack-clash-protection -ffile-prefix-map=$(CURDIR)=.
STATIC_HARDEN_amd64 = -fcf-protection
STATIC_HARDEN_arm64 = -mbranch-protection=standard
STATIC_LDFLAGS = -static-pie -Wl,-z,relro,-z,now

# The compiler per architecture (ccache, when CC uses it, for both).
STATIC_CC_amd64 = $(CC)
STATIC_CC_arm64 = $(filter ccache,$(CC)) $(ARM64_TRIPLET)-gcc --sysroot=$(ARM64_SYSROOT)/root
STRIP_amd64 = strip
STRIP_arm64 = $(ARM64_TRIPLET)-strip
# pkg-config per architecture: arm64 reads the .pc files of the sysroot.
STATIC_PKG_CONFIG_amd64 = $(PKG_CONFIG)
STATIC_PKG_CONFIG_arm64 = PKG_CONFIG_LIBDIR=$(CURDIR)/$(ARM64_SYSROOT)/root/usr/lib/$(ARM64_TRIPLET)/pkgconfig:$(CURDIR)/$(ARM64_SYSROOT)/root/usr/share/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/$(ARM64_SYSROOT)/root $(PKG_CONFIG)

STATIC_SRCS = cli/main.c $(LIB_SRCS) $(GEN_SRCS)

# --version of the static binaries: the commit's date, not the build's.
STATIC_GEN       = build/static/gen
STATIC_VERSION_H = $(STATIC_GEN)/build/gen/version.h
RELEASE_EPOCH    = $${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || echo 0)}

$(STATIC_VERSION_H): FORCE
	@mkdir -p $(dir $@)
	@SOURCE_DATE_EPOCH=$(RELEASE_EPOCH) sh mk/version.sh $@ > $@.tmp && \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; echo "  GEN     $@"; fi

# One set of rules per architecture.  -iquote finds the static version.h
# before the one of the ordinary build.
define static_arch
STATIC_OBJS_$(1) = $$(patsubst %.c,build/static/$(1)/%.o,$$(STATIC_SRCS))

build/static/$(1)/%.o: %.c | static-tools-$(1)
	@mkdir -p $$(dir $$@)
	$$(QUIET_CC)$$(STATIC_CC_$(1)) $$(CSTD) $$(WARN) -iquote $$(STATIC_GEN) $$(INC) \
		$$$$($$(STATIC_PKG_CONFIG_$(1)) --cflags $$(PKGS)) \
		$$(STATIC_CFLAGS) $$(STATIC_HARDEN) $$(STATIC_HARDEN_$(1)) $$(DEPFLAGS) -c -o $$@ $$<

build/static/$(1)/cli/main.o build/static/$(1)/cli/cmd_mcp.o: $$(STATIC_VERSION_H)

# The link map names every archive member linked in (read by mk/sbom.py).
build/static/$(1)/slipway: $$(STATIC_OBJS_$(1))
	$$(QUIET_LINK)$$(STATIC_CC_$(1)) $$(STATIC_CFLAGS) $$(STATIC_LDFLAGS) -o $$@ $$^ \
		-Wl,-Map=$$@.map $$$$($$(STATIC_PKG_CONFIG_$(1)) --static --libs-only-l $$(PKGS))
endef
$(foreach a,amd64 arm64,$(eval $(call static_arch,$(a))))

static: build/static/amd64/slipway
static-arm64: build/static/arm64/slipway

static-tools-amd64: check-pkgs
	@[ -f "$(PKG_LIBDIR)/libgit2.a" ] && [ -f "$$($(CC) -print-file-name=libc.a)" ] || \
		{ echo "slipway: no static archives (libgit2.a, libc.a); run 'make deps' first"; exit 1; }

static-tools-arm64: $(ARM64_SYSROOT)/root/.stamp
	@command -v $(ARM64_TRIPLET)-gcc >/dev/null || \
		{ echo "slipway: no $(ARM64_TRIPLET)-gcc; run 'make deps-release' first"; exit 1; }

# The release tools, and the arm64 libraries.  The arm64 -dev packages do
# not co-install with the amd64 ones that `make deps` installs:
# libhttp-parser-dev is not Multi-Arch: same, so apt would remove
# libhttp-parser-dev, libgit2-dev and libcriterion-dev (amd64) to make room.
# They are therefore downloaded (apt-get download, the same archive and
# versions apt would install) and unpacked into build/sysroot/arm64/root,
# which the cross compiler uses as its --sysroot; nothing of arm64 is
# installed under /usr.
RELEASE_DEBIAN_PKGS = gcc-$(ARM64_TRIPLET) binutils-$(ARM64_TRIPLET) qemu-user-static lintian rpm rpmlint
ARM64_DEV_PKGS = libc6-dev linux-libc-dev libgit2-dev libjansson-dev libssl-dev libxxhash-dev \
		 libmbedtls-dev libhttp-parser-dev libssh2-1-dev libpcre2-dev zlib1g-dev

deps-release:
	@missing=$$(for p in $(DEBIAN_PKGS) $(RELEASE_DEBIAN_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; \
	done); \
	new_arch=; dpkg --print-foreign-architectures | grep -qx arm64 || { \
		echo "deps-release: dpkg --add-architecture arm64"; $(SUDO) dpkg --add-architecture arm64; new_arch=1; }; \
	if [ -n "$$missing$$new_arch" ] || ! apt-cache show libgit2-dev:arm64 >/dev/null 2>&1; then \
		$(SUDO) apt-get update -q || exit 1; fi; \
	if [ -n "$$missing" ]; then echo "installing:" $$missing; \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing || exit 1; \
	else echo "deps-release: all release tools present"; fi
	@rm -rf $(ARM64_SYSROOT)/debs.new && mkdir -p $(ARM64_SYSROOT)/debs.new && \
	cd $(ARM64_SYSROOT)/debs.new && \
	apt-get download -q -o APT::Sandbox::User="$$(id -un)" $(ARM64_DEV_PKGS:%=%:arm64) >/dev/null && \
	cd .. && if [ -d debs ] && [ "$$(ls debs)" = "$$(ls debs.new)" ]; then rm -rf debs.new; \
	else rm -rf debs && mv debs.new debs; fi && \
	echo "deps-release: arm64 libraries in $(ARM64_SYSROOT)/debs:" $$(ls debs | sed 's/_arm64\.deb$$//')
	@$(MAKE) --no-print-directory $(ARM64_SYSROOT)/root/.stamp

# Unpacks the downloaded .deb files (again when they change); contents.tsv
# says which package each file came from (for the SBOM).
$(ARM64_SYSROOT)/root/.stamp: $(wildcard $(ARM64_SYSROOT)/debs/*.deb)
	@[ -n "$^" ] || { echo "slipway: no arm64 libraries in $(ARM64_SYSROOT)/debs; run 'make deps-release' first"; exit 1; }
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	@for d in $^; do \
		dpkg-deb -x $$d $(dir $@) || exit 1; \
		f=$$(dpkg-deb --show --showformat='$${Package}\t$${Version}\t$${source:Package}\t$${source:Version}\t' $$d); \
		dpkg-deb -c $$d | awk -v f="$$f" '{print f $$6}'; \
	done > $(ARM64_SYSROOT)/contents.tsv
	@touch $@
	@echo "  GEN     $(ARM64_SYSROOT)/root ($(words $^) packages)"

.PHONY: static static-arm64 static-tools-amd64 static-tools-arm64 deps-release

# The man pages and completions of the release, from the static amd64
# binary and its version.h (the commit's date), as mk/gencli.mk makes them.
build/static/cli.stamp: build/static/amd64/slipway mk/gencli.py tables/exit_statuses.def mcp/server.c $(STATIC_VERSION_H)
	$(QUIET_GEN)build/static/amd64/slipway _reference > build/static/cli-reference.jsonl && \
	d=$$(mktemp -d) && printf '%s\n' $(MCP_REFERENCE_ASK) | \
		build/static/amd64/slipway mcp --root "$$d" > build/static/mcp-reference.jsonl 2>/dev/null; rc=$$?; rmdir "$$d"; \
	[ $$rc = 0 ] && \
	$(PYTHON) mk/gencli.py build/static/cli-reference.jsonl $(STATIC_VERSION_H) build/static build/static/mcp-reference.jsonl && \
	touch $@

RELEASE_SH = VERSION_H=$(STATIC_VERSION_H) SOURCE_DATE_EPOCH=$(RELEASE_EPOCH) PYTHON=$(PYTHON) \
	DOC_FILES="$(DOC_FILES)" DOC_TREE="$(DOC_TREE)" SCHEMA_FILES="$(SCHEMA_FILES)" \
	MAN_PAGES="$(MAN_NAMES:%=build/static/man/%.1)" COMPLETION_DIR=build/static/completion \
	STRIP_amd64="$(STRIP_amd64)" STRIP_arm64="$(STRIP_arm64)" sh mk/release.sh
RELEASE_INPUTS = $(RELEASE_ARCHES:%=build/static/%/slipway) build/static/cli.stamp

dist: $(RELEASE_INPUTS)
	@$(RELEASE_SH) dist "$(RELEASE_ARCHES)"
deb: $(RELEASE_INPUTS)
	@$(RELEASE_SH) deb "$(RELEASE_ARCHES)"
rpm: $(RELEASE_INPUTS) | rpm-tools
	@$(RELEASE_SH) rpm "$(RELEASE_ARCHES)"
# One script run for all three, so that checksums.txt is written once.
release: $(RELEASE_INPUTS) | rpm-tools
	@$(RELEASE_SH) "dist deb rpm" "$(RELEASE_ARCHES)"

rpm-tools:
	@command -v rpmbuild >/dev/null || { echo "slipway: no rpmbuild; run 'make deps-release' first"; exit 1; }

clean: clean-dist
clean-dist:
	rm -rf dist

.PHONY: dist deb rpm release rpm-tools clean-dist

# make bench: start-up of each way of linking slipway
# (tests/bench/bench_start.c), in a one-commit repository: every library
# shared (STATIC=0), the libraries' archives with glibc shared
# (STATIC_LIBC=0), the default build (build/slipway: static-pie when
# glibc's archive is there) and `make static`.
build/bench/slipway-shared: build/rel/cli/main.o $(REL_OBJS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

build/bench/slipway-glibc: build/rel/cli/main.o $(REL_OBJS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(BIN_LIBS)

build/bench/bench_start: tests/bench/bench_start.c tests/bench/bench_clock.h
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS_REL) -o $@ $<

BENCH_START_RUNS ?= 200
bench:: build/bench/bench_start build/bench/slipway-shared build/bench/slipway-glibc build/slipway \
	build/static/amd64/slipway
	@d=build/bench/start-repo; if [ ! -d $$d/.git ]; then rm -rf $$d && mkdir -p $$d && \
		git -C $$d init -q && echo hi > $$d/README && git -C $$d add README && \
		git -C $$d -c user.name=b -c user.email=b@example.com commit -qm first; fi; \
	build/bench/bench_start $$d $(BENCH_START_RUNS) shared=build/bench/slipway-shared \
		glibc-shared=build/bench/slipway-glibc default=build/slipway static=build/static/amd64/slipway

bench-build:: build/bench/bench_start

# The arm64 binary under qemu-user drives a named part of the e2e suite:
# a whole Run (test_demo), destructive confirmations (test_protocol_answers),
# MCP sessions with a whole Run and a destructive flow (test_mcp_only),
# Issue-backed Runs (test_issue_backed) and install/uninstall for every
# host (test_adapter_files): 383 s of test files, two at a time, on the
# shared 2-core machine.  E2E_ARM64 takes other files (test_mcp.py and
# test_adapters.py pass too, in 221 s and 267 s; the whole suite has not
# been run under qemu).  SLIPWAY_BIN is a two-line script that starts
# qemu (no binfmt_misc is needed).
E2E_ARM64 ?= $(addprefix tests/e2e/,test_demo.py test_protocol_answers.py test_mcp_only.py \
	test_issue_backed.py test_adapter_files.py)
E2E_ARM64_JOBS ?= $(E2E_JOBS)
e2e-arm64: build/static/arm64/slipway man $(MCP_SDK_STAMP)
	@command -v qemu-aarch64-static >/dev/null || { echo "slipway: no qemu-aarch64-static; run 'make deps-release' first"; exit 1; }
	@printf '#!/bin/sh\nexec qemu-aarch64-static %s "$$@"\n' $(CURDIR)/build/static/arm64/slipway > build/static/arm64/slipway-qemu
	@chmod +x build/static/arm64/slipway-qemu
	@export SLIPWAY_BIN=$(CURDIR)/build/static/arm64/slipway-qemu $(TEST_ENV); \
	printf '%s\n' $(E2E_ARM64) | xargs -P $(E2E_ARM64_JOBS) -I{} sh tests/step.sh arm64/{} $(PYTHON) {}

# A second build of the whole release from nothing (no object kept, no
# compiler cache) gives the same bytes as the first.
release-repro: release
	@rm -rf build/repro && mkdir -p build/repro && cp dist/* build/repro/
	@rm -rf build/static build/release dist
	@CCACHE_DISABLE=1 $(MAKE) --no-print-directory release >/dev/null 2>build/repro/stderr || \
		{ cat build/repro/stderr; exit 1; }
	@for f in $$(ls build/repro | grep -v stderr); do \
		cmp -s build/repro/$$f dist/$$f || { echo "release-repro: dist/$$f differs"; exit 1; }; done
	@echo "release-repro: a build from nothing gives the same $$(ls dist | wc -l) files, byte for byte"

# Every release check, each step timed: the artefacts, their checks
# (tests/e2e/test_release.py, which also builds the archives a second time
# and compares them byte for byte), the whole e2e suite against the static
# amd64 binary and the arm64 part under qemu.  A rebuild from nothing
# without the compiler cache (release-repro, about 6 minutes) is left to a
# release and out of CI's time.
# The release tools come from `make deps-release` (.ci/run runs both).
RELEASE_CHECK_STEPS = release release-test release-e2e-static e2e-arm64
release-check:
	@set -e; total=$$(date +%s); for s in $(RELEASE_CHECK_STEPS); do \
		t=$$(date +%s); $(MAKE) --no-print-directory $$s; \
		echo "release-check: $$s took $$(($$(date +%s) - t)) s"; done; \
	echo "release-check: all passed in $$(($$(date +%s) - total)) s"

release-test:
	@$(TEST_ENV) sh tests/step.sh release/tests/e2e/test_release.py $(PYTHON) tests/e2e/test_release.py

# test_release.py ran in the step before; the rest of the suite runs here.
release-e2e-static: build/static/amd64/slipway
	@$(MAKE) --no-print-directory e2e E2E_BIN=$(CURDIR)/build/static/amd64/slipway E2E_STEP_PREFIX=static/ \
		E2E_TESTS="$(filter-out tests/e2e/test_release.py,$(E2E_TESTS))"

.PHONY: e2e-arm64 release-repro release-check release-test release-e2e-static
