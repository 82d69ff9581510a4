/* Metadata: what cp -p keeps of a source besides its bytes.  libattr and
 * libacl do the copying of xattrs and ACLs; the order, the fallbacks and
 * which failures count are cp's.  Nothing is said here: every failure is
 * an event of the report, and the program decides what to print (smartcp
 * words them as cp does, src/attrs.c). */
#include "common.h"
#include "copier.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <acl/libacl.h>
#include <attr/error_context.h>
#include <attr/libattr.h>

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

/* What one application of the metadata needs. */
struct meta {
	struct sc_copier *c;
	struct sc_copy_report *rep;
	bool strict;		/* SC_COPY_META_STRICT: failures count */
};

/* A failure to keep an attribute: an event (a warning in cp's words),
 * which counts only with SC_COPY_META_STRICT.  Returns 0, or the -errno
 * it counts as. */
static int lost(const struct meta *mt, enum sc_event_kind kind, int err)
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

/* A name of AT for the calls that only take one (libattr, libacl): the
 * name itself when it is relative to the working directory, else
 * /proc/self/fd/DIRFD/NAME ("." the directory itself), which /proc
 * resolves through the open descriptor, whatever the depth.  NULL
 * (ENAMETOOLONG) when it does not fit. */
static const char *at_name(const struct sc_meta_at *at, char *buf,
			   size_t size)
{
	if (at->dirfd == AT_FDCWD)
		return at->name;
	if (snprintf(buf, size, "/proc/self/fd/%d/%s", at->dirfd,
		     at->name) < (int)size)
		return buf;
	errno = ENAMETOOLONG;
	return NULL;
}

/* --- libattr's error context -------------------------------------------- */

/* What attr_copy_fd() is handed: an error context that also carries the
 * copier's xattr.conf rules, for the check it calls on every name
 * (libattr passes the context on to the check, and has no other argument
 * for it), and the report its failures go to. */
struct attr_ctx {
	struct error_context ec;	/* first: the callbacks cast back */
	const struct sc_xattr_rules *rules;
	struct sc_copy_report *rep;
	bool strict;
	unsigned events;	/* xattr events this call added */
	/* the names libattr was handed: quoted, they come back as the
	 * arguments of its messages, and tell which file a message names */
	const char *src_name, *dst_name;
};

/* libattr's message: FMT (its translation) and its arguments, the names
 * quote() gave back: the files, by which one they are, and the
 * attribute's name, kept. */
static void ctx_error(struct error_context *ctx, const char *fmt, ...)
{
	struct attr_ctx *a = (struct attr_ctx *)ctx;
	int err = errno;
	struct sc_ev *ev = sc_report_add(a->rep, SC_EV_META_XATTR, -err,
					 a->strict, false);
	const char *p = fmt;
	va_list ap;

	a->events++;
	if (!ev)
		return;
	ev->format = fmt;
	ev->which = -1;
	va_start(ap, fmt);
	/* libattr's formats take strings only ("setting attribute %s for
	 * %s"): as many arguments as "%s" */
	while ((p = strstr(p, "%s"))) {
		const char *arg = va_arg(ap, const char *);

		p += 2;
		if (arg == a->src_name)
			ev->which = 0;
		else if (arg == a->dst_name)
			ev->which = 1;
		else if (arg)
			sc_report_attr(a->rep, ev, arg);
	}
	va_end(ap);
	errno = err;
}

static const char *ctx_quote(struct error_context *ctx, const char *name)
{
	(void)ctx;
	return name;
}

static void ctx_quote_free(struct error_context *ctx, const char *name)
{
	(void)ctx;
	(void)name;
}

static void ctx_none(struct error_context *ctx, const char *fmt, ...)
{
	(void)ctx;
	(void)fmt;
}

/* libacl's failures are told by its return value, and reported by us */
static struct error_context quiet_ctx = { ctx_none, ctx_quote,
					  ctx_quote_free };

/* libattr's attr_copy_check_permissions() with rules read once: copy
 * what no rule names.  A file that could not be read or parsed is
 * reported for every attribute, and every attribute is copied, as
 * libattr does (and so cp). */
static int xattr_wanted(const char *name, struct error_context *ctx)
{
	struct attr_ctx *a = (struct attr_ctx *)ctx;
	int err = sc_xattr_rules_error(a->rules);

	if (err) {
		struct sc_ev *ev = sc_report_add(a->rep, SC_EV_META_XATTR_CONF,
						 -err, false, false);

		if (ev) {
			ev->format = "%s";
			sc_report_attr(a->rep, ev,
				       sc_xattr_rules_path(a->rules));
		}
	}
	return sc_xattr_rules_action(a->rules, name) == SC_XATTR_COPY;
}

/* --- the steps of sc_meta_apply() ------------------------------------------ */

/* A directory open as AT->dirfd (O_PATH) by its own /proc link, for
 * calls that follow links (chmod, libacl's): unlike "." in it (at_name(),
 * for libattr's l*xattr calls), it wants no search permission in the
 * directory, which its owner loses once the mode or an ACL without x for
 * it is set.  NULL for anything else. */
static const char *dir_link_name(const struct sc_meta_at *at, char *buf,
				 size_t size)
{
	if (at->dirfd >= 0 && !strcmp(at->name, ".") &&
	    snprintf(buf, size, "/proc/self/fd/%d", at->dirfd) < (int)size)
		return buf;
	return NULL;
}

static int fchmod_or_chmod(int out, const struct sc_meta_at *dst,
			   mode_t mode)
{
	char buf[48];

	if (out >= 0)
		return fchmod(out, mode);
	/* "." in the directory where /proc is missing */
	if (dir_link_name(dst, buf, sizeof(buf))) {
		if (fchmodat(AT_FDCWD, buf, mode, 0) == 0)
			return 0;
		if (errno != ENOENT)
			return -1;
	}
	return fchmodat(dst->dirfd, dst->name, mode, 0);
}

static int keep_times(const struct meta *mt, int out,
		      const struct sc_meta_at *dst, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int r = out >= 0 ? futimens(out, ts) :
		utimensat(dst->dirfd, dst->name, ts, AT_SYMLINK_NOFOLLOW);

	return r < 0 ? lost(mt, SC_EV_META_TIMES, errno) : 0;
}

/* The owner and group of ST.  *SRC_MODE loses its set-id bits when the
 * owner could not be kept (*OWNER_LOST).  -errno when the copy must stop
 * here for this file (a mode that could not be narrowed first, counted),
 * 0, or 1 when a failure counts but the other attributes are still to
 * be set (*RC its -errno).  Failures an unprivileged caller meets by
 * design (EPERM, EINVAL) are events that count for nothing, as cp does
 * not say them. */
static int keep_owner(const struct meta *mt, int out,
		      const struct sc_meta_at *dst, const struct stat *st,
		      const struct sc_made *m, mode_t *src_mode,
		      bool *owner_lost, int *rc)
{
	struct stat now;
	int r;

	if (!m->created && m->have_old &&
	    (mt->c->flags & SC_COPY_KEEP_MODE) && !S_ISLNK(st->st_mode)) {
		/* Owner first would open a window with the old mode: narrow
		 * it to what both allow the owner. */
		mode_t tmp = m->old_mode & *src_mode & S_IRWXU;

		if (fchmod_or_chmod(out, dst, tmp) < 0) {
			int err = errno;

			if (sc_copier_privileged(mt->c) || err != EPERM) {
				r = lost(mt, SC_EV_META_NARROW, err);
				if (r < 0)
					return r;
			} else {
				sc_report_add(mt->rep, SC_EV_META_NARROW, -err,
					      false, false);
			}
		}
	}
	/* A file that already has the owner and group (made by their owner,
	 * or by root from root's files) is left alone, as cp does:
	 * filesystems without chown (FAT through FUSE) say ENOSYS even to a
	 * chown that changes nothing. */
	if (out >= 0 && fstat(out, &now) == 0 &&
	    now.st_uid == st->st_uid && now.st_gid == st->st_gid)
		return 0;
	r = out >= 0 ? fchown(out, st->st_uid, st->st_gid) :
	    fchownat(dst->dirfd, dst->name, st->st_uid, st->st_gid,
		     AT_SYMLINK_NOFOLLOW);
	if (r == 0)
		return 0;

	int err = errno, ret = 0;

	if (err == EPERM || err == EINVAL)
		/* keep the group, if we may */
		(void)!(out >= 0 ? fchown(out, (uid_t)-1, st->st_gid) :
			fchownat(dst->dirfd, dst->name, (uid_t)-1, st->st_gid,
				 AT_SYMLINK_NOFOLLOW));
	if (sc_copier_privileged(mt->c) || (err != EPERM && err != EINVAL)) {
		*rc = lost(mt, SC_EV_META_OWNER, err);
		ret = *rc < 0;
	} else {
		sc_report_add(mt->rep, SC_EV_META_OWNER, -err, false, false);
	}
	/* Not the source's owner: no set-id bits for them. */
	*src_mode &= ~(mode_t)(S_ISUID | S_ISGID | S_ISVTX);
	*owner_lost = true;
	return ret;
}

static int keep_xattrs(const struct meta *mt, int in, int out,
		       const struct sc_meta_at *src,
		       const struct sc_meta_at *dst)
{
	bool strict = mt->c->flags & SC_COPY_XATTR_STRICT;
	char sbuf[64 + NAME_MAX], dbuf[64 + NAME_MAX];
	struct attr_ctx actx = {
		.ec = { ctx_error, ctx_quote, ctx_quote_free },
		.rules = sc_copier_rules(mt->c),
		.rep = mt->rep,
		.strict = strict,
	};
	int r, err;

	actx.src_name = at_name(src, sbuf, sizeof(sbuf));
	actx.dst_name = at_name(dst, dbuf, sizeof(dbuf));
	/* /etc/xattr.conf decides: ACLs and other "permissions" attributes
	 * are left to perm_copy (keep_mode), SELinux and NFSv4 bookkeeping
	 * are skipped.  Through descriptors when they are open (libattr
	 * takes the names only for its messages). */
	if (out >= 0 && in >= 0) {
		if (!actx.src_name)
			actx.src_name = "";
		if (!actx.dst_name)
			actx.dst_name = " ";
		r = attr_copy_fd(actx.src_name, in, actx.dst_name, out,
				 xattr_wanted, &actx.ec);
	} else if (!actx.src_name || !actx.dst_name) {
		r = -1;		/* no name to hand libattr */
	} else {
		r = attr_copy_file(actx.src_name, actx.dst_name, xattr_wanted,
				   &actx.ec);
	}
	err = errno ? errno : EIO;
	if (r != 0 && !actx.events)
		/* failed without a word (a name that does not fit): still an
		 * event, with no message of libattr's */
		sc_report_add(mt->rep, SC_EV_META_XATTR, -err, strict, false);
	return r != 0 && strict ? -err : 0;
}

/* SC_COPY_KEEP_MODE: mode and POSIX ACLs together, as cp -p does; an ACL
 * carries the rwx bits only, so set-id and sticky bits need a chmod.
 * KEPT: special bits creation gave, which cp's ACL calls keep. */
static int keep_mode(const struct meta *mt, int in, int out,
		     const struct sc_meta_at *src,
		     const struct sc_meta_at *dst, const struct stat *st,
		     mode_t src_mode, bool owner_lost, mode_t kept)
{
	char sbuf[64 + NAME_MAX], dbuf[64 + NAME_MAX];
	const char *sname = at_name(src, sbuf, sizeof(sbuf));
	const char *dname = dir_link_name(dst, dbuf, sizeof(dbuf));
	int acl_err, r;

	if (!dname)
		dname = at_name(dst, dbuf, sizeof(dbuf));
	if (out >= 0 && in >= 0)
		r = perm_copy_fd(sname ? sname : "", in, dname ? dname : "",
				 out, &quiet_ctx);
	else if (!sname || !dname)
		r = -1;		/* errno ENAMETOOLONG: the chmod below */
	else
		r = perm_copy_file(sname, dname, &quiet_ctx);
	/* libacl falls back to the mode bits by itself where the ACL is only
	 * those; a failure here is an ACL that was lost, even if the chmod
	 * below gets the bits right */
	acl_err = r != 0 ? errno : 0;
	/* ... but a destination without ACLs (ramfs, FAT) loses nothing when
	 * the source has none: libacl still fails removing a directory's
	 * default ACL there, cp does not */
	if ((acl_err == EOPNOTSUPP || acl_err == ENOSYS) &&
	    (in >= 0 ? acl_extended_fd(in) :
	     sname ? acl_extended_file(sname) : -1) == 0)
		acl_err = 0;
	if (r != 0 || (st->st_mode & 07000)) {
		mode_t mode = owner_lost ? (src_mode & 0777) | kept :
			      src_mode & 07777;

		r = fchmod_or_chmod(out, dst, mode);
	}
	if (r != 0 || acl_err)
		return lost(mt, SC_EV_META_MODE, r != 0 ? errno : acl_err);
	return 0;
}

/* SC_COPY_DEFAULT_MODE: what a new file gets by default. */
static int default_mode(const struct meta *mt, int out,
			const struct sc_meta_at *dst, mode_t src_mode,
			mode_t kept)
{
	mode_t def = ((S_ISDIR(src_mode) || S_ISSOCK(src_mode) ?
		       0777 : 0666) & ~sc_copier_umask(mt->c)) | kept;

	if (fchmod_or_chmod(out, dst, def) != 0)
		return failed(mt, SC_EV_META_DEFAULT_MODE, errno);
	return 0;
}

/* No mode to keep: the bits held back at creation go back on. */
static int restore_mode(const struct meta *mt, int out,
			const struct sc_meta_at *dst, mode_t src_mode,
			struct sc_made *m)
{
	if (S_ISREG(src_mode) || out >= 0) {
		/* a file made with bits held back or u+w added: now the mode
		 * it would have had, less the umask (asked only then) */
		if ((m->omitted || m->extra) &&
		    ((m->omitted & ~sc_copier_umask(mt->c)) | m->extra) &&
		    fchmod_or_chmod(out, dst, src_mode & 0777 &
				    ~sc_copier_umask(mt->c)) < 0)
			return lost(mt, SC_EV_META_RESTORE, errno);
		return 0;
	}
	if (m->omitted)
		m->omitted &= ~sc_copier_umask(mt->c);
	if (m->omitted && !m->restore) {
		/* the mode creation gave (an inherited set-gid bit stays) */
		if (!m->mode_known) {
			struct stat now;

			if (fstatat(dst->dirfd, dst->name, &now,
				    AT_SYMLINK_NOFOLLOW) < 0)
				return failed(mt, SC_EV_META_STAT, errno);
			m->mode = now.st_mode;
		}
		if (m->omitted & ~m->mode)
			m->restore = true;
	}
	if (m->restore && fchmod_or_chmod(-1, dst,
					  (m->mode | m->omitted) & 07777) < 0)
		return lost(mt, SC_EV_META_RESTORE, errno);
	return 0;
}

int sc_meta_apply(struct sc_copier *c, struct sc_copy_report *rep, int in,
		  int out, const struct sc_meta_at *src,
		  const struct sc_meta_at *dst, const struct stat *st,
		  struct sc_made *m)
{
	const struct meta mt = {
		.c = c, .rep = rep,
		.strict = c->flags & SC_COPY_META_STRICT,
	};
	mode_t src_mode = st->st_mode;
	/* special bits creation gave (a directory's sticky bit, a set-gid
	 * bit inherited from its parent), which cp's ACL calls keep */
	mode_t kept = m->created && m->mode_known ? m->mode & 07000 : 0;
	bool owner_lost = false;
	int rc = 0, r;

	if ((c->flags & SC_COPY_KEEP_TIMES) &&
	    (r = keep_times(&mt, out, dst, st)) < 0)
		rc = r;
	if (c->flags & SC_COPY_KEEP_OWNER) {
		int orc = 0;

		r = keep_owner(&mt, out, dst, st, m, &src_mode, &owner_lost,
			       &orc);
		if (r < 0)
			return r;
		if (r > 0 && !rc)
			rc = orc;
	}
	if ((c->flags & SC_COPY_KEEP_XATTR) &&
	    (r = keep_xattrs(&mt, in, out, src, dst)) < 0 && !rc)
		rc = r;
	if (S_ISLNK(st->st_mode))
		return rc;
	if (c->flags & SC_COPY_KEEP_MODE)
		r = keep_mode(&mt, in, out, src, dst, st, src_mode, owner_lost,
			      kept);
	else if ((c->flags & SC_COPY_DEFAULT_MODE) && m->created)
		r = default_mode(&mt, out, dst, src_mode, kept);
	else
		r = restore_mode(&mt, out, dst, src_mode, m);
	return r < 0 ? r : rc;
}

int sc_meta_parent(struct sc_copier *c, struct sc_copy_report *rep,
		   const char *src, const char *dst, const struct stat *st,
		   bool restore)
{
	const struct meta mt = { .c = c, .rep = rep, .strict = true };

	if (c->flags & SC_COPY_KEEP_TIMES) {
		struct timespec ts[2] = { st->st_atim, st->st_mtim };

		if (utimensat(AT_FDCWD, dst, ts, 0) < 0)
			return failed(&mt, SC_EV_PARENT_TIMES, errno);
	}
	if ((c->flags & SC_COPY_KEEP_OWNER) &&
	    lchown(dst, st->st_uid, st->st_gid) < 0) {
		int err = errno;

		if (sc_copier_privileged(c) || (err != EPERM && err != EINVAL))
			return failed(&mt, SC_EV_PARENT_OWNER, err);
		sc_report_add(rep, SC_EV_PARENT_OWNER, -err, false, false);
		(void)!lchown(dst, (uid_t)-1, st->st_gid);
	}
	if (c->flags & SC_COPY_KEEP_MODE) {
		if ((perm_copy_file(src, dst, &quiet_ctx) != 0 ||
		     (st->st_mode & 07000)) &&
		    chmod(dst, st->st_mode & 07777) < 0)
			return failed(&mt, SC_EV_PARENT_MODE, errno);
	} else if (restore && chmod(dst, st->st_mode & 07777) < 0) {
		return failed(&mt, SC_EV_PARENT_RESTORE, errno);
	}
	return 0;
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
		v = getxattr(proc, n, NULL, 0);
		if (v >= 0 && (size_t)v > cap) {
			char *nv = realloc(value, (size_t)v);

			if (!nv) {
				errno = ENOMEM;
				v = -1;
			} else {
				value = nv;
				cap = (size_t)v;
			}
		}
		if (v > 0)
			v = getxattr(proc, n, value, cap);
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
	if (fchmod(out, mode) < 0)
		goto fail;
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
