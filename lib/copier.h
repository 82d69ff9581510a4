/* The copier's insides, shared by the files of the one pipeline:
 * copier.c (the copier and a thread's context), fcopy.c, fcopy_dest.c,
 * fcopy_verify.c, fcopy_shared.c and simple.c (the copy of one file,
 * and the public calls; their own insides are in fcopy.h), meta.c (the
 * metadata),
 * target.c (the destination: temporaries, partial files, a signal's
 * clean-up) and report.c (what a copy did, and its events). */
#ifndef SMARTCP_COPIER_H
#define SMARTCP_COPIER_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>

#include <smartcp/smartcp.h>

#include "change.h"
#include "copy.h"
#include "plan.h"
#include "xattr_rules.h"

/* Roads that failed "not here" for one pair of filesystems.  Facts live
 * as long as the copier's cache, so their addresses identify them. */
struct sc_learned {
	const struct sc_fs_facts *src, *dst;
	unsigned roads;
};

/* How an O_TMPFILE temporary gets its name at the end (sc_copier's
 * LINK_HOW, learned once): linkat(fd, "", AT_EMPTY_PATH) needs
 * CAP_DAC_READ_SEARCH, linkat of /proc/self/fd/N needs /proc; with
 * neither, the temporary is a named one from the start. */
enum { LINK_UNKNOWN, LINK_EMPTY_PATH, LINK_PROC, LINK_NONE };

struct sc_copier {
	unsigned flags;			/* SC_COPY_* */
	unsigned roads;			/* SC_ROAD_BIT()s, never 0 */
	bool roads_forced;
	enum sc_reflink reflink;
	enum sc_sparse sparse;
	struct sc_kernel kernel;
	bool kernel_assumed, fs_assumed;
	const struct sc_fs_facts *assumed_src, *assumed_dst;
	/* Under LOCK: the facts cache, what was learned, and what is read
	 * the first time it is needed. */
	pthread_mutex_t lock;
	struct sc_fsinfo *fsi;
	struct sc_learned *learned;
	size_t n_learned;
	bool umask_known;
	mode_t umask;
	bool rules_loaded;		/* RULES (or none) decided */
	char *xattr_conf;		/* NULL: /etc/xattr.conf */
	bool no_xattr_conf;		/* sc_copier_set_xattr_conf(NULL) */
	struct sc_xattr_rules *rules;
	int privileged;			/* -1 not asked yet, else 0 or 1 */
	int link_how;			/* LINK_* */
	/* The simple calls' own context, made on first use (under
	 * OWN_LOCK); they take turns on it, holding OWN_LOCK for the
	 * whole copy.  Read without the lock once made, so that another
	 * thread's cancel does not wait for the copy it is to stop. */
	pthread_mutex_t own_lock;
	struct sc_copy_ctx *_Atomic own;
};

/* The file a copy is writing in place, for a signal that ends the
 * process (sc_copy_ctx_abandon).  Written by the copying thread, read by
 * a handler on any thread: SET is an atomic (lock-free, so safe in a
 * handler) whose release store publishes the rest. */
enum { PARTIAL_NONE, PARTIAL_REMOVE, PARTIAL_EMPTY };
struct sc_partial {
	atomic_int set;
	int dirfd;		/* NAME is relative to it */
	int fd;			/* the file being written */
	dev_t dev;		/* ... its identity, or INO 0: not known */
	ino_t ino;
	char name[PATH_MAX];
};

struct sc_copy_ctx {
	struct sc_copier *c;
	struct sc_engine eng;
	atomic_int cancel;
	sc_fd_short_fn fd_short;
	void *fd_short_arg;
	struct sc_copy_report *own_rep;	/* for a caller that wants none */
	struct sc_partial partial;
	/* A named --atomic temporary, which a signal removes. */
	atomic_int tmp_set;
	int tmp_dirfd;
	char tmp[PATH_MAX + 64];
};

/* The copier's umask, read the first time it is needed (/proc/self/status,
 * "Umask:"; 022 when it cannot be read). */
mode_t sc_copier_umask(struct sc_copier *c);
/* Whether the process may chown anything (root), asked once. */
bool sc_copier_privileged(struct sc_copier *c);
/* The xattr.conf rules, read the first time they are needed; NULL for
 * none. */
const struct sc_xattr_rules *sc_copier_rules(struct sc_copier *c);
/* The roads learned to fail "not here" from S to D (SC_ROAD_BIT()s),
 * under the copier's lock; sc_copier_learned_add() adds ROADS. */
unsigned sc_copier_learned_get(struct sc_copier *c,
			       const struct sc_fs_facts *s,
			       const struct sc_fs_facts *d);
void sc_copier_learned_add(struct sc_copier *c, const struct sc_fs_facts *s,
			   const struct sc_fs_facts *d, unsigned roads);

/* ---- the report (report.c) ---------------------------------------------- */

struct sc_ev {
	enum sc_event_kind kind;
	int err;
	bool fatal, error;
	enum sc_side side;
	enum sc_verify_side vside;
	off_t offset;
	const char *format;
	size_t attr;		/* offset + 1 into the report's strings; 0 */
	int which;
};

struct sc_copy_report {
	const struct sc_fs_facts *src_fs, *dst_fs;
	struct sc_kernel kernel;
	struct sc_plan plan;
	struct sc_copy_result res;
	unsigned flags;			/* SC_REPORT_* */
	int error;
	struct stat src_st;
	enum sc_verify_result verify;
	off_t verify_bad;
	struct sc_change change;
	struct sc_ev *ev;
	size_t n_ev, cap_ev;
	char *str;
	size_t n_str, cap_str;
};

void sc_report_reset(struct sc_copy_report *r);
/* Adds an event (KIND, ERR as -errno or 0); NULL when memory ran out
 * (the event is lost, the outcome is not: the error is returned). */
struct sc_ev *sc_report_add(struct sc_copy_report *r, enum sc_event_kind kind,
			    int err, bool fatal, bool error);
/* Keeps a copy of S in R for an event's ATTR. */
void sc_report_attr(struct sc_copy_report *r, struct sc_ev *ev,
		    const char *s);

/* ---- metadata (meta.c) -------------------------------------------------- */

/* How a destination came to be (struct sc_meta_args' SC_MADE_* in the
 * engine's terms). */
struct sc_made {
	bool created;		/* the caller made the destination */
	bool mode_known;	/* MODE holds its mode after creation */
	bool restore;		/* MODE | OMITTED must be set at the end */
	mode_t mode;		/* mode after creation (directories, specials) */
	mode_t omitted;		/* bits left out at creation */
	mode_t extra;		/* S_IWUSR added at creation to set xattrs */
	bool have_old;		/* an existing destination: OLD_MODE is its mode */
	mode_t old_mode;
	bool old_known;		/* ... and it is OLD_DEV, OLD_INO */
	dev_t old_dev;
	ino_t old_ino;
	bool in_opath, out_opath;	/* IN, OUT of sc_meta_apply are O_PATH */
};

/* A file as the kernel is asked about it: NAME in DIRFD. */
struct sc_meta_at {
	int dirfd;
	const char *name;
};

/* Applies the copier's SC_COPY_KEEP_* (and cp's own mode rules) to DST,
 * made as M says, from source SRC whose stat is ST.  The destination is
 * OUT when it is open (for writing, or O_PATH: M->out_opath), else DST
 * held by descriptor (never followed) and checked to be of ST's type,
 * made by the caller when M says so (not another name of an older file,
 * its maker's), the file M->old_* says when known.  The source is IN
 * when open (M->in_opath), else SRC held and checked to be ST's inode.
 * Every attribute is set through those descriptors, never by a name that
 * someone may have pointed elsewhere since.  The order is cp's: times,
 * owner (chown clears set-id bits and capabilities), xattrs, then mode
 * and ACL.  Every failure is an event of REP.  0, or the -errno of a
 * failure that counts; -ESTALE (SC_EV_REPLACED, its WHICH the side) when
 * an end is not the object it must be. */
int sc_meta_apply(struct sc_copier *c, struct sc_copy_report *rep, int in,
		  int out, const struct sc_meta_at *src,
		  const struct sc_meta_at *dst, const struct stat *st,
		  struct sc_made *m);

/* cp --parents, after the copy: times, owner and mode of the directory
 * made or found for source directory SRC (stat ST), held as sc_meta_apply
 * holds its ends (IN, OUT: O_PATH descriptors, else the names);
 * RESTORE: ST's mode must be set even without SC_COPY_KEEP_MODE.  0, or
 * the -errno of the first failure (each an event). */
int sc_meta_parent(struct sc_copier *c, struct sc_copy_report *rep, int in,
		   int out, const struct sc_meta_at *src,
		   const struct sc_meta_at *dst, const struct stat *st,
		   bool restore);

/* SC_COPY_ATOMIC over an existing file: the temporary OUT, which is to
 * take the place of OLD (OLD_ST its stat, taken before the copy), gets
 * what an overwrite in place would have left on the old file before the
 * metadata is applied: its owner and group (where we may), its extended
 * attributes and ACL, and its mode, less the set-id bits that writing to
 * it would have cleared.  A mode the filesystem refuses is an event
 * (SC_EV_OLD_MODE, not fatal): 0.  0, or -errno (SC_EV_OLD_MODE, fatal:
 * the new file could not be asked or cut). */
int sc_meta_take_old(struct sc_copier *c, struct sc_copy_report *rep,
		     int out, const struct sc_meta_at *old,
		     const struct stat *old_st);

/* ---- the destination (target.c) ----------------------------------------- */

/* SC_COPY_ATOMIC: where a copy through NAME (in DIRFD) writes, when it is
 * a symlink (or a chain of them): the directory of the last link's
 * target, opened O_PATH by descriptor from the first link's directory on
 * (*RET_DIRFD, the caller's to close), and the target's name there
 * (*RET_NAME, to free), whose lstat goes to *RET_ST (st_mode 0: it does
 * not exist, the link dangles).  Returns TARGET_LINK when NAME is a
 * symlink so resolved, TARGET_NOT_LINK (0) when it is not a symlink (or
 * not there), or -errno: ELOOP, EISDIR for a link to a directory. */
enum { TARGET_NOT_LINK = 0, TARGET_LINK = 1 };
int sc_target_resolve(int dirfd, const char *name, int *ret_dirfd,
		      char **ret_name, struct stat *ret_st);

/* Opens a temporary in DIRFD (NAME's directory) made with MODE as
 * open(2) makes a file (less the umask, or by the directory's default
 * ACL): unnamed (O_TMPFILE) where it can be linked into place at the
 * end, else named (".smartcp.XXXXXX", kept in X for a signal).  The fd
 * or -errno; *RET_NAMED tells which. */
int sc_target_temp_open(struct sc_copy_ctx *x, int dirfd, const char *name,
			mode_t mode, bool *ret_named);
/* Puts the finished temporary FD (NAMED as sc_target_temp_open() said)
 * in NAME's place: linked there when NEW (nothing was there), else with
 * one rename.  0 or -errno (the temporary is gone). */
int sc_target_temp_commit(struct sc_copy_ctx *x, int fd, int dirfd,
			  const char *name, bool named, bool new);
/* A copy into the temporary failed: its name, if it has one, goes. */
void sc_target_temp_abandon(struct sc_copy_ctx *x, bool named);

/* NAME in DIRFD is being written through FD (ST its fstat, or NULL for a
 * file made here with O_EXCL): a signal removes it while its name still
 * leads to that file.  KEEP_NAME: it has other names, or was reached
 * through a symlink: it is emptied through FD instead. */
void sc_target_partial_begin(struct sc_copy_ctx *x, int dirfd,
			     const char *name, int fd, const struct stat *st,
			     bool keep_name);
void sc_target_partial_end(struct sc_copy_ctx *x);

/* fsync of the directory NAME (in DIRFD) is in (EINVAL, a directory that
 * cannot be synced, counts as done).  0 or -errno. */
int sc_target_fsync_dir(int dirfd, const char *name);

#endif
