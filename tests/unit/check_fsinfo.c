/* fsinfo: classification of filesystem types and magics, clone ability,
 * kernel versions, and lookups in a shipped mountinfo sample (never the
 * live system's). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "suites.h"
#include "fsinfo.h"

#define PROC_MAGIC	0x9fa0
#define SYSFS_MAGIC	0x62656572
#define TMPFS_MAGIC	0x01021994
#define EXT4_MAGIC	0xef53
#define BTRFS_MAGIC	0x9123683e
#define NFS_MAGIC	0x6969
#define FUSE_MAGIC	0x65735546

/* tests/data: $TESTDATA under "make check", else found from this file's
 * name (absolute in a VPATH build, relative to the build top otherwise). */
static const char *data_file(const char *name)
{
	static char path[PATH_MAX];
	const char *dir = getenv("TESTDATA");
	const char *slash;

	if (dir && *dir) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		return path;
	}
	slash = strrchr(__FILE__, '/');
	if (slash)
		snprintf(path, sizeof(path), "%.*s/../data/%s",
			 (int)(slash - __FILE__), __FILE__, name);
	else
		snprintf(path, sizeof(path), "../data/%s", name);
	return path;
}

static bool is_blockdev(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISBLK(st.st_mode);
}

START_TEST(test_classify_generated)
{
	static const char *const types[] = {
		"proc", "sysfs", "tracefs", "debugfs", "cgroup2", "cgroup",
		"configfs", "securityfs", "pstore", "efivarfs", "bpf",
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		ck_assert_msg(sc_fs_classify(types[i], 0, false) ==
			      SC_FS_GENERATED, "%s not generated", types[i]);
}
END_TEST

START_TEST(test_classify_memory_overlay_fuse_network)
{
	ck_assert_int_eq(sc_fs_classify("tmpfs", 0, false), SC_FS_MEMORY);
	ck_assert_int_eq(sc_fs_classify("ramfs", 0, false), SC_FS_MEMORY);
	ck_assert_int_eq(sc_fs_classify("overlay", 0, false), SC_FS_OVERLAY);
	ck_assert_int_eq(sc_fs_classify("fuse.sshfs", 0, false), SC_FS_FUSE);
	ck_assert_int_eq(sc_fs_classify("fuse", 0, false), SC_FS_FUSE);
	ck_assert_int_eq(sc_fs_classify("fuseblk", 0, true), SC_FS_FUSE);
	ck_assert_int_eq(sc_fs_classify("nfs", 0, false), SC_FS_NETWORK);
	ck_assert_int_eq(sc_fs_classify("nfs4", 0, false), SC_FS_NETWORK);
	ck_assert_int_eq(sc_fs_classify("cifs", 0, false), SC_FS_NETWORK);
	ck_assert_int_eq(sc_fs_classify("smb3", 0, false), SC_FS_NETWORK);
	ck_assert_int_eq(sc_fs_classify("ceph", 0, false), SC_FS_NETWORK);
}
END_TEST

START_TEST(test_classify_local_and_unknown)
{
	ck_assert_int_eq(sc_fs_classify("ext4", 0, true), SC_FS_LOCAL);
	ck_assert_int_eq(sc_fs_classify("ext4", EXT4_MAGIC, true),
			 SC_FS_LOCAL);
	ck_assert_int_eq(sc_fs_classify("btrfs", 0, true), SC_FS_LOCAL);
	/* A type nobody knows: on a block device it holds data... */
	ck_assert_int_eq(sc_fs_classify("frobfs", 0, true), SC_FS_LOCAL);
	/* ...without one it is unknown, */
	ck_assert_int_eq(sc_fs_classify("frobfs", 0, false), SC_FS_UNKNOWN);
	/* but a pseudo type libmount knows and we do not is generated. */
	ck_assert_int_eq(sc_fs_classify("resctrl", 0, false),
			 SC_FS_GENERATED);
	ck_assert_int_eq(sc_fs_classify("binder", 0, false), SC_FS_GENERATED);
}
END_TEST

START_TEST(test_classify_by_magic_only)
{
	ck_assert_int_eq(sc_fs_classify(NULL, PROC_MAGIC, false),
			 SC_FS_GENERATED);
	ck_assert_int_eq(sc_fs_classify("", SYSFS_MAGIC, false),
			 SC_FS_GENERATED);
	ck_assert_int_eq(sc_fs_classify(NULL, TMPFS_MAGIC, false),
			 SC_FS_MEMORY);
	ck_assert_int_eq(sc_fs_classify("", EXT4_MAGIC, true), SC_FS_LOCAL);
	ck_assert_int_eq(sc_fs_classify(NULL, BTRFS_MAGIC, false),
			 SC_FS_LOCAL);
	ck_assert_int_eq(sc_fs_classify(NULL, NFS_MAGIC, false),
			 SC_FS_NETWORK);
	ck_assert_int_eq(sc_fs_classify(NULL, 0x12345678, true), SC_FS_LOCAL);
	ck_assert_int_eq(sc_fs_classify(NULL, 0x12345678, false),
			 SC_FS_UNKNOWN);
	ck_assert_int_eq(sc_fs_classify(NULL, 0, false), SC_FS_UNKNOWN);
}
END_TEST

/* FUSE_SUPER_MAGIC is shared by every FUSE filesystem (sshfs, ntfs-3g,
 * virtiofs): with no name to go by, the class is fuse. */
START_TEST(test_classify_fuse_magic_is_fuse)
{
	ck_assert_int_eq(sc_fs_classify(NULL, FUSE_MAGIC, false), SC_FS_FUSE);
}
END_TEST

/* The descriptor's magic beats a mountinfo name that may belong to
 * another mount of the same st_dev. */
START_TEST(test_classify_generated_magic_beats_name)
{
	ck_assert_int_eq(sc_fs_classify("ext4", SYSFS_MAGIC, true),
			 SC_FS_GENERATED);
	ck_assert_int_eq(sc_fs_classify("tmpfs", PROC_MAGIC, false),
			 SC_FS_GENERATED);
	/* A non-generated magic does not override the name. */
	ck_assert_int_eq(sc_fs_classify("proc", EXT4_MAGIC, false),
			 SC_FS_GENERATED);
}
END_TEST

START_TEST(test_can_clone)
{
	ck_assert_int_eq(sc_fs_can_clone("btrfs", SC_FS_LOCAL), SC_YES);
	ck_assert_int_eq(sc_fs_can_clone("ocfs2", SC_FS_LOCAL), SC_YES);
	ck_assert_int_eq(sc_fs_can_clone("bcachefs", SC_FS_LOCAL), SC_YES);
	ck_assert_int_eq(sc_fs_can_clone("xfs", SC_FS_LOCAL), SC_MAYBE);
	ck_assert_int_eq(sc_fs_can_clone("zfs", SC_FS_LOCAL), SC_MAYBE);
	ck_assert_int_eq(sc_fs_can_clone("nfs4", SC_FS_NETWORK), SC_MAYBE);
	ck_assert_int_eq(sc_fs_can_clone("cifs", SC_FS_NETWORK), SC_MAYBE);
	ck_assert_int_eq(sc_fs_can_clone("overlay", SC_FS_OVERLAY), SC_MAYBE);
	ck_assert_int_eq(sc_fs_can_clone("ext4", SC_FS_LOCAL), SC_NO);
	ck_assert_int_eq(sc_fs_can_clone("vfat", SC_FS_LOCAL), SC_NO);
	ck_assert_int_eq(sc_fs_can_clone("ceph", SC_FS_NETWORK), SC_NO);
	ck_assert_int_eq(sc_fs_can_clone("tmpfs", SC_FS_MEMORY), SC_NO);
	ck_assert_int_eq(sc_fs_can_clone("proc", SC_FS_GENERATED), SC_NO);
	ck_assert_int_eq(sc_fs_can_clone("fuse.sshfs", SC_FS_FUSE), SC_NO);
	/* Unknown: trying is cheap, a refusal is learned. */
	ck_assert_int_eq(sc_fs_can_clone("frobfs", SC_FS_UNKNOWN), SC_MAYBE);
	ck_assert_int_eq(sc_fs_can_clone("", SC_FS_UNKNOWN), SC_MAYBE);
	/* The class wins over a name. */
	ck_assert_int_eq(sc_fs_can_clone("btrfs", SC_FS_GENERATED), SC_NO);
}
END_TEST

START_TEST(test_class_names)
{
	ck_assert_str_eq(sc_fs_class_name(SC_FS_UNKNOWN), "unknown");
	ck_assert_str_eq(sc_fs_class_name(SC_FS_GENERATED), "generated");
	ck_assert_str_eq(sc_fs_class_name(SC_FS_MEMORY), "memory");
	ck_assert_str_eq(sc_fs_class_name(SC_FS_LOCAL), "local");
	ck_assert_str_eq(sc_fs_class_name(SC_FS_NETWORK), "network");
	ck_assert_str_eq(sc_fs_class_name(SC_FS_FUSE), "fuse");
	ck_assert_str_eq(sc_fs_class_name(SC_FS_OVERLAY), "overlay");
	ck_assert_str_eq(sc_fs_class_name((enum sc_fs_class)99), "?");
}
END_TEST

START_TEST(test_kernel_at_least)
{
	struct sc_kernel k44 = { 4, 4 }, k518 = { 5, 18 }, k519 = { 5, 19 };
	struct sc_kernel k60 = { 6, 0 }, k420 = { 4, 20 }, none = { 0, 0 };

	ck_assert(!sc_kernel_at_least(k44, 4, 5));
	ck_assert(sc_kernel_at_least(k44, 4, 4));
	ck_assert(!sc_kernel_at_least(k518, 5, 19));
	ck_assert(sc_kernel_at_least(k518, 5, 18));
	ck_assert(sc_kernel_at_least(k519, 5, 19));
	ck_assert(sc_kernel_at_least(k519, 5, 3));
	ck_assert(sc_kernel_at_least(k60, 5, 19));
	ck_assert(!sc_kernel_at_least(k420, 5, 3));
	ck_assert(sc_kernel_at_least(k420, 4, 5));
	ck_assert(!sc_kernel_at_least(none, 4, 5));
	ck_assert(sc_kernel_running().major >= 3);
}
END_TEST

/* Lookups in tests/data/mountinfo-sample. */
static struct sc_fsinfo *sample(void)
{
	struct sc_fsinfo *fsi = NULL;
	const char *path = data_file("mountinfo-sample");

	ck_assert_msg(access(path, R_OK) == 0, "cannot read %s", path);
	ck_assert_int_eq(sc_fsinfo_new(path, &fsi), 0);
	ck_assert_ptr_nonnull(fsi);
	return fsi;
}

struct entry {
	int mnt_id;
	unsigned maj, min;	/* a st_dev nobody else uses in the sample */
	const char *type, *target, *source;
	enum sc_fs_class class;
	enum sc_tristate can_clone;
};

static const struct entry entries[] = {
	{ 22, 253, 0, "ext4", "/", "/dev/vda", SC_FS_LOCAL, SC_NO },
	{ 23, 0, 21, "proc", "/proc", "proc", SC_FS_GENERATED, SC_NO },
	{ 24, 0, 22, "sysfs", "/sys", "sysfs", SC_FS_GENERATED, SC_NO },
	{ 25, 0, 12, "tracefs", "/sys/kernel/tracing", "tracefs",
	  SC_FS_GENERATED, SC_NO },
	{ 27, 0, 26, "cgroup2", "/sys/fs/cgroup", "cgroup2",
	  SC_FS_GENERATED, SC_NO },
	{ 29, 0, 25, "tmpfs", "/run", "tmpfs", SC_FS_MEMORY, SC_NO },
	{ 40, 0, 81, "btrfs", "/mnt/a", "/dev/vdb", SC_FS_LOCAL, SC_YES },
	{ 41, 0, 82, "btrfs", "/mnt/b", "/dev/vdb", SC_FS_LOCAL, SC_YES },
	{ 42, 253, 0, "ext4", "/data", "/dev/vda", SC_FS_LOCAL, SC_NO },
	{ 43, 0, 45, "overlay", "/merged", "overlay", SC_FS_OVERLAY,
	  SC_MAYBE },
	{ 44, 0, 46, "nfs4", "/net", "server:/export", SC_FS_NETWORK,
	  SC_MAYBE },
	{ 45, 0, 47, "fuse.sshfs", "/home/u/remote", "u@host:/home/u",
	  SC_FS_FUSE, SC_NO },
	{ 47, 0, 49, "ramfs", "/mnt/with space", "ramfs", SC_FS_MEMORY,
	  SC_NO },
};

static void check_entry(const struct sc_fs_facts *f, const struct entry *e)
{
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->mnt_id, e->mnt_id);
	ck_assert_str_eq(f->type, e->type);
	ck_assert_ptr_nonnull(f->target);
	ck_assert_str_eq(f->target, e->target);
	ck_assert_ptr_nonnull(f->source);
	ck_assert_str_eq(f->source, e->source);
	ck_assert_ptr_nonnull(f->options);
	ck_assert_msg(f->cls == e->class, "mount %d: class %s, expected %s",
		      e->mnt_id, sc_fs_class_name(f->cls),
		      sc_fs_class_name(e->class));
	ck_assert_int_eq(f->can_clone, e->can_clone);
	ck_assert_msg(f->identity[0], "mount %d: no identity", e->mnt_id);
}

/* statx(STATX_MNT_ID) gives the exact entry, even for a st_dev that
 * mountinfo does not list (btrfs subvolumes). */
START_TEST(test_lookup_by_mount_id)
{
	const struct entry *e = &entries[_i];
	struct sc_fsinfo *fsi = sample();
	const struct sc_fs_facts *f;

	f = sc_fsinfo_lookup_values(fsi, makedev(e->maj, e->min + 1000),
				    e->mnt_id, 0, 0);
	check_entry(f, e);
	sc_fsinfo_free(fsi);
}
END_TEST

/* Without a mount id (kernels before 5.8) st_dev picks the entry. */
START_TEST(test_lookup_by_devno)
{
	struct sc_fsinfo *fsi = sample();
	const struct sc_fs_facts *f;

	f = sc_fsinfo_lookup_values(fsi, makedev(0, 21), -1, 0, 0);
	check_entry(f, &entries[1]);
	f = sc_fsinfo_lookup_values(fsi, makedev(0, 46), -1, 0, 0);
	check_entry(f, &entries[10]);
	f = sc_fsinfo_lookup_values(fsi, makedev(0, 47), -1, 0, 0);
	check_entry(f, &entries[11]);
	ck_assert_int_eq(f->dev, makedev(0, 47));
	sc_fsinfo_free(fsi);
}
END_TEST

START_TEST(test_lookup_options)
{
	struct sc_fsinfo *fsi = sample();
	const struct sc_fs_facts *a, *n;

	a = sc_fsinfo_lookup_values(fsi, makedev(0, 81), 40, BTRFS_MAGIC, 0);
	n = sc_fsinfo_lookup_values(fsi, makedev(0, 46), 44, NFS_MAGIC, 0);
	ck_assert_ptr_nonnull(strstr(a->options, "subvol=/a"));
	ck_assert_ptr_null(strstr(a->options, "subvol=/b"));
	ck_assert_ptr_nonnull(strstr(n->options, "vers=4.2"));
	ck_assert_ptr_nonnull(strstr(n->options, "relatime"));
	ck_assert_int_eq(a->magic, BTRFS_MAGIC);
	sc_fsinfo_free(fsi);
}
END_TEST

/* Two subvolumes of one btrfs: each has its own st_dev, but mountinfo
 * gives both the superblock's 0:40, so they are one filesystem (clone
 * between them works) with different mount ids. */
START_TEST(test_btrfs_subvolumes_share_identity)
{
	struct sc_fsinfo *fsi = sample();
	const struct sc_fs_facts *a, *b, *root;

	a = sc_fsinfo_lookup_values(fsi, makedev(0, 81), 40, BTRFS_MAGIC,
				    0x1111);
	b = sc_fsinfo_lookup_values(fsi, makedev(0, 82), 41, BTRFS_MAGIC,
				    0x2222);
	root = sc_fsinfo_lookup_values(fsi, makedev(253, 0), 22, EXT4_MAGIC,
				       0x3333);
	ck_assert_ptr_ne(a, b);
	ck_assert_str_eq(a->identity, b->identity);
	ck_assert_str_ne(a->identity, root->identity);
	ck_assert_int_ne(a->mnt_id, b->mnt_id);
	/* libblkid finds no UUID for a device that is not there. */
	if (!is_blockdev("/dev/vdb"))
		ck_assert_str_eq(a->identity, "dev:0:40");
	sc_fsinfo_free(fsi);
}
END_TEST

/* A bind mount is the same filesystem as its origin. */
START_TEST(test_bind_mount_shares_identity)
{
	struct sc_fsinfo *fsi = sample();
	const struct sc_fs_facts *root, *bind;

	root = sc_fsinfo_lookup_values(fsi, makedev(253, 0), 22, 0, 0);
	bind = sc_fsinfo_lookup_values(fsi, makedev(253, 1000), 42, 0, 0);
	ck_assert_str_eq(root->target, "/");
	ck_assert_str_eq(bind->target, "/data");
	ck_assert_str_eq(root->identity, bind->identity);
	if (is_blockdev("/dev/vda"))
		ck_assert_msg(!strncmp(root->identity, "blk:", 4),
			      "identity %s", root->identity);
	else
		ck_assert_str_eq(root->identity, "dev:253:0");
	sc_fsinfo_free(fsi);
}
END_TEST

/* Facts are cached per st_dev: the second lookup returns the same entry
 * whatever else it is asked. */
START_TEST(test_lookup_cached_per_dev)
{
	struct sc_fsinfo *fsi = sample();
	const struct sc_fs_facts *a, *b;

	a = sc_fsinfo_lookup_values(fsi, makedev(0, 21), 23, PROC_MAGIC, 0);
	b = sc_fsinfo_lookup_values(fsi, makedev(0, 21), 44, NFS_MAGIC, 0);
	ck_assert_ptr_eq(a, b);
	ck_assert_str_eq(b->type, "proc");
	sc_fsinfo_free(fsi);
}
END_TEST

/* What mountinfo does not know stays unknown, but facts always come back:
 * the type from the magic, the identity from f_fsid. */
START_TEST(test_lookup_unknown)
{
	struct sc_fsinfo *fsi = sample();
	const struct sc_fs_facts *f;

	f = sc_fsinfo_lookup_values(fsi, makedev(0, 999), 999, 0, 0);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->mnt_id, -1);
	ck_assert_ptr_null(f->target);
	ck_assert_str_eq(f->type, "");
	ck_assert_int_eq(f->cls, SC_FS_UNKNOWN);
	ck_assert_int_eq(f->can_clone, SC_MAYBE);
	ck_assert_str_eq(f->identity, "");

	f = sc_fsinfo_lookup_values(fsi, makedev(0, 998), -1, PROC_MAGIC,
				    0xabcdef);
	ck_assert_str_eq(f->type, "proc");
	ck_assert_int_eq(f->cls, SC_FS_GENERATED);
	ck_assert_int_eq(f->can_clone, SC_NO);
	ck_assert_str_eq(f->identity, "fsid:abcdef");

	f = sc_fsinfo_lookup_values(fsi, makedev(8, 17), -1, EXT4_MAGIC, 1);
	ck_assert_str_eq(f->type, "ext4");
	ck_assert_int_eq(f->cls, SC_FS_LOCAL);
	ck_assert_int_eq(f->can_clone, SC_NO);
	sc_fsinfo_free(fsi);
}
END_TEST

START_TEST(test_missing_mountinfo)
{
	struct sc_fsinfo *fsi = NULL;
	const struct sc_fs_facts *f;

	ck_assert_int_eq(sc_fsinfo_new(data_file("no-such-mountinfo"), &fsi),
			 0);
	f = sc_fsinfo_lookup_values(fsi, makedev(0, 22), 24, SYSFS_MAGIC, 7);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->mnt_id, -1);
	ck_assert_str_eq(f->type, "sysfs");
	ck_assert_int_eq(f->cls, SC_FS_GENERATED);
	ck_assert_str_eq(f->identity, "fsid:7");
	sc_fsinfo_free(fsi);
	sc_fsinfo_free(NULL);
}
END_TEST

/* statmount(2)'s fields, written back as the kernel writes mountinfo:
 * names escaped, per mount flags before the " - ", the superblock's
 * after the source, the subtype joined to the type. */
START_TEST(test_mountinfo_line_format)
{
	const struct sc_mount_fields sshfs = {
		.id = 45, .parent = 22, .dev_major = 0, .dev_minor = 47,
		.attr = 0x2 | 0x4,	/* nosuid, nodev; relatime is 0 */
		.root = "/", .point = "/home/u/remote", .type = "fuse",
		.subtype = "sshfs", .source = "u@host:/home/u",
		.options = "user_id=1000,group_id=1000",
	}, spaced = {
		.id = 47, .parent = 22, .dev_major = 0, .dev_minor = 49,
		.root = "/a b\\c", .point = "/mnt/with space\ttab\nnl",
		.type = "ramfs", .source = "my ramfs",
	}, flags = {
		.id = 7, .parent = 1, .dev_major = 8, .dev_minor = 1,
		/* ro, noexec, strictatime, nodiratime, nosymfollow, idmap */
		.attr = 0x1 | 0x8 | 0x20 | 0x80 | 0x200000 | 0x100000,
		/* ro, sync, dirsync, lazytime */
		.sb_flags = 0x1 | 0x10 | 0x80 | 0x2000000,
		.root = "/", .point = "/x", .type = "ext4",
		.source = "/dev/sda1", .options = "errors=remount-ro",
	}, noatime = {
		.id = 8, .parent = 1, .dev_major = 0, .dev_minor = 30,
		.attr = 0x10, .root = "/", .point = "/t", .type = "tmpfs",
		.subtype = "", .source = "tmpfs", .options = "",
	};
	char *l;

	l = sc_fsinfo_mountinfo_line(&sshfs);
	ck_assert_str_eq(l, "45 22 0:47 / /home/u/remote rw,nosuid,nodev,"
			 "relatime - fuse.sshfs u@host:/home/u "
			 "rw,user_id=1000,group_id=1000\n");
	free(l);
	l = sc_fsinfo_mountinfo_line(&spaced);
	ck_assert_str_eq(l, "47 22 0:49 /a\\040b\\134c "
			 "/mnt/with\\040space\\011tab\\012nl rw,relatime - "
			 "ramfs my\\040ramfs rw\n");
	free(l);
	l = sc_fsinfo_mountinfo_line(&flags);
	ck_assert_str_eq(l, "7 1 8:1 / /x ro,noexec,nodiratime,nosymfollow,"
			 "idmapped - ext4 /dev/sda1 ro,sync,dirsync,lazytime,"
			 "errors=remount-ro\n");
	free(l);
	l = sc_fsinfo_mountinfo_line(&noatime);
	ck_assert_str_eq(l, "8 1 0:30 / /t rw,noatime - tmpfs tmpfs rw\n");
	free(l);
}
END_TEST

/* A line rebuilt from statmount's fields gives the facts the sample's own
 * line gives (libmount parses both): type with subtype, mount point with
 * a space, source, options, identity. */
START_TEST(test_mountinfo_line_same_facts)
{
	const struct sc_mount_fields m[] = {
		{ .id = 45, .parent = 22, .dev_minor = 47, .attr = 0x6,
		  .root = "/", .point = "/home/u/remote", .type = "fuse",
		  .subtype = "sshfs", .source = "u@host:/home/u",
		  .options = "user_id=1000,group_id=1000" },
		{ .id = 47, .parent = 22, .dev_minor = 49, .root = "/",
		  .point = "/mnt/with space", .type = "ramfs",
		  .source = "ramfs" },
		{ .id = 41, .parent = 22, .dev_minor = 40, .root = "/b",
		  .point = "/mnt/b", .type = "btrfs", .source = "/dev/vdb",
		  .options = "space_cache=v2,subvolid=257,subvol=/b" },
		{ .id = 23, .parent = 22, .dev_minor = 21, .attr = 0xe,
		  .root = "/", .point = "/proc", .type = "proc",
		  .source = "proc" },
	};
	char path[] = "/tmp/check-fsinfo-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct sc_fsinfo *one = NULL, *all = sample();

	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		char *l = sc_fsinfo_mountinfo_line(&m[i]);

		ck_assert_ptr_nonnull(l);
		fputs(l, f);
		free(l);
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(sc_fsinfo_new(path, &one), 0);
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		dev_t dev = makedev(7, 100 + i);
		const struct sc_fs_facts *a, *b;

		a = sc_fsinfo_lookup_values(all, dev, (int)m[i].id, 0, 0);
		b = sc_fsinfo_lookup_values(one, dev, (int)m[i].id, 0, 0);
		ck_assert_int_eq(a->mnt_id, b->mnt_id);
		ck_assert_str_eq(a->type, b->type);
		ck_assert_str_eq(a->target, b->target);
		ck_assert_str_eq(a->source, b->source);
		ck_assert_str_eq(a->options, b->options);
		ck_assert_str_eq(a->identity, b->identity);
		ck_assert_int_eq(a->cls, b->cls);
		ck_assert_int_eq(a->can_clone, b->can_clone);
	}
	sc_fsinfo_free(one);
	sc_fsinfo_free(all);
	unlink(path);
}
END_TEST


/* Issue 30: where the magic number settles the class, statmount's fields
 * give the facts without libmount -- the same facts, to the byte, as
 * libmount's reading of their mountinfo line, which a report (want_uuid)
 * still gets.  Elsewhere both take libmount's. */
struct fields_case {
	struct sc_mount_fields m;
	unsigned long magic;
	enum sc_origin type_from;	/* without want_uuid */
};

static const struct fields_case fields_cases[] = {
	{ { .id = 26, .parent = 1, .dev_major = 254, .root = "/",
	    .point = "/", .type = "ext4", .source = "/dev/vda",
	    .options = "discard,resv_strict,resuid=65534,resgid=65534" },
	  EXT4_MAGIC, SC_ORIGIN_STATMOUNT },
	/* read-only mount of a writable superblock, and the reverse */
	{ { .id = 27, .parent = 26, .dev_minor = 24, .attr = 0x1 | 0x2 | 0x4,
	    .root = "/", .point = "/mnt/ro", .type = "tmpfs",
	    .source = "model_tools_unavailable", .options = "size=4k,mode=755" },
	  TMPFS_MAGIC, SC_ORIGIN_STATMOUNT },
	{ { .id = 28, .parent = 26, .dev_major = 7, .sb_flags = 0x1,
	    .root = "/", .point = "/mnt/rosb", .type = "xfs",
	    .source = "/dev/loop7", .options = "attr2,inode64,noquota" },
	  0x58465342, SC_ORIGIN_STATMOUNT },
	{ { .id = 29, .parent = 26, .dev_major = 7, .dev_minor = 1,
	    .attr = 0x1, .sb_flags = 0x1, .root = "/", .point = "/mnt/ro2",
	    .type = "ext4", .source = "/dev/loop1" },
	  EXT4_MAGIC, SC_ORIGIN_STATMOUNT },
	/* flags on both sides, an option with an escaped comma and space */
	{ { .id = 30, .parent = 26, .dev_minor = 40,
	    .attr = 0x8 | 0x20 | 0x80 | 0x200000,
	    .sb_flags = 0x10 | 0x80 | 0x2000000, .root = "/sub",
	    .point = "/mnt/with space", .type = "btrfs", .source = "/dev/vdb",
	    .options = "discard=async,space_cache=v2,subvolid=257,"
		       "subvol=/a\\054b\\040c" },
	  BTRFS_MAGIC, SC_ORIGIN_STATMOUNT },
	/* an option called rw or ro beyond the flags, with a value */
	{ { .id = 31, .parent = 26, .dev_minor = 41, .root = "/",
	    .point = "/mnt/odd", .type = "tmpfs", .source = "tmpfs",
	    .options = "rw=1,ro,x=rw" },
	  TMPFS_MAGIC, SC_ORIGIN_STATMOUNT },
	{ { .id = 32, .parent = 26, .dev_minor = 21, .attr = 0xe,
	    .root = "/", .point = "/proc", .type = "proc", .source = "proc" },
	  PROC_MAGIC, SC_ORIGIN_STATMOUNT },
	{ { .id = 33, .parent = 26, .dev_minor = 45, .root = "/",
	    .point = "/merged", .type = "overlay", .source = "overlay",
	    .options = "lowerdir=/l,upperdir=/u,workdir=/w" },
	  0x794c7630, SC_ORIGIN_STATMOUNT },
	/* type names decide there (server-side copy): libmount's */
	{ { .id = 45, .parent = 26, .dev_minor = 47, .attr = 0x6,
	    .root = "/", .point = "/home/u/remote", .type = "fuse",
	    .subtype = "sshfs", .source = "u@host:/home/u",
	    .options = "user_id=1000,group_id=1000" },
	  FUSE_MAGIC, SC_ORIGIN_LIBMOUNT },
	{ { .id = 44, .parent = 26, .dev_minor = 46, .root = "/",
	    .point = "/net", .type = "nfs4", .source = "server:/export",
	    .options = "vers=4.2,rsize=1048576,addr=10.0.0.1" },
	  NFS_MAGIC, SC_ORIGIN_LIBMOUNT },
	/* a name smartcp's tables do not know: libmount's lists */
	{ { .id = 50, .parent = 26, .dev_major = 7, .dev_minor = 3,
	    .root = "/", .point = "/mnt/e3", .type = "ext3",
	    .source = "/dev/loop3" },
	  EXT4_MAGIC, SC_ORIGIN_LIBMOUNT },
	{ { .id = 51, .parent = 26, .dev_minor = 60, .root = "/",
	    .point = "/mnt/sq", .type = "squashfs", .source = "/dev/loop4" },
	  0x73717368, SC_ORIGIN_LIBMOUNT },
	/* what libmount's parser rewrites or reads its own way */
	{ { .id = 52, .parent = 1, .dev_major = 254, .root = "/",
	    .point = "/", .type = "ext4", .source = "/dev/root" },
	  EXT4_MAGIC, SC_ORIGIN_LIBMOUNT },
	{ { .id = 53, .parent = 26, .dev_minor = 61, .root = "/",
	    .point = "/gone (deleted)", .type = "tmpfs", .source = "tmpfs" },
	  TMPFS_MAGIC, SC_ORIGIN_LIBMOUNT },
	{ { .id = 54, .parent = 26, .dev_minor = 62, .root = "/",
	    .point = "/q", .type = "tmpfs", .source = "tmpfs",
	    .options = "x=\"a,b\"" },
	  TMPFS_MAGIC, SC_ORIGIN_LIBMOUNT },
};

static void assert_same_facts(const struct sc_fs_facts *a,
			      const struct sc_fs_facts *b, const char *what)
{
	ck_assert_msg(a->mnt_id == b->mnt_id, "%s: mnt_id %d, %d", what,
		      a->mnt_id, b->mnt_id);
	ck_assert_msg(!strcmp(a->type, b->type), "%s: type '%s', '%s'", what,
		      a->type, b->type);
	ck_assert_msg(!strcmp(a->identity, b->identity),
		      "%s: identity '%s', '%s'", what, a->identity,
		      b->identity);
	ck_assert_msg(a->cls == b->cls, "%s: class %s, %s", what,
		      sc_fs_class_name(a->cls), sc_fs_class_name(b->cls));
	ck_assert_msg(a->can_clone == b->can_clone, "%s: can_clone", what);
	ck_assert_msg(a->magic == b->magic && a->fsid == b->fsid &&
		      a->dev == b->dev, "%s: magic, fsid, dev", what);
#define SAME_STR(x)							\
	ck_assert_msg((!a->x && !b->x) ||				\
		      (a->x && b->x && !strcmp(a->x, b->x)),		\
		      "%s: " #x " '%s', '%s'", what,			\
		      a->x ? a->x : "(null)", b->x ? b->x : "(null)")
	SAME_STR(target);
	SAME_STR(source);
	SAME_STR(options);
#undef SAME_STR
}

START_TEST(test_fields_same_as_libmount)
{
	const struct fields_case *c = &fields_cases[_i];
	struct sc_fsinfo *fast = NULL, *lm = NULL;
	const struct sc_fs_facts *a, *b;
	dev_t dev = makedev(c->m.dev_major, c->m.dev_minor + 5000);
	char what[64];

	snprintf(what, sizeof(what), "mount %u (%s)", c->m.id, c->m.type);
	ck_assert_int_eq(sc_fsinfo_new(NULL, &fast), 0);
	ck_assert_int_eq(sc_fsinfo_new(NULL, &lm), 0);
	sc_fsinfo_want_uuid(lm, true);
	a = sc_fsinfo_lookup_fields(fast, dev, &c->m, c->magic, 0x77);
	b = sc_fsinfo_lookup_fields(lm, dev, &c->m, c->magic, 0x77);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(a->options);
	assert_same_facts(a, b, what);
	ck_assert_msg(sc_fsinfo_origin(fast, a, SC_FACT_TYPE) == c->type_from,
		      "%s: type from %s", what,
		      sc_origin_name(sc_fsinfo_origin(fast, a, SC_FACT_TYPE)));
	ck_assert_int_eq(sc_fsinfo_origin(fast, a, SC_FACT_MOUNT),
			 c->type_from);
	/* a report reads libmount's, always */
	ck_assert_int_eq(sc_fsinfo_origin(lm, b, SC_FACT_TYPE),
			 SC_ORIGIN_LIBMOUNT);
	sc_fsinfo_free(fast);
	sc_fsinfo_free(lm);
}
END_TEST

/* The options of a read-only mount are libmount's: "ro" first, once. */
START_TEST(test_fields_options_merged)
{
	struct sc_fsinfo *fsi = NULL;
	const struct sc_fs_facts *f;

	ck_assert_int_eq(sc_fsinfo_new(NULL, &fsi), 0);
	f = sc_fsinfo_lookup_fields(fsi, makedev(1, 1), &fields_cases[1].m,
				    TMPFS_MAGIC, 0);
	ck_assert_str_eq(f->options, "ro,nosuid,nodev,relatime,size=4k,mode=755");
	f = sc_fsinfo_lookup_fields(fsi, makedev(1, 2), &fields_cases[4].m,
				    BTRFS_MAGIC, 0);
	ck_assert_str_eq(f->options, "rw,noexec,nodiratime,nosymfollow,sync,"
			 "dirsync,lazytime,discard=async,space_cache=v2,"
			 "subvolid=257,subvol=/a,b c");
	ck_assert_str_eq(f->target, "/mnt/with space");
	sc_fsinfo_free(fsi);
}
END_TEST

/* Where each fact came from, as --explain will print it. */
START_TEST(test_fact_origins)
{
	struct sc_fsinfo *fsi = NULL, *sample_fsi = sample();
	const struct sc_fs_facts *f;
	char buf[160];

	ck_assert_int_eq(sc_fsinfo_new(NULL, &fsi), 0);
	f = sc_fsinfo_lookup_fields(fsi, makedev(2, 1), &fields_cases[0].m,
				    EXT4_MAGIC, 5);
	ck_assert_int_gt(sc_fsinfo_origins_text(fsi, f, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "type statmount, class statmount, "
			 "identity statmount, mount statmount");
	f = sc_fsinfo_lookup_fields(fsi, makedev(2, 2), &fields_cases[6].m,
				    PROC_MAGIC, 5);
	ck_assert_int_gt(sc_fsinfo_origins_text(fsi, f, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "type statmount, class magic, "
			 "identity statmount, mount statmount");
	f = sc_fsinfo_lookup_fields(fsi, makedev(2, 3), &fields_cases[10].m,
				    EXT4_MAGIC, 5);
	ck_assert_int_gt(sc_fsinfo_origins_text(fsi, f, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "type libmount, class libmount, "
			 "identity libmount, mount libmount");
	ck_assert_int_eq(sc_fsinfo_origins_text(fsi, f, buf, 10), -ENOSPC);
	/* the whole table; the magic alone */
	f = sc_fsinfo_lookup_values(sample_fsi, makedev(0, 1021), 23, 0, 0);
	ck_assert_int_eq(sc_fsinfo_origin(sample_fsi, f, SC_FACT_TYPE),
			 SC_ORIGIN_MOUNTINFO);
	f = sc_fsinfo_lookup_values(sample_fsi, makedev(0, 998), -1,
				    PROC_MAGIC, 0xabc);
	ck_assert_int_gt(sc_fsinfo_origins_text(sample_fsi, f, buf,
						sizeof(buf)), 0);
	ck_assert_str_eq(buf, "type magic, class magic, identity magic");
	/* facts it did not make */
	ck_assert_int_eq(sc_fsinfo_origin(fsi, f, SC_FACT_TYPE),
			 SC_ORIGIN_NONE);
	ck_assert_str_eq(sc_origin_name(SC_ORIGIN_LIBBLKID), "libblkid");
	sc_fsinfo_free(fsi);
	sc_fsinfo_free(sample_fsi);
}
END_TEST

/* The mount points of /proc/self/mountinfo, unescaped, into PATHS. */
static size_t live_mount_points(char ***paths)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t n = 0, cap = 0;
	size_t len = 0;

	*paths = NULL;
	if (!f)
		return 0;
	while (getline(&line, &len, f) > 0) {
		char *p = line, *w, *point;
		int field = 0;

		while (field < 4 && (p = strchr(p, ' ')))
			p++, field++;
		if (!p)
			continue;
		point = w = p;
		for (; *p && *p != ' '; p++) {
			if (p[0] == '\\' && p[1] && p[2] && p[3]) {
				*w++ = (char)(64 * (p[1] - '0') +
					      8 * (p[2] - '0') + (p[3] - '0'));
				p += 3;
			} else {
				*w++ = *p;
			}
		}
		*w = '\0';
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*paths = realloc(*paths, cap * sizeof(**paths));
			ck_assert_ptr_nonnull(*paths);
		}
		(*paths)[n++] = strdup(point);
	}
	free(line);
	fclose(f);
	return n;
}

/* Every mount of this machine (the suite's own loop devices, tmpfs and
 * FUSE mounts among them while it runs): the facts without a report are
 * the facts a report gets. */
static bool live_same(const char *path)
{
	struct sc_fsinfo *fast = NULL, *lm = NULL;
	const struct sc_fs_facts *a, *b;
	struct stat st;
	bool same;
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return true;	/* gone meanwhile */
	}
	ck_assert_int_eq(sc_fsinfo_new(NULL, &fast), 0);
	ck_assert_int_eq(sc_fsinfo_new(NULL, &lm), 0);
	sc_fsinfo_want_uuid(lm, true);
	a = sc_fsinfo_lookup(fast, fd, &st);
	b = sc_fsinfo_lookup(lm, fd, &st);
	same = a->mnt_id == b->mnt_id && !strcmp(a->type, b->type) &&
	       !strcmp(a->identity, b->identity) && a->cls == b->cls &&
	       a->can_clone == b->can_clone && a->target && b->target &&
	       !strcmp(a->target, b->target) && a->source && b->source &&
	       !strcmp(a->source, b->source) && a->options && b->options &&
	       !strcmp(a->options, b->options);
	if (!same)
		fprintf(stderr, "%s: '%s' '%s' '%s' '%s' / '%s' '%s' '%s' '%s'\n",
			path, a->type, a->identity, a->source ? a->source : "",
			a->options ? a->options : "", b->type, b->identity,
			b->source ? b->source : "", b->options ? b->options : "");
	sc_fsinfo_free(fast);
	sc_fsinfo_free(lm);
	close(fd);
	return same;
}

START_TEST(test_live_mounts_same_as_libmount)
{
	char **paths;
	size_t n = live_mount_points(&paths);

	ck_assert_uint_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		/* Other tests mount and unmount meanwhile: a mount that
		 * changed between the two lookups is asked again. */
		ck_assert_msg(live_same(paths[i]) || live_same(paths[i]),
			      "%s: facts differ without a report", paths[i]);
		free(paths[i]);
	}
	free(paths);
}
END_TEST

static TCase *tcase(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);

	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
	return tc;
}

/* --kernel: the forms users write, and only kernels that exist. */
START_TEST(test_kernel_parse)
{
	static const struct {
		const char *text;
		int ret, major, minor;
	} rows[] = {
		{ "5.4", 0, 5, 4 },		{ "6.1.0", 0, 6, 1 },
		{ "6.1.0-13-amd64", 0, 6, 1 },	{ "5.15.0-91-generic", 0, 5, 15 },
		{ "6.8-rc3", 0, 6, 8 },		{ "2.6.32", 0, 2, 6 },
		{ "4.20", 0, 4, 20 },		{ "5.19", 0, 5, 19 },
		{ "7.3", 0, 7, 3 },		{ "6.18+", 0, 6, 18 },
		{ "5.20", -ERANGE, 0, 0 },		{ "4.21", -ERANGE, 0, 0 },
		{ "3.20", -ERANGE, 0, 0 },		{ "2.4", -ERANGE, 0, 0 },
		{ "1.0", -ERANGE, 0, 0 },		{ "8.0", -ERANGE, 0, 0 },
		{ "6.20", -ERANGE, 0, 0 },		{ "5", -EINVAL, 0, 0 },
		{ "5.", -EINVAL, 0, 0 },		{ ".4", -EINVAL, 0, 0 },
		{ "five", -EINVAL, 0, 0 },		{ "5.4x", -EINVAL, 0, 0 },
		{ "5.4.1.2", -EINVAL, 0, 0 },		{ "", -EINVAL, 0, 0 },
		{ " 5.4", -EINVAL, 0, 0 },		{ "5..4", -EINVAL, 0, 0 },
		{ "99999999999.1", -EINVAL, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sc_kernel k = { -1, -1 };
		int r = sc_kernel_parse(rows[i].text, &k);

		ck_assert_msg(r == rows[i].ret, "'%s': %d, expected %d",
			      rows[i].text, r, rows[i].ret);
		if (!r)
			ck_assert_msg(k.major == rows[i].major &&
				      k.minor == rows[i].minor,
				      "'%s' -> %d.%d", rows[i].text, k.major,
				      k.minor);
	}
	ck_assert_int_eq(sc_kernel_parse(NULL, &(struct sc_kernel){ 0 }),
			 -EINVAL);
}
END_TEST

/* --assume-fs: an assumed type gets the class and clone ability that a
 * real mount of it is given by sc_fs_classify and sc_fs_can_clone. */
START_TEST(test_facts_assume)
{
	static const struct {
		const char *type;
		enum sc_fs_class cls;
		enum sc_tristate clone;
	} rows[] = {
		{ "ext4", SC_FS_LOCAL, SC_NO },
		{ "btrfs", SC_FS_LOCAL, SC_YES },
		{ "xfs", SC_FS_LOCAL, SC_MAYBE },
		{ "tmpfs", SC_FS_MEMORY, SC_NO },
		{ "nfs4", SC_FS_NETWORK, SC_MAYBE },
		{ "cifs", SC_FS_NETWORK, SC_MAYBE },
		{ "fuse.sshfs", SC_FS_FUSE, SC_NO },
		{ "overlay", SC_FS_OVERLAY, SC_MAYBE },
		{ "proc", SC_FS_GENERATED, SC_NO },
		{ "sysfs", SC_FS_GENERATED, SC_NO },
		{ "vfat", SC_FS_LOCAL, SC_NO },
		{ "zfs", SC_FS_UNKNOWN, SC_MAYBE },
	};
	struct sc_fs_facts *f;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_msg(sc_fs_facts_assume(rows[i].type, 3, 7, &f) == 0,
			      "%s refused", rows[i].type);
		ck_assert_str_eq(f->type, rows[i].type);
		ck_assert_msg(f->cls == rows[i].cls, "%s: class %s",
			      rows[i].type, sc_fs_class_name(f->cls));
		ck_assert_msg(f->can_clone == rows[i].clone, "%s: clone %d",
			      rows[i].type, f->can_clone);
		ck_assert_int_eq(f->mnt_id, 7);
		ck_assert_str_eq(f->identity, "assumed:3");
		ck_assert_ptr_null(f->target);
		/* the same through the accessors */
		ck_assert_str_eq(sc_fs_facts_type(f), rows[i].type);
		ck_assert_int_eq(sc_fs_facts_class(f), rows[i].cls);
		ck_assert_int_eq(sc_fs_facts_mnt_id(f), 7);
		sc_fs_facts_free(f);
	}
	ck_assert_int_eq(sc_fs_facts_assume("ext5", 1, 1, &f), -ENOENT);
	ck_assert_ptr_null(f);
	ck_assert_int_eq(sc_fs_facts_assume("fuse.", 1, 1, &f), -ENOENT);
	ck_assert_int_eq(sc_fs_facts_assume("", 1, 1, &f), -ENOENT);
	ck_assert_int_eq(sc_fs_facts_assume(NULL, 1, 1, &f), -EINVAL);
	ck_assert_int_eq(sc_fs_facts_assume("ext4", 1, 1, NULL), -EINVAL);
	/* accessors of unknown facts */
	ck_assert_str_eq(sc_fs_facts_type(NULL), "unknown");
	ck_assert_int_eq(sc_fs_facts_class(NULL), SC_FS_UNKNOWN);
	ck_assert_int_eq(sc_fs_facts_can_clone(NULL), SC_MAYBE);
	/* every name listed is accepted */
	for (const char *name; (name = sc_fs_type_name(n)); n++) {
		ck_assert_msg(sc_fs_facts_assume(name, 1, 1, &f) == 0, "%s",
			      name);
		sc_fs_facts_free(f);
	}
	ck_assert_uint_gt(n, 40);
}
END_TEST

Suite *fsinfo_suite(void)
{
	Suite *s = suite_create("fsinfo");
	TCase *tc;

	tcase(s, "classify_generated", test_classify_generated);
	tcase(s, "classify_memory_overlay_fuse_network",
	      test_classify_memory_overlay_fuse_network);
	tcase(s, "classify_local_and_unknown", test_classify_local_and_unknown);
	tcase(s, "classify_by_magic_only", test_classify_by_magic_only);
	tcase(s, "classify_fuse_magic", test_classify_fuse_magic_is_fuse);
	tcase(s, "generated_magic_beats_name",
	      test_classify_generated_magic_beats_name);
	tcase(s, "can_clone", test_can_clone);
	tcase(s, "class_names", test_class_names);
	tcase(s, "kernel_at_least", test_kernel_at_least);
	tcase(s, "kernel_parse", test_kernel_parse);
	tcase(s, "facts_assume", test_facts_assume);
	tc = tcase_create("lookup_by_mount_id");
	tcase_add_loop_test(tc, test_lookup_by_mount_id, 0,
			    (int)(sizeof(entries) / sizeof(entries[0])));
	suite_add_tcase(s, tc);
	tcase(s, "lookup_by_devno", test_lookup_by_devno);
	tcase(s, "lookup_options", test_lookup_options);
	tcase(s, "btrfs_subvolumes_share_identity",
	      test_btrfs_subvolumes_share_identity);
	tcase(s, "bind_mount_shares_identity", test_bind_mount_shares_identity);
	tcase(s, "lookup_cached_per_dev", test_lookup_cached_per_dev);
	tcase(s, "lookup_unknown", test_lookup_unknown);
	tcase(s, "missing_mountinfo", test_missing_mountinfo);
	tcase(s, "mountinfo_line_format", test_mountinfo_line_format);
	tcase(s, "mountinfo_line_same_facts", test_mountinfo_line_same_facts);
	tc = tcase_create("fields_same_as_libmount");
	tcase_add_loop_test(tc, test_fields_same_as_libmount, 0,
			    (int)(sizeof(fields_cases) / sizeof(fields_cases[0])));
	suite_add_tcase(s, tc);
	tcase(s, "fields_options_merged", test_fields_options_merged);
	tcase(s, "fact_origins", test_fact_origins);
	tc = tcase(s, "live_mounts_same_as_libmount",
		   test_live_mounts_same_as_libmount);
	tcase_set_timeout(tc, 60);
	return s;
}
