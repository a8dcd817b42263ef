# bench-proc: whole processes as a host runs them, side by side with git
# (tests/bench/bench_proc.c): submit against one `git status` and the
# reference's git floor, peak RSS, --help, status, growth of a Run, and a
# submit through `slipway mcp` against the CLI; on the repositories of
# mk/bench-observe.mk and on ones shaped like real projects
# (tests/bench/mkrepo_real.sh).
build/bench/bench_proc: tests/bench/bench_proc.c tests/bench/bench_clock.h
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS_REL) -Wno-missing-prototypes -o $@ $< $(PKG_LIBS)

bench:: build/bench/bench_proc build/slipway
	@for n in $(BENCH_OBSERVE_SIZES); do sh tests/bench/mkrepo.sh $(BENCH_OBSERVE_DIR)/dirty-$$n $$n; done
	@for n in $(BENCH_OBSERVE_SIZES); do sh tests/bench/mkrepo_real.sh $(BENCH_OBSERVE_DIR)/real-$$n $$n; done
	build/bench/bench_proc $(CURDIR)/build/slipway $(BENCH_OBSERVE_DIR) \
		$(foreach n,$(BENCH_OBSERVE_SIZES),$(BENCH_OBSERVE_DIR)/dirty-$(n)) \
		$(foreach n,$(BENCH_OBSERVE_SIZES),$(BENCH_OBSERVE_DIR)/real-$(n))

# Built by `make test` too, so the benchmark cannot rot.
bench-build:: build/bench/bench_proc
