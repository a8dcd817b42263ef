#ifndef CLI_VERSION_H
#define CLI_VERSION_H

/* The version, commit and build date of this binary: from
 * build/gen/version.h (git describe and the build date, mk/version.sh)
 * when it exists, else placeholders. */

#if defined(__has_include)
#if __has_include("build/gen/version.h")
#include "build/gen/version.h"
#endif
#endif
#ifndef SLIPWAY_VERSION
#define SLIPWAY_VERSION "0.1.0"
#endif
#ifndef SLIPWAY_COMMIT
#define SLIPWAY_COMMIT "unknown"
#endif
#ifndef SLIPWAY_DATE
#define SLIPWAY_DATE "unknown"
#endif

#endif
