/* The one pipeline's insides, shared by its files: fcopy.c (the order,
 * the source side and the calls that run it), fcopy_dest.c (the
 * destination), fcopy_verify.c (the data and what checks it), simple.c
 * (the simple calls) and, below them all, fcopy_shared.c (what they
 * share).  Calls go down only: fcopy.c and simple.c call the others,
 * fcopy_dest.c and fcopy_verify.c call fcopy_shared.c alone.  Nothing
 * here is exported (lib/libsmartcp.sym); each function is described
 * where it is defined. */
#ifndef SMARTCP_FCOPY_H
#define SMARTCP_FCOPY_H

#include <stdbool.h>
#include <sys/stat.h>

#include "copier.h"

/* The SC_FILE_* flags this library knows. */
#define FILE_FLAGS ((SC_FILE_COMPARE_ONLY << 1) - 1)
/* sc_copier_copy_path's own, never given by a caller: SC_COPY_ATOMIC
 * for this call, and a destination replaced as mv would replace it (the
 * new file does not take the old one's owner, mode and attributes). */
#define FILE_ATOMIC (1u << 30)
#define FILE_REPLACE (1u << 31)

/* One regular file being copied: what the phases share. */
struct fcopy {
	struct sc_copy_ctx *x;
	struct sc_copier *c;
	const struct sc_copy_args *a;
	struct sc_copy_report *rep;
	/* sc_copy_ctx_explain: every decision, nothing done (see
	 * copy_file()) */
	bool dry;
	bool dry_removed;	/* ... and the destination would be removed */
	unsigned flags;		/* the args' SC_FILE_* */
	int in, out;
	bool own_in;		/* IN was opened here */
	bool given_out;		/* OUT is the caller's (DST_FD) */
	struct stat ist, ost, old;
	bool have_old;		/* OLD is the existing destination's stat */
	bool dst_exists, created, atomic, named_tmp;
	bool exclusive;		/* created here with O_EXCL: the name is ours */
	bool as_new;		/* an atomic copy made as a new file would be */
	bool truncated;		/* an existing destination was emptied */
	/* ... or keeps its bytes until a road serves (struct sc_engine's
	 * out_dirty) */
	bool old_bytes;
	bool untouched;		/* ... and no road served: it kept them */
	/* SC_COPY_ATOMIC through a symlink: the file the link leads to, as
	 * its directory (TDIRFD, ours) and its name there; else -1 */
	int tdirfd;
	char *tname;
	bool size_trusted, out_seekable;
	bool clone_only;	/* SC_REFLINK_ALWAYS */
	bool removable;		/* a failure removes the destination */
	bool shared;		/* ... or empties it: it has other names */
	struct sc_made m;
	/* the engine asked whether the source held still (held_still()) */
	bool still_asked, still;
	struct sc_change still_change;
};

/* fcopy_shared.c */
struct sc_ev *sc_fcopy_event(struct fcopy *f, enum sc_event_kind kind, int err,
			     bool fatal);
int sc_fcopy_open_retry(struct sc_copy_ctx *x, int dirfd, const char *name,
			int flags, mode_t mode);
bool sc_fcopy_canceled(const struct fcopy *f);
void sc_fcopy_make_plan(struct fcopy *f, const struct stat *sst,
			mode_t dst_mode);
struct sc_meta_at sc_fcopy_src_at(const struct fcopy *f, char *buf,
				  size_t size);
struct sc_meta_at sc_fcopy_dst_at(const struct fcopy *f);
struct sc_meta_at sc_fcopy_atomic_at(const struct fcopy *f);
int sc_fcopy_refuse(struct sc_copy_report *rep, int e);

/* fcopy_dest.c */
int sc_fcopy_open_destination(struct fcopy *f);
int sc_fcopy_prepare_destination(struct fcopy *f);
int sc_fcopy_finish_file(struct fcopy *f, int *meta_err);
void sc_fcopy_abandon_file(struct fcopy *f);

/* fcopy_verify.c */
int sc_fcopy_copy_and_verify(struct fcopy *f);

#endif
