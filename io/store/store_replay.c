/* Journal replay: journal.jsonl read record by record, each event handed
 * to a visitor, a torn final record repaired (writable) or skipped
 * (read-only); store_visit and store_first_event.  Never appends an event
 * (store_append.c does). */

#include "io/store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "io/store/journal.h"

struct reader {
	int fd;
	struct sw_lchain *hash;	/* every byte read goes in, or NULL */
	char chunk[65536];
	size_t clen, cpos;
	bool eof;
	char *line;
	size_t len, cap;
};

/* Reads one record.  *consumed counts every byte taken; *complete says a
 * "\n" ended it; *too_large that it passed JOURNAL_MAX_LINE (the bytes are
 * then dropped).  The line (without "\n") is in rd->line / rd->len. */
static int read_record(struct reader *rd, size_t *consumed, bool *complete,
		       bool *too_large, struct sw_error *err)
{
	*consumed = 0;
	*complete = false;
	*too_large = false;
	rd->len = 0;
	for (;;) {
		char *nl;
		size_t take, total;

		if (rd->cpos == rd->clen) {
			ssize_t n;

			if (rd->eof)
				return 0;
			n = read(rd->fd, rd->chunk, sizeof(rd->chunk));
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return sw_error_sys(err, errno, "cannot read journal");
			}
			if (n == 0) {
				rd->eof = true;
				return 0;
			}
			if (rd->hash)
				sw_lchain_update(rd->hash, rd->chunk, (size_t)n);
			rd->clen = (size_t)n;
			rd->cpos = 0;
		}
		nl = memchr(rd->chunk + rd->cpos, '\n', rd->clen - rd->cpos);
		take = nl ? (size_t)(nl - (rd->chunk + rd->cpos)) + 1 : rd->clen - rd->cpos;
		total = *consumed + take;
		*consumed = total;
		if (total > JOURNAL_MAX_LINE)
			*too_large = true;
		if (!*too_large) {
			size_t add = nl ? take - 1 : take;

			if (rd->len + add + 1 > rd->cap) {
				size_t ncap = rd->cap ? rd->cap : 8192;
				char *p;

				while (ncap < rd->len + add + 1)
					ncap *= 2;
				if ((p = sw_realloc(rd->line, ncap)) == NULL)
					return sw_error_set(err, SW_ENOMEM,
							    "cannot buffer journal record");
				rd->line = p;
				rd->cap = ncap;
			}
			memcpy(rd->line + rd->len, rd->chunk + rd->cpos, add);
			rd->len += add;
			rd->line[rd->len] = '\0';
		}
		rd->cpos += take;
		if (nl) {
			*complete = true;
			return 0;
		}
	}
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r\n\v\f", s[i]) || s[i] == '\0')
			return false;
	return true;
}

static int invalid_journal(struct store *s, struct sw_error *err,
			   const char *why)
{
	return store__fail_proto(s, err, TBL_ERR_RUN_JOURNAL_INVALID, "%s", why);
}

/* Streams journal.jsonl through `visit`.  With `repair`, a torn final
 * record is cut off (or terminated when it decodes) and fsynced; without
 * it the torn record is skipped and the bytes left alone.  `from` (may be
 * NULL) starts after a checkpoint and hashes what it reads. */
int store__replay(struct store *s, struct run_dir *r, bool repair,
		  store_visit_fn *visit, void *payload, long long *count,
		  struct replay_from *from, struct sw_error *err)
{
	struct reader *rd = NULL;
	struct journal_record rec = { 0 };
	off_t offset = from ? from->skip : 0, truncate_at = -1;
	bool append_nl = false;
	long long n = from ? from->base : 0;
	int fd = -1, rc = 0;

	*count = 0;
	{
		struct sw_error e = SW_ERROR_INIT;

		rc = store__open_journal(&fd, r->fd, repair ? O_RDWR : O_RDONLY, &e);
		/* A run whose create died before the journal: no events. */
		if (rc == SW_ENOTFOUND)
			return 0;
		if (rc < 0) {
			rc = store__pass_up(err, &e);
			goto out;
		}
	}
	if ((rd = sw_calloc(1, sizeof(*rd))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate journal reader");
		goto out;
	}
	rd->fd = fd;
	if (from) {
		rd->hash = from->hash;
		if (lseek(fd, from->skip, SEEK_SET) != from->skip) {
			rc = sw_error_sys(err, errno, "cannot seek journal");
			goto out;
		}
	}
	for (;;) {
		off_t rec_off = offset;
		size_t consumed;
		bool complete, too_large;

		if ((rc = read_record(rd, &consumed, &complete, &too_large, err)) < 0)
			goto out;
		if (consumed == 0)
			break;
		offset += (off_t)consumed;
		if (too_large) {
			if (!complete) {
				truncate_at = rec_off;
				break;
			}
			char why[96];

			snprintf(why, sizeof(why),
				 "decode journal event %lld: record exceeds %u bytes",
				 n + 1, JOURNAL_MAX_LINE);
			rc = invalid_journal(s, err, why);
			goto out;
		}
		if (!blank(rd->line, rd->len)) {
			struct sw_error e = SW_ERROR_INIT;

			if (journal_record_decode(&rec, rd->line, rd->len, n + 1, &e) < 0) {
				if (e.code == SW_ENOMEM) {
					rc = sw_error_set(err, SW_ENOMEM, "%s", e.msg);
					goto out;
				}
				if (!complete) {
					truncate_at = rec_off;
					break;
				}
				rc = invalid_journal(s, err, e.msg);
				goto out;
			}
			struct store_event ev = { rec.sequence, rec.type, rec.at,
						  rec.data, rec.data_len };

			if (visit && (rc = visit(&ev, payload, err)) < 0) {
				if (err && err->code == SW_OK)
					rc = sw_error_set(err, rc, "journal visitor failed");
				goto out;
			}
			journal_record_release(&rec);
			n++;
		}
		if (!complete) {
			append_nl = true;
			break;
		}
	}
	/* A torn record with no complete one before it is all the Run has:
	 * cutting it now would leave an empty journal behind a mutation that
	 * is then refused, so the cut waits for the append that commits. */
	if (repair && truncate_at >= 0 && n == 0) {
		r->cut_at = truncate_at;
		repair = false;
		if (from)
			from->repaired = true;
	}
	if (repair && (truncate_at >= 0 || append_nl)) {
		if ((rc = store__check_leaf(r->fd, JOURNAL_NAME, fd, err)) < 0)
			goto out;
		if (truncate_at >= 0) {
			if (ftruncate(fd, truncate_at) < 0) {
				rc = sw_error_sys(err, errno, "cannot truncate torn journal record");
				goto out;
			}
		} else if (lseek(fd, 0, SEEK_END) < 0 ||
			   store__f_write(fd, "\n", 1, NULL) < 0) {
			rc = sw_error_sys(err, errno, "cannot terminate journal record");
			goto out;
		}
		if (store__f_fsync(fd) < 0) {
			rc = sw_error_sys(err, errno, "cannot sync repaired journal");
			goto out;
		}
		if (from)
			from->repaired = true;
	}
	if (from)
		from->end = truncate_at >= 0 ? truncate_at : offset + (append_nl ? 1 : 0);
	if ((rc = store__check_leaf(r->fd, JOURNAL_NAME, fd, err)) < 0)
		goto out;
	*count = n;
out:
	journal_record_release(&rec);
	if (rd)
		sw_free(rd->line);
	sw_free(rd);
	store__close_fd(&fd);
	return rc;
}

int store_visit(struct store *s, const char *run_id, store_visit_fn *visit,
		void *payload, long long *count, struct sw_error *err)
{
	struct run_dir r = RUN_DIR_INIT;
	long long n = 0;
	int rc;

	store__fail_reset(s);
	if ((rc = store__run_open(&r, s, run_id, s->writable, err)) < 0)
		goto out;
	if ((rc = store__run_lock(&r, s, s->writable, err)) < 0)
		goto out;
	if ((rc = store__replay(s, &r, s->writable, visit, payload, &n, NULL, err)) < 0)
		goto out;
	rc = store__run_valid(s, &r, err);
out:
	store__run_close(&r);
	if (count)
		*count = rc < 0 ? 0 : n;
	return rc;
}

int store_first_event(struct store *s, const char *run_id,
		      store_visit_fn *visit, void *payload,
		      struct sw_error *err)
{
	struct run_dir r = RUN_DIR_INIT;
	struct reader *rd = NULL;
	struct journal_record rec = { 0 };
	size_t consumed;
	bool complete, too_large;
	int fd = -1, rc;

	store__fail_reset(s);
	if ((rc = store__run_open(&r, s, run_id, false, err)) < 0)
		goto out;
	{
		struct sw_error e = SW_ERROR_INIT;

		rc = store__open_journal(&fd, r.fd, O_RDONLY, &e);
		if (rc == SW_ENOTFOUND) {
			rc = sw_error_set(err, SW_EPARSE, "incomplete run directory: its creation "
					  "was interrupted before the journal was written, so it "
					  "holds no Run and may be removed");
			goto out;
		}
		if (rc < 0) {
			rc = store__pass_up(err, &e);
			goto out;
		}
	}
	if ((rd = sw_calloc(1, sizeof(*rd))) == NULL) {
		rc = sw_error_set(err, SW_ENOMEM, "cannot allocate journal reader");
		goto out;
	}
	rd->fd = fd;
	if ((rc = read_record(rd, &consumed, &complete, &too_large, err)) < 0)
		goto out;
	if (too_large) {
		rc = sw_error_set(err, SW_EPARSE,
				  "decode journal event 1: record exceeds %u bytes",
				  JOURNAL_MAX_LINE);
		goto out;
	}
	if (consumed == 0) {
		rc = sw_error_set(err, SW_EPARSE, "run journal is empty");
		goto out;
	}
	if ((rc = journal_record_decode(&rec, rd->line, rd->len, 1, err)) < 0)
		goto out;
	if ((rc = store__check_leaf(r.fd, JOURNAL_NAME, fd, err)) < 0)
		goto out;
	{
		struct store_event ev = { rec.sequence, rec.type, rec.at,
					  rec.data, rec.data_len };

		rc = visit ? visit(&ev, payload, err) : 0;
	}
out:
	journal_record_release(&rec);
	if (rd)
		sw_free(rd->line);
	sw_free(rd);
	store__close_fd(&fd);
	store__run_close(&r);
	return rc;
}
