# bench-observe: vcs_discover + vcs_observe against the six git commands the
# reference runs, on synthetic repositories of about 20, 5,000 and 50,000
# tracked files under /tmp (kept between runs), plus a 50,000-file one with
# a staged change (the index no longer matches HEAD, so the HEAD-to-index
# diff cannot be skipped), and repositories shaped like real projects
# (tests/bench/mkrepo_real.sh: real-N).
BENCH_OBSERVE_SIZES ?= 20 5000 50000
BENCH_OBSERVE_DIR   ?= /tmp/slipway-bench-observe

build/bench/bench_observe: tests/bench/bench_observe.c $(filter-out build/rel/cli/main.o,$(REL_OBJS)) $(HDRS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS_REL) -o $@ tests/bench/bench_observe.c $(filter-out build/rel/cli/main.o,$(REL_OBJS)) $(PKG_LIBS) -lpthread

bench:: build/bench/bench_observe
	@for n in $(BENCH_OBSERVE_SIZES); do sh tests/bench/mkrepo.sh $(BENCH_OBSERVE_DIR)/dirty-$$n $$n; done
	@for n in $(BENCH_OBSERVE_SIZES); do sh tests/bench/mkrepo_real.sh $(BENCH_OBSERVE_DIR)/real-$$n $$n; done
	@sh tests/bench/mkrepo.sh $(BENCH_OBSERVE_DIR)/staged-50000 50000 staged
	build/bench/bench_observe $(foreach n,$(BENCH_OBSERVE_SIZES),$(BENCH_OBSERVE_DIR)/dirty-$(n)) \
		$(BENCH_OBSERVE_DIR)/staged-50000 \
		$(foreach n,$(BENCH_OBSERVE_SIZES),$(BENCH_OBSERVE_DIR)/real-$(n))

# Built by `make test` too, so the benchmark cannot rot.
bench-build:: build/bench/bench_observe
