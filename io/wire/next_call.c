/* A `next` variant as an MCP tool call (see io/wire/next_call.h). */

#include "io/wire/next_call.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tables/mcp_tools.h"

#define ARG(x) (1ul << (x))

/* The tool whose words are argv[1..]; *used receives how many words. */
static enum tbl_mcptool find_tool(const json_t *argv, size_t *used)
{
	size_t n = json_array_size(argv);

	for (int t = TBL_MCPTOOL_INVALID + 1; t < TBL_MCPTOOL__COUNT; t++) {
		const char *w = tbl_mcptools[t].words;
		size_t i = 1;

		while (*w && i < n) {
			const char *word = json_string_value(json_array_get(argv, i));
			size_t len = strcspn(w, " ");

			if (word == NULL || strlen(word) != len || memcmp(word, w, len) != 0)
				break;
			w += len + (w[len] == ' ');
			i++;
		}
		if (*w == '\0' && i > 1) {
			*used = i;
			return (enum tbl_mcptool)t;
		}
	}
	return TBL_MCPTOOL_INVALID;
}

/* The argument row of tool `t` whose value flag, switch, file or stdin
 * flag is `flag` (one flag may stand for an argument of each of two
 * tools, as --candidate does for resume and status), else the first row
 * with that flag. */
static enum tbl_mcparg find_arg(const char *flag, int *is_file, int *is_stdin, enum tbl_mcptool t)
{
	for (int pass = 0; pass < 2; pass++)
		for (int a = TBL_MCPARG_INVALID + 1; a < TBL_MCPARG__COUNT; a++) {
			const struct tbl_mcparg_row *r = &tbl_mcpargs[a];

			if (pass == 0 && !(tbl_mcptools[t].accepts & ARG(a)))
				continue;

			*is_file = r->file_flag && strcmp(r->file_flag, flag) == 0;
			*is_stdin = r->stdin_flag && strcmp(r->stdin_flag, flag) == 0;
			if (*is_file || *is_stdin || (r->flag && strcmp(r->flag, flag) == 0))
				return (enum tbl_mcparg)a;
		}
	return TBL_MCPARG_INVALID;
}

/* Reads base_argv into `args`; 0, or -1 when a word has no argument of
 * tool `t` (`stdin_arg` receives the stdin flag's argument). */
static int read_argv(json_t *args, const char **stdin_arg, const json_t *argv, size_t from,
		     enum tbl_mcptool t)
{
	const struct tbl_mcptool_row *tool = &tbl_mcptools[t];
	size_t n = json_array_size(argv);

	for (size_t i = from; i < n; i++) {
		const char *w = json_string_value(json_array_get(argv, i));
		const struct tbl_mcparg_row *r;
		enum tbl_mcparg a;
		int is_file, is_stdin;
		json_t *v;

		if (w == NULL || strcmp(w, "--") == 0)
			return -1;
		if (strncmp(w, "--", 2) != 0) {
			if (!(tool->accepts & ARG(TBL_MCPARG_RUN_ID)) ||
			    json_object_get(args, tbl_mcpargs[TBL_MCPARG_RUN_ID].name))
				return -1;
			if (json_object_set_new(args, tbl_mcpargs[TBL_MCPARG_RUN_ID].name,
						json_string(w)) < 0)
				return -1;
			continue;
		}
		if ((a = find_arg(w, &is_file, &is_stdin, t)) == TBL_MCPARG_INVALID)
			return -1;
		r = &tbl_mcpargs[a];
		if (r->kind == TBL_MCPKIND_NONE)
			continue;	/* implied by the tool call */
		if (!(tool->accepts & ARG(a))) {
			if (a != TBL_MCPARG_ROOT)
				return -1;
			i++;		/* the server's own workspace */
			continue;
		}
		if (is_stdin) {
			*stdin_arg = r->name;
			continue;
		}
		if (r->kind == TBL_MCPKIND_SWITCH) {
			v = json_true();
		} else {
			const char *val = json_string_value(json_array_get(argv, ++i));
			char *end;

			/* A file in base_argv is passed by name only where the
			 * argument takes a path. */
			if (val == NULL || (is_file && r->kind != TBL_MCPKIND_SOURCE))
				return -1;
			if (r->kind == TBL_MCPKIND_INTEGER) {
				long long x = strtoll(val, &end, 10);

				if (*val == '\0' || *end != '\0')
					return -1;
				v = json_integer(x);
			} else {
				v = json_string(val);
			}
		}
		if (json_object_set_new(args, r->name, v) < 0)
			return -1;
	}
	return 0;
}

/* Maps each input of the variant to the argument receiving its value. */
static int read_inputs(json_t *inputs, const json_t *list, enum tbl_mcptool t)
{
	size_t i;
	json_t *in;

	json_array_foreach(list, i, in) {
		const char *name = json_string_value(json_object_get(in, "name"));
		const char *flag = json_string_value(json_object_get(in, "flag"));
		int is_file, is_stdin;
		enum tbl_mcparg a = flag ? find_arg(flag, &is_file, &is_stdin, t) : TBL_MCPARG_INVALID;

		if (name == NULL || a == TBL_MCPARG_INVALID || is_stdin ||
		    tbl_mcpargs[a].kind == TBL_MCPKIND_NONE ||
		    !(tbl_mcptools[t].accepts & ARG(a)) ||
		    json_object_set_new(inputs, name, json_string(tbl_mcpargs[a].name)) < 0)
			return -1;
	}
	return 0;
}

json_t *next_call(const json_t *variant)
{
	const json_t *id = json_object_get(variant, "id");
	const json_t *argv = json_object_get(variant, "base_argv");
	const char *first = json_string_value(json_array_get(argv, 0));
	const char *stdin_arg = NULL;
	json_t *call, *args = json_object(), *inputs = json_object();
	enum tbl_mcptool t = TBL_MCPTOOL_INVALID;
	size_t used = 0;

	if (!json_is_string(id) || !json_is_array(argv) || args == NULL || inputs == NULL) {
		json_decref(args);
		json_decref(inputs);
		return NULL;
	}
	if (first && strcmp(first, "slipway") == 0)
		t = find_tool(argv, &used);
	if (t != TBL_MCPTOOL_INVALID &&
	    (read_argv(args, &stdin_arg, argv, used, t) < 0 ||
	     read_inputs(inputs, json_object_get(variant, "inputs"), t) < 0))
		t = TBL_MCPTOOL_INVALID;
	if (t == TBL_MCPTOOL_INVALID) {
		json_decref(args);
		json_decref(inputs);
		return json_pack("{sO sn}", "variant", id, "tool");
	}
	call = json_pack("{sO ss so so}", "variant", id, "tool", tbl_mcptools[t].name,
			 "arguments", args, "inputs", inputs);
	if (call && stdin_arg && json_object_set_new(call, "stdin", json_string(stdin_arg)) < 0) {
		json_decref(call);
		return NULL;
	}
	return call;
}
