# make install / uninstall: the binary, man pages, shell completions,
# schemas and docs, in the standard Debian places under PREFIX (see the
# Makefile's head for BINDIR, MANDIR, ...; DESTDIR stages a package).
# The binary is installed unstripped (Debian strips it into a -dbgsym
# package); `make install-strip` strips it.
INSTALL_PROGRAM ?= $(INSTALL) -m 0755
INSTALL_DATA    ?= $(INSTALL) -m 0644
# docs/README.md is the users' README (the repository's README.md is for
# people working on slipway); it is installed as README.md at the top of
# DOCDIR, where its links to en/, zh/ and ja/ resolve as they do in docs/.
DOC_FILES  = docs/README.md CHANGELOG.md LICENSE
# The documentation tree, installed under DOCDIR as it is under docs/:
# the pages of each language (not their templates) and the diagrams.
DOC_TREE   = $(sort $(wildcard $(foreach l,en zh ja,docs/$(l)/*.md docs/$(l)/*/*.md)) \
	     $(wildcard docs/diagrams/*.svg))
DOC_DIRS   = $(sort $(patsubst docs/%/,%,$(dir $(DOC_TREE))))
SCHEMA_FILES = $(wildcard schemas/*.schema.json)

install: build/slipway $(MAN_PAGES) $(COMPLETIONS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SCHEMADIR)
	$(INSTALL_PROGRAM) build/slipway $(DESTDIR)$(BINDIR)/slipway
	$(INSTALL_DATA) $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	$(foreach d,$(DOC_DIRS),$(INSTALL) -d $(DESTDIR)$(DOCDIR)/$(d) && \
		$(INSTALL_DATA) $(filter $(addprefix docs/$(d)/,$(notdir $(DOC_TREE))),$(DOC_TREE)) \
		$(DESTDIR)$(DOCDIR)/$(d)/ &&) true
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
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(patsubst docs/%,%,$(DOC_TREE)))
	-for d in $(sort $(DOC_DIRS) $(foreach d,$(DOC_DIRS),$(firstword $(subst /, ,$(d))))); do \
		echo $$d; done | sort -r | while read -r d; do rmdir $(DESTDIR)$(DOCDIR)/$$d 2>/dev/null; done; true
	rm -f $(addprefix $(DESTDIR)$(SCHEMADIR)/,$(notdir $(SCHEMA_FILES)))
	-rmdir $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SCHEMADIR) 2>/dev/null
	-rmdir $(dir $(DESTDIR)$(SCHEMADIR)) 2>/dev/null
