# The suite's key parts under the two other builds (issue #32):
# PORTABLE=1 (io/util/os_posix.c, the POSIX side of the OS seam, on
# Linux) and CC=clang (clang's ASan and UBSan), one after the other in the
# one build/ directory: $(OS_STAMP) relinks for PORTABLE, $(CC_STAMP)
# recompiles every object for clang (and the next plain make back).  Each
# runs every unit test and the e2e files that exercise the seam most: the
# store's durability, damage and faults, the wire's crash handling and
# protocol, the report and the CLI.  .ci/run runs it after make test.
# Measured on 2 shared cores: PORTABLE=1 ~9 min (build 1 min with ccache,
# unit 5.5 min, e2e 3 min); clang ~8 min (build 2 min, unit 5 min, e2e
# 2-3 min); a full make test takes 12-20 min.  The next gcc make then
# recompiles everything (release-check does).
#
#   make test-variants           both
#   make test-variant-portable   PORTABLE=1 only
#   make test-variant-clang      CC=clang only
VARIANT_E2E = $(addprefix tests/e2e/,test_durability.py test_store_damage.py \
	test_store_faults.py test_wire_reliability.py test_protocol_flow.py \
	test_report.py test_cli.py)

.PHONY: test-variants test-variant-portable test-variant-clang variant-step
test-variants:
	@$(MAKE) --no-print-directory PORTABLE=1 VARIANT=portable variant-step
	@$(MAKE) --no-print-directory CC=$(CLANG) VARIANT=clang variant-step

test-variant-portable:
	@$(MAKE) --no-print-directory PORTABLE=1 VARIANT=portable variant-step

test-variant-clang:
	@$(MAKE) --no-print-directory CC=$(CLANG) VARIANT=clang variant-step

variant-step: DEVELOPER = 1
variant-step: unit $(E2E_BIN) $(MCP_SDK_STAMP)
	@export SLIPWAY_BIN=$(abspath $(E2E_BIN)) $(TEST_ENV); \
	for t in $(VARIANT_E2E); do \
		sh tests/step.sh $(VARIANT)/$$t $(PYTHON) $$t || exit 1; done
