/* What the metadata steps share (meta.c, meta_xattr.c): one application
 * of the metadata to one destination, reached through a pin. */
#ifndef SMARTCP_LIB_META_INT_H
#define SMARTCP_LIB_META_INT_H

#include "copier.h"
#include "pin.h"

#include <attr/error_context.h>

struct meta {
	struct sc_copier *c;
	struct sc_copy_report *rep;
	bool strict;		/* SC_COPY_META_STRICT: failures count */
	int in;			/* the source open for reading, or -1 */
	const char *sname;	/* the source for the calls that take a
				 * name: the /proc link of a descriptor */
	struct pin *dp;		/* the destination */
};

/* Both ends open for I/O: libattr's and libacl's descriptor calls.
 * Else both are named by their /proc links (MT->sname, MT->dp->proc),
 * which lead to the inodes held and are never followed further. */
static inline bool meta_by_fd(const struct meta *mt)
{
	return mt->in >= 0 && !mt->dp->opath;
}

/* A failure to keep an attribute: an event (a warning in cp's words),
 * which counts only with SC_COPY_META_STRICT.  Returns 0, or the -errno
 * it counts as. */
int meta_lost(const struct meta *mt, enum sc_event_kind kind, int err);

/* SC_COPY_KEEP_XATTR: the source's extended attributes that the
 * copier's rules let through (ACLs are the mode's, keep_mode()), as
 * libattr copies them and says its failures.  0, or -errno with
 * SC_COPY_XATTR_STRICT. */
int meta_keep_xattrs(const struct meta *mt);

/* The value of attribute NAME of PATH (followed) into *BUF, grown as
 * needed (*CAP its size).  Its length, or -1 with errno. */
ssize_t meta_get_xattr(const char *path, const char *name, char **buf,
		       size_t *cap);

/* libacl's calls say nothing: their failures are told by their return
 * value, and reported by the caller. */
extern struct error_context meta_quiet_ctx;

#endif
