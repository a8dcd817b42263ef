# Run store benchmark: replay and append times for runs of 1, 100, 1000 events.
build/bench/bench_store: tests/bench/bench_store.c $(REL_OBJS) $(HDRS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS_REL) -Wno-missing-prototypes -o $@ $< $(REL_OBJS) $(PKG_LIBS)

bench:: build/bench/bench_store
	build/bench/bench_store

# Built by `make test` too, so the benchmark cannot rot.
bench-build:: build/bench/bench_store
