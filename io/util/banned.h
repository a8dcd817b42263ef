#ifndef IO_UTIL_BANNED_H
#define IO_UTIL_BANNED_H

/* Included into every translation unit by the Makefile (-include).  These
 * functions are unsafe or hidden-state; use snprintf, strtok_r, gmtime_r. */
#define BANNED(f) sorry_##f##_is_banned_in_slipway

#undef strcpy
#define strcpy(a, b) BANNED(strcpy)
#undef strcat
#define strcat(a, b) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(a, b) BANNED(strtok)
#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)

#endif
