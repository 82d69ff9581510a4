/* The class of a filesystem -- generated, memory, local, network, fuse,
 * overlay or unknown -- and whether it can clone, from its statfs magic
 * number and its type name: smartcp's own tables first (the magic of the
 * descriptor settles the usual filesystems without a name), libmount's
 * netfs and pseudofs lists (dl.h) only for a name the tables do not
 * know.  Also the facts of a filesystem that is only assumed
 * (sc_fs_facts_assume), which are made from the same tables.  Pure: no
 * I/O but loading libmount where only it can tell. */
#include "common.h"
#include "fsinfo.h"

#include "dl.h"

#include <stdio.h>
#include <string.h>

/* Generated-content filesystems, by name and by statfs magic.  The magic
 * list covers a descriptor whose mount libmount cannot find. */
static const struct {
	const char *name;
	unsigned long magic;
} generated[] = {
	{ "proc", 0x9fa0 },		{ "sysfs", 0x62656572 },
	{ "debugfs", 0x64626720 },	{ "tracefs", 0x74726163 },
	{ "configfs", 0x62656570 },	{ "securityfs", 0x73636673 },
	{ "cgroup", 0x27e0eb },		{ "cgroup2", 0x63677270 },
	{ "pstore", 0x6165676c },	{ "efivarfs", 0xde5e81e4 },
	{ "bpf", 0xcafe4a11 },		{ "selinuxfs", 0xf97cff8c },
	{ "smackfs", 0x43415d53 },	{ "binfmt_misc", 0x42494e4d },
	{ "fusectl", 0x65735543 },	{ "devpts", 0x1cd1 },
	{ "mqueue", 0x19800202 },	{ "nsfs", 0x6e736673 },
	{ "rpc_pipefs", 0x67596969 },	{ "nfsd", 0x6e667364 },
	{ "autofs", 0x0187 },		{ "hugetlbfs", 0x958458f6 },
	{ "sockfs", 0x534f434b },	{ "pipefs", 0x50495045 },
};

static const struct {
	const char *name;
	unsigned long magic;
	enum sc_fs_class cls;
} known[] = {
	{ "tmpfs", 0x01021994, SC_FS_MEMORY },
	{ "ramfs", 0x858458f6, SC_FS_MEMORY },
	{ "devtmpfs", 0x01021994, SC_FS_MEMORY },
	{ "overlay", 0x794c7630, SC_FS_OVERLAY },
	/* FUSE before virtiofs: they share a magic, and a descriptor known
	 * by magic alone is far more often FUSE. */
	{ "fuse", 0x65735546, SC_FS_FUSE },
	{ "virtiofs", 0x65735546, SC_FS_NETWORK },
	{ "ext4", 0xef53, SC_FS_LOCAL },
	{ "btrfs", 0x9123683e, SC_FS_LOCAL },
	{ "xfs", 0x58465342, SC_FS_LOCAL },
	{ "nfs", 0x6969, SC_FS_NETWORK },
	{ "cifs", 0xff534d42, SC_FS_NETWORK },
	{ "smb3", 0xfe534d42, SC_FS_NETWORK },
	{ "ceph", 0x00c36400, SC_FS_NETWORK },
};

/* Filesystems that can share extents (FICLONE).  xfs only with the
 * reflink feature, nfs only for 4.2 servers, zfs only with block cloning:
 * "maybe" means trying is cheap and a refusal is learned. */
static const struct {
	const char *name;
	enum sc_tristate can;
} cloners[] = {
	{ "btrfs", SC_YES },	{ "ocfs2", SC_YES },	{ "bcachefs", SC_YES },
	{ "xfs", SC_MAYBE },	{ "nfs4", SC_MAYBE },	{ "nfs", SC_MAYBE },
	{ "cifs", SC_MAYBE },	{ "smb3", SC_MAYBE },	{ "zfs", SC_MAYBE },
	{ "overlay", SC_MAYBE },
};

const char *sc_fs_class_name(enum sc_fs_class cls)
{
	static const char *const names[] = {
		[SC_FS_UNKNOWN] = "unknown",	[SC_FS_GENERATED] = "generated",
		[SC_FS_MEMORY] = "memory",	[SC_FS_LOCAL] = "local",
		[SC_FS_NETWORK] = "network",	[SC_FS_FUSE] = "fuse",
		[SC_FS_OVERLAY] = "overlay",
	};
	return (unsigned)cls < ARRAY_SIZE(names) ? names[cls] : "?";
}


/* The class from smartcp's own tables.  False when only libmount's lists
 * can tell: a type name the tables do not know.  *BY_MAGIC says whether
 * the magic number decided rather than the name. */
bool sc_fs_classify_tables(const char *type, unsigned long magic,
			   bool has_blockdev, enum sc_fs_class *ret,
			   bool *by_magic)
{
	size_t i;

	*by_magic = true;
	/* The magic of the descriptor beats a mountinfo name that may
	 * belong to another mount of the same st_dev. */
	for (i = 0; magic && i < ARRAY_SIZE(generated); i++)
		if (magic == generated[i].magic) {
			*ret = SC_FS_GENERATED;
			return true;
		}
	if (type && *type) {
		*by_magic = false;
		for (i = 0; i < ARRAY_SIZE(generated); i++)
			if (!strcmp(type, generated[i].name)) {
				*ret = SC_FS_GENERATED;
				return true;
			}
		for (i = 0; i < ARRAY_SIZE(known); i++)
			if (!strcmp(type, known[i].name)) {
				*ret = known[i].cls;
				return true;
			}
		if (!strncmp(type, "fuse", 4)) {	/* fuse.X, fuseblk */
			*ret = SC_FS_FUSE;
			return true;
		}
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(generated); i++)
		if (magic == generated[i].magic) {
			*ret = SC_FS_GENERATED;
			return true;
		}
	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (magic == known[i].magic) {
			*ret = known[i].cls;
			return true;
		}
	*ret = has_blockdev ? SC_FS_LOCAL : SC_FS_UNKNOWN;
	return true;
}

/* sc_fs_classify, and in *FROM what decided: the magic, the name
 * (SC_ORIGIN_NONE: the name's own origin) or libmount's lists. */
enum sc_fs_class sc_fs_classify_from(const char *type, unsigned long magic,
				     bool has_blockdev, enum sc_origin *from)
{
	const struct sc_libmount *lm;
	enum sc_fs_class cls;
	bool by_magic;

	if (sc_fs_classify_tables(type, magic, has_blockdev, &cls, &by_magic)) {
		*from = by_magic ? SC_ORIGIN_MAGIC : SC_ORIGIN_NONE;
		return cls;
	}
	/* A name only libmount knows; without libmount, what a block
	 * device says. */
	lm = sc_dl_libmount();
	*from = lm ? SC_ORIGIN_LIBMOUNT : SC_ORIGIN_NONE;
	if (lm && lm->mnt_fstype_is_netfs(type))
		return SC_FS_NETWORK;
	if (has_blockdev)
		return SC_FS_LOCAL;
	/* libmount's pseudo list also names tmpfs, overlay, fuse...
	 * which were handled above: what remains without a device is
	 * kernel-made content until proven otherwise. */
	if (lm && lm->mnt_fstype_is_pseudofs(type))
		return SC_FS_GENERATED;
	return SC_FS_UNKNOWN;
}

enum sc_fs_class sc_fs_classify(const char *type, unsigned long magic,
				bool has_blockdev)
{
	enum sc_origin from;

	return sc_fs_classify_from(type, magic, has_blockdev, &from);
}

enum sc_tristate sc_fs_can_clone(const char *type, enum sc_fs_class cls)
{
	if (cls == SC_FS_GENERATED || cls == SC_FS_MEMORY ||
	    cls == SC_FS_FUSE)
		return SC_NO;
	for (size_t i = 0; i < ARRAY_SIZE(cloners); i++)
		if (!strcmp(type, cloners[i].name))
			return cloners[i].can;
	/* ext4, f2fs, vfat... cannot; an unknown type may: trying is cheap. */
	return cls == SC_FS_UNKNOWN ? SC_MAYBE : SC_NO;
}

/* Types an assumption may name (sc_fs_facts_assume) beyond the tables
 * above: common disk and network filesystems, and whether a mount of
 * one has a block device behind it, which decides the class that
 * looking at a real mount would give. */
static const struct {
	const char *name;
	bool blockdev;
} others[] = {
	{ "ext2", true },	{ "ext3", true },	{ "f2fs", true },
	{ "vfat", true },	{ "exfat", true },	{ "ntfs3", true },
	{ "fuseblk", true },	{ "jfs", true },	{ "reiserfs", true },
	{ "nilfs2", true },	{ "hfsplus", true },	{ "udf", true },
	{ "iso9660", true },	{ "squashfs", true },	{ "erofs", true },
	{ "gfs2", true },	{ "ocfs2", true },	{ "bcachefs", true },
	{ "zfs", false },	{ "nfs4", false },	{ "smbfs", false },
	{ "9p", false },	{ "afs", false },	{ "glusterfs", false },
	{ "ecryptfs", false },
};

const char *sc_fs_type_name(size_t i)
{
	if (i < ARRAY_SIZE(known))
		return known[i].name;
	i -= ARRAY_SIZE(known);
	if (i < ARRAY_SIZE(others))
		return others[i].name;
	i -= ARRAY_SIZE(others);
	if (i < ARRAY_SIZE(generated))
		return generated[i].name;
	return NULL;
}

int sc_fs_facts_assume(const char *spec, int fs, int mount,
		       struct sc_fs_facts **ret)
{
	bool blockdev = false, found = false;
	unsigned long magic = 0;
	struct sc_fs_facts *f;
	const char *at;
	char type[sizeof(f->type)];
	size_t i;
	int e;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	if (!spec)
		return -EINVAL;
	/* TYPE@MODULE_VERSION[,PARAMETER=VALUE...] */
	at = strchr(spec, '@');
	i = at ? (size_t)(at - spec) : strlen(spec);
	if (i >= sizeof(type))
		return -ENAMETOOLONG;
	memcpy(type, spec, i);
	type[i] = '\0';
	for (i = 0; !found && i < ARRAY_SIZE(known); i++)
		if (!strcmp(type, known[i].name)) {
			found = true;
			magic = known[i].magic;
			blockdev = known[i].cls == SC_FS_LOCAL;
		}
	for (i = 0; !found && i < ARRAY_SIZE(others); i++)
		if (!strcmp(type, others[i].name)) {
			found = true;
			blockdev = others[i].blockdev;
		}
	for (i = 0; !found && i < ARRAY_SIZE(generated); i++)
		if (!strcmp(type, generated[i].name)) {
			found = true;
			magic = generated[i].magic;
		}
	/* fuse.SUBTYPE: any FUSE program, as mountinfo names it */
	if (!found && !strncmp(type, "fuse.", 5) && type[5] &&
	    !strpbrk(type, " ,:/"))
		found = true;
	if (!found)
		return -ENOENT;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = (struct sc_fs_facts){ .mnt_id = mount, .magic = magic,
				   .assumed = true };
	strcpy(f->type, type);
	snprintf(f->identity, sizeof(f->identity), "assumed:%d", fs);
	f->cls = sc_fs_classify(type, magic, blockdev);
	f->can_clone = sc_fs_can_clone(type, f->cls);
	f->stacks = stacks_for_type(type);
	if (at && (e = module_facts_assume(f, at + 1)) < 0) {
		free(f);
		return e;
	}
	*ret = f;
	return 0;
}

void sc_fs_facts_free(struct sc_fs_facts *f)
{
	/* a cache's facts are the cache's: only assumed ones are ours */
	if (f && f->assumed)
		free(f);
}

/* The type name of a filesystem known by its magic number alone; "". */
const char *sc_fs_type_from_magic(unsigned long magic)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(generated); i++)
		if (magic == generated[i].magic)
			return generated[i].name;
	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (magic == known[i].magic)
			return known[i].name;
	return "";
}
