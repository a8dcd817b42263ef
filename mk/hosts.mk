# The AI coding hosts' own programs, checked against what `slipway install`
# writes (tests/e2e/test_real_hosts.py): Claude Code, the Codex CLI,
# OpenCode, Kilo, Qwen Code and the Copilot CLI, at the versions pinned by
# tests/hosts/package-lock.json, installed into tests/hosts/node_modules
# (never globally, and never by `make deps`: together they are about
# 1.7 GB).  Install scripts do not run; the tests start each platform's
# program from its own package.  Nothing needs a login or the network.
# Not `npm ci`: some hosts name platform packages that were never
# published, which npm leaves out of the lock and `npm ci` then refuses;
# `npm install --no-save` installs what the lock pins and never rewrites it.
#
#   make deps-hosts host-check   install them, then run the checks; a host
#                                program that is missing fails the check
#
# `make test` runs the same file, which counts a skip for each host whose
# program is not installed.
HOSTS_STAMP = tests/hosts/node_modules/.package-lock.json
deps-hosts: $(HOSTS_STAMP)
$(HOSTS_STAMP): tests/hosts/package-lock.json tests/hosts/package.json
	@command -v npm >/dev/null 2>&1 || { echo "deps-hosts: npm is missing; run 'make deps' first"; exit 1; }
	cd tests/hosts && npm install --no-save --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

host-check: build/san/slipway
	@SLIPWAY_BIN=$(CURDIR)/build/san/slipway SLIPWAY_HOST_CHECK=1 $(TEST_ENV) \
		sh tests/step.sh tests/e2e/test_real_hosts.py $(PYTHON) tests/e2e/test_real_hosts.py
.PHONY: deps-hosts host-check
