# bench-cycle: a whole submit in process against the git floor on the
# synthetic repositories of mk/bench-observe.mk, and the cycle time as one
# Run grows to 1,000 Actions (tests/bench/bench_cycle.c).
build/bench/bench_cycle: tests/bench/bench_cycle.c tests/bench/bench_clock.h $(filter-out build/rel/cli/main.o,$(REL_OBJS)) $(HDRS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS_REL) -Wno-missing-prototypes -o $@ tests/bench/bench_cycle.c \
		$(filter-out build/rel/cli/main.o,$(REL_OBJS)) $(PKG_LIBS) -lpthread

bench:: build/bench/bench_cycle
	@for n in $(BENCH_OBSERVE_SIZES); do sh tests/bench/mkrepo.sh $(BENCH_OBSERVE_DIR)/dirty-$$n $$n; done
	build/bench/bench_cycle $(foreach n,$(BENCH_OBSERVE_SIZES),$(BENCH_OBSERVE_DIR)/dirty-$(n))

# Built by `make test` too, so the benchmark cannot rot.
bench-build:: build/bench/bench_cycle
