/* run.json as pieces (the encoded record with the frozen records' texts
 * spliced into its `actions`) and the replay checkpoint written beside it
 * and read back against it.  Never opens or writes a file by path: the
 * store hands in the descriptors and writes the pieces. */

#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "io/store/journal.h"
#include "io/store/run_internal.h"
#include "io/util/buf.h"
#include "io/util/json.h"

#define ITEM_SEP ",\n      "
#define ACTIONS_KEY "\n    \"actions\": ["

void run_projection_release(struct run_projection *p)
{
	sw_free(p->head);
	sw_free(p->piece);
	sw_free(p->text_off);
	memset(p, 0, sizeof(*p));
}

int run_projection(struct run_projection *p, const struct run *r, long long revision,
		   struct sw_error *err)
{
	json_t *data = run__status_object(r, 0, NULL, NULL, 0);
	char *dump = data ? sw_json_dump(data) : NULL;
	const char *at, *rest;
	size_t n = 0, off;
	int rc;

	memset(p, 0, sizeof(*p));
	json_decref(data);
	if (dump == NULL)
		return run__oom(err);
	rc = journal_projection_encode(&p->head, &p->head_len, revision, dump, strlen(dump), err);
	sw_free(dump);
	if (rc < 0)
		return rc;
	p->piece = sw_calloc(2 * r->nfz + 3, sizeof(*p->piece));
	p->text_off = sw_calloc(r->nfz + 1, sizeof(*p->text_off));
	if (p->piece == NULL || p->text_off == NULL) {
		run_projection_release(p);
		return run__oom(err);
	}
	if (r->nfz == 0) {
		p->piece[0].bytes = p->head;
		p->piece[0].len = p->head_len;
		p->npiece = 1;
		return 0;
	}
	/* The frozen records go first in the actions array; the live ones
	 * follow ("\n      {" after the bracket), or close it ("]"). */
	at = strstr(p->head, ACTIONS_KEY);
	if (at == NULL) {
		run_projection_release(p);
		return sw_error_set(err, SW_EINVAL, "projection without its Action history");
	}
	rest = at + strlen(ACTIONS_KEY);
	p->piece[n].bytes = p->head;
	p->piece[n].len = (size_t)(rest - p->head);
	off = p->piece[n++].len;
	if (rest[0] == ']') {
		rest++;	/* "[]": open it */
	} else if (strncmp(rest, &ITEM_SEP[1], strlen(ITEM_SEP) - 1) == 0) {
		rest += strlen(ITEM_SEP) - 1;
	} else {
		run_projection_release(p);
		return sw_error_set(err, SW_EINVAL, "unexpected projection layout");
	}
	for (size_t i = 0; i < r->nfz; i++) {
		const struct fz_entry *e = &r->fz->e[i];
		struct sw_piece *last = &p->piece[n - 1];

		/* Records read back from run.json sit there in this very
		 * layout, side by side: one piece copies a whole run of them
		 * from the old file. */
		if (i > 0 && e->text == NULL && last->bytes == NULL &&
		    last->from + last->len + strlen(ITEM_SEP) == e->text_at) {
			off += strlen(ITEM_SEP);
			p->text_off[i] = off;
			last->len += strlen(ITEM_SEP) + e->text_len;
			off += e->text_len;
			continue;
		}
		p->piece[n].bytes = i == 0 ? &ITEM_SEP[1] : ITEM_SEP;
		p->piece[n].len = strlen(ITEM_SEP) - (i == 0);
		off += p->piece[n++].len;
		p->text_off[i] = off;
		p->piece[n].bytes = e->text;
		p->piece[n].from = e->text_at;
		p->piece[n].len = e->text_len;
		off += p->piece[n++].len;
	}
	if (rest[-1] == ']') {
		p->piece[n].bytes = "\n    ]";
		p->piece[n++].len = 6;
	} else {
		p->piece[n].bytes = ITEM_SEP;
		p->piece[n++].len = strlen(ITEM_SEP);
	}
	p->piece[n].bytes = rest;
	p->piece[n++].len = p->head_len - (size_t)(rest - p->head);
	p->npiece = n;
	return 0;
}

/* ---- checkpoint ---- */

#define CHECKPOINT_BODY_MAGIC "slipway-run-checkpoint/2\n"

void run_checkpoint_release(struct run_checkpoint *c)
{
	sw_free(c->body);
	sw_free(c->log);
	memset(c, 0, sizeof(*c));
}

/* Decimal digits of v at d; returns the end. */
static char *put_num(char *d, size_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (n > 0)
		*d++ = tmp[--n];
	return d;
}

static char *put_str(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
	return d + n;
}

/* One log entry: "<off> <len> <text_sha> <flags> <item_len> <kind> <sha|->
 * <id>\n<item>\n", `off` counted from the first frozen record in run.json
 * (so an entry never changes once written). */
static char *put_entry(char *d, const struct fz_entry *e, size_t off)
{
	d = put_num(d, off);
	*d++ = ' ';
	d = put_num(d, e->text_len);
	*d++ = ' ';
	d = put_str(d, e->text_sha, strlen(e->text_sha));
	*d++ = ' ';
	d = put_num(d, e->flags);
	*d++ = ' ';
	d = put_num(d, e->item ? e->item_len : 0);
	*d++ = ' ';
	d = put_str(d, e->kind, strlen(e->kind));
	*d++ = ' ';
	d = e->sha[0] ? put_str(d, e->sha, strlen(e->sha)) : put_str(d, "-", 1);
	*d++ = ' ';
	d = put_str(d, e->id, strlen(e->id));
	*d++ = '\n';
	if (e->item)
		d = put_str(d, e->item, e->item_len);
	*d++ = '\n';
	return d;
}

int run_checkpoint(struct run_checkpoint *out, const struct run *r,
		   const struct run_projection *p, const char *extra,
		   struct sw_error *err)
{
	char *head = sw_json_dump(r->rec), *d;
	size_t from = 0, need = 0, start = r->nfz ? p->text_off[0] : 0;
	struct sw_buf b = { 0 };

	memset(out, 0, sizeof(*out));
	if (head == NULL)
		return run__oom(err);
	sw_buf_fmt(&b, "%s%zu %zu\n%zu\n%s\n%zu\n%s\n", CHECKPOINT_BODY_MAGIC, start, r->nfz,
		   strlen(head), head, strlen(extra), extra);
	sw_free(head);
	if (b.failed) {
		sw_free(b.p);
		return run__oom(err);
	}
	out->body = b.p;
	out->body_len = b.len;
	/* Only the entries the log does not hold yet. */
	if (r->fz != NULL && r->fz->logged <= r->nfz) {
		from = r->fz->logged;
		out->log_base = r->fz->log_bytes;
	}
	for (size_t i = from; i < r->nfz; i++)
		need += 8 * 24 + SW_HEX_LEN + SW_DIGEST_LEN + FZ_ID_MAX + FZ_KIND_MAX +
			r->fz->e[i].item_len;
	if ((out->log = sw_malloc(need + 1)) == NULL) {
		run_checkpoint_release(out);
		return run__oom(err);
	}
	d = out->log;
	for (size_t i = from; i < r->nfz; i++)
		d = put_entry(d, &r->fz->e[i], p->text_off[i] - start);
	out->log_len = (size_t)(d - out->log);
	return 0;
}

/* Checkpoint parsing: a cursor over bytes that are not NUL-terminated. */
struct cursor {
	const char *p, *end;
};

static int cur_num(struct cursor *c, size_t *v, char stop)
{
	size_t n = 0;
	int digits = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && digits < 15) {
		n = n * 10 + (size_t)(*c->p++ - '0');
		digits++;
	}
	if (digits == 0 || c->p >= c->end || *c->p != stop)
		return -1;
	c->p++;
	*v = n;
	return 0;
}

/* A word of at most `max` bytes ending at `stop`, made a string where it
 * is (the stop byte becomes its NUL): the cursor's bytes are the caller's
 * own buffer. */
static int cur_field(struct cursor *c, const char **at, size_t max, char stop)
{
	size_t room = (size_t)(c->end - c->p) < max + 1 ? (size_t)(c->end - c->p) : max + 1;
	const char *p = memchr(c->p, stop, room);

	/* The stop byte must be the first separator: memchr scans many bytes
	 * at a time, where a byte loop costs a dozen instructions for
	 * each of the ~190 bytes of an entry. */
	if (p == NULL || p == c->p ||
	    (stop != ' ' && memchr(c->p, ' ', (size_t)(p - c->p)) != NULL) ||
	    (stop != '\n' && memchr(c->p, '\n', (size_t)(p - c->p)) != NULL))
		return -1;
	*at = c->p;
	*(char *)p = '\0';
	c->p = p + 1;
	return 0;
}

static int cur_bytes(struct cursor *c, const char **at, size_t n)
{
	if ((size_t)(c->end - c->p) < n + 1 || c->p[n] != '\n')
		return -1;
	*at = c->p;
	c->p += n + 1;
	return 0;
}

/* Whether byte `at` of fd is `want`. */
static int byte_is(int fd, unsigned long long at, char want)
{
	char got;

	return pread(fd, &got, 1, (off_t)at) == 1 && got == want;
}

int run_from_checkpoint(struct run **out, char **extra, const char *body, size_t body_len,
			char **log, size_t log_len, int *proj_fd, size_t proj_len,
			struct sw_error *err)
{
	struct cursor c = { body, body + body_len };
	const char *head, *x;
	size_t hlen, xlen, n, start, next = 0;
	struct run *r = NULL;
	int rc = SW_EPARSE;

	*out = NULL;
	*extra = NULL;
	if (body_len < strlen(CHECKPOINT_BODY_MAGIC) ||
	    memcmp(body, CHECKPOINT_BODY_MAGIC, strlen(CHECKPOINT_BODY_MAGIC)) != 0)
		goto bad;
	c.p += strlen(CHECKPOINT_BODY_MAGIC);
	if (cur_num(&c, &start, ' ') < 0 || cur_num(&c, &n, '\n') < 0 ||
	    cur_num(&c, &hlen, '\n') < 0 || cur_bytes(&c, &head, hlen) < 0 ||
	    cur_num(&c, &xlen, '\n') < 0 || cur_bytes(&c, &x, xlen) < 0 || c.p != c.end ||
	    n > log_len || start > proj_len || *proj_fd < 0)
		goto bad;
	/* Room for a few more without moving the entries. */
	if ((r = sw_calloc(1, sizeof(*r))) == NULL || (r->contexts = json_array()) == NULL ||
	    (*extra = sw_strndup(x, xlen)) == NULL ||
	    (r->fz = sw_calloc(1, sizeof(*r->fz))) == NULL) {
		rc = run__oom(err);
		goto fail;
	}
	r->fz->src_fd = -1;
	if ((r->fz->e = sw_malloc((n + 8) * sizeof(*r->fz->e))) == NULL) {
		rc = run__oom(err);
		goto fail;
	}
	/* The record as sw_json_dump wrote it, under the checkpoint's digest. */
	if ((r->rec = sw_json_load_own(head, hlen)) == NULL ||
	    !json_is_object(r->rec) || !json_is_array(json_object_get(r->rec, "actions")))
		goto bad;
	r->fz->refs = 1;
	r->fz->cap = n + 8;
	c.p = *log;
	c.end = *log ? *log + log_len : NULL;	/* NULL + 0 is undefined */
	/* The records lie side by side from `start`, so their places follow
	 * from their lengths; run.json is only read at the two ends. */
	for (size_t i = 0; i < n; i++) {
		struct fz_entry *e = &r->fz->e[i];
		size_t off, len, flags, ilen;

		e->own = NULL;
		if (cur_num(&c, &off, ' ') < 0 || cur_num(&c, &len, ' ') < 0 ||
		    cur_field(&c, &e->text_sha, SW_HEX_LEN - 1, ' ') < 0 ||
		    strlen(e->text_sha) != SW_HEX_LEN - 1 ||
		    cur_num(&c, &flags, ' ') < 0 || cur_num(&c, &ilen, ' ') < 0 ||
		    cur_field(&c, &e->kind, FZ_KIND_MAX, ' ') < 0 ||
		    cur_field(&c, &e->sha, SW_DIGEST_LEN - 1, ' ') < 0 ||
		    cur_field(&c, &e->id, FZ_ID_MAX, '\n') < 0 ||
		    cur_bytes(&c, &e->item, ilen) < 0 || flags > 7 ||
		    len < 2 || off != next || len > proj_len - start - off)
			goto bad;
		next = off + len + strlen(ITEM_SEP);
		if (strcmp(e->sha, "-") == 0)
			e->sha = "";
		e->flags = (unsigned)flags;
		e->item_len = ilen;
		if (ilen == 0)
			e->item = NULL;
		e->text = NULL;
		e->text_at = start + off;
		e->text_len = len;
		r->fz->n = r->nfz = i + 1;
	}
	if (c.p != c.end ||
	    (n > 0 && (!byte_is(*proj_fd, start, '{') ||
		       !byte_is(*proj_fd, start + next - strlen(ITEM_SEP) - 1, '}'))))
		goto bad;
	r->fz->logged = n;
	r->fz->log_bytes = log_len;
	/* The items live in the log; the texts stay in the file. */
	r->fz->log = *log;
	*log = NULL;
	r->fz->src_fd = *proj_fd;
	*proj_fd = -1;
	*out = r;
	return 0;
bad:
	rc = sw_error_set(err, SW_EPARSE, "the replay checkpoint does not parse");
fail:
	run_free(r);
	sw_free(*extra);
	*extra = NULL;
	return rc;
}
