/* The one error type outside the pure core, and its allocator.  See
 * io/util/err.h. */

#include "io/util/err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static int set_v(struct sw_error *err, enum sw_code code, int sys,
		 enum tbl_err proto, const char *fmt, va_list ap)
{
	if (err == NULL || err->code != SW_OK)
		return code;
	err->code = code;
	err->sys_errno = sys;
	err->proto = proto;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return code;
}

int sw_error_set(struct sw_error *err, enum sw_code code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = set_v(err, code, 0, TBL_ERR_NONE, fmt, ap);
	va_end(ap);
	return rc;
}

int sw_error_sys(struct sw_error *err, int sys, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (err == NULL || err->code != SW_OK)
		return SW_EIO;
	err->code = SW_EIO;
	err->sys_errno = sys;
	err->proto = TBL_ERR_NONE;
	snprintf(err->msg, sizeof(err->msg), "%s: %s", buf, strerror(sys));
	return SW_EIO;
}

int sw_error_proto(struct sw_error *err, enum tbl_err proto, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = set_v(err, SW_EPROTO, 0, proto, fmt, ap);
	va_end(ap);
	return rc;
}

void sw_error_clear(struct sw_error *err)
{
	if (err == NULL)
		return;
	err->code = SW_OK;
	err->sys_errno = 0;
	err->proto = TBL_ERR_NONE;
	err->msg[0] = '\0';
}

#ifdef SW_TESTING
static unsigned long fail_countdown;

void sw_alloc_fail_after(unsigned long n)
{
	fail_countdown = n;
}

static int should_fail(void)
{
	if (fail_countdown == 0)
		return 0;
	return --fail_countdown == 0;
}
#else
static int should_fail(void)
{
	return 0;
}
#endif

/* Counts failed allocations, so a caller can tell that a library which
 * ignores some allocation failures (Jansson's lexer drops bytes it cannot
 * store) ran out of memory.  Single-threaded, like the rest of slipway. */
static unsigned long alloc_failures;

static void *counted(void *p)
{
	if (p == NULL)
		alloc_failures++;
	return p;
}

unsigned long sw_alloc_failures(void)
{
	return alloc_failures;
}

void *sw_malloc(size_t n)
{
	if (should_fail())
		return counted(NULL);
	return counted(malloc(n ? n : 1));
}

void *sw_calloc(size_t count, size_t n)
{
	if (should_fail())
		return counted(NULL);
	return counted(calloc(count ? count : 1, n ? n : 1));
}

void *sw_realloc(void *p, size_t n)
{
	if (should_fail())
		return counted(NULL);
	return counted(realloc(p, n ? n : 1));
}

char *sw_strndup(const char *s, size_t n)
{
	char *out = sw_malloc(n + 1);

	if (out == NULL)
		return NULL;
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

char *sw_strdup(const char *s)
{
	return sw_strndup(s, strlen(s));
}

void sw_free(void *p)
{
	free(p);
}

char *sw_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (out = sw_malloc((size_t)n + 1)) == NULL)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return out;
}

void sw_alloc_init(void)
{
	json_set_alloc_funcs(sw_malloc, sw_free);
}
