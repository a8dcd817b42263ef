# bench-cycle: whole `slipway protocol submit` processes against the git
# floor on the synthetic repositories of mk/bench-observe.mk, and the submit
# time as one Run grows to 1,000 Actions.
.PHONY: bench
bench:: build/slipway
	@for n in $(BENCH_OBSERVE_SIZES); do sh tests/bench/mkrepo.sh $(BENCH_OBSERVE_DIR)/dirty-$$n $$n; done
	$(PYTHON) tests/bench/bench_cycle.py $(CURDIR)/build/slipway \
		$(foreach n,$(BENCH_OBSERVE_SIZES),$(BENCH_OBSERVE_DIR)/dirty-$(n))
