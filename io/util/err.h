#ifndef IO_UTIL_ERR_H
#define IO_UTIL_ERR_H

/* One error type and one allocator for everything outside the pure core.
 *
 * A function that can fail returns int: 0, or a negative enum sw_code, and
 * takes `struct sw_error *err` last.  The first error set wins; later calls to
 * sw_error_set keep it and only return their code, so callers pass errors up
 * without overwriting the cause. */

#include <stdarg.h>
#include <stddef.h>

#include "tables/tables.h"

enum sw_code {
	SW_OK = 0,
	SW_ENOMEM = -1,		/* allocation failed */
	SW_EIO = -2,		/* file system or OS call failed; sys_errno set */
	SW_EGIT = -3,		/* libgit2 failed; sys_errno = libgit2 class */
	SW_EPARSE = -4,		/* malformed input */
	SW_ECONFLICT = -5,	/* the request contradicts durable state */
	SW_EINVAL = -6,		/* well-formed input that breaks a rule */
	SW_ETOOBIG = -7,	/* input over a documented size limit */
	SW_EBUSY = -8,		/* lock not acquired in time */
	SW_ENOTFOUND = -9,	/* the named thing does not exist */
	SW_EUNSAFE = -10,	/* symlink, wrong file type or identity change */
	SW_EPROTO = -11		/* a protocol error: `proto` is its wire code */
};

struct sw_error {
	enum sw_code code;
	int sys_errno;		/* errno or libgit2 class; 0 if none */
	enum tbl_err proto;	/* wire error code for SW_EPROTO, else TBL_ERR_NONE */
	char msg[512];
};

#define SW_ERROR_INIT { SW_OK, 0, TBL_ERR_NONE, "" }

/* Records the error unless one is already set; returns `code`. */
int sw_error_set(struct sw_error *err, enum sw_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* As sw_error_set, also recording errno `sys`. */
int sw_error_sys(struct sw_error *err, int sys, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Records a protocol error whose wire code is `proto` (SW_EPROTO); the
 * spelling is tbl_err_wire[proto], so a misspelt code does not compile. */
int sw_error_proto(struct sw_error *err, enum tbl_err proto, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sw_error_clear(struct sw_error *err);

/* The allocator.  sw_malloc/sw_calloc/sw_realloc return NULL on failure; in
 * test builds (SW_TESTING) sw_alloc_fail_after(n) makes the n-th following
 * allocation fail, so tests can walk every allocation failure.  Jansson uses
 * the same functions (sw_alloc_init), so json_dumps output is freed with
 * sw_free.  sw_free(NULL) is a no-op. */
void *sw_malloc(size_t n);
void *sw_calloc(size_t count, size_t n);
void *sw_realloc(void *p, size_t n);
char *sw_strdup(const char *s);
char *sw_strndup(const char *s, size_t n);
void sw_free(void *p);
/* Installs sw_malloc/sw_free into Jansson.  Call once at start-up. */
void sw_alloc_init(void);
/* How many sw_malloc/sw_calloc/sw_realloc calls have failed so far.  Compare
 * before and after a call into a library that may swallow an allocation
 * failure (Jansson's parser) to turn it into SW_ENOMEM. */
unsigned long sw_alloc_failures(void);
/* Returns a newly allocated printf-formatted string, or NULL. */
char *sw_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#ifdef SW_TESTING
/* Fail the n-th allocation from now (1 = the next); 0 disables. */
void sw_alloc_fail_after(unsigned long n);
#endif

#endif
