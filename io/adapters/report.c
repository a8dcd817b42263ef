/* The change report's string lists (see io/adapters/report.h). */
#include "io/adapters/report.h"

#include <stdlib.h>
#include <string.h>

int adapter_strs_add(struct adapter_strs *s, const char *v, struct sw_error *err)
{
	char **grown = sw_realloc(s->v, (s->n + 2) * sizeof(*grown));

	if (grown == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	s->v = grown;
	if ((s->v[s->n] = sw_strdup(v)) == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	s->v[++s->n] = NULL;
	return 0;
}

int adapter_strs_addf_own(struct adapter_strs *s, char *owned, struct sw_error *err)
{
	int rc;

	if (owned == NULL)
		return sw_error_set(err, SW_ENOMEM, "out of memory");
	rc = adapter_strs_add(s, owned, err);
	sw_free(owned);
	return rc;
}

void adapter_strs_release(struct adapter_strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		sw_free(s->v[i]);
	sw_free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void adapter_strs_normalize(struct adapter_strs *s)
{
	size_t k = 0;

	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_str);
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i][0] == '\0' || (k > 0 && strcmp(s->v[k - 1], s->v[i]) == 0)) {
			sw_free(s->v[i]);
			continue;
		}
		s->v[k++] = s->v[i];
	}
	s->n = k;
	s->v[k] = NULL;
}

void adapter_report_release(struct adapter_report *r)
{
	adapter_strs_release(&r->hosts);
	adapter_strs_release(&r->written);
	adapter_strs_release(&r->removed);
	adapter_strs_release(&r->preserved);
	adapter_strs_release(&r->recovery);
	adapter_strs_release(&r->warnings);
}
