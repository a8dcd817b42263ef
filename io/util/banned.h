#ifndef IO_UTIL_BANNED_H
#define IO_UTIL_BANNED_H

/* Included into every translation unit by the Makefile (-include).  These
 * functions are unsafe or hidden-state; use snprintf, strtok_r, gmtime_r. */
#define BANNED(f) sorry_##f##_is_banned_in_slipway

#undef strtok
#define strtok(a, b) BANNED(strtok)
#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)

#if defined(_FORTIFY_SOURCE)
/* With _FORTIFY_SOURCE, glibc defines sprintf, vsprintf, strcpy and
 * strcat as inline wrappers in its own headers (bits/stdio2.h,
 * bits/string_fortified.h), which come after this file: a function-like
 * macro of the same name would rewrite those definitions.  They are
 * declared deprecated instead, so that a call is a warning, and an error
 * under -Werror (DEVELOPER=1 and every test build); the declarations
 * match the standard ones, and glibc's merge with them. */
#include <stdarg.h>

__attribute__((deprecated("banned in slipway: use snprintf")))
int sprintf(char *restrict s, const char *restrict fmt, ...);
__attribute__((deprecated("banned in slipway: use vsnprintf")))
int vsprintf(char *restrict s, const char *restrict fmt, va_list ap);
__attribute__((deprecated("banned in slipway: use a bounded copy")))
char *strcpy(char *restrict d, const char *restrict s);
__attribute__((deprecated("banned in slipway: use a bounded copy")))
char *strcat(char *restrict d, const char *restrict s);
#else
#undef strcpy
#define strcpy(a, b) BANNED(strcpy)
#undef strcat
#define strcat(a, b) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#endif

#endif
