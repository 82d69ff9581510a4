/* A source that changed while it was copied.  What identifies a file's
 * content is looked at before the first byte and after the last: its
 * size, its modification and status change times to the nanosecond, and
 * which file (inode and device) its name leads to. */
#ifndef SMARTCP_CHANGE_H
#define SMARTCP_CHANGE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* In order of weight: when several things changed, the heaviest is told.
 * The names (sc_change_name) are an interface, as JSON values. */
enum sc_change_how {
	SC_CHANGE_NONE,
	SC_CHANGE_STATUS,	/* only ctime: data written with the mtime
				 * put back (touch -d, rsync -t), a chmod */
	SC_CHANGE_REWRITTEN,	/* same size, another mtime */
	SC_CHANGE_SHRANK,
	SC_CHANGE_GREW,
	SC_CHANGE_REMOVED,	/* the name leads nowhere now */
	SC_CHANGE_REPLACED,	/* the name leads to another file now */
};

struct sc_change {
	enum sc_change_how how;
	off_t size_before, size_after;	/* of the file that was read */
	bool again;		/* it changed again while copied again */
};

/* Compares BEFORE, the fstat of the open source taken before its first
 * byte was copied, with AFTER, a stat of the same file (same inode)
 * after the last.  GENERATED: the source is on a filesystem whose sizes
 * and times mean nothing about its content (procfs, sysfs...: st_size 0
 * or 4096 whatever it holds); nothing of that is compared, and only the
 * identity is (see sc_change_identity).  Returns how it changed. */
enum sc_change_how sc_change_compare(const struct stat *before,
				     const struct stat *after, bool generated);

/* Compares the file read (BEFORE) with what its name leads to now: NOW
 * is the stat of the name, NAME_ERR 0 or the -errno of that stat.
 * Returns SC_CHANGE_REPLACED, SC_CHANGE_REMOVED (-ENOENT or -ENOTDIR;
 * never for GENERATED sources, whose entries come and go with the
 * processes and devices they show, while what was read stays a true
 * snapshot) or SC_CHANGE_NONE (the same file, or the name could not be
 * looked at for another reason: permissions changed, say). */
enum sc_change_how sc_change_identity(const struct stat *before,
				      const struct stat *now, int name_err,
				      bool generated);

/* "grew", "shrank", "rewritten", "status", "removed", "replaced"; "none". */
const char *sc_change_name(enum sc_change_how how);

#endif
