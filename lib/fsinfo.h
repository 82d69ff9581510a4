/* Facts about filesystems: what they are, whether they can clone, whether
 * their sizes can be trusted.  Gathered once per device for the whole run,
 * from fstatfs, statmount(2) (only the mounts of the files copied) or the
 * whole mountinfo (parsed once, on kernels without statmount), libmount
 * and libblkid -- those two loaded only where a fact needs them (dl.h).
 * The public part (sc_fs_facts_* accessors, sc_fsinfo_*, sc_kernel_*) is
 * in <smartcp/smartcp.h>; this header adds the facts' layout and what the
 * engine and its unit tests use inside the library. */
#ifndef SMARTCP_FSINFO_H
#define SMARTCP_FSINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <smartcp/smartcp.h>

#include "stacks.h"

/* What is known of one filesystem (the public side reads it through the
 * sc_fs_facts_* accessors). */
struct sc_fs_facts {
	dev_t dev;		/* st_dev this entry was found for */
	int mnt_id;		/* mount id (mountinfo field 1), -1 unknown */
	unsigned long magic;	/* statfs f_type */
	uint64_t fsid;		/* statfs f_fsid */
	char type[64];		/* "ext4", "fuse.sshfs" (type.subtype) */
	char *target;		/* mount point, NULL when unknown */
	char *source;		/* "/dev/vda", "tmpfs", "server:/x"; or NULL */
	char *options;		/* VFS + fs options, comma separated; or NULL */
	/* Equal identities mean one filesystem (one superblock):
	 * "blk:MAJ:MIN" of the source block device, else "dev:MAJ:MIN" of
	 * the superblock from mountinfo, else "fsid:HEX". */
	char identity[80];
	/* The filesystem UUID from libblkid (block devices only, and only
	 * when sc_fsinfo_want_uuid() asked for it), else "". */
	char uuid[40];
	enum sc_fs_class cls;
	enum sc_tristate can_clone;
	bool assumed;		/* made by sc_fs_facts_assume: the caller's */
	/* Known-bad stacks (stacks.h): the rows about this type, and the
	 * module behind it where rows name its version (read only then):
	 * its version, the parameters rows name, and both as --assume-fs
	 * takes them after '@' ("2.2.0-1,zfs_bclone_enabled=0"; "" when
	 * nothing was read). */
	uint32_t stacks;
	bool module_known;	/* MODVER holds the module's version */
	struct stack_version modver;
	unsigned params_known;	/* bits of stacks_params[] read */
	long param[STACK_PARAMS_MAX];
	char module[64];
};

/* The same as sc_fsinfo_lookup, from explicit values (no I/O but the
 * mountinfo parse), for tests with fixture files: MNT_ID or DEV pick the
 * mountinfo entry. */
const struct sc_fs_facts *sc_fsinfo_lookup_values(struct sc_fsinfo *fsi,
						  dev_t dev, int mnt_id,
						  unsigned long magic,
						  uint64_t fsid);

/* One mount as statmount(2) describes it: the fields of its line in
 * /proc/self/mountinfo.  Strings are raw (not escaped), except OPTIONS,
 * which the kernel gives escaped as mountinfo shows them; NULL or "" for
 * SUBTYPE and OPTIONS mean none. */
struct sc_mount_fields {
	uint32_t id, parent;	/* the mountinfo (reused) mount ids */
	uint32_t dev_major, dev_minor;
	uint32_t sb_flags;	/* SB_RDONLY, SB_SYNCHRONOUS, SB_DIRSYNC,
				 * SB_LAZYTIME */
	uint64_t attr;		/* MOUNT_ATTR_* */
	const char *root, *point, *type, *subtype, *source, *options;
};

/* The line /proc/self/mountinfo has for mount M (without the optional
 * fields, which smartcp does not use), "\n"-terminated, in a malloc'd
 * string: libmount parses it as it parses the whole file, so a mount
 * looked up with statmount has the very facts the table would give.
 * Returns NULL when out of memory. */
char *sc_fsinfo_mountinfo_line(const struct sc_mount_fields *m);

/* The facts statmount's fields M give for device DEV, as sc_fsinfo_lookup
 * would build them for a mount statmount describes so (without libmount
 * where that is certain, else through libmount): for unit tests, which
 * compare both ways.  Cached per DEV as the others. */
const struct sc_fs_facts *sc_fsinfo_lookup_fields(struct sc_fsinfo *fsi,
						  dev_t dev,
						  const struct sc_mount_fields *m,
						  unsigned long magic,
						  uint64_t fsid);


/* Where a fact came from, for --explain (issue 30). */
enum sc_fact {
	SC_FACT_TYPE,		/* type */
	SC_FACT_CLASS,		/* class (and so can_clone) */
	SC_FACT_IDENTITY,	/* identity */
	SC_FACT_MOUNT,		/* target, source, options, mnt_id */
	SC_FACT_UUID,		/* uuid */
	SC_FACT__MAX
};

enum sc_origin {
	SC_ORIGIN_NONE,		/* not known */
	SC_ORIGIN_MAGIC,	/* fstatfs: f_type, f_fsid */
	SC_ORIGIN_STATMOUNT,	/* statmount(2)'s fields, libmount not used */
	SC_ORIGIN_LIBMOUNT,	/* libmount's reading of statmount's line */
	SC_ORIGIN_MOUNTINFO,	/* the whole mount table, through libmount */
	SC_ORIGIN_LIBBLKID,	/* libblkid (the UUID) */
};

/* Where FACT of F (from FSI) came from; SC_ORIGIN_NONE for facts FSI did
 * not make or does not know. */
enum sc_origin sc_fsinfo_origin(const struct sc_fsinfo *fsi,
				const struct sc_fs_facts *f,
				enum sc_fact fact);
/* "magic", "statmount", "libmount", "mountinfo", "libblkid"; "" for
 * SC_ORIGIN_NONE. */
const char *sc_origin_name(enum sc_origin o);

/* ---- the class of a filesystem (fsclass.c) ---------------------------- */

/* Pure classification, for unit tests. */
enum sc_fs_class sc_fs_classify(const char *type, unsigned long magic,
				bool has_blockdev);
enum sc_tristate sc_fs_can_clone(const char *type, enum sc_fs_class cls);
/* The class from smartcp's own tables into *RET; false when only
 * libmount's lists can tell (a type name the tables do not know).
 * *BY_MAGIC: the magic number decided, not the name. */
bool sc_fs_classify_tables(const char *type, unsigned long magic,
			   bool has_blockdev, enum sc_fs_class *ret,
			   bool *by_magic);
/* sc_fs_classify, and in *FROM what decided: SC_ORIGIN_MAGIC,
 * SC_ORIGIN_LIBMOUNT (its lists), or SC_ORIGIN_NONE (the name, whose
 * origin is the type's). */
enum sc_fs_class sc_fs_classify_from(const char *type, unsigned long magic,
				     bool has_blockdev, enum sc_origin *from);
/* The type name of the filesystem with statfs magic MAGIC; "" when the
 * tables do not know it. */
const char *sc_fs_type_from_magic(unsigned long magic);

/* ---- the module behind a filesystem (modfacts.c) ------------------------ */

/* Sets F's known-bad stacks (F->stacks, by its type) and, where they
 * name its module's version, reads that version and the parameters the
 * rows name: from /sys/module, or from the directory that
 * $SMARTCP_SYS_MODULE names (for tests).  What cannot be read stays
 * unknown. */
void module_facts_read(struct sc_fs_facts *f);
/* What --assume-fs says after '@', SPEC ("2.2.0" or
 * "2.2.3,zfs_bclone_enabled=1"), into F, whose type is set.  0, -EINVAL
 * (not a version, a parameter without a number), -ENOENT (a parameter
 * no row about F's type names), -ENAMETOOLONG. */
int module_facts_assume(struct sc_fs_facts *f, const char *spec);

/* ---- mounts: statmount(2) and mountinfo (mountinfo.c) ------------------- */

struct sc_libmount;
struct libmnt_fs;
struct libmnt_table;
/* statmount's reply, which sc_statmount_fields' strings point into. */
struct sm_reply;

/* The fields of the mount whose unique ID is ID, from statmount(2)
 * alone: 0 with *RET, whose strings live in *RET_REPLY (the caller's to
 * free), or -errno: -ENOSYS, -EPERM, -EINVAL when the kernel cannot
 * answer (for any mount), -ENOENT, -ENODATA, -EOVERFLOW, -ENOMEM when
 * it cannot for this one. */
int sc_statmount_fields(uint64_t id, struct sc_mount_fields *ret,
			struct sm_reply **ret_reply);
/* The options libmount gives for M's mountinfo line, per mount and
 * superblock merged, in a malloc'd string; NULL when out of memory. */
char *sc_mountinfo_options(const struct sc_mount_fields *m);
/* Whether options text S reads alike to libmount and to smartcp (no
 * quotes, no empty items, no whitespace). */
bool sc_mountinfo_options_plain(const char *s);
/* The entry of mount ID in table TB, NULL when none. */
struct libmnt_fs *sc_mountinfo_find_id(const struct sc_libmount *lm,
				       struct libmnt_table *tb, int id);
/* The one entry of mountinfo line LINE, in a table of its own
 * (*RET_TB, the caller's to unref), or NULL. */
struct libmnt_fs *sc_mountinfo_parse_line(const struct sc_libmount *lm,
					  const char *line,
					  struct libmnt_table **ret_tb);

#endif
