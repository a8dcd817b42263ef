/* Selection: the hosts a request names (--tool values, or the detected
 * ones), and the warnings install and uninstall share about a host whose
 * files slipway does not own.  Reads nothing but the detect folders. */
#include "io/adapters/adapter_internal.h"

#include <string.h>

static const struct host *host_lookup(const char *id)
{
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
		if (strcmp(adapter__hosts[i].id, id) == 0)
			return &adapter__hosts[i];
	return NULL;
}

/* Marks the selected hosts in sel[]; explicit --tool values win over
 * detection.  Returns the count, or a negative code. */
int adapter__select_hosts(int sel[ADAPTER_NHOSTS], const struct adapter_request *req,
			  int default_detected, struct sw_error *err)
{
	int count = 0;

	memset(sel, 0, sizeof(int) * ADAPTER_NHOSTS);
	if (!req->tools_given && default_detected) {
		for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
			if ((sel[i] = adapter__detected(req->root, &adapter__hosts[i])))
				count++;
		if (count == 0)
			return sw_error_set(err, SW_ENOTFOUND,
					    "no AI coding host was detected in this repository; name one with --tool");
		return count;
	}
	for (size_t t = 0; t < req->ntools; t++) {
		const char *p = req->tools[t];

		for (;;) {
			const char *comma = strchr(p, ','), *e = comma ? comma : p + strlen(p);
			char id[32];
			size_t n = 0;

			while (p < e && strchr(" \t\r\n", *p))
				p++;
			while (e > p && strchr(" \t\r\n", e[-1]))
				e--;
			if (e > p) {
				const struct host *h;

				if ((size_t)(e - p) >= sizeof(id))
					return sw_error_proto(err, TBL_ERR_UNKNOWN_HOST_ADAPTER,
							      "unknown host adapter \"%.*s\"", (int)(e - p), p);
				for (; p < e; p++)
					id[n++] = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
				id[n] = '\0';
				if (strcmp(id, "all") == 0) {
					for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
						sel[i] = 1;
				} else if ((h = host_lookup(id)) != NULL) {
					sel[h - adapter__hosts] = 1;
				} else {
					return sw_error_proto(err, TBL_ERR_UNKNOWN_HOST_ADAPTER,
							      "unknown host adapter \"%s\"", id);
				}
			}
			if (comma == NULL)
				break;
			p = comma + 1;
		}
	}
	for (size_t i = 0; i < ADAPTER_NHOSTS; i++)
		count += sel[i];
	if (count == 0)
		return sw_error_proto(err, TBL_ERR_HOST_ADAPTER_REQUIRED,
				      "--tool must name at least one host adapter");
	return count;
}

char *adapter__missing_manifest_warning(const struct host *h)
{
	int kiro = h->choice == CHOSEN_SURFACE;

	return sw_asprintf("%s has a %s/slipway/" SENTINEL_NAME " marker but no ownership manifest, so slipway owns none of its files; "
			   "back up the host directory, move the marker and any generated files you want recreated out of the way, "
			   "then run slipway install --tool %s%s; files left in place stay untouched",
			   h->id, h->owner, h->id, kiro ? " --surface ide|cli" : "");
}

char *adapter__stale_warning(const struct host *h, const char *rel)
{
	return sw_asprintf("%s: the ownership claim on %s does not match what this slipway version generates; "
			   "the file is kept and the claim dropped; delete the file and run slipway install --refresh to regenerate it",
			   h->id, rel);
}

char *adapter__other_hosts(const struct host *h)
{
	char *out = sw_strdup(""), *next;

	for (size_t i = 0; i < ADAPTER_NHOSTS && out; i++) {
		if (&adapter__hosts[i] == h || adapter__hosts[i].choice == CHOSEN_SURFACE)
			continue;
		next = sw_asprintf("%s%s%s", out, *out ? "," : "", adapter__hosts[i].id);
		sw_free(out);
		out = next;
	}
	return out;
}
