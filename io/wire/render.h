#ifndef IO_WIRE_RENDER_H
#define IO_WIRE_RENDER_H

/* Display rendering of a resolved argv and of a whole `next` (MAP §4.4).
 * Presentation only: hosts execute base_argv plus inputs, never these
 * strings.
 *
 * Three renderers:
 *  - POSIX sh: an argument stays bare when non-empty and free of space,
 *    TAB, CR, LF and "'\$`;&|<>()[]{}*?!#~; otherwise it is wrapped in
 *    single quotes, each ' written as '"'"'.  Arguments join with spaces.
 *  - PowerShell trampoline: what the reference displays on Windows, always
 *    (whatever the characters): powershell.exe -EncodedCommand running a
 *    ProcessStartInfo script whose FileName and Arguments are base64 UTF-8
 *    literals, Arguments being argv[1..] escaped by the CommandLineToArgvW
 *    rules.  No cmd.exe or PowerShell parsing ever sees a user value.
 *  - cmd.exe: our addition (the reference has no plain cmd.exe form).  The
 *    CommandLineToArgvW line with every cmd.exe metacharacter (^&|<>()%!")
 *    caret-escaped.  Limits, inherent to cmd.exe: CR and LF cannot be
 *    written (SW_EINVAL); `!` is literal only with delayed expansion off
 *    (the default); `^%` stops expansion unless a variable whose name ends
 *    in `^` exists; argv[0] must need no quoting at all.
 *
 * Every function returns 0 or a negative sw_code; on success *out is a
 * sw_malloc'd NUL-terminated string the caller frees with sw_free. */

#include <stddef.h>

#include "io/util/err.h"
#include "io/wire/next.h"

enum render_shell {
	RENDER_SHELL_INVALID,
	RENDER_SHELL_POSIX,
	RENDER_SHELL_POWERSHELL,
	RENDER_SHELL_CMD
};

/* The shell the reference displays on this build's platform. */
#ifdef _WIN32
#define RENDER_SHELL_NATIVE RENDER_SHELL_POWERSHELL
#else
#define RENDER_SHELL_NATIVE RENDER_SHELL_POSIX
#endif

/* POSIX rendering of argv[0..argc).  Codes: SW_ENOMEM. */
int render_posix(char **out, const char *const *argv, size_t argc,
		 struct sw_error *err);

/* One argument escaped by the CommandLineToArgvW rules, exactly as Go's
 * windows.EscapeArg: "" for empty; unchanged unless it holds space, TAB,
 * '"' or '\'; quoted when it holds space or TAB; backslashes doubled only
 * before a '"' or the closing quote; '"' written as \".  Codes: SW_ENOMEM. */
int render_windows_arg(char **out, const char *arg, struct sw_error *err);

/* argv[0..argc) escaped with render_windows_arg, joined by single spaces
 * (the trampoline's Arguments value).  Codes: SW_ENOMEM. */
int render_windows_args(char **out, const char *const *argv, size_t argc,
			struct sw_error *err);

/* %SystemRoot%\System32\WindowsPowerShell\v1.0\powershell.exe, cleaned as
 * Go's filepath.Join does on Windows.  `system_root` is the injected
 * SystemRoot value; NULL, empty or not a Windows absolute path (drive
 * letter plus separator, or \\host\share) means C:\Windows.  Codes:
 * SW_ENOMEM. */
int render_powershell_path(char **out, const char *system_root,
			   struct sw_error *err);

/* The PowerShell trampoline for argv[0..argc): the escaped powershell.exe
 * path, " -NoLogo -NoProfile -NonInteractive -EncodedCommand ", then the
 * base64 of the UTF-16LE script.  argc 0 renders "".  Codes: SW_ENOMEM. */
int render_powershell(char **out, const char *const *argv, size_t argc,
		      const char *system_root, struct sw_error *err);

/* The cmd.exe rendering described above.  Codes: SW_EINVAL (CR or LF in an
 * argument, or argv[0] needing quotes or escapes), SW_ENOMEM. */
int render_cmd(char **out, const char *const *argv, size_t argc,
	       struct sw_error *err);

/* Dispatches to the renderer of `shell`; `system_root` is read only by
 * RENDER_SHELL_POWERSHELL.  Codes: as the renderer, SW_EINVAL for an
 * unknown shell. */
int render_command(char **out, enum render_shell shell,
		   const char *const *argv, size_t argc,
		   const char *system_root, struct sw_error *err);

/* The human block for `n`: "" for operation none, else "Next choices:\n"
 * then per variant "- <id>: requires <name> (<type> via <flag>)
 * [ choices=a|b], ...\n" listing its required inputs when it has any, or
 * "- <id>: <command>\n" with the variant resolved without inputs and
 * rendered for `shell`.  Validates `n` first.  Codes: SW_EINVAL (invalid
 * next, or the renderer refused), SW_ENOMEM. */
int render_next_choices(char **out, const struct next *n,
			enum render_shell shell, const char *system_root,
			struct sw_error *err);

#endif
