# bench-proc: whole processes as a host runs them, side by side with git
# (tests/bench/bench_proc.c): submit against one `git status` and the
# reference's git floor, peak RSS, --help, status, and growth of a Run.
build/bench/bench_proc: tests/bench/bench_proc.c tests/bench/bench_clock.h
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS_REL) -Wno-missing-prototypes -o $@ $< $(PKG_LIBS)

bench:: build/bench/bench_proc build/slipway
	@for n in $(BENCH_OBSERVE_SIZES); do sh tests/bench/mkrepo.sh $(BENCH_OBSERVE_DIR)/dirty-$$n $$n; done
	build/bench/bench_proc $(CURDIR)/build/slipway $(BENCH_OBSERVE_DIR) \
		$(foreach n,$(BENCH_OBSERVE_SIZES),$(BENCH_OBSERVE_DIR)/dirty-$(n))

# Built by `make test` too, so the benchmark cannot rot.
bench-build:: build/bench/bench_proc
