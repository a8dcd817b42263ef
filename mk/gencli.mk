# Man pages and shell completions, generated from the CLI's own tables
# (cli/commands.def, cli/flags.def): `slipway _reference` prints every
# command's help as JSON (the same code as --help) and mk/gencli.py turns
# it, with the exit statuses of tables/exit_statuses.def, into roff and
# completion scripts under build/man and build/completion.  `make man` builds them;
# `make install` installs them.  slipway-mcp(1) also lists the tools and
# resources `slipway mcp` itself announces (build/mcp-reference.jsonl: its
# answers to initialize, tools/list, resources/list and
# resources/templates/list, asked with a --root outside any repository so
# that no Run of this clone is listed).
MAN_NAMES   = slipway slipway-doctor slipway-install slipway-list slipway-mcp slipway-protocol \
	      slipway-run slipway-status slipway-stop slipway-uninstall
MAN_PAGES   = $(MAN_NAMES:%=build/man/%.1)
COMPLETIONS = build/completion/slipway.bash build/completion/_slipway build/completion/slipway.fish

.PHONY: man
man: $(MAN_PAGES) $(COMPLETIONS)

$(MAN_PAGES) $(COMPLETIONS): build/cli.stamp
	@:

.PHONY: FORCE
FORCE:

MCP_REFERENCE_ASK = \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"","capabilities":{},"clientInfo":{"name":"gencli","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":3,"method":"resources/list"}' \
	'{"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}'

# slipway(1) names where `make install` puts the schemas and the docs:
# build/man-dirs holds DOCDIR and SCHEMADIR and changes only when they do,
# so `make install PREFIX=/opt` after `make man` rebuilds the pages.
MAN_DIRS = $(DOCDIR) $(SCHEMADIR)
build/man-dirs: FORCE
	@mkdir -p build && echo '$(MAN_DIRS)' | cmp -s - $@ || echo '$(MAN_DIRS)' > $@

build/cli.stamp: build/slipway mk/gencli.py tables/exit_statuses.def mcp/server.c build/man-dirs
	$(QUIET_GEN)build/slipway _reference > build/cli-reference.jsonl && \
	d=$$(mktemp -d) && printf '%s\n' $(MCP_REFERENCE_ASK) | \
		build/slipway mcp --root "$$d" > build/mcp-reference.jsonl 2>/dev/null; rc=$$?; rmdir "$$d"; \
	[ $$rc = 0 ] && \
	$(PYTHON) mk/gencli.py --docdir='$(DOCDIR)' --schemadir='$(SCHEMADIR)' \
		build/cli-reference.jsonl build/gen/version.h build build/mcp-reference.jsonl && \
	touch $@
