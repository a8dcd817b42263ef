#ifndef IO_ADAPTERS_ADAPTER_FOLDERS_H
#define IO_ADAPTERS_ADAPTER_FOLDERS_H

/* The folders slipway creates for a host, so that uninstall can take them
 * away again: a host is detected by its folders (.claude, .cursor, ...),
 * so a folder left behind empty would make `list` report the host and a
 * plain `install` install it.
 *
 * Install records, in `<ownership root>/slipway/created-folders.json`
 * (0600), every folder that did not exist when it queued the writes that
 * need it, with those an earlier install recorded:
 *
 *   {"version": 1, "tool_id": ID, "folders": [PATH...]}   (indented, sorted)
 *
 * Uninstall removes the record with the host's other files and then each
 * recorded folder that is left empty, deepest first.  A folder that
 * existed before slipway first installed the host is never recorded, and
 * one that holds anything is never removed (rmdir only).  The record is a
 * file of slipway's only while its bytes are exactly what slipway writes
 * for this host; another file at that path is the user's and is kept, and
 * then no folder is recorded or removed.  The reference keeps no such
 * record; its manifest is left as it is.  Hosts installed by an earlier
 * version have no record, and uninstall removes none of their folders. */

#include <stddef.h>

#include "io/adapters/report.h"
#include "io/adapters/adapter_txn.h"
#include "io/util/err.h"

/* The record's file name, in `<ownership root>/slipway/`. */
#define ADAPTER_FOLDERS_RECORD "created-folders.json"

/* Queues the record for host `host_id` (ownership root `owner`): the
 * folders missing now among the parents of the files its ops from index
 * `first` of `txn` write, and of the record itself, with those recorded
 * before.  Nothing is queued when that adds nothing.  SW_ENOMEM, SW_EIO. */
int adapter_folders_plan_install(struct adapter_report *rep, struct adapter_txn *txn,
				 const char *root, const char *host_id, const char *owner,
				 size_t first, struct sw_error *err);

/* Queues the removal of the record, when it is slipway's, and appends the
 * folders it names to *folders.  SW_ENOMEM, SW_EIO. */
int adapter_folders_plan_uninstall(struct adapter_report *rep, struct adapter_txn *txn,
				   const char *root, const char *host_id, const char *owner,
				   struct adapter_strs *folders, struct sw_error *err);

#endif
