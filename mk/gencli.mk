# Man pages and shell completions, generated from the CLI's own tables
# (cli/commands.def, cli/flags.def): `slipway _reference` prints every
# command's help as JSON (the same code as --help) and mk/gencli.py turns
# it, with the exit statuses of tables/exit_statuses.def, into roff and
# completion scripts under build/man and build/completion.  `make man` builds them;
# `make install` installs them.
MAN_NAMES   = slipway slipway-doctor slipway-install slipway-list slipway-protocol \
	      slipway-run slipway-status slipway-stop slipway-uninstall
MAN_PAGES   = $(MAN_NAMES:%=build/man/%.1)
COMPLETIONS = build/completion/slipway.bash build/completion/_slipway build/completion/slipway.fish

.PHONY: man
man: $(MAN_PAGES) $(COMPLETIONS)

$(MAN_PAGES) $(COMPLETIONS): build/cli.stamp
	@:

build/cli.stamp: build/slipway mk/gencli.py tables/exit_statuses.def
	$(QUIET_GEN)build/slipway _reference > build/cli-reference.jsonl && \
	$(PYTHON) mk/gencli.py build/cli-reference.jsonl build/gen/version.h build && touch $@
