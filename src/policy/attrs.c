/* --preserve: which metadata failures cp says, and how.  The mechanism
 * (the order, the fallbacks, libattr and libacl) is libsmartcp's
 * (lib/meta.c); each failure comes back as an event, said here exactly
 * as cp says it, or not said where cp is silent.  Whether it fails the
 * entry is the library's answer (SC_COPY_META_STRICT, XATTR_STRICT: cp's
 * --preserve=... against -p and -a). */
#include "system.h"
#include "policy/attrs.h"
#include "output/quote.h"

#include <string.h>

unsigned sc_attrs_copier_flags(const struct sc_options *o)
{
	return (o->verify ? SC_COPY_VERIFY : 0) |
	       (o->sync ? SC_COPY_SYNC : 0) |
	       (o->atomic ? SC_COPY_ATOMIC : 0) |
	       (o->if_changed ? SC_COPY_IF_CHANGED : 0) |
	       (o->allow_changing_source ? SC_COPY_LIVE_SOURCE : 0) |
	       (o->attributes_only ? SC_COPY_NO_DATA : 0) |
	       (o->preserve_mode ? SC_COPY_KEEP_MODE : 0) |
	       (o->preserve_ownership ? SC_COPY_KEEP_OWNER : 0) |
	       (o->preserve_timestamps ? SC_COPY_KEEP_TIMES : 0) |
	       (o->preserve_xattr ? SC_COPY_KEEP_XATTR : 0) |
	       (o->explicit_no_preserve_mode ? SC_COPY_DEFAULT_MODE : 0) |
	       (o->require_preserve ? SC_COPY_META_STRICT : 0) |
	       (o->require_preserve_xattr ? SC_COPY_XATTR_STRICT : 0);
}

/* Says WHAT about A (and B): an error when FAIL, else a warning. */
static void say(const struct sc_attrs_env *env, bool fail, int err,
		enum sc_fail what, const char *a, const char *b)
{
	if (fail)
		sc_report_fail(env->msgs, what, err, a, b);
	else
		sc_report_warn(env->msgs, what, err, a, b);
}

/* libattr's own message: FORMAT (translated in libattr's domain) with
 * one "%s" for the attribute when it names one, then one for the file,
 * each quoted as cp's error context quotes them.  Which failures are
 * said follows cp: all of them for --preserve=xattr (or
 * --attributes-only), all but "not supported" for --preserve=all, none
 * for -a. */
static void say_libattr(const struct sc_attrs_env *env,
			const struct sc_event *ev, const char *file)
{
	const struct sc_options *o = env->o;
	bool all = o->attributes_only || o->require_preserve_xattr;
	int err = -ev->err;
	const char *p = ev->format;
	int n = 0;

	if (!ev->format)
		return;		/* failed without a word of libattr's */
	if (!all && (o->reduce_diagnostics || err == ENOTSUP || err == ENOSYS))
		return;
	while ((p = strstr(p, "%s"))) {
		n++;
		p += 2;
	}
	/* xattr.conf's own failure names the file's path (ATTR) */
	if (ev->kind == SC_EV_META_XATTR_CONF && ev->attr)
		file = ev->attr;
	if (n >= 2)
		sc_report_verror_args(env->msgs, false, err, ev->format,
				      sc_quote(ev->attr ? ev->attr : ""),
				      sc_quote(file));
	else
		sc_report_verror_args(env->msgs, false, err, ev->format,
				      sc_quote(file), NULL);
}

/* Did the destination that was there have the source's owner and group
 * already, so that cp would not change them? */
static bool owner_already(const struct sc_attrs_env *env)
{
	return env->src_st && env->old_st &&
	       env->src_st->st_uid == env->old_st->st_uid &&
	       env->src_st->st_gid == env->old_st->st_gid;
}

/* The narrowing of an old destination's mode before its chown failed
 * (EV, ERR), said as cp says it.  cp narrows only before a chown: with
 * the owner already right it goes on to the mode, which the filesystem
 * refused here, and says that (here, where the library stopped; else
 * where the library tries the mode).  Where it narrows, its copy goes no
 * further when the preservation is required, said or not. */
static void say_narrow(struct sc_attrs_env *env, const struct sc_event *ev,
		       int err, const char *dst)
{
	if (owner_already(env)) {
		if (ev->fatal) {
			say(env, false, err, SC_FAIL_KEEP_MODE_ACL, dst, NULL);
			env->stopped = true;
		}
		return;
	}
	if (env->privileged || err != EPERM)
		say(env, false, err, SC_FAIL_CLEAR_MODE, dst, NULL);
	if (env->o->require_preserve)
		env->stopped = true;
}

/* EV if it is about the copy's own metadata (SC_EV_META_*): true when
 * it is, said as cp says it or not at all.  CHOWN_SAID: a failure to
 * change the owner is said. */
static bool say_meta(struct sc_attrs_env *env, const struct sc_event *ev,
		     int err, bool chown_said, const char *src,
		     const char *dst)
{
	switch (ev->kind) {
	case SC_EV_META_TIMES:
		say(env, false, err, SC_FAIL_KEEP_TIMES, dst, NULL);
		break;
	case SC_EV_META_NARROW:
		say_narrow(env, ev, err, dst);
		break;
	case SC_EV_META_OWNER:
		if (chown_said)
			say(env, false, err, SC_FAIL_OWNER, dst, NULL);
		/* cp's copy goes no further than a failed chown it says
		 * and must not pass (--preserve=ownership, -p, -a) */
		if (chown_said && ev->fatal)
			env->stopped = true;
		break;
	case SC_EV_META_XATTR:
	case SC_EV_META_XATTR_CONF:
		say_libattr(env, ev, ev->which == 0 ? src : dst);
		break;
	case SC_EV_META_MODE:
		/* cp's ACL code quotes this name with quote() */
		say(env, false, err, SC_FAIL_KEEP_MODE_ACL, dst, NULL);
		break;
	case SC_EV_META_DEFAULT_MODE:
		/* cp's words here (its set_acl), quoted with quote() */
		say(env, true, err, SC_FAIL_SET_MODE_ACL, dst, NULL);
		break;
	case SC_EV_META_RESTORE:
		say(env, false, err, SC_FAIL_KEEP_MODE, dst, NULL);
		break;
	case SC_EV_META_STAT:
		say(env, true, err, SC_FAIL_STAT, dst, NULL);
		break;
	default:
		return false;
	}
	return true;
}

/* EV if it is about an existing destination's attributes (SC_EV_OLD_*):
 * true when it is, said as cp says it or not at all. */
static bool say_old(struct sc_attrs_env *env, const struct sc_event *ev,
		    int err, const char *dst)
{
	switch (ev->kind) {
	case SC_EV_OLD_LIST:
		if (err != ENOTSUP && err != ENOSYS)
			say(env, false, err, SC_FAIL_LIST_XATTRS, dst,
			    NULL);
		break;
	case SC_EV_OLD_GET:
		say(env, false, err, SC_FAIL_GET_XATTR,
		    ev->attr ? ev->attr : "", dst);
		break;
	case SC_EV_OLD_SET:
		if (err != ENOTSUP)
			say(env, false, err, SC_FAIL_SET_XATTR,
			    ev->attr ? ev->attr : "", dst);
		break;
	case SC_EV_OLD_ACL:
		if (err != ENODATA && err != ENOTSUP && err != ENOSYS)
			say(env, false, err, SC_FAIL_SET_MODE_ACL, dst,
			    NULL);
		break;
	case SC_EV_OLD_MODE:
		if (ev->fatal) {
			say(env, true, err, SC_FAIL_SET_MODE_ACL, dst, NULL);
		} else if (!env->o->preserve_mode) {
			/* the old file's mode, which the new file could not
			 * take: cp's warning for a mode it could not give
			 * back (with -p, the mode asked for is said where
			 * it fails) */
			say(env, false, err, SC_FAIL_KEEP_MODE, dst, NULL);
			env->old_mode_lost = true;
		}
		break;
	default:
		return false;
	}
	return true;
}

/* EV if it is about a directory --parents made (SC_EV_PARENT_*), said as
 * cp says it; any other event is not said. */
static void say_parent(const struct sc_attrs_env *env,
		       const struct sc_event *ev, int err, bool chown_said,
		       const char *dst)
{
	switch (ev->kind) {
	case SC_EV_PARENT_TIMES:
		say(env, true, err, SC_FAIL_TIMES, dst, NULL);
		break;
	case SC_EV_PARENT_OWNER:
		if (chown_said)
			say(env, true, err, SC_FAIL_OWNER, dst, NULL);
		break;
	case SC_EV_PARENT_MODE:
		say(env, true, err, SC_FAIL_KEEP_MODE, dst, NULL);
		break;
	case SC_EV_PARENT_RESTORE:
		say(env, true, err, SC_FAIL_MODE, dst, NULL);
		break;
	default:
		break;
	}
}

void sc_attrs_say(struct sc_attrs_env *env, const struct sc_event *ev,
		  const char *src, const char *dst)
{
	int err = -ev->err;
	bool chown_said = env->privileged || (err != EPERM && err != EINVAL);

	/* where cp's copy stopped, what the library still tried after it
	 * is not said */
	if (env->stopped && ev->kind >= SC_EV_META_TIMES &&
	    ev->kind <= SC_EV_META_RESTORE)
		return;

	if (say_meta(env, ev, err, chown_said, src, dst) ||
	    say_old(env, ev, err, dst))
		return;
	say_parent(env, ev, err, chown_said, dst);
}

void sc_attrs_say_all(struct sc_attrs_env *env,
		      const struct sc_copy_report *rep, const char *src,
		      const char *dst)
{
	unsigned n = sc_copy_report_events(rep);

	for (unsigned i = 0; i < n; i++) {
		struct sc_event ev = { .size = sizeof(ev) };

		if (sc_copy_report_event(rep, i, &ev) == 0)
			sc_attrs_say(env, &ev, src, dst);
	}
}
