/* The TOML table editor (io/util/toml_edit.h): slipway's one table is
 * found, added and removed, every other byte stays, and a text the scan
 * cannot follow, or a table defined any other way, is never edited. */

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "io/util/err.h"
#include "io/util/toml_edit.h"

static void setup(void)
{
	sw_alloc_init();
}

TestSuite(io_toml_edit, .init = setup);

#define PATH "mcp_servers.slipway"
#define BLOCK "[mcp_servers.slipway]\ncommand = \"slipway\"\nargs = [\"mcp\"]\n"

static enum sw_toml_state state_of(const char *text)
{
	struct sw_toml_table t;
	struct sw_error err = SW_ERROR_INIT;

	cr_assert_eq(sw_toml_find(&t, text, strlen(text), PATH, &err), 0, "%s: %s", text, err.msg);
	return t.state;
}

/* Adds the block, checks the text, removes it and gets `in` back. */
static void round_trip(const char *in, const char *want)
{
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL, *back = NULL;
	size_t len = 0, blen = 0;

	cr_assert_eq(sw_toml_add(&out, &len, in, strlen(in), PATH, BLOCK, &err), 0, "%s: %s", in, err.msg);
	cr_expect_eq(len, strlen(out));
	cr_expect_str_eq(out, want);
	cr_expect_eq(state_of(out), SW_TOML_HEADER);
	cr_assert_eq(sw_toml_remove(&back, &blen, out, len, PATH, BLOCK, &err), 0, "%s: %s", out, err.msg);
	cr_expect_str_eq(back, in);
	sw_free(out);
	sw_free(back);
}

Test(io_toml_edit, the_table_is_appended_after_a_blank_line_and_removed_again)
{
	round_trip("", BLOCK);
	round_trip("model = \"o3\"\n", "model = \"o3\"\n\n" BLOCK);
	round_trip("# mine\n[mcp_servers.other]\ncommand = \"x\" # why\nargs = [\n  \"a\", # one\n  \"b\",\n]\n",
		   "# mine\n[mcp_servers.other]\ncommand = \"x\" # why\nargs = [\n  \"a\", # one\n  \"b\",\n]\n\n" BLOCK);
	/* Numbers, dates and strings keep their spelling. */
	round_trip("n = 1_000\nf = 6.626e-34\nh = 0xDEAD_BEEF\nd = 1979-05-27 07:32:00Z\nx = -inf\n"
		   "s = '''\n[mcp_servers.slipway]\n'''\nt = \"\"\"a\\\n  b\"\"\"\n",
		   "n = 1_000\nf = 6.626e-34\nh = 0xDEAD_BEEF\nd = 1979-05-27 07:32:00Z\nx = -inf\n"
		   "s = '''\n[mcp_servers.slipway]\n'''\nt = \"\"\"a\\\n  b\"\"\"\n\n" BLOCK);
}

Test(io_toml_edit, crlf_and_a_missing_last_line_end_are_followed)
{
	round_trip("[profiles.x]\r\nmodel = \"o3\"\r\n",
		   "[profiles.x]\r\nmodel = \"o3\"\r\n\r\n[mcp_servers.slipway]\r\ncommand = \"slipway\"\r\n"
		   "args = [\"mcp\"]\r\n");
	{
		/* Without a last line end: one is added, and stays. */
		struct sw_error err = SW_ERROR_INIT;
		char *out = NULL, *back = NULL;
		size_t len = 0, blen = 0;

		cr_assert_eq(sw_toml_add(&out, &len, "a = 1", 5, PATH, BLOCK, &err), 0, "%s", err.msg);
		cr_expect_str_eq(out, "a = 1\n\n" BLOCK);
		cr_assert_eq(sw_toml_remove(&back, &blen, out, len, PATH, BLOCK, &err), 0, "%s", err.msg);
		cr_expect_str_eq(back, "a = 1\n");
		sw_free(out);
		sw_free(back);
	}
}

Test(io_toml_edit, tables_after_ours_and_their_comments_stay_when_it_is_removed)
{
	const char *in = "a = 1\n\n" BLOCK "\n# the next one\n[mcp_servers.x]\ncommand = \"x\"\n";
	struct sw_toml_table t;
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL;
	size_t len = 0;

	cr_assert_eq(sw_toml_find(&t, in, strlen(in), PATH, &err), 0, "%s", err.msg);
	cr_expect_eq(t.state, SW_TOML_HEADER);
	cr_expect(sw_toml_is(&t, in, BLOCK));
	cr_assert_eq(sw_toml_remove(&out, &len, in, strlen(in), PATH, BLOCK, &err), 0, "%s", err.msg);
	cr_expect_str_eq(out, "a = 1\n\n# the next one\n[mcp_servers.x]\ncommand = \"x\"\n");
	sw_free(out);
}

Test(io_toml_edit, a_slipway_table_that_is_not_exactly_ours_is_not_removed)
{
	static const char *const rows[] = {
		"[mcp_servers.slipway]\ncommand = \"slipway\"\nargs = [\"mcp\", \"--root\", \"/x\"]\n",
		"[mcp_servers.slipway]\n# mine\ncommand = \"slipway\"\nargs = [\"mcp\"]\n",
		"[mcp_servers.slipway]\ncommand = \"slipway\"\nargs = [\"mcp\"]\nenabled = false\n",
		"[mcp_servers.slipway]  # note\ncommand = \"slipway\"\nargs = [\"mcp\"]\n",
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sw_error err = SW_ERROR_INIT;
		struct sw_toml_table t;
		char *out = NULL;
		size_t len = 0;

		cr_assert_eq(sw_toml_find(&t, rows[i], strlen(rows[i]), PATH, &err), 0, "%s", err.msg);
		cr_expect_eq(t.state, SW_TOML_HEADER, "%s", rows[i]);
		cr_expect_not(sw_toml_is(&t, rows[i], BLOCK), "%s", rows[i]);
		cr_expect_eq(sw_toml_remove(&out, &len, rows[i], strlen(rows[i]), PATH, BLOCK, &err), SW_EINVAL);
		cr_expect_null(out);
		cr_expect_eq(sw_toml_add(&out, &len, rows[i], strlen(rows[i]), PATH, BLOCK, &err), SW_EINVAL);
	}
}

/* Every way TOML can define the table or put a value in its way. */
Test(io_toml_edit, a_table_defined_any_other_way_is_never_edited)
{
	static const char *const rows[] = {
		"mcp_servers.slipway.command = \"x\"\n",
		"mcp_servers = { slipway = { command = \"x\" } }\n",
		"mcp_servers = 1\n",
		"mcp_servers.other.command = \"x\"\n",
		"[mcp_servers]\nslipway = { command = \"x\" }\n",
		"[mcp_servers]\nslipway.command = \"x\"\n",
		"[mcp_servers.slipway.env]\nA = \"1\"\n",
		"[[mcp_servers]]\nname = \"x\"\n",
		"[[mcp_servers.slipway]]\n",
		"[\"mcp_servers\".'slipway']\ncommand = \"x\"\n[mcp_servers.slipway]\n",
		"[mcp_servers.\"sl\\u0069pway\"]\n[mcp_servers.slipway]\n",
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sw_error err = SW_ERROR_INIT;
		char *out = NULL;
		size_t len = 0;

		cr_expect_eq(state_of(rows[i]), SW_TOML_OTHER, "%s", rows[i]);
		cr_expect_eq(sw_toml_add(&out, &len, rows[i], strlen(rows[i]), PATH, BLOCK, &err), SW_EINVAL,
			     "%s", rows[i]);
		cr_expect_null(out);
	}
	/* A quoted spelling of the same header is the same table. */
	cr_expect_eq(state_of("[ \"mcp_servers\" . 'slipway' ]\ncommand = \"slipway\"\n"), SW_TOML_HEADER);
	/* Neighbours are not. */
	cr_expect_eq(state_of("[mcp_servers]\nother = { command = \"x\" }\n[mcp_servers.slipway2]\n"
			      "[mcp_servers_x.slipway]\nslipway = 1\n"), SW_TOML_ABSENT);
}

Test(io_toml_edit, a_text_the_scan_cannot_follow_is_refused_with_its_line)
{
	static const char *const rows[] = {
		"a = \"open\n",
		"a = 'open\n",
		"a = \"\"\"open\n",
		"a = [1, 2\n",
		"a = [1 2]\n",
		"a = { b = 1\n",
		"a\n",
		"a = \n",
		"= 1\n",
		"[table\n",
		"[[t]\n",
		"a = 1 b\n",
		"a = 1\rb = 2\n",
		"a = \"\\q\"\n",
		"a = nope\n",
		"a = \"\\u12\"\n",
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sw_error err = SW_ERROR_INIT;
		struct sw_toml_table t;
		char *out = NULL;
		size_t len = 0;

		cr_expect_eq(sw_toml_find(&t, rows[i], strlen(rows[i]), PATH, &err), SW_EPARSE, "%s", rows[i]);
		cr_expect(strncmp(err.msg, "line ", 5) == 0, "%s", err.msg);
		cr_expect_eq(sw_toml_add(&out, &len, rows[i], strlen(rows[i]), PATH, BLOCK, &err), SW_EPARSE);
		cr_expect_null(out);
	}
}

/* Random bytes and random cuts of a valid document: the scan never reads
 * past the text, and whatever it accepts round-trips. */
Test(io_toml_edit, random_texts_are_scanned_safely)
{
	static const char doc[] =
		"# c\n[a]\nx = [1, { y = \"z\" }, '''m\n''']\n[mcp_servers.o]\ncommand = \"o\"\r\n"
		"d = 1979-05-27T07:32:00\ns = \"\"\"q\"\"\"\"\n[[b]]\n";
	static const char alphabet[] = "[]{}=\"'#.,\n\r \tabc1-_+:";
	unsigned seed = 1;

	for (int round = 0; round < 4000; round++) {
		char buf[96];
		size_t n;
		struct sw_toml_table t;
		struct sw_error err = SW_ERROR_INIT;
		char *out = NULL, *back = NULL;
		size_t len = 0, blen = 0;

		seed = seed * 1103515245u + 12345u;
		if (round % 2) {
			n = (seed >> 8) % sizeof(buf);
			for (size_t k = 0; k < n; k++) {
				seed = seed * 1103515245u + 12345u;
				buf[k] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
			}
		} else {
			n = (seed >> 8) % (sizeof(doc) - 1);
			memcpy(buf, doc, n < sizeof(buf) ? n : sizeof(buf));
			n = n < sizeof(buf) ? n : sizeof(buf);
		}
		{
			/* An exact-size copy, so that ASan sees a read past it. */
			char *text = malloc(n ? n : 1);

			cr_assert_not_null(text);
			memcpy(text, buf, n);
			if (sw_toml_find(&t, text, n, PATH, &err) == 0 && t.state == SW_TOML_ABSENT) {
				cr_assert_eq(sw_toml_add(&out, &len, text, n, PATH, BLOCK, &err), 0, "%.*s: %s",
					     (int)n, text, err.msg);
				cr_assert_eq(sw_toml_remove(&back, &blen, out, len, PATH, BLOCK, &err), 0, "%s",
					     err.msg);
				cr_expect(blen == n || (blen == n + 1 && back[n] == '\n') ||
					  (blen == n + 2 && back[n] == '\r'), "%.*s", (int)n, text);
				cr_expect(memcmp(back, text, n) == 0);
			}
			free(text);
		}
		sw_free(out);
		sw_free(back);
	}
}
