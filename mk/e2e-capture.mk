# Capture what slipway prints to the end-to-end suite, to compare a
# restructuring before and after (behaviour unchanged means byte-identical
# documents once run ids, digests, times and temporary paths are renamed):
#
#   make e2e-capture CAPTURE=build/capture-before   # on the old tree
#   make e2e-capture CAPTURE=build/capture-after    # on the new tree
#   python3 mk/e2e_compare.py build/capture-before build/capture-after
#
# Every e2e file runs, as in `make e2e`; tests/support/capture/sitecustomize.py
# records each slipway process a test waited for.
CAPTURE ?= build/capture
e2e-capture:
	@rm -rf $(CAPTURE) && mkdir -p $(CAPTURE)
	@SLIPWAY_CAPTURE_DIR=$(abspath $(CAPTURE)) PYTHONPATH=$(CURDIR)/tests/support/capture \
		$(MAKE) --no-print-directory e2e
	@echo "e2e-capture: $$(cat $(CAPTURE)/*.jsonl | wc -l) documents in $(CAPTURE)"
.PHONY: e2e-capture
