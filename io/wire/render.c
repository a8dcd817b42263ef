/* Display rendering of an argv and of a whole `next` (POSIX sh and the
 * PowerShell trampoline).  Presentation only.  See io/wire/render.h. */

#include "io/wire/render.h"

#include <limits.h>
#include <string.h>


#include "io/util/buf.h"

/* Hands the string to *out, or frees it and reports ENOMEM. */
static int buf_finish(struct sw_buf *b, char **out, struct sw_error *err)
{
	if (!b->failed && b->p == NULL)
		sw_buf_add(b, "", 0);
	if (b->failed) {
		sw_free(b->p);
		b->p = NULL;
		return sw_error_set(err, SW_ENOMEM, "cannot allocate rendering");
	}
	*out = b->p;
	b->p = NULL;
	return 0;
}

/* ---- POSIX -------------------------------------------------------------- */

static const char posix_special[] = " \t\r\n\"'\\$`;&|<>()[]{}*?!#~";

static void posix_quote(struct sw_buf *b, const char *arg)
{
	if (arg[0] != '\0' && strpbrk(arg, posix_special) == NULL) {
		sw_buf_str(b, arg);
		return;
	}
	sw_buf_ch(b, '\'');
	for (const char *p = arg; *p; p++) {
		if (*p == '\'')
			sw_buf_str(b, "'\"'\"'");
		else
			sw_buf_ch(b, *p);
	}
	sw_buf_ch(b, '\'');
}

int render_posix(char **out, const char *const *argv, size_t argc,
		 struct sw_error *err)
{
	struct sw_buf b = { 0 };

	*out = NULL;
	for (size_t i = 0; i < argc; i++) {
		if (i > 0)
			sw_buf_ch(&b, ' ');
		posix_quote(&b, argv[i]);
	}
	return buf_finish(&b, out, err);
}

/* ---- CommandLineToArgvW escaping ---------------------------------------- */

static void windows_escape(struct sw_buf *b, const char *s)
{
	int has_space = 0, needs_escape = 0;
	size_t slashes = 0;

	if (s[0] == '\0') {
		sw_buf_str(b, "\"\"");
		return;
	}
	for (const char *p = s; *p; p++) {
		if (*p == ' ' || *p == '\t')
			has_space = 1;
		else if (*p == '"' || *p == '\\')
			needs_escape = 1;
	}
	if (!has_space && !needs_escape) {
		sw_buf_str(b, s);
		return;
	}
	if (has_space)
		sw_buf_ch(b, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '\\') {
			slashes++;
		} else if (*p == '"') {
			/* The backslashes before a quote, and the quote, escape. */
			for (; slashes > 0; slashes--)
				sw_buf_ch(b, '\\');
			sw_buf_ch(b, '\\');
		} else {
			slashes = 0;
		}
		sw_buf_ch(b, *p);
	}
	if (has_space) {
		/* Trailing backslashes must not escape the closing quote. */
		for (; slashes > 0; slashes--)
			sw_buf_ch(b, '\\');
		sw_buf_ch(b, '"');
	}
}

int render_windows_arg(char **out, const char *arg, struct sw_error *err)
{
	struct sw_buf b = { 0 };

	*out = NULL;
	windows_escape(&b, arg);
	return buf_finish(&b, out, err);
}

static void windows_join(struct sw_buf *b, const char *const *argv, size_t argc)
{
	for (size_t i = 0; i < argc; i++) {
		if (i > 0)
			sw_buf_ch(b, ' ');
		windows_escape(b, argv[i]);
	}
}

int render_windows_args(char **out, const char *const *argv, size_t argc,
			struct sw_error *err)
{
	struct sw_buf b = { 0 };

	*out = NULL;
	windows_join(&b, argv, argc);
	return buf_finish(&b, out, err);
}

/* ---- Windows paths (Go's filepath on Windows, the parts we need) -------- */

static int win_sep(char c)
{
	return c == '\\' || c == '/';
}

static int ascii_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Length of the volume name: "X:" or "\\host\share"; 0 when none. */
static size_t win_volume_len(const char *p)
{
	size_t i;

	if (ascii_letter(p[0]) && p[1] == ':')
		return 2;
	if (!win_sep(p[0]) || !win_sep(p[1]) || p[2] == '\0' || win_sep(p[2]))
		return 0;
	for (i = 2; p[i] && !win_sep(p[i]); i++)
		;
	if (p[i] == '\0' || p[i + 1] == '\0' || win_sep(p[i + 1]))
		return 0;
	for (i++; p[i] && !win_sep(p[i]); i++)
		;
	return i;
}

static int win_is_abs(const char *p)
{
	size_t vol;

	if (p == NULL || (vol = win_volume_len(p)) == 0)
		return 0;
	if (win_sep(p[0]) && win_sep(p[1]))
		return 1;
	return win_sep(p[vol]);
}

/* Appends the clean form of the rooted Windows path `p`: the volume, then
 * the elements with `.`, `..` and repeated separators resolved, all
 * separators written as '\'. */
static void win_clean(struct sw_buf *b, const char *p)
{
	size_t vol = win_volume_len(p), base;

	for (size_t i = 0; i < vol; i++)
		sw_buf_ch(b, win_sep(p[i]) ? '\\' : p[i]);
	base = b->len;
	sw_buf_ch(b, '\\');
	for (const char *r = p + vol; *r;) {
		size_t n = 0;

		while (win_sep(*r))
			r++;
		while (r[n] && !win_sep(r[n]))
			n++;
		if (n == 0 || (n == 1 && r[0] == '.')) {
			r += n;
			continue;
		}
		if (n == 2 && r[0] == '.' && r[1] == '.') {
			/* Drop the last element; `..` at the root is dropped. */
			if (!b->failed) {
				while (b->len > base + 1 && b->p[b->len - 1] != '\\')
					b->len--;
				if (b->len > base + 1)
					b->len--;
				b->p[b->len] = '\0';
			}
			r += n;
			continue;
		}
		if (!b->failed && b->len > base + 1)
			sw_buf_ch(b, '\\');
		sw_buf_add(b, r, n);
		r += n;
	}
}

int render_powershell_path(char **out, const char *system_root,
			   struct sw_error *err)
{
	struct sw_buf joined = { 0 }, clean = { 0 };
	const char *root = system_root;
	int rc;

	*out = NULL;
	if (root == NULL || root[0] == '\0' || !win_is_abs(root))
		root = "C:\\Windows";
	sw_buf_str(&joined, root);
	sw_buf_str(&joined, "\\System32\\WindowsPowerShell\\v1.0\\powershell.exe");
	if (joined.failed)
		clean.failed = 1;
	else
		win_clean(&clean, joined.p);
	rc = buf_finish(&clean, out, err);
	sw_free(joined.p);
	return rc;
}

/* ---- PowerShell trampoline ---------------------------------------------- */

/* Standard base64 with padding, written here: libcrypto's encoder would
 * link most of OpenSSL into the static binary. */
static void base64_add(struct sw_buf *b, const unsigned char *bytes, size_t n)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n && !b->failed; i += 3) {
		unsigned long v = (unsigned long)bytes[i] << 16;
		char q[4];

		if (i + 1 < n)
			v |= (unsigned long)bytes[i + 1] << 8;
		if (i + 2 < n)
			v |= bytes[i + 2];
		q[0] = abc[(v >> 18) & 63];
		q[1] = abc[(v >> 12) & 63];
		q[2] = i + 1 < n ? abc[(v >> 6) & 63] : '=';
		q[3] = i + 2 < n ? abc[v & 63] : '=';
		sw_buf_add(b, q, sizeof(q));
	}
}

/* [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('<b64>')) */
static void ps_utf8_literal(struct sw_buf *b, const char *value)
{
	sw_buf_str(b, "[Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('");
	base64_add(b, (const unsigned char *)value, strlen(value));
	sw_buf_str(b, "'))");
}

/* Decodes one UTF-8 scalar at s[0..n); invalid input yields U+FFFD over
 * one byte, as Go's string-to-rune conversion does. */
static unsigned utf8_next(const unsigned char *s, size_t n, size_t *used)
{
	unsigned cp, min;
	size_t len;

	*used = 1;
	if (s[0] < 0x80)
		return s[0];
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0xfffd;
	}
	if (len > n)
		return 0xfffd;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0xfffd;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0xfffd;
	*used = len;
	return cp;
}

static void utf16le_unit(unsigned char **w, unsigned u)
{
	(*w)[0] = (unsigned char)(u & 0xff);
	(*w)[1] = (unsigned char)(u >> 8);
	*w += 2;
}

/* Appends base64(UTF-16LE(script)). */
static void encoded_command_add(struct sw_buf *b, const char *script)
{
	size_t n = strlen(script), used;
	const unsigned char *s = (const unsigned char *)script;
	unsigned char *units, *w;

	if (b->failed)
		return;
	/* At most two 16-bit units (4 bytes) per input byte. */
	if ((units = sw_malloc(4 * n + 1)) == NULL) {
		b->failed = 1;
		return;
	}
	w = units;
	for (size_t i = 0; i < n; i += used) {
		unsigned cp = utf8_next(s + i, n - i, &used);

		if (cp >= 0x10000) {
			cp -= 0x10000;
			utf16le_unit(&w, 0xd800 | (cp >> 10));
			utf16le_unit(&w, 0xdc00 | (cp & 0x3ff));
		} else {
			utf16le_unit(&w, cp);
		}
	}
	base64_add(b, units, (size_t)(w - units));
	sw_free(units);
}

int render_powershell(char **out, const char *const *argv, size_t argc,
		      const char *system_root, struct sw_error *err)
{
	struct sw_buf script = { 0 }, line = { 0 }, args = { 0 };
	char *path = NULL;
	int rc;

	*out = NULL;
	if (argc == 0)
		return buf_finish(&line, out, err);
	windows_join(&args, argv + 1, argc - 1);
	sw_buf_str(&script, "$startInfo=New-Object System.Diagnostics.ProcessStartInfo;");
	sw_buf_str(&script, "$startInfo.UseShellExecute=$false;");
	sw_buf_str(&script, "$startInfo.FileName=");
	ps_utf8_literal(&script, argv[0]);
	sw_buf_str(&script, ";$startInfo.Arguments=");
	ps_utf8_literal(&script, args.p ? args.p : "");
	sw_buf_str(&script, ";$process=[System.Diagnostics.Process]::Start($startInfo);");
	sw_buf_str(&script, "if ($null -eq $process) { exit 1 };");
	sw_buf_str(&script, "$process.WaitForExit();");
	sw_buf_str(&script, "exit $process.ExitCode");
	if ((rc = render_powershell_path(&path, system_root, err)) < 0)
		goto out;
	windows_escape(&line, path);
	sw_buf_str(&line, " -NoLogo -NoProfile -NonInteractive -EncodedCommand ");
	if (script.failed || args.failed)
		line.failed = 1;
	else
		encoded_command_add(&line, script.p);
	rc = buf_finish(&line, out, err);
out:
	sw_free(path);
	sw_free(args.p);
	sw_free(script.p);
	sw_free(line.p);
	return rc;
}

/* ---- cmd.exe ------------------------------------------------------------- */

static const char cmd_special[] = "^&|<>()%!\"";

int render_cmd(char **out, const char *const *argv, size_t argc,
	       struct sw_error *err)
{
	struct sw_buf line = { 0 }, b = { 0 };

	*out = NULL;
	for (size_t i = 0; i < argc; i++)
		if (strpbrk(argv[i], "\r\n") != NULL)
			return sw_error_set(err, SW_EINVAL,
					    "cmd.exe cannot carry CR or LF in argument %zu",
					    i);
	/* The program name is split by cmd.exe itself; keep it plain. */
	if (argc > 0 && (argv[0][0] == '\0' ||
			 strpbrk(argv[0], " \t\"^&|<>()%!") != NULL))
		return sw_error_set(err, SW_EINVAL,
				    "cmd.exe rendering needs a plain program name");
	windows_join(&line, argv, argc);
	if (line.failed)
		return buf_finish(&line, out, err);
	for (const char *p = line.p ? line.p : ""; *p; p++) {
		if (strchr(cmd_special, *p) != NULL)
			sw_buf_ch(&b, '^');
		sw_buf_ch(&b, *p);
	}
	sw_free(line.p);
	return buf_finish(&b, out, err);
}

int render_command(char **out, enum render_shell shell,
		   const char *const *argv, size_t argc,
		   const char *system_root, struct sw_error *err)
{
	*out = NULL;
	switch (shell) {
	case RENDER_SHELL_POSIX:
		return render_posix(out, argv, argc, err);
	case RENDER_SHELL_POWERSHELL:
		return render_powershell(out, argv, argc, system_root, err);
	case RENDER_SHELL_CMD:
		return render_cmd(out, argv, argc, err);
	case RENDER_SHELL_INVALID:
	default:
		return sw_error_set(err, SW_EINVAL, "unknown shell %d", (int)shell);
	}
}

/* ---- The "Next choices:" block ------------------------------------------- */

static void requirements_add(struct sw_buf *b, const struct next_variant *v)
{
	int first = 1;

	for (size_t i = 0; i < v->ninputs; i++) {
		const struct next_input *in = &v->inputs[i];

		if (!in->required)
			continue;
		sw_buf_str(b, first ? "" : ", ");
		first = 0;
		sw_buf_str(b, in->name);
		sw_buf_str(b, " (");
		sw_buf_str(b, tbl_input_wire[in->type]);
		sw_buf_str(b, " via ");
		sw_buf_str(b, in->flag);
		sw_buf_ch(b, ')');
		if (in->type == TBL_INPUT_ENUM) {
			sw_buf_str(b, " choices=");
			for (size_t c = 0; in->choices && in->choices[c]; c++) {
				if (c > 0)
					sw_buf_ch(b, '|');
				sw_buf_str(b, in->choices[c]);
			}
		}
	}
}

static int has_required(const struct next_variant *v)
{
	for (size_t i = 0; i < v->ninputs; i++)
		if (v->inputs[i].required)
			return 1;
	return 0;
}

int render_next_choices(char **out, const struct next *n,
			enum render_shell shell, const char *system_root,
			struct sw_error *err)
{
	struct sw_buf b = { 0 };
	char **argv = NULL;
	char *cmd = NULL;
	size_t argc = 0;
	int rc;

	*out = NULL;
	if ((rc = next_validate(n, err)) < 0)
		goto out;
	if (n->operation == TBL_NEXTOP_NONE) {
		rc = buf_finish(&b, out, err);
		goto out;
	}
	sw_buf_str(&b, "Next choices:\n");
	for (size_t i = 0; i < n->nvariants; i++) {
		const struct next_variant *v = &n->variants[i];

		sw_buf_str(&b, "- ");
		sw_buf_str(&b, tbl_variant_wire[v->id]);
		sw_buf_str(&b, ": ");
		if (has_required(v)) {
			sw_buf_str(&b, "requires ");
			requirements_add(&b, v);
		} else {
			if ((rc = next_resolve(&argv, &argc, n, v->id, NULL, 0,
					       err)) < 0 ||
			    (rc = render_command(&cmd, shell,
						 (const char *const *)argv,
						 argc, system_root, err)) < 0)
				goto out;
			sw_buf_str(&b, cmd);
			sw_free(cmd);
			cmd = NULL;
			next_argv_free(argv);
			argv = NULL;
		}
		sw_buf_ch(&b, '\n');
	}
	rc = buf_finish(&b, out, err);
out:
	sw_free(cmd);
	next_argv_free(argv);
	sw_free(b.p);
	return rc;
}
