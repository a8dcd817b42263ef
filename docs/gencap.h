#ifndef DOCS_GENCAP_H
#define DOCS_GENCAP_H

/* Prints the capability text at `path` to stdout with every
 * `<!-- slipway:NAME [ARG] -->` line replaced by its generated section.
 * Returns 0, or 1 (after a message on stderr) when a marker is unknown, an
 * example Outcome is refused by the validator or the file cannot be read. */
int gencap_expand(const char *path);

#endif
