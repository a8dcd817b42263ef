# libFuzzer harness for the Outcome decoder (tests/fuzz/fuzz_outcome.c).
#
#   make fuzz        every harness, each for a bounded time (this one: 60 s)
#   make fuzz-smoke  every harness for a fixed seed and run count (make test)
#
# The harness and the io/, fsm/ and tables/ sources it needs are compiled by
# clang itself (no gcc objects are reused): libFuzzer needs its coverage
# instrumentation in every object.  New inputs go to build/fuzz/outcome-corpus,
# never into the committed seed corpus; a crash is written to build/fuzz/ and
# then belongs in tests/io/test_outcome.c as a regression test.

FUZZ_CC       ?= clang
FUZZ_CFLAGS    = -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
		 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		 -Wall -Wextra -Werror -Wno-missing-field-initializers \
		 -I. -include io/util/banned.h $(PKG_CFLAGS)
FUZZ_OUTCOME_SRCS = tests/fuzz/fuzz_outcome.c $(sort $(wildcard io/wire/outcome*.c)) io/util/json.c io/util/err.c io/util/buf.c \
		    io/util/digest.c $(PURE_SRCS)
FUZZ_OUTCOME_SEEDS = tests/fuzz/corpus/outcome
FUZZ_OUTCOME_ARGS  = -dict=tests/fuzz/outcome.dict -max_len=8192 \
		     -artifact_prefix=build/fuzz/outcome- -print_final_stats=1

.PHONY: fuzz fuzz-smoke

build/fuzz/fuzz_outcome: $(FUZZ_OUTCOME_SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_OUTCOME_SRCS) $(PKG_LIBS)

fuzz:: build/fuzz/fuzz_outcome
	@mkdir -p build/fuzz/outcome-corpus
	ASAN_OPTIONS=detect_leaks=1 build/fuzz/fuzz_outcome $(FUZZ_OUTCOME_ARGS) \
		-max_total_time=60 build/fuzz/outcome-corpus $(FUZZ_OUTCOME_SEEDS)

# The smoke run is deterministic: a fixed seed, a fixed number of runs and a
# fresh working corpus grown from the committed seeds only.
FUZZ_SMOKE_RUNS ?= 20000
FUZZ_SMOKE_STEPS += fuzz/outcome
fuzz-smoke:: build/fuzz/fuzz_outcome
	@rm -rf build/fuzz/outcome-smoke && mkdir -p build/fuzz/outcome-smoke
	@ASAN_OPTIONS=detect_leaks=1 V=$(V) sh tests/step.sh fuzz/outcome \
		build/fuzz/fuzz_outcome $(FUZZ_OUTCOME_ARGS) -seed=1 -runs=$(FUZZ_SMOKE_RUNS) \
		build/fuzz/outcome-smoke $(FUZZ_OUTCOME_SEEDS)
