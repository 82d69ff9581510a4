/* Facts about filesystems: what they are, whether they can clone, whether
 * their sizes can be trusted.  Gathered once per device for the whole run,
 * from fstatfs, statmount(2) (only the mounts of the files copied) or the
 * whole mountinfo (parsed once, on kernels without statmount), libmount
 * and libblkid.  The public part (struct sc_fs_facts, sc_fsinfo_*,
 * sc_kernel_*) is in <smartcp/smartcp.h>; this header adds what the
 * engine and its unit tests use inside the library. */
#ifndef SMARTCP_FSINFO_H
#define SMARTCP_FSINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <smartcp/smartcp.h>

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

/* Pure classification, for unit tests. */
enum sc_fs_class sc_fs_classify(const char *type, unsigned long magic,
				bool has_blockdev);
enum sc_tristate sc_fs_can_clone(const char *type, enum sc_fs_class cls);

#endif
