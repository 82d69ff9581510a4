/* Filesystem facts, cached per device for the run.
 *
 * st_dev alone does not find a file's mount: btrfs subvolumes, overlay and
 * bind mounts give st_dev values that mountinfo does not list, or lists
 * twice.  So the lookup goes: statx(STATX_MNT_ID) -> the exact mountinfo
 * entry; else the st_dev -> entry; else /proc/self/fd/N -> the mount point
 * that contains the path.  fstatfs on the descriptor gives f_type and
 * f_fsid, which are right in all those cases. */
#include "system.h"
#include "fsinfo.h"

#include <blkid.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#ifndef STATX_MNT_ID
# define STATX_MNT_ID 0x1000U
#endif

struct sc_fsinfo {
	char *mountinfo;
	struct libmnt_table *table;
	bool parsed;
	blkid_cache blkid;
	bool want_uuid;
	struct sc_fs_facts **facts;	/* stable pointers: the plan keeps them */
	size_t n, cap;
};

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
	return (unsigned)cls < ARRAY_SIZE(names) ? names[cls] : "unknown";
}

enum sc_fs_class sc_fs_classify(const char *type, unsigned long magic,
				bool has_blockdev)
{
	size_t i;

	/* The magic of the descriptor beats a mountinfo name that may
	 * belong to another mount of the same st_dev. */
	for (i = 0; magic && i < ARRAY_SIZE(generated); i++)
		if (magic == generated[i].magic)
			return SC_FS_GENERATED;
	if (type && *type) {
		for (i = 0; i < ARRAY_SIZE(generated); i++)
			if (!strcmp(type, generated[i].name))
				return SC_FS_GENERATED;
		for (i = 0; i < ARRAY_SIZE(known); i++)
			if (!strcmp(type, known[i].name))
				return known[i].cls;
		if (!strncmp(type, "fuse", 4))	/* fuse.X, fuseblk */
			return SC_FS_FUSE;
		if (mnt_fstype_is_netfs(type))
			return SC_FS_NETWORK;
		if (has_blockdev)
			return SC_FS_LOCAL;
		/* libmount's pseudo list also names tmpfs, overlay, fuse...
		 * which were handled above: what remains without a device is
		 * kernel-made content until proven otherwise. */
		if (mnt_fstype_is_pseudofs(type))
			return SC_FS_GENERATED;
		return SC_FS_UNKNOWN;
	}
	for (i = 0; i < ARRAY_SIZE(generated); i++)
		if (magic == generated[i].magic)
			return SC_FS_GENERATED;
	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (magic == known[i].magic)
			return known[i].cls;
	return has_blockdev ? SC_FS_LOCAL : SC_FS_UNKNOWN;
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

static const char *type_from_magic(unsigned long magic)
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

void sc_fsinfo_want_uuid(struct sc_fsinfo *fsi, bool want)
{
	fsi->want_uuid = want;
}

int sc_fsinfo_new(const char *mountinfo, struct sc_fsinfo **ret)
{
	struct sc_fsinfo *fsi = calloc(1, sizeof(*fsi));

	if (!fsi)
		return -ENOMEM;
	fsi->mountinfo = strdup(mountinfo ? mountinfo : "/proc/self/mountinfo");
	if (!fsi->mountinfo) {
		free(fsi);
		return -ENOMEM;
	}
	*ret = fsi;
	return 0;
}

void sc_fsinfo_free(struct sc_fsinfo *fsi)
{
	if (!fsi)
		return;
	for (size_t i = 0; i < fsi->n; i++) {
		free(fsi->facts[i]->target);
		free(fsi->facts[i]->source);
		free(fsi->facts[i]->options);
		free(fsi->facts[i]);
	}
	free(fsi->facts);
	mnt_unref_table(fsi->table);
	if (fsi->blkid)
		blkid_put_cache(fsi->blkid);
	free(fsi->mountinfo);
	free(fsi);
}

static struct libmnt_table *table(struct sc_fsinfo *fsi)
{
	if (!fsi->parsed) {
		fsi->parsed = true;
		fsi->table = mnt_new_table();
		if (fsi->table &&
		    mnt_table_parse_file(fsi->table, fsi->mountinfo) != 0) {
			mnt_unref_table(fsi->table);
			fsi->table = NULL;
		}
	}
	return fsi->table;
}

static struct libmnt_fs *find_by_id(struct libmnt_table *tb, int id)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs = NULL, *found = NULL;

	if (!it)
		return NULL;
	while (mnt_table_next_fs(tb, it, &fs) == 0)
		if (mnt_fs_get_id(fs) == id) {
			found = fs;
			break;
		}
	mnt_free_iter(it);
	return found;
}

/* The UUID of a block device, through libblkid's cache (which probes the
 * device when the cache has nothing: needs read access to it). */
static bool blkid_uuid(struct sc_fsinfo *fsi, const char *dev, char *buf,
		       size_t size)
{
	char *uuid;

	if (!fsi->blkid && blkid_get_cache(&fsi->blkid, "/dev/null") != 0)
		return false;
	uuid = blkid_get_tag_value(fsi->blkid, "UUID", dev);
	if (!uuid)
		return false;
	snprintf(buf, size, "%s", uuid);
	free(uuid);
	return true;
}

static void fill_from_fs(struct sc_fsinfo *fsi, struct sc_fs_facts *f,
			 struct libmnt_fs *fs)
{
	const char *type = mnt_fs_get_fstype(fs);
	const char *src = mnt_fs_get_srcpath(fs);
	dev_t sbdev = mnt_fs_get_devno(fs);
	bool blockdev = false;
	struct stat st;

	f->mnt_id = mnt_fs_get_id(fs);
	if (type) {
		/* mountinfo gives "fuse.sshfs" whole; keep it. */
		snprintf(f->type, sizeof(f->type), "%s", type);
	}
	f->target = mnt_fs_get_target(fs) ? strdup(mnt_fs_get_target(fs)) : NULL;
	f->source = mnt_fs_get_source(fs) ? strdup(mnt_fs_get_source(fs)) : NULL;
	f->options = mnt_fs_strdup_options(fs);
	if (src && src[0] == '/' && stat(src, &st) == 0 && S_ISBLK(st.st_mode))
		blockdev = true;
	/* One filesystem, one source device: bind mounts and btrfs
	 * subvolumes share it.  Its number costs a stat; the UUID would
	 * cost opening and reading the device (milliseconds, and root), so
	 * it is only read when a report will show it. */
	if (blockdev)
		snprintf(f->identity, sizeof(f->identity), "blk:%u:%u",
			 major(st.st_rdev), minor(st.st_rdev));
	else if (sbdev)
		snprintf(f->identity, sizeof(f->identity), "dev:%u:%u",
			 major(sbdev), minor(sbdev));
	f->class = sc_fs_classify(f->type, f->magic, blockdev);
	if (blockdev && fsi->want_uuid)
		blkid_uuid(fsi, src, f->uuid, sizeof(f->uuid));
}

static struct sc_fs_facts *cache_add(struct sc_fsinfo *fsi)
{
	if (fsi->n == fsi->cap) {
		size_t cap = fsi->cap ? fsi->cap * 2 : 8;
		struct sc_fs_facts **n = realloc(fsi->facts, cap * sizeof(*n));

		if (!n)
			return NULL;
		fsi->facts = n;
		fsi->cap = cap;
	}
	fsi->facts[fsi->n] = calloc(1, sizeof(**fsi->facts));
	return fsi->facts[fsi->n] ? fsi->facts[fsi->n++] : NULL;
}

static const struct sc_fs_facts *cache_find(struct sc_fsinfo *fsi, dev_t dev)
{
	for (size_t i = 0; i < fsi->n; i++)
		if (fsi->facts[i]->dev == dev)
			return fsi->facts[i];
	return NULL;
}

/* What could not be learned stays unknown, but a facts entry is always
 * returned: the plan treats unknown as "try, and learn". */
static struct sc_fs_facts unknown_facts = {
	.mnt_id = -1, .class = SC_FS_UNKNOWN, .can_clone = SC_MAYBE,
};

static const struct sc_fs_facts *build(struct sc_fsinfo *fsi, dev_t dev,
				       int mnt_id, unsigned long magic,
				       uint64_t fsid, const char *path)
{
	struct libmnt_table *tb = table(fsi);
	struct libmnt_fs *fs = NULL;
	struct sc_fs_facts *f = cache_add(fsi);

	if (!f)
		return &unknown_facts;
	f->dev = dev;
	f->mnt_id = -1;
	f->magic = magic;
	f->fsid = fsid;
	if (tb) {
		if (mnt_id >= 0)
			fs = find_by_id(tb, mnt_id);
		if (!fs)
			fs = mnt_table_find_devno(tb, dev, MNT_ITER_BACKWARD);
		if (!fs && path)
			fs = mnt_table_find_mountpoint(tb, path,
						       MNT_ITER_BACKWARD);
	}
	if (fs) {
		fill_from_fs(fsi, f, fs);
	} else {
		snprintf(f->type, sizeof(f->type), "%s", type_from_magic(magic));
		f->class = sc_fs_classify(f->type, magic, major(dev) != 0);
	}
	/* Without a mountinfo entry, statfs's fsid tells filesystems apart
	 * (it differs per btrfs subvolume, so this is the cautious side). */
	if (!f->identity[0] && fsid)
		snprintf(f->identity, sizeof(f->identity), "fsid:%llx",
			 (unsigned long long)fsid);
	f->can_clone = sc_fs_can_clone(f->type, f->class);
	return f;
}

const struct sc_fs_facts *sc_fsinfo_lookup_values(struct sc_fsinfo *fsi,
						  dev_t dev, int mnt_id,
						  unsigned long magic,
						  uint64_t fsid)
{
	const struct sc_fs_facts *f = cache_find(fsi, dev);

	return f ? f : build(fsi, dev, mnt_id, magic, fsid, NULL);
}

const struct sc_fs_facts *sc_fsinfo_lookup(struct sc_fsinfo *fsi, int fd,
					   const struct stat *st)
{
	const struct sc_fs_facts *f = cache_find(fsi, st->st_dev);
	struct statfs sfs;
	struct statx stx;
	char link[64], path[4096];
	unsigned long magic = 0;
	uint64_t fsid = 0;
	int mnt_id = -1;
	ssize_t n;

	if (f)
		return f;
	if (fstatfs(fd, &sfs) == 0) {
		magic = (unsigned long)sfs.f_type;
		memcpy(&fsid, &sfs.f_fsid, MIN(sizeof(fsid), sizeof(sfs.f_fsid)));
	}
	/* STATX_MNT_ID: Linux 5.8. */
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID))
		mnt_id = (int)stx.stx_mnt_id;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0 && path[0] == '/')
		path[n] = '\0';
	else
		n = 0;
	return build(fsi, st->st_dev, mnt_id, magic, fsid, n ? path : NULL);
}

struct sc_kernel sc_kernel_running(void)
{
	struct sc_kernel k = { 0, 0 };
	struct utsname u;

	if (uname(&u) == 0)
		sscanf(u.release, "%d.%d", &k.major, &k.minor);
	return k;
}

bool sc_kernel_at_least(struct sc_kernel k, int major, int minor)
{
	return k.major > major || (k.major == major && k.minor >= minor);
}
