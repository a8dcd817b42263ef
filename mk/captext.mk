# Capability text templates: cli/capabilities/NAME.md.in is expanded into
# build/gen/capabilities/NAME.md with the parser's own spellings and limits
# (cli/capabilities/expand.c), then embedded with the plain texts.
build/captext: cli/capabilities/expand.c io/source.h tables/source_roles.def \
	       tables/source_classes.def tables/error_codes.def tables/source_fixes.def
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(CFLAGS_REL) -o $@ $<

build/gen/capabilities/%.md: cli/capabilities/%.md.in build/captext
	@mkdir -p $(dir $@)
	$(QUIET_GEN)build/captext $< $@
