# libFuzzer harness for the one-pass JSON encoder against its oracle
# (tests/fuzz/fuzz_json.c).  Same conventions as mk/fuzz-outcome.mk; a
# difference found belongs in tests/io/test_json.c as a regression test.

FUZZ_JSON_SRCS  = tests/fuzz/fuzz_json.c io/util/json.c io/util/err.c
FUZZ_JSON_SEEDS = tests/fuzz/corpus/json
FUZZ_JSON_ARGS  = -max_len=4096 -artifact_prefix=build/fuzz/json- -print_final_stats=1

build/fuzz/fuzz_json: $(FUZZ_JSON_SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_JSON_SRCS) $(PKG_LIBS)

fuzz:: build/fuzz/fuzz_json
	@mkdir -p build/fuzz/json-corpus
	ASAN_OPTIONS=detect_leaks=1 build/fuzz/fuzz_json $(FUZZ_JSON_ARGS) \
		-max_total_time=60 build/fuzz/json-corpus $(FUZZ_JSON_SEEDS)

FUZZ_SMOKE_STEPS += fuzz/json
fuzz-smoke:: build/fuzz/fuzz_json
	@rm -rf build/fuzz/json-smoke && mkdir -p build/fuzz/json-smoke
	@ASAN_OPTIONS=detect_leaks=1 V=$(V) sh tests/step.sh fuzz/json \
		build/fuzz/fuzz_json $(FUZZ_JSON_ARGS) -seed=1 -runs=$(FUZZ_SMOKE_RUNS) \
		build/fuzz/json-smoke $(FUZZ_JSON_SEEDS)
