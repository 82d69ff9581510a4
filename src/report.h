/* Everything smartcp prints about files it handled: -v lines, --explain
 * plans, --json objects and the summary.  Built from one record per file. */
#ifndef SMARTCP_REPORT_H
#define SMARTCP_REPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include <smartcp/smartcp.h>

/* SC_KIND_UNKNOWN: an entry that failed before its type was learned
 * (its source could not be stat'ed). */
enum sc_kind { SC_KIND_FILE, SC_KIND_DIR, SC_KIND_SYMLINK, SC_KIND_SPECIAL,
	       SC_KIND_HARDLINK, SC_KIND_UNKNOWN };

/* How a source changed while it was copied (sc_copy_report_change()). */
struct sc_rec_change {
	enum sc_change_how how;
	off_t size_before, size_after;
	bool again;		/* it changed again while copied again */
};

/* Roads the program sizes its tables for; the library's are counted
 * with sc_road_count(), and any past this are left out of the summary. */
#define SC_ROADS_SHOWN 8

struct sc_record {
	const char *src, *dst;
	enum sc_kind kind;
	const struct sc_fs_facts *src_fs, *dst_fs;
	off_t src_size;
	bool src_sparse;
	bool planned;			/* plan is set */
	const struct sc_plan *plan;	/* the report's (or an explanation's) */
	bool copied;			/* res is set: the copy's report, whose
					 * data step is told (the record is
					 * used before the next copy) */
	const struct sc_copy_report *res;
	double seconds;
	bool unchanged;			/* --if-changed found it equal */
	const char *backup;		/* backup made of the old destination */
	bool announced;			/* its cp-style -v line is out already */
	/* CURRENT: the source changed while it was copied, and the copy
	 * equals it as it now is; RECOPIED: ... once copied again */
	enum { SC_VERIFY_NONE, SC_VERIFY_OK, SC_VERIFY_REPAIRED,
	       SC_VERIFY_FAILED, SC_VERIFY_CURRENT,
	       SC_VERIFY_RECOPIED } verify;
	off_t verify_bad;		/* first differing offset seen */
	struct sc_rec_change change;	/* the source changed while copied */
	bool change_failed;		/* ... and that fails the file */
	int err;			/* 0, or -errno of the failure */
	const char *failure;		/* what failed, untranslated */
	/* An error was said about the entry though ERR is 0 (its data was
	 * copied, an attribute was not kept; or a failure with no errno,
	 * such as "are the same file"): --json calls it failed, with
	 * FAILED_ERR (0 or -errno).  sc_report_failure() sets them. */
	bool failed;
	int failed_err;
};

struct sc_report;

/* Installed as "cp": -v lines as cp prints them, without the road. */
void sc_report_plain(struct sc_report *rep, bool plain);
/* The copier whose facts' origins --explain prints
 * (sc_copier_origins_text); NULL for none. */
void sc_report_copier(struct sc_report *rep, struct sc_copier *copier);
int sc_report_new(bool verbose, bool json, bool explain, bool summary,
		  struct sc_report **ret);
/* --explain about another machine: KERNEL (NULL: the running one was
 * used) and, when FS, both filesystems were assumed, not observed;
 * the explain blocks and JSON objects say so. */
void sc_report_assumed(struct sc_report *rep, const struct sc_kernel *kernel,
		       bool fs);
void sc_report_free(struct sc_report *rep);

/* One record: a -v line, an --explain block or a JSON object, printed to
 * OUT (NULL: stdout).  Thread-safe for -v and JSON lines. */
void sc_report_record(struct sc_report *rep, const struct sc_record *rec,
		      FILE *out);

/* Progress on stderr (a terminal only): FILE is being copied, DONE of its
 * SIZE bytes so far, by ROAD.  Throttled; the first line appears after
 * about two seconds unless --progress asked for it at once.  Cheap to call
 * after every chunk.  sc_report_progress_end() clears the line. */
void sc_report_progress_enable(struct sc_report *rep, bool now);
void sc_report_progress(struct sc_report *rep, const char *file,
			uint64_t done, off_t size, enum sc_road road);
void sc_report_progress_end(struct sc_report *rep);

/* cp --debug's line for a copy whose source was opened: "copy offload:
 * yes, reflink: unsupported, sparse detection: no", from RES (NULL: no
 * data moved yet) and PLAN (NULL: none made), REFLINK telling whether a
 * clone was allowed.  As cp 9.4 and later say it: "avoided" when an
 * option kept copy_file_range out, "unsupported" when it was refused or
 * smartcp knew it would be. */
void sc_report_debug(FILE *out, const struct sc_copy_report *res,
		     const struct sc_plan *plan, bool reflink);

/* An entry of a directory that was gone when its turn came (listed,
 * then removed before it was copied): counted for the summary. */
void sc_report_vanished(struct sc_report *rep);

/* What changed in a source while it was copied, in words ("grew from 1
 * to 2 bytes"), translated when TRANSLATE (messages), else in English
 * (the -v line, like its other words).  Returns BUF. */
const char *sc_report_change_text(char *buf, size_t size,
				  const struct sc_rec_change *ch,
				  bool translate);

/* Is stderr a terminal?  Asked once (TCGETS), on the first call: call
 * it before threads start. */
bool sc_report_stderr_tty(void);

/* The JSON summary object, or the terminal summary line on stderr. */
void sc_report_finish(struct sc_report *rep, int failures);

/* JSON string (with quotes) for arbitrary bytes: valid UTF-8 is kept,
 * each byte that is not part of valid UTF-8 becomes \udcXX (Python's
 * "surrogateescape"), so names round-trip.  Exported for unit tests. */
void sc_json_string(FILE *f, const char *s);
/* PLAN as the two JSON keys of an explain record, "plan":[ROADS] and
 * "skipped":[{"road":...,"reason":...}] (reasons untranslated), with no
 * comma before them. */
void sc_report_json_plan(FILE *f, const struct sc_plan *plan);

/* A plan's reason (sc_plan_why) in the words smartcp's outputs use,
 * untranslated ("" for NULL). */
const char *sc_report_why(const char *why);

/* "a → b: EXDEV → c" chain for -v, from a result. */
void sc_report_chain(FILE *f, const struct sc_copy_report *res);

/* --- the --rules table (rules.c says what, report_rules.c prints) ----- */

/* One row of smartcp --rules: the plan for one kind of filesystem pair
 * over a span of kernel versions. */
struct sc_rules_row {
	const char *what;		/* the kind of pair, untranslated */
	const char *type[2];		/* the source's and destination's
					 * filesystem types ("pipefs": a
					 * pipe) */
	const struct sc_fs_facts *fs[2];	/* their facts (NULL: unknown) */
	const char *relation;		/* "one filesystem", "two mounts"... */
	bool pipe[2];			/* that end is a pipe, not a file */
	struct sc_kernel from, to;	/* the kernels the plan is for */
	bool open_end;			/* ... TO and all later ones */
	bool first;			/* FROM is the oldest there is */
	const struct sc_plan *plan;
};

/* What the table is, before its rows (nothing for JSON).  ONLY: the one
 * kernel shown, or NULL. */
void sc_report_rules_intro(FILE *out, bool json, const struct sc_kernel *only);
/* The heading of the kind of pair ROW is for (its WHAT, TYPE and PIPE),
 * before its rows (nothing for JSON). */
void sc_report_rules_case(FILE *out, bool json, const struct sc_rules_row *row);
/* One row: the kernels, the roads, and why the others are skipped; with
 * JSON one object (a line). */
void sc_report_rules_row(FILE *out, bool json, const struct sc_rules_row *row);

/* --- messages ---------------------------------------------------------- */

/* The messages of one thread (the walk's, or a -j worker's) about the
 * entry it is copying: where its lines go, and what its messages did to
 * the entry.  Each thread has its own; none is shared. */
struct sc_msgs {
	/* Where -v lines (*OUT) and messages (*ERR) go now; NULL is stdout
	 * and stderr.  Asked before every line: under -j the walk thread's
	 * place in the output order moves as it hands out jobs.  NULL
	 * STREAMS: always stdout and stderr. */
	void (*streams)(void *arg, FILE **out, FILE **err);
	void *arg;
	bool failed;		/* an error was said about the entry */
	int last_errno;		/* ... with this errno, or 0 */
	/* The step the first error said about the entry names ("open",
	 * "mkdir"; see sc_report_step()), and that error's errno (0: it has
	 * none); until an error is said, the first warning's (an attribute
	 * that could not be kept may fail the entry without an error). */
	const char *step;
	int step_errno;
	bool step_of_error;
	/* The record made for the entry: 0 none yet, 1 ok, 2 failed. */
	int recorded;
};

/* A new entry: nothing said about it, no record made (M's streams
 * stay). */
void sc_report_begin(struct sc_msgs *m);

/* The step a message format names, for --json's "failed": FMT is a
 * msgid of smartcp's messages, or its translation ("cannot open %s for
 * reading" gives "open").  NULL for a message that names none. */
const char *sc_report_step(const char *fmt);

/* Before REC (the entry M's messages were about) is printed: what M
 * said makes it failed (REC->failed, failed_err) if REC does not say so
 * already, and names the step that failed where REC names none.  Notes
 * in M that the entry has its record. */
void sc_report_failure(struct sc_msgs *m, struct sc_record *rec);

/* "smartcp: <what>: <strerror>" as cp's error(), on M's stderr; ERR 0
 * leaves out the strerror part.  An error marks M's entry as failed; a
 * warning (a message about an attribute the run was not required to
 * keep, say) leaves it alone. */
void sc_report_error(struct sc_msgs *m, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sc_report_warning(struct sc_msgs *m, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* sc_report_verror() with the arguments here: for a format that is not
 * smartcp's own (libattr's messages, translated in its domain). */
void sc_report_verror_args(struct sc_msgs *m, bool fail, int err,
			   const char *fmt, ...);
void sc_report_verror(struct sc_msgs *m, bool fail, int err,
		      const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* The stream M's -v lines and JSON records go to now. */
FILE *sc_report_out(struct sc_msgs *m);

/* -v: "removed 'DST'", a destination removed before it was made again. */
void sc_report_removed(struct sc_msgs *m, const char *dst);

/* --debug: "skipped 'DST'", a destination left as it was (-n, --update,
 * a "no" to -i), as cp 9.4 and later say it. */
void sc_report_skipped(struct sc_msgs *m, const char *dst);

/* cp's -v line, "'SRC' -> 'DST'", with " (backup: 'BACKUP')" when a
 * backup was made (BACKUP not NULL). */
void sc_report_cp_line(struct sc_msgs *m, const char *src, const char *dst,
		       const char *backup);

/* --parents -v: a directory of the source's path made under the target,
 * "REL -> DIR", both unquoted as cp prints them. */
void sc_report_parent_made(struct sc_msgs *m, const char *rel,
			   const char *dir);

/* -i: the question before DST (ST its stat) is overwritten, on stderr.
 * UNWRITABLE: we may not write it, which is said with its mode; FORCE
 * (-f or --remove-destination): "replace" is asked rather than "try
 * anyway". */
void sc_report_ask_overwrite(const char *dst, const struct stat *st,
			     bool unwritable, bool force);

/* "rw-r--r--": the nine permission letters of MODE as ls shows them,
 * set-id and sticky bits included.  OUT gets a terminated string. */
void sc_report_mode_letters(mode_t mode, char out[10]);

/* -j: the lines a job buffered (OUT_LEN bytes of stdout's, ERR_LEN of
 * stderr's), written out in their place in the order. */
void sc_report_buffered(const char *out, size_t out_len, const char *err,
			size_t err_len);

/* A stretch of buffered output: up to END (from where the one before
 * ended) it is for stderr (TO_ERR) or stdout. */
struct sc_out_run {
	size_t end;
	bool to_err;
};

/* -j, where the two streams must keep one order (sc_report_interleave()):
 * what a job wrote to both, BUF cut into N RUNS, written out each to its
 * stream in the order it was written, as a run on one thread would
 * have. */
void sc_report_buffered_runs(const char *buf, const struct sc_out_run *runs,
			     size_t n);

/* Must stdout and stderr keep one order between them?  Under the name
 * cp (AS_CP), as cp's would, whatever they are; else when they are the
 * same file (2>&1, one terminal, one pipe), where the order shows. */
bool sc_report_interleave(bool as_cp);

#endif
