/* A source that changed while it was copied.  What identifies a file's
 * content is looked at before the first byte and after the last: its
 * size, its modification and status change times to the nanosecond, and
 * which file (inode and device) its name leads to.  sc_change_name and
 * enum sc_change_how are public (<smartcp/smartcp.h>); the comparisons
 * are the copier's. */
#ifndef SMARTCP_CHANGE_H
#define SMARTCP_CHANGE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <smartcp/smartcp.h>

struct sc_change {
	enum sc_change_how how;
	off_t size_before, size_after;	/* of the file that was read */
	bool again;		/* it changed again while copied again */
};

/* Compares BEFORE, the fstat of the open source taken before its first
 * byte was copied, with AFTER, its fstat after the last.  GENERATED: the
 * source is on a generated filesystem, whose sizes and times mean
 * nothing: only identity counts there.  Returns how it changed
 * (SC_CHANGE_NONE for a NULL). */
enum sc_change_how sc_change_compare(const struct stat *before,
				     const struct stat *after, bool generated);

/* Compares the file read (BEFORE) with what its name leads to now (NOW,
 * a stat of the name; NAME_ERR 0 or that stat's -errno).  Returns
 * SC_CHANGE_REPLACED, SC_CHANGE_REMOVED (-ENOENT or -ENOTDIR, never for
 * GENERATED sources) or SC_CHANGE_NONE. */
enum sc_change_how sc_change_identity(const struct stat *before,
				      const struct stat *now, int name_err,
				      bool generated);

#endif
