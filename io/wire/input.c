/* Host inputs read and validated before the run store is opened. */

#include "io/wire/input.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util/json.h"
#include "io/wire/outcome.h"

/* ---- text ---- */

size_t input_json_string_size(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 2, i;

	for (i = 0; i < len; i++) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\' || c == '\b' || c == '\f' ||
		    c == '\n' || c == '\r' || c == '\t')
			n += 2;
		else if (c < 0x20)
			n += 6;
		else if (c == 0xe2 && i + 2 < len && p[i + 1] == 0x80 &&
			 (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
			n += 6;	/* U+2028, U+2029 are written \u2028, \u2029 */
			i += 2;
		} else
			n += 1;
	}
	return n;
}

int input_goal_check(const char *goal, size_t len, struct sw_error *err)
{
	/* Whitespace-only first, as the reference does; invalid bytes are not
	 * whitespace, so they fall through to the UTF-8 rule. */
	if (sw_utf8_valid(goal, len) && !outcome_text_nonblank(goal, len))
		return sw_error_proto(err, TBL_ERR_GOAL_REQUIRED, "goal cannot be empty");
	if (!sw_utf8_valid(goal, len))
		return sw_error_proto(err, TBL_ERR_INVALID_GOAL, "goal must be valid utf-8");
	if (!outcome_text_markdown(goal, len))
		return sw_error_proto(err, TBL_ERR_INVALID_GOAL,
				      "goal contains a disallowed control character");
	if (input_json_string_size(goal, len) > INPUT_MAX_TEXT_BYTES)
		return sw_error_proto(err, TBL_ERR_ACTION_TOO_LARGE,
				      "encoded goal exceeds the %u-byte Action limit",
				      INPUT_MAX_TEXT_BYTES);
	return 0;
}

int input_goal_read_error(const struct sw_error *read_err, struct sw_error *err)
{
	switch (read_err->code) {
	case SW_ETOOBIG:
		return sw_error_proto(err, TBL_ERR_ACTION_TOO_LARGE,
				      "goal input exceeds %u bytes", INPUT_MAX_TEXT_BYTES);
	case SW_ENOMEM:
		return sw_error_set(err, SW_ENOMEM, "%s", read_err->msg);
	case SW_OK:
	case SW_EIO:
	case SW_EGIT:
	case SW_EPARSE:
	case SW_ECONFLICT:
	case SW_EINVAL:
	case SW_EBUSY:
	case SW_ENOTFOUND:
	case SW_EUNSAFE:
	case SW_EPROTO:
		break;
	}
	return sw_error_proto(err, TBL_ERR_GOAL_UNAVAILABLE, "%s", read_err->msg);
}

int input_answer_check(const char *text, size_t len, struct sw_error *err)
{
	if (!sw_utf8_valid(text, len))
		return sw_error_proto(err, TBL_ERR_INVALID_ANSWER,
				      "answer text must be valid utf-8");
	if (input_json_string_size(text, len) > INPUT_MAX_TEXT_BYTES)
		return sw_error_proto(err, TBL_ERR_ANSWER_TOO_LARGE,
				      "encoded answer exceeds the %u-byte text input limit",
				      INPUT_MAX_TEXT_BYTES);
	return 0;
}

int input_answer_digest(char out[SW_DIGEST_LEN], const char *action_id,
			int confirm, const char *scope, const char *text,
			size_t text_len, struct sw_error *err)
{
	static const char domain[] = "slipway-answer/v1";
	const char *flag = confirm ? "true" : "false";
	struct sw_sha256 *h = NULL;
	int rc;

	if (scope == NULL)
		scope = "";
	if ((rc = sw_sha256_new(&h, err)) < 0)
		return rc;
	sw_sha256_field(h, domain, sizeof(domain) - 1);
	sw_sha256_field(h, action_id, strlen(action_id));
	sw_sha256_field(h, flag, strlen(flag));
	sw_sha256_field(h, scope, strlen(scope));
	sw_sha256_field(h, text, text_len);
	sw_sha256_final_prefixed(h, out);
	return 0;
}

/* ---- run ids and budgets ---- */

int input_run_id_check(const char *run_id, struct sw_error *err)
{
	size_t i, n = strlen(run_id);

	if (n == 0 || n > INPUT_MAX_RUN_ID)
		goto bad;
	for (i = 0; i < n; i++) {
		char c = run_id[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_')
			continue;
		goto bad;
	}
	return 0;
bad:
	return sw_error_proto(err, TBL_ERR_INVALID_RUN_ID, "invalid run id \"%.160s\"", run_id);
}

int input_budget_check(long budget, struct sw_error *err)
{
	if (budget < INPUT_MIN_BUDGET)
		return sw_error_proto(err, TBL_ERR_INVALID_BUDGET, "budget must be at least 1");
	if (budget > INPUT_MAX_BUDGET)
		return sw_error_proto(err, TBL_ERR_INVALID_BUDGET,
				      "budget cannot exceed %ld", INPUT_MAX_BUDGET);
	return 0;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* Go strconv.ParseInt(s, 0, 64) syntax.  Returns 0 and the value, -1 when
 * the text does not parse, -2 when it parses but overflows int64 (also an
 * invalid flag value for the reference). */
static int go_parse_int(const char *s, long long *out)
{
	unsigned long long v = 0, lim;
	int neg = 0, base = 10, prefixed = 0, last_us = 0, any = 0;
	int overflow = 0;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16, s += 2, prefixed = 1;
	} else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
		base = 8, s += 2, prefixed = 1;
	} else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2, s += 2, prefixed = 1;
	} else if (s[0] == '0' && s[1] != '\0') {
		base = 8, s += 1, prefixed = 1;
		any = 1;	/* the leading 0 counts as a digit */
	}
	/* Underscores only between digits or right after a base prefix. */
	last_us = 0;
	if (*s == '_' && !prefixed)
		return -1;
	for (; *s; s++) {
		int d;

		if (*s == '_') {
			if (last_us)
				return -1;
			last_us = 1;
			continue;
		}
		last_us = 0;
		if ((d = digit_value(*s)) >= base)
			return -1;
		any = 1;
		if (v > (ULLONG_MAX - (unsigned)d) / (unsigned)base)
			overflow = 1;
		else
			v = v * (unsigned)base + (unsigned)d;
	}
	if (!any || last_us)
		return -1;
	lim = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
	if (overflow || v > lim)
		return -2;
	*out = neg ? (long long)(0 - v) : (long long)v;
	return 0;
}

int input_budget_parse(long *out, const char *s, struct sw_error *err)
{
	long long v = 0;
	int rc;

	if (go_parse_int(s, &v) < 0)
		return sw_error_proto(err, TBL_ERR_INVALID_USAGE,
				      "invalid argument \"%.64s\" for \"--budget\" flag", s);
	/* Clamp before narrowing so that huge values keep their side. */
	if (v < INPUT_MIN_BUDGET)
		v = INPUT_MIN_BUDGET - 1;
	if (v > INPUT_MAX_BUDGET)
		v = INPUT_MAX_BUDGET + 1;
	if ((rc = input_budget_check((long)v, err)) < 0)
		return rc;
	*out = (long)v;
	return 0;
}
