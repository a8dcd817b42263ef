# make install / uninstall: the binary, man pages, shell completions,
# schemas and docs, in the standard Debian places under PREFIX (see the
# Makefile's head for BINDIR, MANDIR, ...; DESTDIR stages a package).
# The binary is installed unstripped (Debian strips it into a -dbgsym
# package); `make install-strip` strips it.
INSTALL_PROGRAM ?= $(INSTALL) -m 0755
INSTALL_DATA    ?= $(INSTALL) -m 0644
DOC_FILES  = README.md CHANGELOG.md LICENSE $(wildcard docs/*.md docs/*.svg)
SCHEMA_FILES = $(wildcard schemas/*.schema.json)
# The documentation tree: every page of docs/pages.list in each language,
# and the diagrams, installed under DOCDIR with their relative paths.
DOC_TREE   = $(wildcard $(foreach l,en zh ja,$(addprefix docs/$(l)/,$(shell cat docs/pages.list 2>/dev/null))) \
		       docs/diagrams/*.svg)
DOC_TREE_DIRS = $(sort $(dir $(DOC_TREE:docs/%=%)))

install: build/slipway $(MAN_PAGES) $(COMPLETIONS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SCHEMADIR)
	$(INSTALL_PROGRAM) build/slipway $(DESTDIR)$(BINDIR)/slipway
	$(INSTALL_DATA) $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	$(if $(DOC_TREE),for f in $(DOC_TREE:docs/%=%); do \
		$(INSTALL) -d "$(DESTDIR)$(DOCDIR)/$$(dirname $$f)" && \
		$(INSTALL_DATA) "docs/$$f" "$(DESTDIR)$(DOCDIR)/$$f" || exit 1; done)
	$(if $(SCHEMA_FILES),$(INSTALL_DATA) $(SCHEMA_FILES) $(DESTDIR)$(SCHEMADIR)/)
	$(if $(MAN_PAGES),$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 && \
		$(INSTALL_DATA) $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(COMPLETIONS),$(INSTALL) -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) && \
		$(INSTALL_DATA) build/completion/slipway.bash $(DESTDIR)$(BASHCOMPDIR)/slipway && \
		$(INSTALL_DATA) build/completion/_slipway $(DESTDIR)$(ZSHCOMPDIR)/_slipway && \
		$(INSTALL_DATA) build/completion/slipway.fish $(DESTDIR)$(FISHCOMPDIR)/slipway.fish)

install-strip:
	$(MAKE) install INSTALL_PROGRAM='$(INSTALL) -m 0755 -s'

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/slipway
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_PAGES)))
	rm -f $(DESTDIR)$(BASHCOMPDIR)/slipway $(DESTDIR)$(ZSHCOMPDIR)/_slipway \
		$(DESTDIR)$(FISHCOMPDIR)/slipway.fish
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOC_FILES)))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(DOC_TREE:docs/%=%))
	-for d in $(DOC_TREE_DIRS); do echo "$$d"; done | sort -r | \
		while read -r d; do rmdir "$(DESTDIR)$(DOCDIR)/$$d" 2>/dev/null; done; true
	rm -f $(addprefix $(DESTDIR)$(SCHEMADIR)/,$(notdir $(SCHEMA_FILES)))
	-rmdir $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SCHEMADIR) 2>/dev/null
	-rmdir $(dir $(DESTDIR)$(SCHEMADIR)) 2>/dev/null
