/* Where the unit tests make their scratch files: in $TMPDIR (make test
 * gives each step a folder of its own there, tests/step.sh, and removes
 * it), else in /tmp. */
#ifndef TESTS_SUPPORT_TMP_H
#define TESTS_SUPPORT_TMP_H

#include <stdio.h>
#include <stdlib.h>

/* Writes "$TMPDIR/name" (or "/tmp/name") to buf, e.g. a mkstemp or
 * mkdtemp template ending in XXXXXX. */
static inline void test_tmp_name(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("TMPDIR");

	snprintf(buf, size, "%s/%s", dir != NULL && dir[0] == '/' ? dir : "/tmp", name);
}

#endif
