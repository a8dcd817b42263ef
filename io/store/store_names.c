/* The run store's names: the layout table (io/store/store_layout.def),
 * the run id grammar and new run ids, the shapes of the temporaries
 * (io/store/store_names.h) and the random suffixes of temporary names.
 * Opens nothing: the files above it make and remove what these name. */

#include "io/store/store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "io/store/store_names.h"
#include "io/util/os.h"

/* clang-format off */
const struct store_entry_row store_entries[STORE_ENTRY__COUNT] = {
#define STORE_ENTRY(id, parent, name, kind, doc) \
	[STORE_ENTRY_##id] = { STORE_ENTRY_##parent, name, STORE_KIND_##kind, doc },
#include "io/store/store_layout.def"
#undef STORE_ENTRY
};
/* clang-format on */

/* The kernel's random bytes (sw_os_random: getrandom(2) on Linux,
 * blocking only until the pool is first seeded): no user-space generator
 * to set up per process. */
static int random_bytes(unsigned char *b, size_t n, struct sw_error *err)
{
	if (sw_os_random(b, n) < 0)
		return sw_error_sys(err, errno, "cannot draw random bytes");
	return 0;
}

int store__random_hex16(char out[17], struct sw_error *err)
{
	unsigned char b[8];
	int rc;

	if ((rc = random_bytes(b, sizeof(b), err)) < 0)
		return rc;
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

int store_run_id_valid(const char *id)
{
	size_t n = 0;

	if (id == NULL)
		return 0;
	for (; id[n] != '\0'; n++) {
		char c = id[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return 0;
		if (n >= STORE_RUN_ID_MAX)
			return 0;
	}
	return n >= 1;
}

/* 1 when p holds exactly n lowercase hex digits followed by `end`. */
static bool hex_then(const char *p, size_t n, char end)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return p[n] == end;
}

bool store__is_run_temporary(const char *name)
{
	/* Literal spellings (io/store/store_names.h), which store_open checks
	 * against the rows of io/store/store_layout.def. */
	static const char *const prefixes[] = {
		".tmp-" STORE_PROJECTION_NAME "-", ".tmp-" STORE_CHECKPOINT_NAME "-",
		".tmp-" STORE_CHECKPOINT_LOG_NAME "-", ".tmp-" STORE_SUMMARY_NAME "-",
		".tmp-" STORE_LOCK_NAME "-",
		".quarantine-" STORE_PROJECTION_NAME "-", ".quarantine-" STORE_LOCK_NAME "-",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if (strncmp(name, prefixes[i], n) == 0 && hex_then(name + n, 16, '\0'))
			return true;
	}
	return false;
}

bool store__is_material_temporary(const char *name)
{
	return strncmp(name, ".tmp-", 5) == 0 && hex_then(name + 5, 64, '-') &&
	       hex_then(name + 70, 16, '\0');
}

bool store__is_staged_name(const char *name)
{
	size_t p = strlen(STORE_STAGED_PREFIX), n = strlen(name), len;
	char id[STORE_RUN_ID_MAX + 1];

	/* STORE_STAGED_PREFIX, a run id, '-', 16 hex digits. */
	if (strncmp(name, STORE_STAGED_PREFIX, p) != 0 || n < p + 18 ||
	    (len = n - p - 17) > STORE_RUN_ID_MAX || name[n - 17] != '-' ||
	    !hex_then(name + n - 16, 16, '\0'))
		return false;
	memcpy(id, name + p, len);
	id[len] = '\0';
	return store_run_id_valid(id);
}

bool store__is_material_name(const char *name)
{
	return hex_then(name, 64, '\0');
}

int store_new_run_id(char out[37], struct sw_error *err)
{
	unsigned char b[16];
	size_t o = 0;
	int rc;

	if ((rc = random_bytes(b, sizeof(b), err)) < 0)
		return rc;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		snprintf(out + o, 3, "%02x", b[i]);
		o += 2;
	}
	out[36] = '\0';
	return 0;
}
