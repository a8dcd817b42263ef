# check-record: outside io/, a Run is read through the structs of
# io/run_record.h; the record's encoding (io/run_codec.h) stays inside the
# codec.  Two checks, so neither can pass alone by a trick: the objects'
# undefined symbols (nm) and the sources' text (includes and uses).
RECORD_CODEC_SYMS = run_json run_identity run_initial_git run_current_action \
	run_pending_request run_current_outcome run_decode run_view_decode \
	run_view_record run_view_free
RECORD_CLIENT_SRCS = $(SVC_SRCS) $(CLI_SRCS) cli/main.c $(MCP_SRCS) $(RECORD_EXTRA_SRCS)
# Transitional allow-list, to be emptied: the mutation path of service/svc.c
# still reads the encoding where it decides a source refresh or choice
# (moving those decisions into the state machine rewrites these functions).
RECORD_ALLOW = service/svc.c:mutate_cb service/svc.c:input_facts \
	service/svc.c:refresh_facts service/svc.c:choice_facts
check-record: $(patsubst %.c,build/san/%.o,$(SVC_SRCS) $(CLI_SRCS) cli/main.c $(MCP_SRCS)) | check-pkgs
	@sh mk/check_record.sh "$(RECORD_CODEC_SYMS)" "$(RECORD_ALLOW)" \
		"$(filter %.o,$^) $(RECORD_EXTRA_OBJS)" "$(RECORD_CLIENT_SRCS)"
.PHONY: check-record
# For the check's own tests (tests/e2e/test_record_check.py).
check-record-config:
	@echo "$(RECORD_CODEC_SYMS)"; echo "$(RECORD_ALLOW)"
.PHONY: check-record-config
