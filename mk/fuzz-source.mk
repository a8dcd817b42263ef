# libFuzzer harness for io/source (clang; libFuzzer ships with Debian's clang-14
# package as libclang-rt-14-dev / the clang runtime).
#
#   make fuzz         every harness for a bounded time (FUZZ_SECONDS, default 60)
#   make fuzz-smoke   every harness for a fixed seed and run count (make test)
#
# The seed corpus is our own fixture (tests/data) plus valid envelopes from
# tests/fuzz/source_seeds.py; the working corpus grows in
# build/fuzz/source-corpus and crash reproducers land in build/fuzz/.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SOURCE_SRCS = tests/fuzz/fuzz_source.c io/source/source.c io/source/source_body.c io/wire/input.c \
		   io/source/source_util.c io/source/source_json.c io/util/json.c io/util/err.c io/util/digest.c \
		   io/util/file.c io/util/buf.c \
		   $(sort $(wildcard io/wire/outcome*.c)) $(PURE_SRCS)

build/fuzz/fuzz_source: $(FUZZ_SOURCE_SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(FUZZ_CC) $(CSTD) $(WARN) -Werror -g -O1 -fno-omit-frame-pointer \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		$(INC) $(PKG_CFLAGS) -o $@ $(FUZZ_SOURCE_SRCS) $(PKG_LIBS)

build/fuzz/source-seeds/.seeded: tests/fuzz/source_seeds.py tests/data/source-envelope.json
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	@cp tests/data/source-envelope.json build/fuzz/source-seeds/seed-fixture.json
	@$(PYTHON) tests/fuzz/source_seeds.py build/fuzz/source-seeds
	@touch $@

build/fuzz/source-corpus/.seeded: build/fuzz/source-seeds/.seeded
	@mkdir -p $(dir $@)
	@cp build/fuzz/source-seeds/*.json $(dir $@)
	@touch $@

.PHONY: fuzz fuzz-smoke
fuzz:: build/fuzz/fuzz_source build/fuzz/source-corpus/.seeded
	cd build/fuzz && ASAN_OPTIONS=detect_leaks=1 ./fuzz_source \
		-dict=$(CURDIR)/tests/fuzz/source.dict -max_len=65536 \
		-max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 source-corpus

FUZZ_SMOKE_STEPS += fuzz/source
fuzz-smoke:: build/fuzz/fuzz_source build/fuzz/source-seeds/.seeded
	@rm -rf build/fuzz/source-smoke && mkdir -p build/fuzz/source-smoke
	@ASAN_OPTIONS=detect_leaks=1 V=$(V) sh tests/step.sh fuzz/source \
		build/fuzz/fuzz_source -dict=tests/fuzz/source.dict -max_len=65536 \
		-artifact_prefix=build/fuzz/source- -seed=1 -runs=$(FUZZ_SMOKE_RUNS) \
		build/fuzz/source-smoke build/fuzz/source-seeds
