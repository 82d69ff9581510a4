/* --preserve: what cp keeps of a source besides its bytes.  libattr and
 * libacl do the copying of xattrs and ACLs; the order, the fallbacks and
 * which failures count are cp's. */
#include "system.h"
#include "attrs.h"
#include "paths.h"
#include "quote.h"

#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/xattr.h>
#include <acl/libacl.h>
#include <attr/error_context.h>
#include <attr/libattr.h>

mode_t sc_attrs_omitted(const struct sc_options *o, mode_t src_mode)
{
	return src_mode & 07777 &
	       (o->preserve_ownership ? (mode_t)(S_IRWXG | S_IRWXO) :
		S_ISDIR(src_mode) ? (mode_t)(S_IWGRP | S_IWOTH) : 0);
}

bool sc_attrs_match(const struct sc_options *o, const struct stat *s,
		    const struct stat *d)
{
	return (!o->preserve_mode ||
		(s->st_mode & 07777) == (d->st_mode & 07777)) &&
	       (!o->preserve_ownership ||
		(s->st_uid == d->st_uid && s->st_gid == d->st_gid)) &&
	       (!o->preserve_timestamps ||
		(s->st_mtim.tv_sec == d->st_mtim.tv_sec &&
		 s->st_mtim.tv_nsec == d->st_mtim.tv_nsec));
}

/* --- libattr's and libacl's error contexts ------------------------------ */

/* What attr_copy_fd() is handed: an error context that also carries the
 * run's xattr.conf rules, for the check it calls on every name (libattr
 * passes the context on to the check, and has no other argument for it),
 * and the messages of the thread that copies. */
struct attr_ctx {
	struct error_context ec;	/* first: the callbacks cast back */
	const struct sc_xattr_rules *rules;
	struct sc_msgs *msgs;
	/* the names libattr was handed, and the paths they stand for in
	 * messages (they differ past PATH_MAX: see sc_at_name()) */
	const char *src_name, *src_path, *dst_name, *dst_path;
};

/* Which failures are said follows cp: all of them for --preserve=xattr
 * (or --attributes-only), all but "not supported" for --preserve=all,
 * none for -a. */
static void ctx_error_some(struct error_context *ctx, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	if (err == ENOTSUP || err == ENOSYS)
		return;
	va_start(ap, fmt);
	sc_report_verror(((struct attr_ctx *)ctx)->msgs, false, err, fmt, ap);
	va_end(ap);
}

static void ctx_error_all(struct error_context *ctx, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	sc_report_verror(((struct attr_ctx *)ctx)->msgs, false, err, fmt, ap);
	va_end(ap);
}

static void ctx_error_none(struct error_context *ctx, const char *fmt, ...)
{
	(void)ctx;
	(void)fmt;
}

static const char *ctx_quote(struct error_context *ctx, const char *name)
{
	const struct attr_ctx *a = (const struct attr_ctx *)ctx;

	if (a->src_name && !strcmp(name, a->src_name))
		name = a->src_path;
	else if (a->dst_name && !strcmp(name, a->dst_name))
		name = a->dst_path;
	return sc_quote(name);
}

static void ctx_quote_free(struct error_context *ctx, const char *name)
{
	(void)ctx;
	(void)name;
}

static const struct error_context ctx_all = {
	ctx_error_all, ctx_quote, ctx_quote_free
};
static const struct error_context ctx_some = {
	ctx_error_some, ctx_quote, ctx_quote_free
};
/* libacl's failures are told by its return value, and said by us */
static struct attr_ctx quiet_actx = {
	.ec = { ctx_error_none, ctx_quote, ctx_quote_free }
};
#define quiet_ctx (quiet_actx.ec)

/* libattr's attr_copy_check_permissions() with rules read once: copy
 * what no rule names.  A file that could not be read or parsed is
 * reported for every attribute, and every attribute is copied, as
 * libattr does (and so cp). */
static int xattr_wanted(const char *name, struct error_context *ctx)
{
	const struct attr_ctx *a = (const struct attr_ctx *)ctx;
	int err = sc_xattr_rules_error(a->rules);

	if (err) {
		const char *q = a->ec.quote(ctx, sc_xattr_rules_path(a->rules));

		errno = err;
		a->ec.error(ctx, "%s", q);
		a->ec.quote_free(ctx, q);
	}
	return sc_xattr_rules_action(a->rules, name) == SC_XATTR_COPY;
}

/* --- the phases of sc_attrs_set() ----------------------------------------- */

/* A failure to keep an attribute: said as a warning, counted only with
 * --preserve=... (require_preserve).  Returns what rc becomes. */
static int __attribute__((format(printf, 3, 4)))
lost(const struct sc_attrs_env *env, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sc_report_verror(env->msgs, false, err, fmt, ap);
	va_end(ap);
	return env->o->require_preserve ? -1 : 0;
}

/* A directory open as AT->dirfd (O_PATH) by its own /proc link, for
 * calls that follow links (chmod, libacl's): unlike "." in it
 * (sc_at_name(), for libattr's l*xattr calls), it wants no search
 * permission in the directory, which its owner loses once the mode or an
 * ACL without x for it is set.  NULL for anything else. */
static const char *dir_link_name(const struct sc_at *at, char *buf,
				 size_t size)
{
	if (at->dirfd >= 0 && !strcmp(at->name, ".") &&
	    snprintf(buf, size, "/proc/self/fd/%d", at->dirfd) < (int)size)
		return buf;
	return NULL;
}

static int fchmod_or_chmod(int out, const struct sc_at *dst, mode_t mode)
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

static int keep_times(const struct sc_attrs_env *env, int out,
		      const struct sc_at *dst, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int r = out >= 0 ? futimens(out, ts) :
		utimensat(dst->dirfd, dst->name, ts, AT_SYMLINK_NOFOLLOW);

	if (r < 0)
		return lost(env, errno, _("preserving times for %s"),
			    sc_quote(dst->path));
	return 0;
}

/* The owner and group of ST.  *SRC_MODE loses its set-id bits when the
 * owner could not be kept (*OWNER_LOST).  -1 when the run must stop here
 * for this file (a mode that could not be narrowed first), 0, or 1 when
 * a failure counts but the other attributes are still to be set. */
static int keep_owner(const struct sc_attrs_env *env, int out,
		      const struct sc_at *dst, const struct stat *st,
		      const struct sc_made *m, mode_t *src_mode,
		      bool *owner_lost)
{
	const struct sc_options *o = env->o;
	struct stat now;
	int r;

	if (!m->created && m->have_old && o->preserve_mode &&
	    !S_ISLNK(st->st_mode)) {
		/* Owner first would open a window with the old mode: narrow
		 * it to what both allow the owner. */
		mode_t tmp = m->old_mode & *src_mode & S_IRWXU;

		if (fchmod_or_chmod(out, dst, tmp) < 0 &&
		    (env->privileged || errno != EPERM) &&
		    lost(env, errno, _("clearing permissions for %s"),
			 sc_quote(dst->path)) < 0)
			return -1;
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

	int err = errno, rc = 0;

	if (err == EPERM || err == EINVAL)
		/* keep the group, if we may */
		(void)!(out >= 0 ? fchown(out, (uid_t)-1, st->st_gid) :
			fchownat(dst->dirfd, dst->name, (uid_t)-1, st->st_gid,
				 AT_SYMLINK_NOFOLLOW));
	if (env->privileged || (err != EPERM && err != EINVAL))
		rc = lost(env, err, _("failed to preserve ownership for %s"),
			  sc_quote(dst->path)) < 0;
	/* Not the source's owner: no set-id bits for them. */
	*src_mode &= ~(mode_t)(S_ISUID | S_ISGID | S_ISVTX);
	*owner_lost = true;
	return rc;
}

static int keep_xattrs(const struct sc_attrs_env *env, int in, int out,
		       const struct sc_at *src, const struct sc_at *dst)
{
	const struct sc_options *o = env->o;
	bool all = o->attributes_only || o->require_preserve_xattr;
	char sbuf[SC_AT_NAME_SIZE], dbuf[SC_AT_NAME_SIZE];
	struct attr_ctx actx = {
		.ec = all ? ctx_all :
		      o->reduce_diagnostics ? quiet_ctx : ctx_some,
		.rules = env->xattr_rules,
		.msgs = env->msgs,
		.src_path = src->path, .dst_path = dst->path,
	};
	int r;

	/* /etc/xattr.conf decides: ACLs and other "permissions" attributes
	 * are left to perm_copy (keep_mode), SELinux and NFSv4 bookkeeping
	 * are skipped. */
	if (out >= 0 && in >= 0) {
		r = attr_copy_fd(src->path, in, dst->path, out, xattr_wanted,
				 &actx.ec);
	} else {
		/* libattr takes names only: past PATH_MAX, names through
		 * /proc that messages still call by their paths */
		actx.src_name = sc_at_name(src, sbuf, sizeof(sbuf));
		actx.dst_name = sc_at_name(dst, dbuf, sizeof(dbuf));
		if (!actx.src_name || !actx.dst_name) {
			r = -1;	/* an operand past PATH_MAX: no file */
		} else {
			r = attr_copy_file(actx.src_name, actx.dst_name,
					   xattr_wanted, &actx.ec);
		}
	}
	return r != 0 && o->require_preserve_xattr ? -1 : 0;
}

/* --preserve=mode: mode and POSIX ACLs together, as cp -p does; an ACL
 * carries the rwx bits only, so set-id and sticky bits need a chmod.
 * KEPT: special bits creation gave, which cp's ACL calls keep. */
static int keep_mode(const struct sc_attrs_env *env, int in, int out,
		     const struct sc_at *src, const struct sc_at *dst,
		     const struct stat *st, mode_t src_mode, bool owner_lost,
		     mode_t kept)
{
	char sbuf[SC_AT_NAME_SIZE], dbuf[SC_AT_NAME_SIZE];
	const char *sname = src->path, *dname = dst->path;
	int acl_err, r;

	if (out < 0 || in < 0) {
		sname = sc_at_name(src, sbuf, sizeof(sbuf));
		dname = dir_link_name(dst, dbuf, sizeof(dbuf));
		if (!dname)
			dname = sc_at_name(dst, dbuf, sizeof(dbuf));
	}
	if (!sname || !dname)
		r = -1;		/* errno ENAMETOOLONG: the chmod below */
	else
		r = out >= 0 && in >= 0 ?
		    perm_copy_fd(sname, in, dname, out, &quiet_ctx) :
		    perm_copy_file(sname, dname, &quiet_ctx);
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
		/* cp's ACL code quotes this name with quote() */
		return lost(env, r != 0 ? errno : acl_err,
			    _("preserving permissions for %s"),
			    sc_quote_locale(dst->path));
	return 0;
}

/* --no-preserve=mode: what a new file gets by default. */
static int default_mode(const struct sc_attrs_env *env, int out,
			const struct sc_at *dst, mode_t src_mode, mode_t kept)
{
	mode_t def = ((S_ISDIR(src_mode) || S_ISSOCK(src_mode) ?
		       0777 : 0666) & ~env->umask) | kept;

	if (fchmod_or_chmod(out, dst, def) != 0) {
		/* cp's words here (its set_acl), quoted with quote() */
		sc_report_error(env->msgs, errno,
				_("setting permissions for %s"),
				sc_quote_locale(dst->path));
		return -1;
	}
	return 0;
}

/* No mode to keep: the bits held back at creation go back on. */
static int restore_mode(const struct sc_attrs_env *env, int out,
			const struct sc_at *dst, mode_t src_mode,
			struct sc_made *m)
{
	if (S_ISREG(src_mode) || out >= 0) {
		/* a file made with bits held back or u+w added: now the mode
		 * it would have had, less the umask */
		mode_t mode = src_mode & 0777 & ~env->umask;

		if (((m->omitted & ~env->umask) | m->extra) &&
		    fchmod_or_chmod(out, dst, mode) < 0)
			return lost(env, errno,
				    _("preserving permissions for %s"),
				    sc_quote(dst->path));
		return 0;
	}
	m->omitted &= ~env->umask;
	if (m->omitted && !m->restore) {
		/* the mode creation gave (an inherited set-gid bit stays) */
		if (!m->mode_known) {
			struct stat now;

			if (fstatat(dst->dirfd, dst->name, &now,
				    AT_SYMLINK_NOFOLLOW) < 0) {
				sc_report_error(env->msgs, errno,
						_("cannot stat %s"),
						sc_quote(dst->path));
				return -1;
			}
			m->mode = now.st_mode;
		}
		if (m->omitted & ~m->mode)
			m->restore = true;
	}
	if (m->restore && fchmod_or_chmod(-1, dst,
					  (m->mode | m->omitted) & 07777) < 0)
		return lost(env, errno, _("preserving permissions for %s"),
			    sc_quote(dst->path));
	return 0;
}

int sc_attrs_set(const struct sc_attrs_env *env, int in, int out,
		 const struct sc_at *src, const struct sc_at *dst,
		 const struct stat *st, struct sc_made *m)
{
	const struct sc_options *o = env->o;
	mode_t src_mode = st->st_mode;
	/* special bits creation gave (a directory's sticky bit, a set-gid
	 * bit inherited from its parent), which cp's ACL calls keep */
	mode_t kept = m->created && m->mode_known ? m->mode & 07000 : 0;
	bool owner_lost = false;
	int rc = 0, r;

	if (o->preserve_timestamps && keep_times(env, out, dst, st) < 0)
		rc = -1;
	if (o->preserve_ownership) {
		r = keep_owner(env, out, dst, st, m, &src_mode, &owner_lost);
		if (r < 0)
			return -1;
		if (r > 0)
			rc = -1;
	}
	if (o->preserve_xattr && keep_xattrs(env, in, out, src, dst) < 0)
		rc = -1;
	if (S_ISLNK(st->st_mode))
		return rc;
	if (o->preserve_mode)
		r = keep_mode(env, in, out, src, dst, st, src_mode, owner_lost,
			      kept);
	else if (o->explicit_no_preserve_mode && m->created)
		r = default_mode(env, out, dst, src_mode, kept);
	else
		r = restore_mode(env, out, dst, src_mode, m);
	return r < 0 ? -1 : rc;
}

int sc_attrs_set_parent(const struct sc_attrs_env *env, const char *src,
			const char *dst, const struct stat *st, bool restore)
{
	const struct sc_options *o = env->o;

	if (o->preserve_timestamps) {
		struct timespec ts[2] = { st->st_atim, st->st_mtim };

		if (utimensat(AT_FDCWD, dst, ts, 0) < 0) {
			sc_report_error(env->msgs, errno,
					_("failed to preserve times for %s"),
					sc_quote(dst));
			return -1;
		}
	}
	if (o->preserve_ownership &&
	    lchown(dst, st->st_uid, st->st_gid) < 0) {
		if (env->privileged || (errno != EPERM && errno != EINVAL)) {
			sc_report_error(env->msgs, errno,
					_("failed to preserve ownership for %s"),
					sc_quote(dst));
			return -1;
		}
		(void)!lchown(dst, (uid_t)-1, st->st_gid);
	}
	if (o->preserve_mode) {
		if ((perm_copy_file(src, dst, &quiet_ctx) != 0 ||
		     (st->st_mode & 07000)) &&
		    chmod(dst, st->st_mode & 07777) < 0) {
			sc_report_error(env->msgs, errno,
					_("preserving permissions for %s"),
					sc_quote(dst));
			return -1;
		}
	} else if (restore && chmod(dst, st->st_mode & 07777) < 0) {
		sc_report_error(env->msgs, errno,
				_("failed to preserve permissions for %s"),
				sc_quote(dst));
		return -1;
	}
	return 0;
}

/* --- --atomic: the temporary in the old file's place --------------------- */

/* The extended attributes of OLD (open as OLD_FD) onto OUT, as the old
 * file would have kept them through an overwrite in place.  security.*
 * stays as the new inode got it: the label is the LSM's to give (cp
 * sets no SELinux context either), and security.capability is the one
 * a write removes.  An ACL the new inode inherited from its directory's
 * default ACL goes when the old file had none.  Failures are said as
 * libattr says them, and do not fail the copy. */
static void keep_old_xattrs(const struct sc_attrs_env *env, int out,
			    int old_fd, const struct sc_at *old)
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
		if (errno != ENOTSUP && errno != ENOSYS)
			sc_report_warning(env->msgs, errno,
					  _("listing attributes of %s"),
					  sc_quote(old->path));
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
			sc_report_warning(env->msgs, errno,
					  _("getting attribute %s of %s"),
					  sc_quote(n), sc_quote(old->path));
			continue;
		}
		if (fsetxattr(out, n, value, (size_t)v, 0) < 0 &&
		    errno != ENOTSUP)
			sc_report_warning(env->msgs, errno,
					  _("setting attribute %s for %s"),
					  sc_quote(n), sc_quote(old->path));
	}
	free(value);
	if (!had_acl && fremovexattr(out, "system.posix_acl_access") < 0 &&
	    errno != ENODATA && errno != ENOTSUP && errno != ENOSYS)
		sc_report_warning(env->msgs, errno,
				  _("setting permissions for %s"),
				  sc_quote_locale(old->path));
}

int sc_attrs_take_old(const struct sc_attrs_env *env, int out,
		      const struct sc_at *old, const struct stat *old_st)
{
	_cleanup_close_ int old_fd = -1;
	mode_t mode = old_st->st_mode & 07777;
	struct stat now, st;

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
		keep_old_xattrs(env, out, old_fd, old);
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
	sc_report_error(env->msgs, errno, _("setting permissions for %s"),
			sc_quote_locale(old->path));
	return -1;
}
