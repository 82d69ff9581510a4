/* Extended attributes: what cp -p --preserve=xattr keeps of a source
 * besides its mode.  libattr copies them between two open descriptors;
 * between objects that cannot be opened (a FIFO, a device, a symlink,
 * a directory held O_PATH) the same is done here through their /proc
 * links, with libattr's rules and in libattr's words, since libattr's
 * calls that take names would act on the /proc links themselves. */
#include "common.h"
#include "meta_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <attr/error_context.h>
#include <attr/libattr.h>
#ifdef ENABLE_NLS
# include <libintl.h>
/* libattr's own messages, in its translations */
# define attr_(s) dgettext("attr", s)
#else
# define attr_(s) (s)
#endif

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

struct error_context meta_quiet_ctx = { ctx_none, ctx_quote, ctx_quote_free };

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


ssize_t meta_get_xattr(const char *path, const char *name, char **buf,
		       size_t *cap)
{
	for (;;) {
		ssize_t v = getxattr(path, name, NULL, 0);

		if (v < 0)
			return -1;
		if ((size_t)v > *cap) {
			char *nb = realloc(*buf, (size_t)v);

			if (!nb) {
				errno = ENOMEM;
				return -1;
			}
			*buf = nb;
			*cap = (size_t)v;
		}
		if (v == 0)
			return 0;
		v = getxattr(path, name, *buf, *cap);
		/* grown meanwhile: ERANGE, ask its size again */
		if (v >= 0 || errno != ERANGE)
			return v;
	}
}

/* attr_copy_file()'s work from SRC to DST, names of inodes that cannot
 * be opened (their /proc links): followed, where libattr's calls would
 * act on the links.  Its failures go through A's context as libattr's
 * do, with its messages.  0, or -errno when one failed (errno kept, as
 * libattr leaves it). */
static int copy_by_name(struct attr_ctx *a, const char *src, const char *dst)
{
	_cleanup_free_ char *names = NULL;
	char *value = NULL;
	size_t cap = 0;
	ssize_t len = listxattr(src, NULL, 0);
	bool unsupported = false, failed = false;

	if (len > 0 && !(names = malloc((size_t)len))) {
		errno = ENOMEM;
		len = -1;
	} else if (len > 0) {
		len = listxattr(src, names, (size_t)len);
	}
	if (len < 0) {
		if (errno == ENOSYS || errno == ENOTSUP)
			return 0;
		ctx_error(&a->ec, attr_("listing attributes of %s"), src);
		return -errno;
	}
	for (char *n = names; n && n < names + len; n += strlen(n) + 1) {
		ssize_t v;

		if (!*n || !xattr_wanted(n, &a->ec))
			continue;
		v = meta_get_xattr(src, n, &value, &cap);
		if (v < 0) {
			ctx_error(&a->ec, attr_("getting attribute %s of %s"),
				  n, src);
			failed = true;
		} else if (setxattr(dst, n, value, (size_t)v, 0) < 0) {
			if (errno == ENOTSUP) {
				unsupported = true;
				continue;
			}
			ctx_error(&a->ec, attr_("setting attribute %s for %s"),
				  n, dst);
			failed = true;
		}
	}
	free(value);
	if (unsupported) {
		errno = ENOTSUP;
		ctx_error(&a->ec, attr_("setting attributes for %s"), dst);
		failed = true;
	}
	return failed ? -(errno ? errno : EIO) : 0;
}

int meta_keep_xattrs(const struct meta *mt)
{
	bool strict = mt->c->flags & SC_COPY_XATTR_STRICT;
	struct attr_ctx actx = {
		.ec = { ctx_error, ctx_quote, ctx_quote_free },
		.rules = sc_copier_rules(mt->c),
		.rep = mt->rep,
		.strict = strict,
		.src_name = mt->sname,
		.dst_name = mt->dp->proc,
	};
	int r, err;

	/* /etc/xattr.conf decides: ACLs and other "permissions" attributes
	 * are left to perm_copy (keep_mode), SELinux and NFSv4 bookkeeping
	 * are skipped.  libattr takes the names only for its messages when
	 * it has descriptors. */
	errno = 0;
	if (meta_by_fd(mt))
		r = attr_copy_fd(actx.src_name, mt->in, actx.dst_name,
				 mt->dp->fd, xattr_wanted, &actx.ec);
	else
		r = copy_by_name(&actx, actx.src_name, actx.dst_name);
	err = errno ? errno : EIO;
	if (r != 0 && !actx.events)
		/* failed without a word of libattr's: still an event */
		sc_report_add(mt->rep, SC_EV_META_XATTR, -err, strict, false);
	return r != 0 && strict ? -err : 0;
}
