#include "tests/support/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/support/tmp.h"

int schema_valid(const char *defname, const char *json, char *why, size_t whylen)
{
	const char *root = getenv("SLIPWAY_TEST_ROOT");
	char cmd[8192], tmpl[4096];
	int fd, status;
	FILE *p;
	size_t n;

	why[0] = '\0';
	test_tmp_name(tmpl, sizeof(tmpl), "slipway-schema-XXXXXX");
	if ((fd = mkstemp(tmpl)) < 0)
		return 0;
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/tests/support/validate.py %s 2>%s",
		 root ? root : ".", defname, tmpl);
	if ((p = popen(cmd, "w")) == NULL)
		return 0;
	fputs(json, p);
	status = pclose(p);
	if ((p = fopen(tmpl, "r")) != NULL) {
		n = fread(why, 1, whylen - 1, p);
		why[n] = '\0';
		fclose(p);
	}
	unlink(tmpl);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
