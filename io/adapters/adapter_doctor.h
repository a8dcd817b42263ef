#ifndef IO_ADAPTERS_ADAPTER_DOCTOR_H
#define IO_ADAPTERS_ADAPTER_DOCTOR_H

/* `slipway doctor`: the full ordered list of checks.  Read-only: nothing in
 * the workspace, the Git common directory or the GitHub account changes.
 *
 * Order: repository_ok, one adapter check per host, what an interrupted
 * install or uninstall left (its record in <git_dir>/slipway/, and staged
 * copies or backups in the hosts' folders, each by name), retired-namespace
 * residue under <git_common_dir>/slipway/, run-store durability, then the
 * GitHub CLI checks.  The GitHub checks run the `gh` found on PATH (never a
 * shell, never another program) with a 5 second limit each and at most 64
 * KiB of its stdout kept; stderr is discarded and nothing gh prints is copied
 * into a check except a parsed version and permission booleans. */

#include <stddef.h>

#include "io/adapters/adapter.h"
#include "io/util/err.h"

/* Appends every check to *c (zeroed by the caller; release with
 * adapter_checks_release).  Fails only on ENOMEM or when the report cannot
 * be produced at all. */
int adapter_doctor(struct adapter_checks *c, const char *root, const char *git_dir,
		   const char *git_common_dir, const struct adapter_store_facts *store,
		   const struct adapter_text *texts, struct sw_error *err);

/* "major.minor.patch" found in `gh --version` output: 1 and the three parts,
 * or 0 when no whitespace-separated field is a version. */
int adapter_gh_version_parse(const char *out, size_t len, int v[3]);

/* "owner/name" of a credential-free github.com remote URL (https, ssh://git@
 * or git@github.com:), written into `slug` (size `cap`); 0 when the URL is
 * anything else. */
int adapter_github_slug(const char *url, char *slug, size_t cap);

#endif
