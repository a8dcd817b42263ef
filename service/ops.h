#ifndef SERVICE_OPS_H
#define SERVICE_OPS_H

/* The operations of slipway, one entry each: a front end (cli/, or any
 * other) fills a typed request and calls the entry, which checks the
 * request in the reference's order, carries the operation out through the
 * service core (service/svc.h) and answers: the document, or the cliError,
 * and the exit status (0, 2 or 3; 1 for a defect with no JSON), which the
 * entry also returns.  With `res` NULL the answer is written as it is made
 * (the document on stdout, the cliError on stderr: the CLI); otherwise
 * *res receives it (service/emit.h: struct svc_result, released with
 * svc_result_release) and nothing is printed.
 *
 * Strings in a request are borrowed and may be NULL ("not given").  The
 * `*_given` members say a flag was given at all, so that an empty value
 * and a missing one stay apart, as the protocol's error codes need. */

#include <stdbool.h>
#include <stddef.h>

#include "io/store/run.h"
#include "service/emit.h"
#include "service/svc.h"

struct json_t;

/* With `on`, the operations that follow keep between them what they can
 * prove is still current when they are next run: the repository handle,
 * the parsed index and the head-to-index diff (io/git/observe.h
 * vcs_keep_warm), and the last replay checkpoint (io/store/store.h
 * store_keep_warm).  For a long-lived front end (slipway mcp); off
 * releases it all. */
void svc_keep_warm(bool on);

/* run: start a Run. */
struct svc_start_request {
	const char *root;		/* workspace root, or NULL */
	const char *goal;		/* the goal as given inline, or NULL */
	const char *goal_file;		/* goal_file_given: read the goal from here */
	int goal_file_given;
	int goal_stdin;			/* read the goal from stdin */
	const char *budget;		/* decimal, or NULL for the default */
	const char *source_file;	/* source_file_given: issue-backed Run */
	int source_file_given;
	const char *source_bytes;	/* the envelope itself (source_file then
					 * only names it), or NULL to read the file */
	size_t source_len;
	int no_review;
	int human;			/* text instead of JSON */
};
int svc_op_start(const struct svc_start_request *req, struct svc_result *res);

/* protocol submit. */
struct svc_submit_request {
	const char *root;
	const char *run_id;
	const char *action_id;
	const char *outcome_file;
	int outcome_file_given;
	int outcome_stdin;
};
int svc_op_submit(const struct svc_submit_request *req, struct svc_result *res);

/* protocol answer. */
struct svc_answer_request {
	const char *root;
	const char *run_id;
	const char *action_id;
	const char *text;
	int text_given;
	const char *text_file;
	int text_file_given;
	int text_stdin;
	int confirm_destructive;
	const char *scope_sha256;
};
int svc_op_answer(const struct svc_answer_request *req, struct svc_result *res);

/* protocol skip. */
struct svc_skip_request {
	const char *root;
	const char *run_id;
	const char *action_id;
};
int svc_op_skip(const struct svc_skip_request *req, struct svc_result *res);

/* protocol resume and its source modes: plain, --source-file,
 * --use-pinned-source, --source-choice with --candidate. */
struct svc_resume_request {
	const char *root;
	const char *run_id;
	const char *budget;		/* decimal, or NULL to keep the budget */
	const char *source_file;
	int source_file_given;
	const char *source_bytes;	/* as in svc_start_request */
	size_t source_len;
	int use_pinned_source;
	const char *source_choice;	/* "pinned" or "adopt" */
	int source_choice_given;
	const char *candidate;
	int candidate_given;
};
int svc_op_resume(const struct svc_resume_request *req, struct svc_result *res);

/* stop: the named Run, or the one active or paused Run when run_id is
 * NULL. */
struct svc_stop_request {
	const char *root;
	const char *run_id;
	int human;
};
int svc_op_stop(const struct svc_stop_request *req, struct svc_result *res);

/* protocol material. */
struct svc_material_request {
	const char *root;
	const char *run_id;
	const char *action_id;
	const char *section;
};
int svc_op_material(const struct svc_material_request *req, struct svc_result *res);

/* status: every Run (run_id NULL), one Run, or with section_given one
 * pinned chapter of one Run.  The JSON forms are answered as every other
 * operation's.  With `human` the chapter is written as text and,
 * otherwise, on success *found receives the Run or the listing and the
 * text for the front end to print (the text forms are the CLI's, not part
 * of the protocol); `found` may be NULL without `human`.  Memory running
 * out while the answer is made is a cliError (exit 3), never a document
 * with something left out.  Release *found with svc_status_found_release
 * in every case. */
struct svc_status_request {
	const char *root;
	const char *run_id;
	const char *section;
	int section_given;
	int candidate;			/* --candidate: the section of the waiting
					 * source candidate (text only) */
	int human;
	int markdown;			/* --markdown: the report as Markdown */
};

/* One Run (run, its runStatus document doc and, with `human`, its next
 * choices and the report: text, or Markdown with `markdown`) or the
 * listing (listed); all zero when nothing was found. */
struct svc_status_found {
	struct run *run;
	struct run_history *history;	/* the human forms: the Run's history */
	struct json_t *doc;
	struct json_t *damaged;		/* materials that could not be read (svc_status_json) */
	struct next *next;
	char *report;
	int listed;
	struct svc_listing list;
	/* With `human`: the text the CLI prints (svc_status_text), made
	 * before anything was printed; NULL for a section, which is printed. */
	char *text;
};

int svc_op_status(const struct svc_status_request *req, struct svc_status_found *found,
		  struct svc_result *res);

/* The human text of what svc_op_status found with `human`: one Run (its
 * report, rendered by svc_op_status: io/report/report.c) or the
 * listing.  sw_malloc'd;
 * NULL when out of memory or when nothing was found (service/report.c). */
char *svc_status_text(const struct svc_status_found *found);
void svc_status_found_release(struct svc_status_found *found);

#endif
