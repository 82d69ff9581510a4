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
	bool replaced;			/* a link took the place of what was
					 * there: -v says "removed" after it */
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
/* What a report shows: bits of sc_report_new()'s flags word. */
enum {
	REPORT_VERBOSE = 1 << 0,	/* -v: a line per file */
	REPORT_JSON = 1 << 1,		/* --json: a record per file */
	REPORT_EXPLAIN = 1 << 2,	/* --explain: the plan, not the copy */
	REPORT_SUMMARY = 1 << 3,	/* the closing summary line */
};
/* A new report into *RET, showing what FLAGS says.  0, or -ENOMEM. */
int sc_report_new(unsigned flags, struct sc_report **ret);
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
/* What the table of known-bad stacks is, before its rows (nothing for
 * JSON). */
void sc_report_rules_stacks_intro(FILE *out, bool json);
/* One row of the known-bad stacks, ST, and PLAN, the plan for a copy
 * within one filesystem of its example stack (NULL: none); with JSON
 * one object (a line). */
void sc_report_rules_stack(FILE *out, bool json,
			   const struct sc_stack_info *st,
			   const struct sc_plan *plan);

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
	 * "mkdir"; see sc_report_fail_step()), and that error's errno (0: it has
	 * none); until an error is said, the first warning's (an attribute
	 * that could not be kept may fail the entry without an error). */
	const char *step;
	int step_errno;
	bool step_of_error;
	/* The record made for the entry: 0 none yet, 1 ok, 2 failed. */
	int recorded;
	/* what the first error said about the entry stands for (-errno,
	 * sc_report_fail()'s return value), or 0 */
	int code;
};

/* The failure of M's entry as its functions return it: the -errno its
 * first error stood for, -EIO if it was failed without one. */
int sc_report_code(const struct sc_msgs *m);

/* A new entry: nothing said about it, no record made (M's streams
 * stay). */
void sc_report_begin(struct sc_msgs *m);

/* Before REC (the entry M's messages were about) is printed: what M
 * said makes it failed (REC->failed, failed_err) if REC does not say so
 * already, and names the step that failed where REC names none.  Notes
 * in M that the entry has its record. */
void sc_report_failure(struct sc_msgs *m, struct sc_record *rec);

/* What went wrong with an entry, or with the command line: one value a
 * message.  messages.c's table holds each one's text (cp's words), what
 * it quotes and how, the step --json names, and the errno a failure
 * stands for when the kernel gave none. */
enum sc_fail {
	/* reading the source */
	SC_FAIL_OPEN_READ,	/* cannot open 'A' for reading */
	SC_FAIL_STAT,		/* cannot stat 'A' */
	SC_FAIL_FSTAT,		/* cannot fstat 'A' */
	SC_FAIL_GET_ATTRS,	/* failed to get attributes of 'A' */
	SC_FAIL_READ,		/* error reading 'A' */
	SC_FAIL_ACCESS,		/* cannot access 'A' (a directory's entries) */
	SC_FAIL_READLINK,	/* cannot read symbolic link 'A' */
	/* writing the copy */
	SC_FAIL_WRITE,		/* error writing 'A' */
	SC_FAIL_EXTEND,		/* failed to extend 'A' */
	SC_FAIL_CLOSE,		/* failed to close 'A' */
	SC_FAIL_COPY,		/* error copying 'A' to 'B' */
	SC_FAIL_CLONE,		/* failed to clone 'A' from 'B' */
	SC_FAIL_SYNC_DIR,	/* cannot sync the directory of 'A' */
	/* --verify, and a source that changes */
	SC_FAIL_UNVERIFIABLE,	/* cannot verify 'A': nothing written ... */
	SC_FAIL_READ_BACK,	/* error reading back 'A' */
	SC_FAIL_DIFFERS,	/* 'A' differs from 'B' at byte N, also ... */
	SC_FAIL_CHANGED,	/* 'A' changed while it was copied: B */
	SC_FAIL_CHANGED_AGAIN,	/* ... and again while it was copied ...: B */
	/* making the destination */
	SC_FAIL_CREATE,		/* cannot create regular file 'A' */
	SC_FAIL_DANGLING,	/* not writing through dangling symlink 'A' */
	SC_FAIL_REPLACE,	/* cannot replace 'A' */
	SC_FAIL_MKDIR,		/* cannot create directory 'A' */
	SC_FAIL_MAKE_DIR,	/* cannot make directory 'A' (--parents) */
	SC_FAIL_NOT_DIR,	/* 'A' exists but is not a directory */
	SC_FAIL_UNSAFE_SYMLINK,	/* not following symbolic link 'A' ... */
	SC_FAIL_MKFIFO,		/* cannot create fifo 'A' */
	SC_FAIL_MKNOD,		/* cannot create special file 'A' */
	SC_FAIL_SYMLINK,	/* cannot create symbolic link 'A' */
	SC_FAIL_SYMLINK_TO,	/* cannot create symbolic link 'A' to 'B' */
	SC_FAIL_SYMLINK_HERE,	/* A: can make relative symbolic links ... */
	SC_FAIL_LINK,		/* cannot create hard link 'A' to 'B' */
	/* what cp refuses */
	SC_FAIL_SAME_FILE,	/* 'A' and 'B' are the same file */
	SC_FAIL_OMIT_DIR,	/* -r not specified; omitting directory 'A' */
	SC_FAIL_NOT_REPLACING,	/* not replacing 'A' */
	SC_FAIL_INTO_ITSELF,	/* cannot copy a directory, 'A', into ... 'B' */
	SC_FAIL_CYCLE,		/* cannot copy cyclic symbolic link 'A' */
	SC_FAIL_DIR_ON_FILE,	/* cannot overwrite non-directory 'A' with ... */
	SC_FAIL_FILE_ON_DIR,	/* cannot overwrite directory 'A' with ... */
	SC_FAIL_JUST_CREATED,	/* will not overwrite just-created 'A' with 'B' */
	SC_FAIL_NEW_SYMLINK,	/* will not copy 'A' through just-created ... */
	SC_FAIL_DIR_LINK,	/* will not create hard link 'A' to directory
				 * 'B' */
	SC_FAIL_BACKUP,		/* cannot backup 'A' */
	SC_FAIL_UNBACKUP,	/* cannot un-backup 'A' */
	SC_FAIL_BACKUP_SOURCE,	/* backing up 'A' might destroy source; ... */
	SC_FAIL_REMOVE,		/* cannot remove 'A' */
	SC_FAIL_FILE_REPLACED,	/* skipping file 'A', as it was replaced ... */
	SC_FAIL_DIR_REPLACED,	/* skipping directory 'A', as it was ... */
	/* attributes */
	SC_FAIL_SET_MODE,	/* setting permissions for 'A' */
	SC_FAIL_SET_MODE_ACL,	/* ... quoted as cp's ACL code does */
	SC_FAIL_CLEAR_MODE,	/* clearing permissions for 'A' */
	SC_FAIL_KEEP_MODE,	/* preserving permissions for 'A' */
	SC_FAIL_KEEP_MODE_ACL,	/* ... quoted as cp's ACL code does */
	SC_FAIL_KEEP_TIMES,	/* preserving times for 'A' */
	SC_FAIL_OWNER,		/* failed to preserve ownership for 'A' */
	SC_FAIL_MODE,		/* failed to preserve permissions for 'A' */
	SC_FAIL_TIMES,		/* failed to preserve times for 'A' */
	SC_FAIL_LIST_XATTRS,	/* listing attributes of 'A' */
	SC_FAIL_GET_XATTR,	/* getting attribute 'A' of 'B' */
	SC_FAIL_SET_XATTR,	/* setting attribute 'A' for 'B' */
	/* memory */
	SC_FAIL_MEMORY,		/* 'A': Cannot allocate memory */
	SC_FAIL_NO_MEMORY,	/* memory exhausted */
	SC_FAIL_CLOSE_INPUT,	/* error closing file (stdin, after -i) */
	/* the operands */
	SC_FAIL_NO_OPERAND,	/* missing file operand */
	SC_FAIL_NO_DEST,	/* missing destination file operand after 'A' */
	SC_FAIL_T_AND_NO_T,	/* cannot combine -t and -T */
	SC_FAIL_EXTRA_OPERAND,	/* extra operand 'A' */
	SC_FAIL_TARGET,		/* target 'A' */
	SC_FAIL_TARGET_DIR,	/* target directory 'A' */
	SC_FAIL_PARENTS_DEST,	/* with --parents, the destination must ... */
	SC_WARN_FILE_TWICE,	/* warning: source file 'A' specified ... */
	SC_WARN_DIR_TWICE,	/* warning: source directory 'A' specified ... */
	SC_WARN_LINKS_LEFT,	/* warning: 'A' had other hard links; ... */
	SC_WARN_NOT_REPLACED,	/* 'A' was not replaced: --atomic keeps ... */
	SC_WARN_NOT_CREATED,	/* 'A' was not created: --atomic makes ... */
	SC_WARN_REPLACED_ANYWAY,	/* warning: 'A' was replaced, though ... */
	SC_FAIL__COUNT
};

/* Says failure WHAT as cp's error() would, "smartcp: <what>: <strerror>"
 * on M's stderr, naming A (and B) as the table says; ERR 0 leaves out
 * the strerror part.  It marks M's entry as failed and, if it is the
 * first, records its step and errno for the entry's record.  Returns
 * -ERR, or when ERR is 0 the -errno WHAT stands for: the caller's
 * return value. */
int sc_report_fail(struct sc_msgs *m, enum sc_fail what, int err,
		   const char *a, const char *b);
/* The same for SC_FAIL_DIFFERS, whose message also names byte N. */
int sc_report_fail_at(struct sc_msgs *m, enum sc_fail what, int err,
		      const char *a, const char *b, long long n);
/* A warning: said the same way, but it leaves M's entry as it was (an
 * attribute the run was not required to keep, an operand named twice). */
void sc_report_warn(struct sc_msgs *m, enum sc_fail what, int err,
		    const char *a, const char *b);
/* What WHAT's message says, untranslated (its msgid), and the step
 * --json names for it (NULL: none). */
const char *sc_report_fail_text(enum sc_fail what);
const char *sc_report_fail_step(enum sc_fail what);

/* A message whose format is not smartcp's own (libattr's, translated
 * in its domain), said as sc_report_fail() says one (FAIL) or as a
 * warning. */
void sc_report_verror_args(struct sc_msgs *m, bool fail, int err,
			   const char *fmt, ...);

/* The words said when a signal ends the run, translated here before any
 * signal comes: *FMT takes the program's name, the signal's, the files
 * and the bytes copied (%s %s %llu %llu); *NOTE follows it when the
 * file being written was removed.  signals.c writes them with write(2),
 * the one way its handler may. */
void sc_report_interrupted_words(const char **fmt, const char **note);

/* --- the command line (report_usage.c) ------------------------------- */

/* What is wrong with the command line: one value a message, said on
 * stderr before any copy begins. */
enum sc_usage {
	SC_USAGE_INVALID_ARG,	/* invalid argument 'A' for 'B' */
	SC_USAGE_AMBIGUOUS_ARG,	/* ambiguous argument 'A' for 'B' */
	SC_USAGE_JOBS,		/* invalid number of jobs: 'A' */
	SC_USAGE_UNKNOWN_KERNEL, /* unknown kernel version 'A' for 'B', and
				 * the versions there are */
	SC_USAGE_KERNEL,	/* invalid kernel version 'A' for 'B', and the
				 * forms accepted */
	SC_USAGE_UNKNOWN_FS,	/* unknown filesystem type 'A' for 'B' */
	SC_USAGE_ASSUME_FS,	/* invalid argument 'A' for 'B', and the forms
				 * --assume-fs accepts */
	SC_USAGE_TWO_TARGETS,	/* multiple target directories specified */
	SC_USAGE_BACKUP_NO_CLOBBER, /* --backup and --no-clobber */
	SC_USAGE_BACKUP_UPDATE,	/* --backup and -n or --update=none-fail */
	SC_USAGE_HARD_AND_SYMBOLIC, /* -l and -s */
	SC_USAGE_ONLY_EXPLAIN,	/* A goes only with --explain: ... */
	SC_USAGE_REFLINK_SPARSE, /* --reflink=always without --sparse=auto */
	SC_USAGE_EXTRA_OPERAND,	/* extra operand 'A' (--rules) */
	SC_USAGE_NO_SELINUX,	/* --preserve=context without SELinux */
	SC_USAGE_CONTEXT_IGNORED, /* warning: --context=CTX ignored */
	SC_USAGE__COUNT
};

/* "smartcp: " and WHAT's message, naming A (and B) as it says. */
void sc_report_usage(enum sc_usage what, const char *a, const char *b);
/* WHAT's msgid. */
const char *sc_report_usage_text(enum sc_usage what);
/* "Try 'smartcp --help' for more information." */
void sc_report_try_help(void);
/* "Valid arguments are:", then NAMES (to a NULL), PER_LINE a line (the
 * names of one value). */
void sc_report_valid_args(const char *const *names, unsigned per_line);
/* "backup type": what --backup's value is, in the messages about it. */
const char *sc_report_backup_type(void);
/* The filesystem types --assume-fs knows (sc_fs_type_name()). */
void sc_report_known_types(void);
/* getopt_long's words for a long option NAME (without its "--") that
 * is not one (POSSIBLE NULL), or is the start of N options, POSSIBLE.
 * PROG: argv[0], as getopt_long names the program. */
void sc_report_bad_option(const char *prog, const char *name,
			  const char *const *possible, size_t n);
/* "smartcp: write error: " and ERR's text: stdout could not be
 * written. */
void sc_report_write_error(int err);

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

/* -v: "'BACKUP' -> 'DST' (unbackup)", the backup of a destination whose
 * copy failed, put back under its name (sc_dest_unbackup()). */
void sc_report_unbackup(struct sc_msgs *m, const char *backup,
			const char *dst);

/* --parents -v: a directory of the source's path made under the target,
 * "REL -> DIR": QUOTED as the other -v lines are, else both unquoted as
 * cp prints them. */
void sc_report_parent_made(struct sc_msgs *m, const char *rel,
			   const char *dir, bool quoted);

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

/* -j, where the two streams must keep one order (sc_report_interleave()):
 * what a job wrote to both, BUF cut into N RUNS, written
 * out each to its stream in the order it was written, as a run on one
 * thread would have. */
void sc_report_buffered_runs(const char *buf, const struct sc_tree_run *runs,
			     size_t n);

/* The tree copy's buffered output (struct sc_tree_ops' output): N_RUNS > 0, as
 * sc_report_buffered_runs() with OUT, else as sc_report_buffered(). */
void sc_report_buffered_out(const char *out, size_t out_len,
			    const char *err, size_t err_len,
			    const struct sc_tree_run *runs, size_t n_runs);

/* Must stdout and stderr keep one order between them?  Under the name
 * cp (AS_CP), as cp's would, whatever they are; else when they are the
 * same file (2>&1, one terminal, one pipe), where the order shows. */
bool sc_report_interleave(bool as_cp);

#endif
