/* Facts about filesystems: what they are, whether they can clone, whether
 * their sizes can be trusted.  Gathered once per device for the whole run,
 * from fstatfs, statmount(2) (only the mounts of the files copied) or the
 * whole mountinfo (parsed once, on kernels without statmount), libmount
 * and libblkid. */
#ifndef SMARTCP_FSINFO_H
#define SMARTCP_FSINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

enum sc_fs_class {
	SC_FS_UNKNOWN,
	SC_FS_GENERATED,	/* proc, sysfs, tracefs...: st_size is a guess */
	SC_FS_MEMORY,		/* tmpfs, ramfs */
	SC_FS_LOCAL,		/* a block-device filesystem */
	SC_FS_NETWORK,		/* nfs, cifs, ceph...: server-side copy */
	SC_FS_FUSE,
	SC_FS_OVERLAY,
};

enum sc_tristate { SC_NO, SC_MAYBE, SC_YES };

struct sc_fs_facts {
	dev_t dev;		/* st_dev this entry was found for */
	int mnt_id;		/* mount id (mountinfo field 1), -1 unknown */
	unsigned long magic;	/* statfs f_type */
	uint64_t fsid;		/* statfs f_fsid */
	char type[64];		/* "ext4", "fuse.sshfs" (type.subtype) */
	char *target;		/* mount point, NULL when unknown */
	char *source;		/* "/dev/vda", "tmpfs", "server:/x" */
	char *options;		/* VFS + fs options, comma separated */
	/* Equal identities mean one filesystem (one superblock):
	 * "blk:MAJ:MIN" of the source block device, else "dev:MAJ:MIN" of
	 * the superblock from mountinfo, else "fsid:HEX". */
	char identity[80];
	/* The filesystem UUID from libblkid (block devices only, and only
	 * when sc_fsinfo_want_uuid() asked for it), else "". */
	char uuid[40];
	enum sc_fs_class class;
	enum sc_tristate can_clone;
};

struct sc_fsinfo;

/* Creates a cache.  MOUNTINFO is the file to parse (NULL means the
 * running system: statmount(2) where the kernel has it, else
 * /proc/self/mountinfo); it is read lazily, once, and only when needed.
 * Returns 0 or -errno. */
int sc_fsinfo_new(const char *mountinfo, struct sc_fsinfo **ret);
void sc_fsinfo_free(struct sc_fsinfo *fsi);

/* Read filesystem UUIDs with libblkid for the facts built from now on:
 * for --explain and --json, which show them.  Costs opening and reading
 * the block device once per filesystem. */
void sc_fsinfo_want_uuid(struct sc_fsinfo *fsi, bool want);

/* Facts for the filesystem holding open descriptor FD whose fstat is ST.
 * Cached per st_dev: only the first file of a device costs syscalls.
 * Never fails: what cannot be learned stays unknown.  The result lives
 * as long as FSI. */
const struct sc_fs_facts *sc_fsinfo_lookup(struct sc_fsinfo *fsi, int fd,
					   const struct stat *st);

/* The same, from explicit values (no I/O but the mountinfo parse), for
 * tests with fixture files: MNT_ID or DEV pick the mountinfo entry. */
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

/* Pure classification, exported for unit tests. */
enum sc_fs_class sc_fs_classify(const char *type, unsigned long magic,
				bool has_blockdev);
enum sc_tristate sc_fs_can_clone(const char *type, enum sc_fs_class cls);
const char *sc_fs_class_name(enum sc_fs_class cls);

/* Running kernel version, e.g. 6.18 -> {6, 18}. */
struct sc_kernel {
	int major, minor;
};
struct sc_kernel sc_kernel_running(void);
bool sc_kernel_at_least(struct sc_kernel k, int major, int minor);

#endif
