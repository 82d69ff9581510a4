/* The one pipeline's destination side (see fcopy.c): opening it (in
 * place, made anew, or an SC_COPY_ATOMIC temporary, also through a
 * symlink), preparing it for the data (its facts, what a signal or a
 * failure does to it, the plan), and at the end finishing it (metadata,
 * sync, commit, close) or abandoning it so that nothing that looks
 * complete is left.  Apart because these phases are the only ones that
 * make, rename or remove a destination. */
#include "common.h"
#include "fcopy.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* SC_COPY_ATOMIC onto a symlink: the copy in place writes the file the
 * link leads to, and so does the atomic copy, with its temporary in that
 * file's directory, renamed over that file: the link stays a link, and
 * its target is the new file.  A link to nowhere is refused as it is
 * without SC_COPY_ATOMIC.  0 or -errno, with its event. */
static int atomic_through_link(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	struct stat st;
	int r = sc_target_resolve(a->dst_dirfd, a->dst_name, &f->tdirfd,
				  &f->tname, &st);

	if (r < 0) {
		sc_fcopy_event(f, SC_EV_OPEN_DEST, r, true);
		return r;
	}
	if (r == 0)
		return 0;
	if (!st.st_mode) {
		struct stat real;

		/* /dev/stdout -> /proc/self/fd/1 -> "pipe:[4026]": a link the
		 * kernel follows to a pipe, a socket or a deleted file,
		 * though its text names no file.  It is not dangling, and
		 * has no directory a temporary could be renamed in: it is
		 * written in place, as without SC_COPY_ATOMIC. */
		if (fstatat(a->dst_dirfd, a->dst_name, &real, 0) == 0) {
			close(f->tdirfd);
			f->tdirfd = -1;
			free(f->tname);
			f->tname = NULL;
			f->dst_exists = f->have_old = true;
			f->old = real;
			f->atomic = false;
			return 0;
		}
		if (!(f->flags & SC_FILE_DANGLING)) {
			sc_fcopy_event(f, SC_EV_DANGLING, -ENOENT, true);
			return -ENOENT;
		}
		f->dst_exists = f->have_old = false;	/* POSIXLY_CORRECT */
	} else {
		/* as it is now, not as the caller saw it through the link */
		f->dst_exists = f->have_old = true;
		f->old = st;
	}
	return 0;
}

/* The mode a new destination is made with: the source's permissions
 * without the bits that must wait (see struct sc_made), and writable by
 * us where xattrs are to be set on it.  Fills F->m's OMITTED and EXTRA,
 * which the metadata step gives back. */
static mode_t new_file_mode(struct fcopy *f)
{
	mode_t mode = f->ist.st_mode & 0777;

	f->m.omitted = sc_copier_omitted(f->c, f->ist.st_mode) & 0777;
	f->m.extra = (f->c->flags & SC_COPY_KEEP_XATTR) &&
		     !sc_copier_privileged(f->c) ? S_IWUSR & ~mode : 0;
	return (mode & ~f->m.omitted) | f->m.extra;
}

/* The mode of the SC_COPY_ATOMIC temporary that is to replace F->old.
 * A new inode with the old file's owner and group (ours: the usual case
 * of a user's own file, and of root's) may have its permissions from the
 * start: nobody gets to open it who may not open the old file, and a
 * filesystem that refuses chmod (vfat, FUSE filesystems without
 * setattr) still gives it the old file's mode, as a copy in place keeps
 * it.  Else it is ours alone until it takes the old file's owner and
 * mode (sc_meta_take_old()).  Set-id bits wait for that step too. */
static mode_t replacing_mode(const struct fcopy *f)
{
	if (f->old.st_uid == geteuid() && f->old.st_gid == getegid())
		return f->old.st_mode & 0777;
	return S_IRUSR | S_IWUSR;
}

/* The temporary made with REPLACING_MODE's permissions in a directory
 * that gave it another group than the old file's (set-group-ID): ours
 * alone, as any other is, until it takes the old file's group. */
static void narrow_if_regrouped(const struct fcopy *f)
{
	struct stat st;

	if ((f->old.st_mode & 077) && fstat(f->out, &st) == 0 &&
	    st.st_gid != f->old.st_gid)
		(void)!fchmod(f->out, st.st_mode & S_IRWXU);
}

/* Is the destination's name still the file written (F->ost), and not a
 * symlink it was written through, or what took its place? */
static bool name_leads_here(const struct fcopy *f)
{
	struct stat st;

	return fstatat(f->a->dst_dirfd, f->a->dst_name, &st,
		       AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == f->ost.st_dev && st.st_ino == f->ost.st_ino;
}

/* Roads restricted by the caller (sc_copier_set_roads): the plan may be
 * left with none, and an existing destination must not be emptied
 * before that is known (issue 29: with only clone allowed from ext4 to
 * ext4, OUT was truncated, then -EOPNOTSUPP returned). */
static bool roads_restricted(const struct fcopy *f)
{
	return f->c->roads != SC_ROADMASK_ALL;
}

/* ---- to explain: what the copy would do to the destination, asked ---- */

/* May NAME (in DIRFD) be made, or removed, in its directory?  The
 * directory is asked as creat(2) and unlink(2) ask it (search and write;
 * a sticky directory's rule of owners is not seen).  A directory that
 * does not exist yet is one the caller makes first (a tree explained
 * before its directories are made): its nearest ancestor that exists is
 * asked.  0 or -errno. */
static int dry_dir_writable(int dirfd, const char *name)
{
	const char *slash = strrchr(name, '/');
	_cleanup_free_ char *d = strndup(name, !slash ? 0 : slash == name ? 1 :
					 (size_t)(slash - name));

	if (!d)
		return -ENOMEM;
	for (;;) {
		char *up;

		if (faccessat(dirfd, *d ? d : ".", W_OK | X_OK,
			      AT_EACCESS) == 0)
			return 0;
		if (errno != ENOENT || !*d || !strcmp(d, "/"))
			return -errno;
		up = strrchr(d, '/');
		if (!up)
			*d = '\0';
		else
			up[up == d ? 1 : 0] = '\0';
	}
}

/* open_existing(), asked: may the file be opened for writing (FLAGS'
 * access mode), or, under SC_FILE_FORCE, removed?  0 -- also when it is
 * to be made anew (f->dst_exists false) -- or -errno, said. */
static int dry_open_existing(struct fcopy *f, int flags)
{
	const struct sc_copy_args *a = f->a;
	int how = (flags & O_ACCMODE) == O_RDWR ? R_OK | W_OK : W_OK;
	bool dir = f->have_old && S_ISDIR(f->old.st_mode);
	int e = 0;

	if (dir)
		e = -EISDIR;
	else if (faccessat(a->dst_dirfd, a->dst_name, how, AT_EACCESS) < 0)
		e = -errno;
	if (e == -ENOENT)
		f->dst_exists = f->have_old = false;
	if (!e || e == -ENOENT)
		return 0;
	if (!(f->flags & SC_FILE_FORCE)) {
		sc_fcopy_event(f, SC_EV_OPEN_DEST, e, true);
		return e;
	}
	e = dir ? -EISDIR : dry_dir_writable(a->dst_dirfd, a->dst_name);
	if (e < 0) {
		sc_fcopy_event(f, SC_EV_REMOVE_DEST, e, true);
		return e;
	}
	f->dst_exists = f->have_old = false;
	f->dry_removed = true;
	return 0;
}

/* create_new(), asked: may the file be made there with O_EXCL (not a
 * dangling symlink, unless SC_FILE_DANGLING)?  A file in its place with
 * SC_FILE_NEW is one the caller will have moved away (a backup it did
 * not make, since it explains).  0 or -errno, said. */
static int dry_create_new(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	struct stat lst;
	int e = 0;

	if (!f->dry_removed && fstatat(a->dst_dirfd, a->dst_name, &lst,
				       AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISLNK(lst.st_mode)) {
			if (!(f->flags & SC_FILE_NEW))
				e = -EEXIST;
		} else if (!(f->flags & SC_FILE_DANGLING)) {
			sc_fcopy_event(f, SC_EV_DANGLING, -ENOENT, true);
			return -ENOENT;
		}
	}
	if (!e)
		e = dry_dir_writable(a->dst_dirfd, a->dst_name);
	if (e < 0)
		sc_fcopy_event(f, SC_EV_OPEN_DEST, e, true);
	return e;
}

/* The destination as the copy's open would find it: its stat (F->ost)
 * and facts.  A file made here, or a temporary, is a regular file on
 * the filesystem of the directory it goes in.  0 or -errno, said. */
static int dry_destination(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	struct sc_copier *c = f->c;
	struct sc_meta_at at = f->atomic ? sc_fcopy_atomic_at(f) :
					 sc_fcopy_dst_at(f);

	f->ost = (struct stat){ .st_mode = S_IFREG };
	if (f->given_out && fstat(a->dst_fd, &f->ost) < 0) {
		int e = -errno;

		sc_fcopy_event(f, SC_EV_STAT_DEST, e, true);
		return e;
	}
	if (!f->given_out && !f->atomic && f->have_old)
		f->ost = f->old;
	if (c->fs_assumed)
		f->rep->dst_fs = c->assumed_dst;
	else if (f->given_out)
		f->rep->dst_fs = sc_copier_facts(c, a->dst_fd, &f->ost);
	else if (!f->atomic && !f->dst_exists && a->dst_dir_facts)
		f->rep->dst_fs = a->dst_dir_facts;
	else
		f->rep->dst_fs = sc_copier_facts_at(c, at.dirfd, at.name);
	return 0;
}

/* The destination that exists, opened for writing (f->out).  Returns 0
 * -- also when it went away, or was removed under SC_FILE_FORCE, and is
 * to be made anew (f->dst_exists false) -- or -errno, said. */
static int open_existing(struct fcopy *f, int flags)
{
	const struct sc_copy_args *a = f->a;
	/* SC_REFLINK_ALWAYS must leave the old file intact when the clone
	 * is refused: clone over it, then cut it to size; so must
	 * restricted roads until the plan has one. */
	bool trunc = !f->clone_only && !(f->c->flags & SC_COPY_NO_DATA) &&
		     !roads_restricted(f);
	int e;

	if (f->dry)
		return dry_open_existing(f, flags);
	f->out = sc_fcopy_open_retry(f->x, a->dst_dirfd, a->dst_name,
				     flags | (trunc ? O_TRUNC : 0), 0);
	f->truncated = f->out >= 0 && trunc;
	if (f->out < 0 && errno == ENOENT) {
		/* gone since it was stat'ed (another NFS client, say): made
		 * anew below, as cp does */
		f->dst_exists = f->have_old = false;
	} else if (f->out < 0 && (f->flags & SC_FILE_FORCE)) {
		/* a destination we cannot open goes, and a new one is made
		 * in its place */
		if (unlinkat(a->dst_dirfd, a->dst_name, 0) < 0) {
			if (errno != ENOENT) {
				e = -errno;
				sc_fcopy_event(f, SC_EV_REMOVE_DEST, e, true);
				return e;
			}
		} else {
			sc_report_add(f->rep, SC_EV_REMOVE_DEST, 0, false,
				      false);
			f->rep->flags |= SC_REPORT_REMOVED;
		}
		f->dst_exists = f->have_old = false;
	} else if (f->out < 0) {
		e = -errno;
		sc_fcopy_event(f, SC_EV_OPEN_DEST, e, true);
		return e;
	}
	return 0;
}

/* The destination made anew (O_EXCL) and opened (f->out).  Returns 0 or
 * -errno, said. */
static int create_new(struct fcopy *f, int flags)
{
	const struct sc_copy_args *a = f->a;
	int e;

	if (f->dry)
		return dry_create_new(f);
	f->out = sc_fcopy_open_retry(f->x, a->dst_dirfd, a->dst_name,
				     flags | O_CREAT | O_EXCL,
				     new_file_mode(f));
	f->exclusive = f->out >= 0;
	if (f->out < 0 && errno == EEXIST) {
		struct stat lst;

		/* not there when looked at, but a name: a symlink to
		 * nowhere.  cp does not write through it (POSIXLY_CORRECT:
		 * it does, making the file it names). */
		if (fstatat(a->dst_dirfd, a->dst_name, &lst,
			    AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(lst.st_mode)) {
			errno = EEXIST;
		} else if (!(f->flags & SC_FILE_DANGLING)) {
			sc_fcopy_event(f, SC_EV_DANGLING, -ENOENT, true);
			return -ENOENT;
		} else {
			f->out = openat(a->dst_dirfd, a->dst_name,
					flags | O_CREAT, f->ist.st_mode & 0777);
		}
	}
	if (f->out < 0) {
		e = -errno;
		sc_fcopy_event(f, SC_EV_OPEN_DEST, e, true);
		return e;
	}
	f->created = true;
	f->rep->flags |= SC_REPORT_CREATED;
	return 0;
}

/* SC_COPY_ATOMIC replaces the old file by a rename, which asks only the
 * directory's permission; a copy in place writes into the old file, and
 * so needs leave to write it.  The atomic copy asks the same: a file the
 * caller may not write (its mode, another's file in a directory open to
 * all, an immutable one) is refused as opening it would be.  Under
 * SC_FILE_FORCE it goes as cp -f makes it go: the name given gets a new
 * file -- a symlink's name, never the file the link leads to, which the
 * caller may not write -- made as a new file is, not with the old one's
 * attributes.  A running program (ETXTBSY) is replaced, as install does.
 * 0 or -errno, with its event. */
static int may_write_old(struct fcopy *f)
{
	struct sc_meta_at at = sc_fcopy_atomic_at(f);
	int e;

	if (faccessat(at.dirfd, at.name, W_OK, AT_EACCESS) == 0 ||
	    errno == ETXTBSY || errno == ENOENT)
		return 0;
	e = -errno;
	if (!(f->flags & SC_FILE_FORCE)) {
		sc_fcopy_event(f, SC_EV_OPEN_DEST, e, true);
		return e;
	}
	if (f->tdirfd >= 0) {
		close(f->tdirfd);
		f->tdirfd = -1;
		free(f->tname);
		f->tname = NULL;
	}
	f->as_new = true;	/* the name is still taken: a rename over it */
	return 0;
}

/* The temporary at AT made with MODE (sc_target_temp_open()), asking
 * the context's fd_short function, as every open of a file does, when
 * descriptors ran out (round 3 of issue 36: it was not asked here).  The
 * descriptor or -errno. */
static int temp_open_retry(struct fcopy *f, struct sc_meta_at at,
			   mode_t mode)
{
	struct sc_copy_ctx *x = f->x;
	unsigned tries = 0;
	int fd;

	while ((fd = sc_target_temp_open(x, at.dirfd, at.name, mode,
					 &f->named_tmp)) == -EMFILE ||
	       fd == -ENFILE) {
		if (!x->fd_short || !x->fd_short(x->fd_short_arg, -fd, &tries))
			break;
	}
	return fd;
}

/* Opens the destination: a temporary (SC_COPY_ATOMIC), the existing file,
 * or a new one made without the bits that must wait.  0 or -errno, with
 * its event (nothing to clean up). */
int sc_fcopy_open_destination(struct fcopy *f)
{
	const struct sc_copy_args *a = f->a;
	struct sc_copier *c = f->c;
	/* a known-bad stack may have the copy verified (plan.h) */
	int flags = ((c->flags & SC_COPY_VERIFY) ||
		     sc_plan_may_verify(f->rep->src_fs, c->kernel) ?
		     O_RDWR : O_WRONLY) | O_CLOEXEC | O_NOCTTY;
	int e;

	if (f->given_out) {
		if (!f->dry)
			f->out = a->dst_fd;
		return 0;
	}
	if (f->atomic && (e = atomic_through_link(f)) < 0)
		return e;
	/* A running program cannot be opened for writing (ETXTBSY), but it
	 * can be replaced: SC_COPY_ATOMIC renames over it, as install
	 * does. */
	if (f->atomic && f->have_old && !S_ISREG(f->old.st_mode))
		f->atomic = false;	/* a device or FIFO: write into it */
	f->as_new = !f->have_old || (f->flags & FILE_REPLACE);
	/* sc_copier_copy_path too: it replaces as mv does (the new file
	 * takes nothing of the old one), but only a file its caller may
	 * write (issue 36: a 0444 file was replaced, 0 returned) */
	if (f->atomic && f->have_old && (e = may_write_old(f)) < 0)
		return e;

	if (f->atomic && f->dry) {
		struct sc_meta_at at = sc_fcopy_atomic_at(f);

		e = dry_dir_writable(at.dirfd, at.name);
		if (e < 0) {
			sc_fcopy_event(f, SC_EV_OPEN_DEST, e, true);
			return e;
		}
	} else if (f->atomic) {
		struct sc_meta_at at = sc_fcopy_atomic_at(f);

		/* The temporary of a new file is made as the file itself
		 * would be; one that replaces a file as replacing_mode()
		 * says, until it takes the old file's attributes
		 * (sc_fcopy_finish_file()). */
		f->out = temp_open_retry(f, at, f->as_new ? new_file_mode(f) :
					 replacing_mode(f));
		if (f->out < 0) {
			sc_fcopy_event(f, SC_EV_OPEN_DEST, f->out, true);
			return f->out;
		}
		if (!f->as_new)
			narrow_if_regrouped(f);
	} else if (f->dst_exists && (e = open_existing(f, flags)) < 0) {
		return e;
	}
	if (!f->atomic && !f->dst_exists && (e = create_new(f, flags)) < 0)
		return e;
	f->m.created = f->created || (f->atomic && f->as_new);
	f->m.have_old = f->have_old && !f->as_new;
	f->m.old_mode = f->m.have_old ? f->old.st_mode : 0;
	if (f->dry)
		return 0;
	if (f->m.created)
		f->rep->flags |= SC_REPORT_CREATED;
	f->rep->flags |= SC_REPORT_DEST_OPENED;
	return 0;
}

/* Only read_write is left in PLAN: the others are skipped for WHY. */
static void only_read_write(struct sc_plan *plan, const char *why)
{
	for (int r = 0; r < SC_ROAD__MAX; r++)
		if (r != SC_ROAD_RW && plan->step[r].use) {
			plan->step[r].use = false;
			plan->step[r].why = why;
			plan->n_use--;
		}
}

/* --verify: what the copy can be proven by.  Returns 0, or -EOPNOTSUPP
 * (said) for a destination that keeps nothing to read back. */
static int plan_for_verify(struct fcopy *f)
{
	struct sc_copy_report *rep = f->rep;

	if (!f->out_seekable ||
	    (!f->dry && lseek(f->out, 0, SEEK_CUR) < 0 && errno == ESPIPE)) {
		/* /dev/null, a FIFO, a terminal or a file opened as a
		 * stream (FUSE FOPEN_NONSEEKABLE) keeps nothing that could
		 * be read back: such a copy could never be proven, so
		 * nothing is written. */
		sc_fcopy_event(f, SC_EV_UNVERIFIABLE, -EOPNOTSUPP, true);
		return -EOPNOTSUPP;
	}
	if (!S_ISREG(f->ist.st_mode) && !S_ISBLK(f->ist.st_mode)) {
		/* A pipe cannot be read twice: its bytes must pass through
		 * the library to be checked. */
		only_read_write(&rep->plan, sc_why_stream_verify);
	} else if (f->c->flags & SC_COPY_LIVE_SOURCE) {
		/* Nor may a source the caller says is live be read again:
		 * the copy is proven against what was read, which the
		 * kernel roads move without the library seeing it (issue
		 * 37: a growing log failed, copied twice, as "changed
		 * again"). */
		only_read_write(&rep->plan, sc_why_live_verify);
	}
	return 0;
}

/* Can the destination be read back for a verification?  Open for
 * reading and writing, and seekable; to explain, what the copy would open
 * (read-write where a known-bad stack may ask for it: a regular file, or
 * the caller's descriptor as it is). */
static bool readable_back(const struct fcopy *f)
{
	int fd = f->dry ? (f->given_out ? f->a->dst_fd : -1) : f->out;
	int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;

	if (!S_ISREG(f->ost.st_mode))
		return false;
	if (fd < 0)
		return f->dry;
	return fl >= 0 && (fl & O_ACCMODE) == O_RDWR &&
	       lseek(fd, 0, SEEK_CUR) >= 0;
}

/* The open destination's stat (F->ost) and facts.  0 or -errno, said. */
static int dest_facts(struct fcopy *f)
{
	const struct sc_fs_facts *dir_facts = f->a->dst_dir_facts;

	if (f->exclusive && dir_facts) {
		/* A file just made (O_EXCL) in a directory whose facts the
		 * caller knows: a regular file on the directory's
		 * filesystem, no need to ask. */
		f->ost.st_mode = S_IFREG;
		f->rep->dst_fs = dir_facts;
	} else if (fstat(f->out, &f->ost) < 0) {
		int e = -errno;

		sc_fcopy_event(f, SC_EV_STAT_DEST, e, true);
		return e;
	} else {
		f->rep->dst_fs = sc_copier_facts(f->c, f->out, &f->ost);
	}
	return 0;
}

/* What a signal or a failure does to the open destination. */
static void dest_fate(struct fcopy *f)
{
	/* Only a regular file of ours is ever removed: never /dev/null or
	 * another device or FIFO that was the destination, nor the
	 * caller's descriptor. */
	f->removable = !f->atomic && !f->given_out &&
		       !(f->c->flags & SC_COPY_NO_DATA) &&
		       S_ISREG(f->ost.st_mode);
	/* A file that was there before the copy is emptied, never removed:
	 * it must not look complete, but its name, its other names (a hard
	 * link, a symlink to it, /dev/stdout) and what it carries (owner,
	 * group, mode, ACL, extended attributes, which a copy into it again
	 * keeps, as cp's does) are not ours to take away.  Removed, a 0600
	 * file copied again from a 0644 source came back 0644. */
	f->shared = f->removable && !f->exclusive;
	if (f->removable)
		sc_target_partial_begin(f->x, f->a->dst_dirfd, f->a->dst_name,
					f->out, f->exclusive &&
					f->a->dst_dir_facts ? NULL : &f->ost,
					f->shared);
}

/* The plan for the data, as the copier's options shape it: no road with
 * SC_COPY_NO_DATA; with SC_COPY_VERIFY none into what cannot be read
 * back, and only read_write from a stream.  0, or -EOPNOTSUPP (said)
 * when the plan has no road: known before the first byte, so nothing
 * is written. */
static int plan_data(struct fcopy *f)
{
	struct sc_copy_report *rep = f->rep;
	int e;

	sc_fcopy_make_plan(f, &f->ist, f->ost.st_mode);
	if (f->c->flags & SC_COPY_NO_DATA) {
		/* no road is taken: the data stays where it is */
		sc_plan_none(&rep->plan, sc_why_no_data);
		return 0;
	}
	/* A verification a known-bad stack asks for, where the copy cannot
	 * be read back: the roads it was for are left out instead. */
	if (rep->plan.verify && !(f->c->flags & SC_COPY_VERIFY) &&
	    !readable_back(f))
		sc_plan_unverifiable(&rep->plan);
	if (((f->c->flags & SC_COPY_VERIFY) || rep->plan.verify) &&
	    (e = plan_for_verify(f)) < 0)
		return e;
	if (!rep->plan.n_use) {
		rep->res.err = -EOPNOTSUPP;
		sc_fcopy_event(f, SC_EV_DATA, -EOPNOTSUPP, true);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* What the open destination is, what a signal or a failure does to it,
 * and the plan for the data; to explain, the same from what the copy
 * would open.  0 or -errno (then sc_fcopy_abandon_file()). */
int sc_fcopy_prepare_destination(struct fcopy *f)
{
	int e;

	e = f->dry ? dry_destination(f) : dest_facts(f);
	if (e < 0)
		return e;
	f->out_seekable = S_ISREG(f->ost.st_mode) || S_ISBLK(f->ost.st_mode);
	if (!f->dry)
		dest_fate(f);
	e = plan_data(f);
	if (e < 0) {
		/* nothing written: a destination not emptied stays */
		if (!f->truncated && !f->created && !f->atomic)
			f->removable = false;
		return e;
	}
	/* A file in place that was not emptied at its open (restricted
	 * roads, SC_REFLINK_ALWAYS, the caller's descriptor) keeps its bytes
	 * until a road is known to serve: the engine drops them then, and
	 * a road that cannot be taken leaves the file as it was (issue 36:
	 * a clone forced on ext4 emptied it, then said -EOPNOTSUPP). */
	f->old_bytes = !f->dry && !(f->c->flags & SC_COPY_NO_DATA) &&
		       f->dst_exists && !f->truncated && !f->atomic &&
		       S_ISREG(f->ost.st_mode);
	return 0;
}

/* The metadata, SC_COPY_SYNC, the rename of the atomic temporary and the
 * close.  0 (OUT is closed), or -errno (then sc_fcopy_abandon_file());
 * a metadata failure that counts but leaves a whole copy in place goes
 * to *META_ERR. */
int sc_fcopy_finish_file(struct fcopy *f, int *meta_err)
{
	struct sc_copier *c = f->c;
	char buf[64];
	struct sc_meta_at s = sc_fcopy_src_at(f, buf, sizeof(buf)),
			  d = sc_fcopy_dst_at(f);
	int e;

	if (f->atomic && f->have_old && !f->as_new) {
		/* The new inode first becomes what the old one would be
		 * after an overwrite in place; then the metadata asked for
		 * is done to it as it would have been to the old one. */
		struct sc_meta_at at = sc_fcopy_atomic_at(f);

		e = sc_meta_take_old(c, f->rep, f->out, &at, &f->old);
		if (e < 0)
			return e;
	}
	/* the caller's descriptor gets bytes only (sc_copier_copy_fd) */
	e = f->given_out ? 0 :
	    sc_meta_apply(c, f->rep, f->in, f->out, &s, &d, &f->ist, &f->m);
	if (e < 0) {
		if (f->atomic)
			return e;
		*meta_err = e;
	}
	/* A FIFO, a terminal or a character device has nothing to sync:
	 * fsync(2) says EINVAL there, after every byte was delivered. */
	if ((c->flags & SC_COPY_SYNC) && fsync(f->out) < 0 &&
	    !(errno == EINVAL && !S_ISREG(f->ost.st_mode) &&
	      !S_ISBLK(f->ost.st_mode))) {
		e = -errno;
		sc_fcopy_event(f, SC_EV_SYNC, e, true);
		return e;
	}
	if (f->atomic) {
		struct sc_meta_at at = sc_fcopy_atomic_at(f);

		e = sc_target_temp_commit(f->x, f->out, at.dirfd, at.name,
					  f->named_tmp, !f->have_old);
		if (e < 0) {
			sc_fcopy_event(f, SC_EV_COMMIT, e, true);
			return e;
		}
	}
	/* complete: a signal leaves it now, before its descriptor goes */
	sc_target_partial_end(f->x);
	if (f->given_out) {
		f->out = -1;
		return 0;
	}
	e = close(f->out);
	f->out = -1;
	if (e < 0) {
		e = -errno;
		sc_fcopy_event(f, SC_EV_CLOSE, e, true);
		return e;
	}
	return 0;
}

/* Never leave a destination that looks complete and is not.  An atomic
 * copy never touched the old file, and the temporary goes; in place,
 * what was written is a prefix, or nothing: remove it (an existing
 * destination was already emptied), or, when other names share it or
 * it was written through a symlink, empty it and keep the names.  The
 * caller's descriptor is emptied, never closed. */
void sc_fcopy_abandon_file(struct fcopy *f)
{
	/* the name goes only while it leads to the file written (not
	 * known, and not asked, for one made here with O_EXCL) */
	bool remove = f->removable && !f->shared &&
		      ((f->exclusive && f->a->dst_dir_facts) ||
		       name_leads_here(f));

	sc_target_partial_end(f->x);
	if (f->given_out) {
		/* the caller's file, overwritten in place: emptied as any
		 * such file is (issue 36: it kept what was copied, a prefix
		 * of the source), unless no road ever touched it */
		if (S_ISREG(f->ost.st_mode) && !f->untouched &&
		    (f->truncated || f->old_bytes || f->rep->res.bytes))
			(void)!ftruncate(f->out, 0);
		f->out = -1;
		return;
	}
	if (f->out >= 0) {
		if (f->removable && !remove)
			(void)!ftruncate(f->out, 0);
		close(f->out);
		f->out = -1;
	}
	if (f->atomic)
		sc_target_temp_abandon(f->x, f->named_tmp);
	else if (remove)
		unlinkat(f->a->dst_dirfd, f->a->dst_name, 0);
}
