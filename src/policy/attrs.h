/* --preserve: the program's side of libsmartcp's metadata.  The library
 * keeps modes, owners, times, ACLs and extended attributes (the copier's
 * SC_COPY_KEEP_*: for a file within its copy, for what is not a file
 * with sc_copy_ctx_meta) and reports every failure as an event; this
 * says them with cp's rules about which failures are said, and in cp's
 * words.  Messages go through report.c. */
#ifndef SMARTCP_ATTRS_H
#define SMARTCP_ATTRS_H

#include <stdbool.h>
#include <sys/stat.h>

#include "cli/options.h"
#include "output/report.h"

/* What saying the metadata's events of one entry needs to know of the
 * run, and what was said of them so far. */
struct sc_attrs_env {
	const struct sc_options *o;
	bool privileged;	/* root: may chown, and must say when it fails */
	struct sc_msgs *msgs;	/* the calling thread's messages */
	/* the source, and the destination that was there before the copy
	 * (NULL: none, or not known) */
	const struct stat *src_st, *old_st;
	/* a failure was met at which cp's copy of the entry stops (a chown,
	 * or the narrowing of the mode before it): cp says nothing of its
	 * other attributes */
	bool stopped;
	/* --atomic: the new file could not take the old one's mode (and
	 * replaced it all the same, if the copy went on to the end) */
	bool old_mode_lost;
};

/* The copier's SC_COPY_* flags for the options O. */
unsigned sc_attrs_copier_flags(const struct sc_options *o);

/* Says the metadata event EV (SC_EV_META_*, SC_EV_OLD_*,
 * SC_EV_PARENT_*) of the copy of SRC to DST (their paths, as messages
 * name them) as cp says it, or not at all where cp is silent. */
void sc_attrs_say(struct sc_attrs_env *env, const struct sc_event *ev,
		  const char *src, const char *dst);

/* Says every event of REP (a sc_copy_ctx_meta() call's) as
 * sc_attrs_say() does. */
void sc_attrs_say_all(struct sc_attrs_env *env,
		      const struct sc_copy_report *rep, const char *src,
		      const char *dst);

#endif
