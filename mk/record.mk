# check-record: outside io/, a Run is read through the structs of
# io/store/run_record.h; the record's encoding (io/store/run_codec.h) stays inside the
# codec.  Two checks, so neither can pass alone by a trick: the objects'
# undefined symbols (nm) and the sources' text (includes and uses).
RECORD_CODEC_SYMS = run_json run_current_action run_decode run_view_decode \
	run_view_record run_view_free
RECORD_CLIENT_SRCS = $(SVC_SRCS) $(CLI_SRCS) cli/main.c $(MCP_SRCS) $(RECORD_EXTRA_SRCS)
check-record: $(patsubst %.c,build/san/%.o,$(SVC_SRCS) $(CLI_SRCS) cli/main.c $(MCP_SRCS)) | check-pkgs
	@sh mk/check_record.sh "$(RECORD_CODEC_SYMS)" \
		"$(filter %.o,$^) $(RECORD_EXTRA_OBJS)" "$(RECORD_CLIENT_SRCS)"
.PHONY: check-record
# For the check's own tests (tests/e2e/test_record_check.py).
check-record-config:
	@echo "$(RECORD_CODEC_SYMS)"
.PHONY: check-record-config
