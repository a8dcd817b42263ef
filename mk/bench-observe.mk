# bench-observe: vcs_discover + vcs_observe against the six git commands the
# reference runs, on synthetic repositories of about 20, 5,000 and 50,000
# tracked files under /tmp (kept between runs).
BENCH_OBSERVE_SIZES ?= 20 5000 50000
BENCH_OBSERVE_DIR   ?= /tmp/slipway-bench-observe

build/bench/bench_observe: tests/bench/bench_observe.c $(filter-out build/rel/cli/main.o,$(REL_OBJS)) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) -o $@ tests/bench/bench_observe.c $(filter-out build/rel/cli/main.o,$(REL_OBJS)) $(PKG_LIBS) -lpthread

bench:: build/bench/bench_observe
	@for n in $(BENCH_OBSERVE_SIZES); do sh tests/bench/mkrepo.sh $(BENCH_OBSERVE_DIR)/repo-$$n $$n; done
	build/bench/bench_observe $(foreach n,$(BENCH_OBSERVE_SIZES),$(BENCH_OBSERVE_DIR)/repo-$(n))
