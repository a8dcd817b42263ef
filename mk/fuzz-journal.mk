# Structure-aware libFuzzer harness for the journal replay and the Run
# record check (tests/fuzz/fuzz_journal.c): its inputs are edits (delete,
# retype, reorder fields; drop, repeat, swap records) of the real journal
# tests/fuzz/journal_seed.jsonl.  Same conventions as mk/fuzz-outcome.mk;
# a crash belongs in tests/e2e/test_journal_fields.py or tests/io/.

FUZZ_JOURNAL_SRCS = tests/fuzz/fuzz_journal.c $(IO_SRCS) $(PURE_SRCS)
FUZZ_JOURNAL_ARGS = -max_len=256 -artifact_prefix=build/fuzz/journal- -print_final_stats=1

build/fuzz/fuzz_journal: $(FUZZ_JOURNAL_SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-string-plus-int -o $@ $(FUZZ_JOURNAL_SRCS) $(PKG_LIBS)

fuzz:: build/fuzz/fuzz_journal
	@mkdir -p build/fuzz/journal-corpus
	ASAN_OPTIONS=detect_leaks=1 build/fuzz/fuzz_journal $(FUZZ_JOURNAL_ARGS) \
		-max_total_time=60 build/fuzz/journal-corpus

fuzz-smoke:: build/fuzz/fuzz_journal
	@mkdir -p build/fuzz/journal-corpus
	ASAN_OPTIONS=detect_leaks=1 build/fuzz/fuzz_journal $(FUZZ_JOURNAL_ARGS) \
		-max_total_time=5 build/fuzz/journal-corpus
