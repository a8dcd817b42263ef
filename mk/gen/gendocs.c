/* build/gendocs: everything under docs/ that is printed from the code, and
 * the capability texts.
 *
 *	gendocs pages DOCS OUT         the reference pages: each template
 *	                               DOCS/<lang>/reference/NAME.md.in becomes
 *	                               OUT/<lang>/reference/NAME.md
 *	                               (mk/gen/gendocs_pages.c)
 *	gendocs dot NAME [ARG...]      the Graphviz source of a diagram of
 *	                               docs/diagrams/ (mk/gen/gendocs_dot.c)
 *	gendocs capability IN [OUT]    a capability text template expanded
 *	                               (mk/gen/gencap.c)
 *
 * Built and run by `make docs`; `make docs-check` compares the output with
 * the committed files. */

#include <stdio.h>
#include <string.h>

#include "mk/gen/gencap.h"
#include "mk/gen/gendocs.h"

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "capability") == 0)
		return gencap_expand(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 4 && strcmp(argv[1], "pages") == 0)
		return gendocs_pages(argv[2], argv[3]);
	if (argc >= 3 && strcmp(argv[1], "dot") == 0)
		return gendocs_dot(argv[2], argv + 3, argc - 3);
	fprintf(stderr, "usage: gendocs pages DOCS OUT | dot NAME [ARG...] | capability IN [OUT]\n");
	return 2;
}
