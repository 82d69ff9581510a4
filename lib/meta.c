/* Metadata: what cp -p keeps of a source besides its bytes.  libattr and
 * libacl do the copying of xattrs and ACLs; the order, the fallbacks and
 * which failures count are cp's.  Nothing is said here: every failure is
 * an event of the report, and the program decides what to print (smartcp
 * words them as cp does, src/policy/attrs.c). */
#include "common.h"
#include "meta_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <acl/libacl.h>

mode_t sc_copier_omitted(const struct sc_copier *c, mode_t src_mode)
{
	unsigned flags = c ? c->flags : 0;

	return src_mode & 07777 &
	       (flags & SC_COPY_KEEP_OWNER ? (mode_t)(S_IRWXG | S_IRWXO) :
		S_ISDIR(src_mode) ? (mode_t)(S_IWGRP | S_IWOTH) : 0);
}

bool sc_copier_meta_match(const struct sc_copier *c, const struct stat *s,
			  const struct stat *d)
{
	unsigned flags = c ? c->flags : 0;

	if (!s || !d)
		return false;
	return (!(flags & SC_COPY_KEEP_MODE) ||
		(s->st_mode & 07777) == (d->st_mode & 07777)) &&
	       (!(flags & SC_COPY_KEEP_OWNER) ||
		(s->st_uid == d->st_uid && s->st_gid == d->st_gid)) &&
	       (!(flags & SC_COPY_KEEP_TIMES) ||
		(s->st_mtim.tv_sec == d->st_mtim.tv_sec &&
		 s->st_mtim.tv_nsec == d->st_mtim.tv_nsec));
}

int meta_lost(const struct meta *mt, enum sc_event_kind kind, int err)
{
	sc_report_add(mt->rep, kind, -err, mt->strict, false);
	return mt->strict ? -(err ? err : EPERM) : 0;
}

/* A failure that always counts: said as an error. */
static int failed(const struct meta *mt, enum sc_event_kind kind, int err)
{
	sc_report_add(mt->rep, kind, -err, true, true);
	return -(err ? err : EPERM);
}

/* --- the steps of sc_meta_apply() ------------------------------------------ */

static int keep_times(const struct meta *mt, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int r = pin_utimens(mt->dp, ts);

	return r < 0 ? meta_lost(mt, SC_EV_META_TIMES, -r) : 0;
}

/* The owner and group of ST.  *SRC_MODE loses its set-id bits when the
 * owner could not be kept (*OWNER_LOST).  -errno when the copy must stop
 * here for this file (a mode that could not be narrowed first, counted),
 * 0, or 1 when a failure counts but the other attributes are still to
 * be set (*RC its -errno).  Failures an unprivileged caller meets by
 * design (EPERM, EINVAL) are events that count for nothing, as cp does
 * not say them. */
static int keep_owner(const struct meta *mt, const struct stat *st,
		      const struct sc_made *m, mode_t *src_mode,
		      bool *owner_lost, int *rc)
{
	const struct pin *dp = mt->dp;
	struct stat now;
	int r;

	if (!m->created && m->have_old &&
	    (mt->c->flags & SC_COPY_KEEP_MODE) && !S_ISLNK(st->st_mode)) {
		/* Owner first would open a window with the old mode: narrow
		 * it to what both allow the owner. */
		mode_t tmp = m->old_mode & *src_mode & S_IRWXU;

		r = pin_chmod(dp, tmp);
		if (r < 0 && (sc_copier_privileged(mt->c) || r != -EPERM)) {
			r = meta_lost(mt, SC_EV_META_NARROW, -r);
			if (r < 0)
				return r;
		} else if (r < 0) {
			sc_report_add(mt->rep, SC_EV_META_NARROW, r, false,
				      false);
		}
	}
	/* A file that already has the owner and group (made by their owner,
	 * or by root from root's files) is left alone, as cp does:
	 * filesystems without chown (FAT through FUSE) say ENOSYS even to a
	 * chown that changes nothing.  What is not a regular file's copy (a
	 * directory, a special file: held O_PATH) is chowned all the same,
	 * as cp chowns it, and says so where that fails. */
	if (!dp->opath && fstat(dp->fd, &now) == 0 &&
	    now.st_uid == st->st_uid && now.st_gid == st->st_gid)
		return 0;
	r = pin_chown(dp, st->st_uid, st->st_gid);
	if (r == 0)
		return 0;

	int ret = 0;

	if (r == -EPERM || r == -EINVAL)
		/* keep the group, if we may */
		(void)pin_chown(dp, (uid_t)-1, st->st_gid);
	if (sc_copier_privileged(mt->c) || (r != -EPERM && r != -EINVAL)) {
		*rc = meta_lost(mt, SC_EV_META_OWNER, -r);
		ret = *rc < 0;
	} else {
		sc_report_add(mt->rep, SC_EV_META_OWNER, r, false, false);
	}
	/* Not the source's owner: no set-id bits for them. */
	*src_mode &= ~(mode_t)(S_ISUID | S_ISGID | S_ISVTX);
	*owner_lost = true;
	return ret;
}

/* SC_COPY_KEEP_MODE: mode and POSIX ACLs together, as cp -p does; an ACL
 * carries the rwx bits only, so set-id and sticky bits need a chmod.
 * KEPT: special bits creation gave, which cp's ACL calls keep. */
static int keep_mode(const struct meta *mt, const struct stat *st,
		     mode_t src_mode, bool owner_lost, mode_t kept)
{
	const struct pin *dp = mt->dp;
	int acl_err, r;

	/* Through descriptors, or the /proc links of what is held: libacl
	 * follows the names it is given, and a name in a directory someone
	 * else may write could lead anywhere by now */
	if (meta_by_fd(mt))
		r = perm_copy_fd(mt->sname, mt->in, dp->proc, dp->fd,
				 &meta_quiet_ctx);
	else
		r = perm_copy_file(mt->sname, dp->proc, &meta_quiet_ctx);
	/* libacl falls back to the mode bits by itself where the ACL is only
	 * those; a failure here is an ACL that was lost, even if the chmod
	 * below gets the bits right */
	acl_err = r != 0 ? errno : 0;
	/* ... but a destination without ACLs (ramfs, FAT) loses nothing when
	 * the source has none: libacl still fails removing a directory's
	 * default ACL there, cp does not */
	if ((acl_err == EOPNOTSUPP || acl_err == ENOSYS) &&
	    (mt->in >= 0 ? acl_extended_fd(mt->in) :
	     acl_extended_file(mt->sname)) == 0)
		acl_err = 0;
	if (r != 0 || (st->st_mode & 07000)) {
		mode_t mode = owner_lost ? (src_mode & 0777) | kept :
			      src_mode & 07777;

		r = pin_chmod(dp, mode);
	}
	if (r != 0 || acl_err)
		return meta_lost(mt, SC_EV_META_MODE, r != 0 ? -r : acl_err);
	return 0;
}

/* SC_COPY_DEFAULT_MODE: what a new file gets by default. */
static int default_mode(const struct meta *mt, mode_t src_mode, mode_t kept)
{
	mode_t def = ((S_ISDIR(src_mode) || S_ISSOCK(src_mode) ?
		       0777 : 0666) & ~sc_copier_umask(mt->c)) | kept;
	int r = pin_chmod(mt->dp, def);

	return r < 0 ? failed(mt, SC_EV_META_DEFAULT_MODE, -r) : 0;
}

/* No mode to keep: the bits held back at creation go back on. */
static int restore_mode(const struct meta *mt, mode_t src_mode,
			struct sc_made *m)
{
	int r = 0;

	if (S_ISREG(src_mode) || !mt->dp->opath) {
		/* a file made with bits held back or u+w added: now the mode
		 * it would have had, less the umask (asked only then) */
		if ((m->omitted || m->extra) &&
		    ((m->omitted & ~sc_copier_umask(mt->c)) | m->extra))
			r = pin_chmod(mt->dp, src_mode & 0777 &
				      ~sc_copier_umask(mt->c));
		return r < 0 ? meta_lost(mt, SC_EV_META_RESTORE, -r) : 0;
	}
	if (m->omitted)
		m->omitted &= ~sc_copier_umask(mt->c);
	if (m->omitted && !m->restore) {
		/* the mode creation gave (an inherited set-gid bit stays) */
		if (!m->mode_known) {
			struct stat now;

			if (fstat(mt->dp->fd, &now) < 0)
				return failed(mt, SC_EV_META_STAT, errno);
			m->mode = now.st_mode;
		}
		if (m->omitted & ~m->mode)
			m->restore = true;
	}
	if (m->restore)
		r = pin_chmod(mt->dp, (m->mode | m->omitted) & 07777);
	return r < 0 ? meta_lost(mt, SC_EV_META_RESTORE, -r) : 0;
}

/* The steps, in cp's order: times, owner (chown clears set-id bits and
 * capabilities), xattrs, then mode and ACL. */
static int apply(const struct meta *mt, const struct stat *st,
		 struct sc_made *m)
{
	unsigned flags = mt->c->flags;
	mode_t src_mode = st->st_mode;
	/* special bits creation gave (a directory's sticky bit, a set-gid
	 * bit inherited from its parent), which cp's ACL calls keep */
	mode_t kept = m->created && m->mode_known ? m->mode & 07000 : 0;
	bool owner_lost = false;
	int rc = 0, r;

	if ((flags & SC_COPY_KEEP_TIMES) && (r = keep_times(mt, st)) < 0)
		rc = r;
	if (flags & SC_COPY_KEEP_OWNER) {
		int orc = 0;

		r = keep_owner(mt, st, m, &src_mode, &owner_lost, &orc);
		if (r < 0)
			return r;
		if (r > 0 && !rc)
			rc = orc;
	}
	if ((flags & SC_COPY_KEEP_XATTR) && (r = meta_keep_xattrs(mt)) < 0 &&
	    !rc)
		rc = r;
	if (S_ISLNK(st->st_mode))
		return rc;
	if (flags & SC_COPY_KEEP_MODE)
		r = keep_mode(mt, st, src_mode, owner_lost, kept);
	else if ((flags & SC_COPY_DEFAULT_MODE) && m->created)
		r = default_mode(mt, src_mode, kept);
	else
		r = restore_mode(mt, src_mode, m);
	return r < 0 ? r : rc;
}

/* Not the object the call is about: SIDE (0 the source, 1 the
 * destination) was replaced by another since it was made or found. */
static int replaced(struct sc_copy_report *rep, int side)
{
	struct sc_ev *ev = sc_report_add(rep, SC_EV_REPLACED, -ESTALE, true,
					 true);

	if (ev)
		ev->which = side;
	return -ESTALE;
}

/* NAME in DIRFD held (*P): itself, or, when it is a symlink and WANT
 * (the stat the caller has of it) is not, what it leads to (cp -L, -H; an
 * existing destination written through).  0 or -errno. */
static int pin_as(struct pin *p, int dirfd, const char *name,
		  const struct stat *want)
{
	int e = pin_at(p, dirfd, name, false);

	if (e == 0 && S_ISLNK(p->st.st_mode) && !S_ISLNK(want->st_mode)) {
		pin_release(p);
		e = pin_at(p, dirfd, name, true);
	}
	return e;
}

/* The destination named DST, held (*DP) and checked to be what M says:
 * of ST's type; made by us when M says so; the file found when M knows
 * it.  0, or -errno (-ESTALE: replaced, an event). */
static int pin_dst(struct sc_copy_report *rep, const struct sc_meta_at *dst,
		   const struct stat *st, const struct sc_made *m,
		   struct pin *dp)
{
	int e = m->old_known ? pin_as(dp, dst->dirfd, dst->name, st) :
		pin_at(dp, dst->dirfd, dst->name, false);

	if (e == -ENOENT || e == -ENOTDIR)
		return replaced(rep, 1);
	if (e < 0)
		return failed(&(struct meta){ .rep = rep }, SC_EV_META_STAT,
			      -e);
	if ((dp->st.st_mode & S_IFMT) != (st->st_mode & S_IFMT) ||
	    (m->created && pin_check_ours(dp) < 0) ||
	    (m->old_known && (dp->st.st_dev != m->old_dev ||
			      dp->st.st_ino != m->old_ino)))
		return replaced(rep, 1);
	return 0;
}

/* The source named SRC, held (*SP) and checked to be the file ST
 * describes.  0, or -errno (-ESTALE: replaced, an event). */
static int pin_src(struct sc_copy_report *rep, const struct sc_meta_at *src,
		   const struct stat *st, struct pin *sp)
{
	int e = pin_as(sp, src->dirfd, src->name, st);

	if (e == 0 && !pin_is(sp, st))
		e = -ESTALE;
	if (e == -ENOENT || e == -ESTALE)
		return replaced(rep, 0);
	return e < 0 ? failed(&(struct meta){ .rep = rep }, SC_EV_META_STAT,
			      -e) : 0;
}

int sc_meta_apply(struct sc_copier *c, struct sc_copy_report *rep, int in,
		  int out, const struct sc_meta_at *src,
		  const struct sc_meta_at *dst, const struct stat *st,
		  struct sc_made *m)
{
	struct pin sp, dp;
	struct meta mt = {
		.c = c, .rep = rep,
		.strict = c->flags & SC_COPY_META_STRICT,
		.dp = &dp,
	};
	int e = 0;

	if (out >= 0)
		pin_fd(&dp, out, m->out_opath);
	else
		e = pin_dst(rep, dst, st, m, &dp);
	if (e < 0)
		return e;
	if (in >= 0)
		pin_fd(&sp, in, m->in_opath);
	else if (c->flags & (SC_COPY_KEEP_XATTR | SC_COPY_KEEP_MODE))
		e = pin_src(rep, src, st, &sp);
	else
		pin_fd(&sp, -1, true);	/* not read */
	if (e == 0) {
		mt.in = sp.opath ? -1 : sp.fd;
		mt.sname = sp.proc;
		e = apply(&mt, st, m);
	}
	pin_release(&sp);
	pin_release(&dp);
	return e;
}

/* cp --parents, after the copy: the steps for directory DP (held), the
 * copy of SP (held, whose stat is ST), each failure counted. */
static int parent_steps(const struct meta *mt, const struct pin *sp,
			const struct pin *dp, const struct stat *st,
			bool restore)
{
	unsigned flags = mt->c->flags;
	int r;

	if (flags & SC_COPY_KEEP_TIMES) {
		struct timespec ts[2] = { st->st_atim, st->st_mtim };

		if ((r = pin_utimens(dp, ts)) < 0)
			return failed(mt, SC_EV_PARENT_TIMES, -r);
	}
	if ((flags & SC_COPY_KEEP_OWNER) &&
	    (r = pin_chown(dp, st->st_uid, st->st_gid)) < 0) {
		if (sc_copier_privileged(mt->c) || (r != -EPERM && r != -EINVAL))
			return failed(mt, SC_EV_PARENT_OWNER, -r);
		sc_report_add(mt->rep, SC_EV_PARENT_OWNER, r, false, false);
		(void)pin_chown(dp, (uid_t)-1, st->st_gid);
	}
	if (flags & SC_COPY_KEEP_MODE) {
		if ((perm_copy_file(sp->proc, dp->proc, &meta_quiet_ctx) != 0 ||
		     (st->st_mode & 07000)) &&
		    (r = pin_chmod(dp, st->st_mode & 07777)) < 0)
			return failed(mt, SC_EV_PARENT_MODE, -r);
	} else if (restore && (r = pin_chmod(dp, st->st_mode & 07777)) < 0) {
		return failed(mt, SC_EV_PARENT_RESTORE, -r);
	}
	return 0;
}

int sc_meta_parent(struct sc_copier *c, struct sc_copy_report *rep, int in,
		   int out, const struct sc_meta_at *src,
		   const struct sc_meta_at *dst, const struct stat *st,
		   bool restore)
{
	struct sc_made m = { .in_opath = true, .out_opath = true };
	struct pin sp, dp;
	const struct meta mt = { .c = c, .rep = rep, .strict = true };
	int e = 0;

	if (out >= 0)
		pin_fd(&dp, out, true);
	else
		e = pin_dst(rep, dst, st, &m, &dp);
	if (e < 0)
		return e;
	if (in >= 0)
		pin_fd(&sp, in, true);
	else
		e = pin_src(rep, src, st, &sp);
	if (e == 0)
		e = parent_steps(&mt, &sp, &dp, st, restore);
	pin_release(&sp);
	pin_release(&dp);
	return e;
}

/* --- SC_COPY_ATOMIC: the temporary in the old file's place ----------------- */

/* The extended attributes of OLD (open as OLD_FD) onto OUT, as the old
 * file would have kept them through an overwrite in place.  security.*
 * stays as the new inode got it: the label is the LSM's to give (cp
 * sets no SELinux context either), and security.capability is the one
 * a write removes.  An ACL the new inode inherited from its directory's
 * default ACL goes when the old file had none.  Failures are events
 * (warnings), and do not fail the copy. */
static void keep_old_xattrs(struct sc_copy_report *rep, int out, int old_fd)
{
	char proc[64];
	_cleanup_free_ char *names = NULL;
	char *value = NULL;
	size_t cap = 0;
	ssize_t len;
	bool had_acl = false;

	/* the old file by its descriptor: flistxattr() does not take an
	 * O_PATH one, /proc resolves it to the inode */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", old_fd);
	len = listxattr(proc, NULL, 0);
	if (len > 0 && (names = malloc((size_t)len)))
		len = listxattr(proc, names, (size_t)len);
	if (len < 0) {
		int err = errno;

		sc_report_add(rep, SC_EV_OLD_LIST, -err, false, false);
		len = 0;
	}
	for (char *n = names; names && n < names + len; n += strlen(n) + 1) {
		ssize_t v;

		if (!strncmp(n, "security.", 9))
			continue;
		if (!strcmp(n, "system.posix_acl_access"))
			had_acl = true;
		v = meta_get_xattr(proc, n, &value, &cap);
		if (v < 0) {
			sc_report_attr(rep, sc_report_add(rep, SC_EV_OLD_GET,
							  -errno, false,
							  false), n);
			continue;
		}
		if (fsetxattr(out, n, value, (size_t)v, 0) < 0)
			sc_report_attr(rep, sc_report_add(rep, SC_EV_OLD_SET,
							  -errno, false,
							  false), n);
	}
	free(value);
	if (!had_acl && fremovexattr(out, "system.posix_acl_access") < 0 &&
	    errno != ENODATA)
		sc_report_add(rep, SC_EV_OLD_ACL, -errno, false, false);
}

int sc_meta_take_old(struct sc_copier *c, struct sc_copy_report *rep,
		     int out, const struct sc_meta_at *old,
		     const struct stat *old_st)
{
	_cleanup_close_ int old_fd = -1;
	mode_t mode = old_st->st_mode & 07777;
	struct stat now, st;

	(void)c;
	if (fstat(out, &now) < 0)
		goto fail;
	/* The owner first, as the old file has it: a chown clears set-id
	 * bits, so it must come before the mode.  Where it cannot be had
	 * (not root), at least the group, as keep_owner() does. */
	if ((now.st_uid != old_st->st_uid || now.st_gid != old_st->st_gid) &&
	    fchown(out, old_st->st_uid, old_st->st_gid) < 0)
		(void)!fchown(out, (uid_t)-1, old_st->st_gid);
	if (fstat(out, &now) < 0)
		goto fail;
	/* Not the old file's owner and group: no set-id bits for them */
	if (now.st_uid != old_st->st_uid || now.st_gid != old_st->st_gid)
		mode &= ~(mode_t)(S_ISUID | S_ISGID);
	old_fd = openat(old->dirfd, old->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (old_fd >= 0 && fstat(old_fd, &st) == 0 &&
	    st.st_dev == old_st->st_dev && st.st_ino == old_st->st_ino)
		keep_old_xattrs(rep, out, old_fd);
	/* Made with the mode already (fcopy_dest.c), as where we own the
	 * old file: no chmod, which filesystems such as vfat refuse even
	 * when it changes nothing.  (Asked after the ACL, which carries
	 * mode bits.)  A mode that cannot be given is not the caller's
	 * request (SC_COPY_KEEP_MODE sets the source's after this): the
	 * copy, whole, still replaces the old file, and the event says
	 * what it did not take (issue 37: on such a filesystem every
	 * atomic copy was thrown away). */
	if (fstat(out, &now) < 0)
		goto fail;
	if ((now.st_mode & 07777) == mode)
		return 0;
	if (fchmod(out, mode) < 0) {
		sc_report_add(rep, SC_EV_OLD_MODE, -(errno ? errno : EPERM),
			      false, false);
		return 0;
	}
	/* Overwritten in place, the old file lost its set-user-ID bit, and
	 * its set-group-ID bit where the group may execute, unless the
	 * writer has CAP_FSETID (should_remove_suid(), since Linux 2.6; in
	 * a user namespace root does not count).  A truncation to the size
	 * it has makes the kernel decide it for the new inode as it did for
	 * the old one. */
	if ((mode & (S_ISUID | S_ISGID)) &&
	    (fstat(out, &now) < 0 || ftruncate(out, now.st_size) < 0))
		goto fail;
	return 0;
fail:
	{
		int err = errno ? errno : EPERM;

		sc_report_add(rep, SC_EV_OLD_MODE, -err, true, true);
		return -err;
	}
}
