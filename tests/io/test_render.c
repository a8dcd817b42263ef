/* Display rendering: POSIX quoting (round trip through /bin/sh), the
 * CommandLineToArgvW escaping (round trip through an independent parser),
 * the PowerShell trampoline decoded back to its literals, the cmd.exe form,
 * and the human "Next choices:" block. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/wire/next.h"
#include "io/wire/render.h"

#define ID "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define PS_PATH "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"
#define PS_FLAGS " -NoLogo -NoProfile -NonInteractive -EncodedCommand "

TestSuite(io_render);

static char *posix1(const char *arg)
{
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL;

	cr_assert_eq(render_posix(&out, &arg, 1, &err), 0);
	return out;
}

Test(io_render, posix_quotes_exactly_the_reference_set)
{
	static const char special[] = " \t\r\n\"'\\$`;&|<>()[]{}*?!#~";
	static const struct { const char *in, *out; } rows[] = {
		{ "plain", "plain" },
		{ "", "''" },
		{ "a b", "'a b'" },
		{ "it's", "'it'\"'\"'s'" },
		{ "'", "''\"'\"''" },
		{ "--root=/x/y.z,@%^+:", "--root=/x/y.z,@%^+:" },
		{ "界", "界" },
		{ "sha256:ab", "sha256:ab" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *got = posix1(rows[i].in);

		cr_assert_str_eq(got, rows[i].out, "in=\"%s\"", rows[i].in);
		sw_free(got);
	}
	for (const char *c = special; *c; c++) {
		char arg[4] = { 'a', *c, 'b', 0 };
		char want[16];
		char *got = posix1(arg);

		if (*c == '\'')
			snprintf(want, sizeof(want), "'a'\"'\"'b'");
		else
			snprintf(want, sizeof(want), "'%s'", arg);
		cr_assert_str_eq(got, want, "char %#x", (unsigned char)*c);
		sw_free(got);
	}
	/* Every other printable ASCII character stays bare. */
	for (int c = 0x21; c < 0x7f; c++) {
		char arg[2] = { (char)c, 0 };
		char *got;

		if (strchr(special, c))
			continue;
		got = posix1(arg);
		cr_assert_str_eq(got, arg);
		sw_free(got);
	}
}

static const char *const tricky[] = {
	"",
	"plain",
	"spaces and tabs\t",
	"single'and\"double",
	"Unicode 界 \xf0\x9f\x9a\x80",
	"carriage\rreturn",
	"line\nfeed",
	"percent%! ampersand& caret^ dollar$ backtick` semicolon; pipe|",
	"'",
	"''\"\"",
	"\\",
	"trailing\\",
	"$(echo no) ${HOME} `id` ~ * ? [a] {b,c} #c",
	"-n",
	"--",
};
#define NTRICKY (sizeof(tricky) / sizeof(tricky[0]))

Test(io_render, posix_rendering_round_trips_through_sh)
{
	struct sw_error err = SW_ERROR_INIT;
	const char *argv[4 + NTRICKY];
	char *cmd = NULL, out[4096];
	size_t len = 0, off = 0;
	FILE *p;

	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = "printf '%s\\000' \"$@\"";
	argv[3] = "capture";
	for (size_t i = 0; i < NTRICKY; i++)
		argv[4 + i] = tricky[i];
	cr_assert_eq(render_posix(&cmd, argv, 4 + NTRICKY, &err), 0);
	/* popen runs the string with /bin/sh -c, as a user would paste it. */
	cr_assert_not_null(p = popen(cmd, "r"));
	len = fread(out, 1, sizeof(out), p);
	cr_assert_eq(pclose(p), 0, "%s", cmd);
	for (size_t i = 0; i < NTRICKY; i++) {
		size_t n = strlen(tricky[i]);

		cr_assert_leq(off + n + 1, len, "output ends before value %zu", i);
		cr_assert_eq(memcmp(out + off, tricky[i], n), 0, "value %zu", i);
		cr_assert_eq(out[off + n], '\0', "value %zu", i);
		off += n + 1;
	}
	cr_assert_eq(off, len);
	sw_free(cmd);
}

Test(io_render, posix_rendering_round_trips_random_arguments)
{
	static const char alphabet[] = " \t\r\n\"'\\$`;&|<>()[]{}*?!#~%^=-a9";
	struct sw_error err = SW_ERROR_INIT;
	static char pool[200][16];
	const char *argv[4 + 200];
	unsigned seed = 777;
	char *cmd = NULL, *out;
	size_t len, off = 0, cap = 200 * 16 + 1;
	FILE *p;

	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = "printf '%s\\000' \"$@\"";
	argv[3] = "capture";
	for (size_t i = 0; i < 200; i++) {
		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % 15;
		for (size_t k = 0; k < len; k++) {
			seed = seed * 1103515245u + 12345u;
			pool[i][k] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		pool[i][len] = '\0';
		argv[4 + i] = pool[i];
	}
	cr_assert_eq(render_posix(&cmd, argv, 204, &err), 0);
	cr_assert_not_null(p = popen(cmd, "r"));
	out = malloc(cap);
	len = fread(out, 1, cap, p);
	cr_assert_eq(pclose(p), 0);
	for (size_t i = 0; i < 200; i++) {
		size_t n = strlen(pool[i]);

		cr_assert_leq(off + n + 1, len);
		cr_assert_eq(memcmp(out + off, pool[i], n + 1), 0, "value %zu [%s]", i, pool[i]);
		off += n + 1;
	}
	cr_assert_eq(off, len);
	free(out);
	sw_free(cmd);
}

/* ---- CommandLineToArgvW -------------------------------------------------- */

/* An independent parser of the CommandLineToArgvW argument rules: 2n
 * backslashes before a quote give n and toggle quoting, 2n+1 give n and a
 * literal quote, other backslashes are literal; space and TAB split outside
 * quotes.  Returns the count; args[] are malloc'd. */
static size_t parse_windows(const char *s, char **args, size_t max)
{
	size_t count = 0;

	for (;;) {
		char *a;
		size_t k = 0;
		int quoted = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || count == max)
			return count;
		a = calloc(strlen(s) + 1, 1);
		for (;;) {
			size_t bs = 0;

			while (s[bs] == '\\')
				bs++;
			if (s[bs] == '"') {
				for (size_t i = 0; i < bs / 2; i++)
					a[k++] = '\\';
				s += bs + 1;
				if (bs % 2)
					a[k++] = '"';
				else
					quoted = !quoted;
				continue;
			}
			for (size_t i = 0; i < bs; i++)
				a[k++] = '\\';
			s += bs;
			if (*s == '\0' || (!quoted && (*s == ' ' || *s == '\t')))
				break;
			a[k++] = *s++;
		}
		args[count++] = a;
	}
}

static char *win1(const char *arg)
{
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL;

	cr_assert_eq(render_windows_arg(&out, arg, &err), 0);
	return out;
}

Test(io_render, windows_escaping_matches_escapearg)
{
	static const struct { const char *in, *out; } rows[] = {
		{ "", "\"\"" },
		{ "abc", "abc" },
		{ "a b", "\"a b\"" },
		{ "a\tb", "\"a\tb\"" },
		{ "a\"b", "a\\\"b" },
		{ "a\\b", "a\\b" },
		{ "\\", "\\" },
		{ "a\\\"b", "a\\\\\\\"b" },
		{ "a b\\", "\"a b\\\\\"" },
		{ "a\\\\b c", "\"a\\\\b c\"" },
		{ "%PATH% & ^!", "\"%PATH% & ^!\"" },
		{ "&^|", "&^|" },
		{ "C:\\Windows\\x.exe", "C:\\Windows\\x.exe" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *got = win1(rows[i].in);

		cr_assert_str_eq(got, rows[i].out, "in=[%s]", rows[i].in);
		sw_free(got);
	}
}

static void expect_windows_round_trip(const char *const *argv, size_t argc)
{
	struct sw_error err = SW_ERROR_INIT;
	char *line = NULL, *args[64];
	size_t n;

	cr_assert_eq(render_windows_args(&line, argv, argc, &err), 0);
	n = parse_windows(line, args, 64);
	cr_assert_eq(n, argc, "[%s] parsed into %zu", line, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(args[i], argv[i], "[%s] arg %zu", line, i);
		free(args[i]);
	}
	sw_free(line);
}

Test(io_render, windows_escaping_round_trips_through_a_commandlinetoargvw_parser)
{
	static const char alphabet[][4] = { "a", " ", "\t", "\"", "\\", "\\", "x", "界", "%", "'" };
	unsigned seed = 12345;
	char pool[8][64];
	const char *argv[8];

	expect_windows_round_trip(tricky, NTRICKY);
	for (int round = 0; round < 3000; round++) {
		size_t argc = 1 + round % 7;

		for (size_t i = 0; i < argc; i++) {
			size_t len;

			seed = seed * 1103515245u + 12345u;
			len = (seed >> 16) % 9;
			pool[i][0] = '\0';
			for (size_t k = 0; k < len; k++) {
				seed = seed * 1103515245u + 12345u;
				strncat(pool[i], alphabet[(seed >> 16) % 10],
					sizeof(pool[i]) - strlen(pool[i]) - 1);
			}
			argv[i] = pool[i];
		}
		expect_windows_round_trip(argv, argc);
	}
}

/* ---- PowerShell trampoline ----------------------------------------------- */

static int b64val(char c)
{
	const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(t, c) : NULL;

	return p ? (int)(p - t) : -1;
}

/* Strict standard base64 decoding (padding required); malloc'd. */
static unsigned char *b64decode(const char *s, size_t n, size_t *outlen)
{
	unsigned char *out = malloc(n / 4 * 3 + 1);
	size_t k = 0;

	cr_assert_eq(n % 4, 0, "base64 length %zu", n);
	for (size_t i = 0; i < n; i += 4) {
		int v[4];

		for (int j = 0; j < 4; j++) {
			v[j] = s[i + j] == '=' ? 0 : b64val(s[i + j]);
			cr_assert_geq(v[j], 0, "bad base64 char %c", s[i + j]);
		}
		out[k++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (s[i + 2] != '=')
			out[k++] = (unsigned char)(v[1] << 4 | v[2] >> 2);
		if (s[i + 3] != '=')
			out[k++] = (unsigned char)(v[2] << 6 | v[3]);
	}
	out[k] = 0;
	*outlen = k;
	return out;
}

/* Decodes the EncodedCommand of `rendered` (after `prefix`) to the ASCII
 * script; the UTF-16LE high bytes must all be zero. */
static char *decode_script(const char *rendered, const char *prefix)
{
	size_t plen = strlen(prefix), n;
	unsigned char *utf16;
	char *script;

	cr_assert_eq(strncmp(rendered, prefix, plen), 0, "%s", rendered);
	utf16 = b64decode(rendered + plen, strlen(rendered + plen), &n);
	cr_assert_eq(n % 2, 0);
	script = calloc(n / 2 + 1, 1);
	for (size_t i = 0; i < n; i += 2) {
		cr_assert_eq(utf16[i + 1], 0, "non-ASCII unit at %zu", i);
		cr_assert_neq(utf16[i], 0);
		script[i / 2] = (char)utf16[i];
	}
	free(utf16);
	return script;
}

/* The UTF-8 string inside the `name=[Text.Encoding]...('<b64>'))` literal. */
static char *literal(const char *script, const char *name)
{
	static const char open[] =
		"[Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('";
	const char *p = strstr(script, name), *q;
	size_t n;

	cr_assert_not_null(p, "no %s in %s", name, script);
	p += strlen(name);
	cr_assert_eq(strncmp(p, open, strlen(open)), 0);
	p += strlen(open);
	cr_assert_not_null(q = strstr(p, "'))"));
	return (char *)b64decode(p, (size_t)(q - p), &n);
}

Test(io_render, powershell_trampoline_carries_argv_as_base64_literals)
{
	struct sw_error err = SW_ERROR_INIT;
	const char *argv[2 + NTRICKY];
	char *out = NULL, *script, *file, *args, *parsed[64];
	size_t n;

	argv[0] = "slipway";
	argv[1] = "status";
	for (size_t i = 0; i < NTRICKY; i++)
		argv[2 + i] = tricky[i];
	cr_assert_eq(render_powershell(&out, argv, 2 + NTRICKY, NULL, &err), 0);
	script = decode_script(out, PS_PATH PS_FLAGS);
	cr_assert_eq(strncmp(script,
			     "$startInfo=New-Object System.Diagnostics.ProcessStartInfo;"
			     "$startInfo.UseShellExecute=$false;$startInfo.FileName=", 92), 0, "%s", script);
	cr_assert_not_null(strstr(script,
		"'));$process=[System.Diagnostics.Process]::Start($startInfo);"
		"if ($null -eq $process) { exit 1 };$process.WaitForExit();"
		"exit $process.ExitCode"));
	file = literal(script, "$startInfo.FileName=");
	cr_assert_str_eq(file, "slipway");
	args = literal(script, "$startInfo.Arguments=");
	n = parse_windows(args, parsed, 64);
	cr_assert_eq(n, 1 + NTRICKY, "%s", args);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(parsed[i], argv[1 + i], "arg %zu", i);
		free(parsed[i]);
	}
	free(args);
	free(file);
	free(script);
	sw_free(out);
}

Test(io_render, powershell_renders_even_plain_argv_and_nothing_for_no_argv)
{
	struct sw_error err = SW_ERROR_INIT;
	const char *argv[] = { "sl ip\"way", "status" };
	char *out = NULL, *script, *file, *args;

	cr_assert_eq(render_powershell(&out, argv, 2, "", &err), 0);
	script = decode_script(out, PS_PATH PS_FLAGS);
	file = literal(script, "$startInfo.FileName=");
	cr_assert_str_eq(file, "sl ip\"way", "FileName is raw, not escaped");
	args = literal(script, "$startInfo.Arguments=");
	cr_assert_str_eq(args, "status");
	free(args);
	free(file);
	free(script);
	sw_free(out);
	cr_assert_eq(render_powershell(&out, argv, 0, NULL, &err), 0);
	cr_assert_str_eq(out, "");
	sw_free(out);
}

Test(io_render, powershell_path_follows_system_root)
{
	static const struct { const char *root, *path; } rows[] = {
		{ NULL, PS_PATH },
		{ "", PS_PATH },
		{ "Windows", PS_PATH },
		{ "\\Windows", PS_PATH },
		{ "C:Windows", PS_PATH },
		{ "D:\\Win", "D:\\Win\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" },
		{ "D:/Win/", "D:\\Win\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" },
		{ "C:\\a\\..\\b\\.\\", "C:\\b\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" },
		{ "C:\\..", "C:\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" },
		{ "\\\\srv\\share\\win", "\\\\srv\\share\\win\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" },
		{ "C:\\Program Files\\W", "C:\\Program Files\\W\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sw_error err = SW_ERROR_INIT;
		const char *argv[] = { "slipway" };
		char *path = NULL, *out = NULL, *quoted = NULL, *prefix;

		cr_assert_eq(render_powershell_path(&path, rows[i].root, &err), 0);
		cr_assert_str_eq(path, rows[i].path, "root=[%s]", rows[i].root ? rows[i].root : "(null)");
		/* The rendered command starts with the EscapeArg'd path. */
		cr_assert_eq(render_windows_arg(&quoted, path, &err), 0);
		cr_assert_eq(render_powershell(&out, argv, 1, rows[i].root, &err), 0);
		prefix = sw_asprintf("%s%s", quoted, PS_FLAGS);
		cr_assert_eq(strncmp(out, prefix, strlen(prefix)), 0, "%s", out);
		sw_free(prefix);
		sw_free(out);
		sw_free(quoted);
		sw_free(path);
	}
}

/* ---- cmd.exe ------------------------------------------------------------- */

/* cmd.exe's caret phase: `^x` is a literal x.  Every metacharacter left
 * unescaped is reported. */
static char *uncaret(const char *s)
{
	char *out = calloc(strlen(s) + 1, 1);
	size_t k = 0;

	for (; *s; s++) {
		if (*s == '^') {
			cr_assert_neq(s[1], '\0', "dangling caret");
			out[k++] = *++s;
			continue;
		}
		cr_assert_null(strchr("&|<>()%!\"", *s), "unescaped %c", *s);
		out[k++] = *s;
	}
	return out;
}

Test(io_render, cmd_rendering_round_trips_through_carets_and_argv_rules)
{
	struct sw_error err = SW_ERROR_INIT;
	const char *argv[] = {
		"slipway", "status", "run with spaces", "quoted'\"界", "C:\\root & caret^ (data)",
		"%PATH% !value!", "", "trailing\\", "a\\\"b", "<in> |out|",
	};
	size_t argc = sizeof(argv) / sizeof(argv[0]);
	char *out = NULL, *plain, *args[64];
	size_t n;

	cr_assert_eq(render_cmd(&out, argv, argc, &err), 0);
	cr_assert_eq(strncmp(out, "slipway status ^\"run with spaces^\" quoted'\\^\"界 ",
			     strlen("slipway status ^\"run with spaces^\" quoted'\\^\"界 ")), 0, "%s", out);
	cr_assert_not_null(strstr(out, "^%PATH^%"), "%s", out);
	plain = uncaret(out);
	n = parse_windows(plain, args, 64);
	cr_assert_eq(n, argc, "%s", plain);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(args[i], argv[i], "arg %zu", i);
		free(args[i]);
	}
	free(plain);
	sw_free(out);
}

Test(io_render, cmd_refuses_what_cmd_exe_cannot_carry)
{
	struct sw_error err = SW_ERROR_INIT;
	const char *crlf[] = { "slipway", "line\r\nbreak" };
	const char *prog[] = { "my slipway", "status" };
	char *out = NULL;

	cr_assert_eq(render_cmd(&out, crlf, 2, &err), SW_EINVAL);
	cr_assert_null(out);
	sw_error_clear(&err);
	cr_assert_eq(render_cmd(&out, prog, 2, &err), SW_EINVAL);
	sw_error_clear(&err);
	cr_assert_eq(render_command(&out, RENDER_SHELL_INVALID, prog, 2, NULL, &err), SW_EINVAL);
}

/* ---- Next choices -------------------------------------------------------- */

static char *choices(const struct next *n, enum render_shell shell)
{
	struct sw_error err = SW_ERROR_INIT;
	char *out = NULL;

	cr_assert_eq(render_next_choices(&out, n, shell, NULL, &err), 0, "%s", err.msg);
	return out;
}

Test(io_render, none_prints_nothing)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	char *out;

	cr_assert_eq(next_none_identity(&n, ID, &err), 0);
	out = choices(n, RENDER_SHELL_POSIX);
	cr_assert_str_eq(out, "");
	sw_free(out);
	next_free(n);
}

/* The next the rules give a Run in situation `m`, for run-1 / act-1. */
static int rule_next(struct next **n, struct fsm_run m, const char *root, struct sw_error *err)
{
	const struct next_fill fill = { .run_id = "run-1", .action_id = "act-1" };

	return next_from_rule(n, fsm_next(&m, NULL), ID, root, &fill, err);
}

Test(io_render, choices_list_requirements_or_the_command)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	char *out;

	cr_assert_eq(rule_next(&n, (struct fsm_run){ .state = FSM_ST_ACTIVE, .action = FSM_KIND_IMPLEMENT },
			       "/tmp/ws root", &err), 0);
	out = choices(n, RENDER_SHELL_POSIX);
	cr_assert_str_eq(out,
		"Next choices:\n"
		"- submit-outcome-file: requires outcome_file (path via --outcome-file)\n"
		"- submit-outcome-stdin: slipway protocol submit --run run-1 --action act-1 --root '/tmp/ws root' --outcome-stdin\n"
		"- skip-action: slipway protocol skip --run run-1 --action act-1 --root '/tmp/ws root'\n");
	sw_free(out);
	next_free(n);

	/* Optional inputs are left out of the command. */
	cr_assert_eq(rule_next(&n, (struct fsm_run){ .state = FSM_ST_STOPPED, .issue_backed = 1 }, "/w", &err), 0);
	out = choices(n, RENDER_SHELL_POSIX);
	cr_assert_str_eq(out,
		"Next choices:\n"
		"- refresh-source: requires source_file (path via --source-file)\n"
		"- use-pinned-source: slipway protocol resume run-1 --root /w --use-pinned-source\n");
	sw_free(out);
	next_free(n);

	cr_assert_eq(next_build_start(&n, ID, "/w", 5, 1, 1, &err), 0);
	out = choices(n, RENDER_SHELL_POSIX);
	cr_assert_str_eq(out,
		"Next choices:\n"
		"- start-with-source: requires goal_file (path via --goal-file), source_file (path via --source-file)\n");
	sw_free(out);
	next_free(n);

	cr_assert_eq(next_build_form(&n, NEXT_FORM_INSTALL_KIRO, ID, "/w", NULL, &err), 0);
	out = choices(n, RENDER_SHELL_POSIX);
	cr_assert_str_eq(out,
		"Next choices:\n"
		"- install-kiro: requires surface (enum via --surface) choices=ide|cli\n");
	sw_free(out);
	next_free(n);
}

Test(io_render, choices_render_for_the_requested_shell)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	char *out, *line;

	cr_assert_eq(next_build_form(&n, NEXT_FORM_RETRY_DOCTOR, ID, "/w x", NULL, &err), 0);
	out = choices(n, RENDER_SHELL_POWERSHELL);
	cr_assert_eq(strncmp(out, "Next choices:\n- retry-doctor: " PS_PATH PS_FLAGS,
			     strlen("Next choices:\n- retry-doctor: " PS_PATH PS_FLAGS)), 0, "%s", out);
	cr_assert_eq(out[strlen(out) - 1], '\n');
	sw_free(out);
	out = choices(n, RENDER_SHELL_CMD);
	cr_assert_str_eq(out, "Next choices:\n- retry-doctor: slipway doctor --root ^\"/w x^\" --json\n");
	sw_free(out);
	line = choices(n, RENDER_SHELL_NATIVE);
	cr_assert_str_eq(line, "Next choices:\n- retry-doctor: slipway doctor --root '/w x' --json\n");
	sw_free(line);
	next_free(n);
}

Test(io_render, choices_refuse_an_invalid_next)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;
	char *out = NULL;

	cr_assert_eq(rule_next(&n, (struct fsm_run){ .state = FSM_ST_STOPPED }, "/w", &err), 0);
	n->identity[7] = 'X';
	cr_assert_eq(render_next_choices(&out, n, RENDER_SHELL_POSIX, NULL, &err), SW_EINVAL);
	cr_assert_null(out);
	next_free(n);
}

Test(io_render, renderers_survive_every_allocation_failure)
{
	const char *argv[] = { "slipway", "status", "a b", "c\"d" };

	for (unsigned long k = 1;; k++) {
		struct sw_error err = SW_ERROR_INIT;
		char *out = NULL;
		int rc;

		sw_alloc_fail_after(k);
		rc = render_powershell(&out, argv, 4, NULL, &err);
		sw_alloc_fail_after(0);
		if (rc == 0) {
			sw_free(out);
			break;
		}
		cr_assert_eq(rc, SW_ENOMEM, "k=%lu", k);
		cr_assert_null(out);
		cr_assert_lt(k, 1000);
	}
}

Test(io_render, choices_survive_every_allocation_failure)
{
	struct sw_error err = SW_ERROR_INIT;
	struct next *n = NULL;

	cr_assert_eq(rule_next(&n, (struct fsm_run){ .state = FSM_ST_PAUSED_ENVIRONMENT,
					      .action = FSM_KIND_IMPLEMENT }, "/w x", &err), 0);
	for (unsigned long k = 1;; k++) {
		char *out = NULL;
		int rc;

		sw_error_clear(&err);
		sw_alloc_fail_after(k);
		rc = render_next_choices(&out, n, RENDER_SHELL_POSIX, NULL, &err);
		sw_alloc_fail_after(0);
		if (rc == 0) {
			cr_assert_str_eq(out, "Next choices:\n"
				"- resume-ad-hoc: slipway protocol resume run-1 --root '/w x'\n"
				"- skip-action: slipway protocol skip --run run-1 --action act-1 --root '/w x'\n");
			sw_free(out);
			break;
		}
		cr_assert_eq(rc, SW_ENOMEM, "k=%lu: %s", k, err.msg);
		cr_assert_null(out);
		cr_assert_lt(k, 1000);
	}
	next_free(n);
}
