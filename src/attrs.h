/* --preserve: modes, owners, times, ACLs and extended attributes of a
 * destination, in cp's order and with cp's rules about which failures
 * are said and which fail the file.  Messages go through report.c. */
#ifndef SMARTCP_ATTRS_H
#define SMARTCP_ATTRS_H

#include <stdbool.h>
#include <sys/stat.h>

#include "options.h"
#include "paths.h"
#include "report.h"
#include "xattr_rules.h"

/* How a destination came to be, for the attribute step.  cp leaves some
 * permission bits out when it creates a file or directory, so that nobody
 * can open it before it is ready (with -p, before the owner changes), and
 * adds them back at the end. */
struct sc_made {
	bool created;		/* this run made the destination */
	bool mode_known;	/* MODE holds its mode after creation */
	bool restore;		/* MODE | OMITTED must be set at the end */
	mode_t mode;		/* mode after creation (directories, specials) */
	mode_t omitted;		/* bits left out at creation */
	mode_t extra;		/* S_IWUSR added at creation to set xattrs */
	bool have_old;		/* an existing destination: OLD_MODE is its mode */
	mode_t old_mode;
};

/* What the attribute step needs to know of the run. */
struct sc_attrs_env {
	const struct sc_options *o;
	/* --preserve=xattr: xattr.conf, read before any worker starts */
	const struct sc_xattr_rules *xattr_rules;
	mode_t umask;
	bool privileged;	/* root: may chown, and must say when it fails */
	struct sc_msgs *msgs;	/* the calling thread's messages */
};

/* The permission bits cp holds back when creating from a source of mode
 * SRC_MODE: with -p all group and other bits until the owner is right;
 * for a directory the write bits, until its contents are in. */
mode_t sc_attrs_omitted(const struct sc_options *o, mode_t src_mode);

/* Does destination D already have what --preserve would give it from
 * source S (mode, owner, modification time, as far as asked for)? */
bool sc_attrs_match(const struct sc_options *o, const struct stat *s,
		    const struct stat *d);

/* Applies --preserve (and cp's own mode rules) to DST, made as M says,
 * from source SRC whose stat is ST: through OUT when it is open (then IN
 * is the open source), else by name relative to their directories'
 * descriptors (IN and OUT -1); messages name their paths.  The order is cp's:
 * times, owner (chown clears set-id bits and capabilities), xattrs, then
 * mode and ACL.  Returns 0, or -1 when a failure counts (said, and M's
 * entry marked failed only for the failures cp counts). */
int sc_attrs_set(const struct sc_attrs_env *env, int in, int out,
		 const struct sc_at *src, const struct sc_at *dst,
		 const struct stat *st, struct sc_made *m);

/* --parents, after the copy: times, owner and mode of directory DST made
 * or found for source directory SRC (stat ST); RESTORE: ST's mode must
 * be set even without --preserve=mode.  0, or -1 with the message said. */
int sc_attrs_set_parent(const struct sc_attrs_env *env, const char *src,
			const char *dst, const struct stat *st, bool restore);

/* --atomic: the temporary OUT, which is to take the place of OLD
 * (OLD_ST its stat, taken before the copy), gets what an overwrite in
 * place would have left on the old file before --preserve is applied:
 * its owner and group (where we may), its extended attributes and ACL,
 * and its mode, less the set-id bits that writing to it would have
 * cleared.  sc_attrs_set() then applies --preserve to OUT as it would to
 * the old file.  0, or -1 with the message said. */
int sc_attrs_take_old(const struct sc_attrs_env *env, int out,
		      const struct sc_at *old, const struct stat *old_st);

#endif
