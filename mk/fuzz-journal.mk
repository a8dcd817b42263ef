# Structure-aware libFuzzer harness for the journal replay and the Run
# record check (tests/fuzz/fuzz_journal.c): its inputs are edits (delete,
# retype, reorder fields; drop, repeat, swap records) of the real journal
# tests/fuzz/journal_seed.jsonl.  Same conventions as mk/fuzz-outcome.mk;
# a crash belongs in tests/e2e/test_journal_fields.py or tests/io/.

FUZZ_JOURNAL_SRCS = tests/fuzz/fuzz_journal.c $(IO_SRCS) $(PURE_SRCS)
FUZZ_JOURNAL_ARGS = -max_len=256 -artifact_prefix=build/fuzz/journal- -print_final_stats=1

build/fuzz/fuzz_journal: $(FUZZ_JOURNAL_SRCS) $(HDRS) $(OS_STAMP)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-string-plus-int -o $@ $(FUZZ_JOURNAL_SRCS) $(PKG_LIBS)

fuzz:: build/fuzz/fuzz_journal
	@mkdir -p build/fuzz/journal-corpus
	ASAN_OPTIONS=detect_leaks=1 build/fuzz/fuzz_journal $(FUZZ_JOURNAL_ARGS) \
		-max_total_time=60 build/fuzz/journal-corpus

# Deterministic, like the other smoke runs: a fixed seed and run count.
FUZZ_SMOKE_STEPS += fuzz/journal
fuzz-smoke:: build/fuzz/fuzz_journal
	@rm -rf build/fuzz/journal-smoke && mkdir -p build/fuzz/journal-smoke
	@ASAN_OPTIONS=detect_leaks=1 V=$(V) sh tests/step.sh fuzz/journal \
		build/fuzz/fuzz_journal $(FUZZ_JOURNAL_ARGS) -seed=1 -runs=$(FUZZ_SMOKE_RUNS) \
		build/fuzz/journal-smoke
