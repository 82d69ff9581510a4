/* Filesystem facts, cached per device for the run.
 *
 * st_dev alone does not find a file's mount: btrfs subvolumes, overlay and
 * bind mounts give st_dev values that mountinfo does not list, or lists
 * twice.  So the lookup goes: statx's mount ID -> statmount(2) for that
 * one mount; else the exact mountinfo entry of that ID; else the st_dev
 * -> entry; else /proc/self/fd/N -> the mount point that contains the
 * path.  fstatfs on the descriptor gives f_type and f_fsid, which are
 * right in all those cases.
 *
 * Facts cost what a decision needs (issue 30).  Where the magic number
 * settles the class (ext4, xfs, btrfs, tmpfs, overlay, proc, sysfs...)
 * statmount's own fields give the rest, and libmount is not even loaded
 * (lib/dl.c): that is the usual call.  libmount parses the mount's
 * mountinfo line -- statmount's fields written back into that line's
 * format, so types ("fuse.sshfs"), sources, options and /dev/root are
 * what the table gives, by construction -- where only it can tell:
 * FUSE and network filesystems (their type names decide server-side
 * copies), type names smartcp's tables do not know (libmount's netfs and
 * pseudofs lists), the oddities it rewrites (/dev/root, " (deleted)"),
 * and whenever a report will print the facts (sc_fsinfo_want_uuid).  A
 * kernel without statmount reads the whole table with libmount, as
 * before.  Without libmount what statmount or the magic gave stands. */
#include "common.h"
#include "fsinfo.h"

#include "dl.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#ifndef STATX_MNT_ID
# define STATX_MNT_ID 0x1000U
#endif
/* The 64-bit mount ID that is never reused, the one statmount(2) takes:
 * Linux 6.8.  Asked for with STATX_MNT_ID, it wins: stx_mnt_id then holds
 * the unique ID and stx_mask says so. */
#ifndef STATX_MNT_ID_UNIQUE
# define STATX_MNT_ID_UNIQUE 0x4000U
#endif

/* statmount(2), Linux 6.8.  glibc (2.36 here) has no wrapper and the
 * headers of older distributions no definitions: the ABI is stable, so
 * it is spelled out here.  457 on every architecture but alpha and mips,
 * whose headers define it when they know the call. */
#ifndef __NR_statmount
# if defined(__alpha__) || defined(__mips__)
#  define __NR_statmount -1
# else
#  define __NR_statmount 457
# endif
#endif

#define SM_SB_BASIC		0x0001U
#define SM_MNT_BASIC		0x0002U
#define SM_MNT_ROOT		0x0008U
#define SM_MNT_POINT		0x0010U
#define SM_FS_TYPE		0x0020U
#define SM_MNT_OPTS		0x0080U	/* Linux 6.11 */
#define SM_FS_SUBTYPE		0x0100U	/* Linux 6.13 */
#define SM_SB_SOURCE		0x0200U	/* Linux 6.13 */
#define SM_SUPPORTED_MASK	0x1000U	/* Linux 6.15 */
/* Everything a mountinfo line needs.  A kernel that cannot tell whether it
 * has them all (no supported_mask: before 6.15), or has not, is asked
 * nothing more: the whole table is the answer there. */
#define SM_WANT (SM_SB_BASIC | SM_MNT_BASIC | SM_MNT_ROOT | SM_MNT_POINT | \
		 SM_FS_TYPE | SM_MNT_OPTS | SM_FS_SUBTYPE | SM_SB_SOURCE)

struct sm_req {			/* struct mnt_id_req, first version */
	uint32_t size;
	uint32_t spare;
	uint64_t mnt_id;
	uint64_t param;
};

struct sm_reply {		/* struct statmount */
	uint32_t size;
	uint32_t mnt_opts;
	uint64_t mask;
	uint32_t sb_dev_major;
	uint32_t sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags;
	uint32_t fs_type;
	uint64_t mnt_id;
	uint64_t mnt_parent_id;
	uint32_t mnt_id_old;
	uint32_t mnt_parent_id_old;
	uint64_t mnt_attr;
	uint64_t mnt_propagation;
	uint64_t mnt_peer_group;
	uint64_t mnt_master;
	uint64_t propagate_from;
	uint32_t mnt_root;
	uint32_t mnt_point;
	uint64_t mnt_ns_id;
	uint32_t fs_subtype;
	uint32_t sb_source;
	uint32_t opt_num;
	uint32_t opt_array;
	uint32_t opt_sec_num;
	uint32_t opt_sec_array;
	uint64_t supported_mask;
	uint32_t mnt_uidmap_num;
	uint32_t mnt_uidmap;
	uint32_t mnt_gidmap_num;
	uint32_t mnt_gidmap;
	uint64_t spare2[43];
	char str[];
};

/* Flags of struct statmount's sb_flags (the kernel's SB_*, equal to the
 * MS_* of mount(2)) and mnt_attr (MOUNT_ATTR_*, as mount_setattr(2)). */
#define SM_SB_RDONLY		0x00000001U
#define SM_SB_SYNCHRONOUS	0x00000010U
#define SM_SB_DIRSYNC		0x00000080U
#define SM_SB_LAZYTIME		0x02000000U
#define SM_ATTR_RDONLY		0x00000001U
#define SM_ATTR_NOSUID		0x00000002U
#define SM_ATTR_NODEV		0x00000004U
#define SM_ATTR_NOEXEC		0x00000008U
#define SM_ATTR__ATIME		0x00000070U
#define SM_ATTR_RELATIME	0x00000000U
#define SM_ATTR_NOATIME		0x00000010U
#define SM_ATTR_NODIRATIME	0x00000080U
#define SM_ATTR_IDMAP		0x00100000U
#define SM_ATTR_NOSYMFOLLOW	0x00200000U

/* One filesystem's facts and where each came from (sc_fsinfo_origin). */
struct entry {
	struct sc_fs_facts f;	/* first: &entry->f is what callers get */
	unsigned char from[SC_FACT__MAX];	/* enum sc_origin */
};

struct sc_fsinfo {
	char *mountinfo;
	bool live;		/* the running system's mounts, not a file */
	bool no_statmount;	/* this kernel cannot answer for one mount */
	struct libmnt_table *table;
	bool parsed;
	blkid_cache blkid;
	bool want_uuid;
	struct entry **facts;	/* stable pointers: the plan keeps them */
	size_t n, cap;
};

/* Generated-content filesystems, by name and by statfs magic.  The magic
 * list covers a descriptor whose mount libmount cannot find. */
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
static bool classify_tables(const char *type, unsigned long magic,
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
static enum sc_fs_class classify(const char *type, unsigned long magic,
				 bool has_blockdev, enum sc_origin *from)
{
	const struct sc_libmount *lm;
	enum sc_fs_class cls;
	bool by_magic;

	if (classify_tables(type, magic, has_blockdev, &cls, &by_magic)) {
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

	return classify(type, magic, has_blockdev, &from);
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

int sc_fs_facts_assume(const char *type, int fs, int mount,
		       struct sc_fs_facts **ret)
{
	bool blockdev = false, found = false;
	unsigned long magic = 0;
	struct sc_fs_facts *f;
	size_t i;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	if (!type)
		return -EINVAL;
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
	if (strlen(type) >= sizeof(f->type))
		return -ENAMETOOLONG;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = (struct sc_fs_facts){ .mnt_id = mount, .magic = magic,
				   .assumed = true };
	strcpy(f->type, type);
	snprintf(f->identity, sizeof(f->identity), "assumed:%d", fs);
	f->cls = sc_fs_classify(type, magic, blockdev);
	f->can_clone = sc_fs_can_clone(type, f->cls);
	*ret = f;
	return 0;
}

void sc_fs_facts_free(struct sc_fs_facts *f)
{
	/* a cache's facts are the cache's: only assumed ones are ours */
	if (f && f->assumed)
		free(f);
}

/* ---- accessors: NULL is "unknown" ---------------------------------------- */

dev_t sc_fs_facts_dev(const struct sc_fs_facts *f)
{
	return f ? f->dev : 0;
}

int sc_fs_facts_mnt_id(const struct sc_fs_facts *f)
{
	return f ? f->mnt_id : -1;
}

unsigned long sc_fs_facts_magic(const struct sc_fs_facts *f)
{
	return f ? f->magic : 0;
}

uint64_t sc_fs_facts_fsid(const struct sc_fs_facts *f)
{
	return f ? f->fsid : 0;
}

const char *sc_fs_facts_type(const struct sc_fs_facts *f)
{
	return f ? f->type : "unknown";
}

const char *sc_fs_facts_target(const struct sc_fs_facts *f)
{
	return f ? f->target : NULL;
}

const char *sc_fs_facts_source(const struct sc_fs_facts *f)
{
	return f ? f->source : NULL;
}

const char *sc_fs_facts_options(const struct sc_fs_facts *f)
{
	return f ? f->options : NULL;
}

const char *sc_fs_facts_identity(const struct sc_fs_facts *f)
{
	return f ? f->identity : "";
}

const char *sc_fs_facts_uuid(const struct sc_fs_facts *f)
{
	return f ? f->uuid : "";
}

enum sc_fs_class sc_fs_facts_class(const struct sc_fs_facts *f)
{
	return f ? f->cls : SC_FS_UNKNOWN;
}

enum sc_tristate sc_fs_facts_can_clone(const struct sc_fs_facts *f)
{
	return f ? f->can_clone : SC_MAYBE;
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
	if (!fsi)
		return;
	fsi->want_uuid = want;
	/* Reports print names, sources and UUIDs: load both libraries now,
	 * on the caller's thread, before it starts others. */
	if (want)
		sc_fsinfo_preload(fsi);
}

int sc_fsinfo_preload(struct sc_fsinfo *fsi)
{
	const struct sc_libmount *lm = sc_dl_libmount();

	if (fsi && fsi->want_uuid)
		sc_dl_libblkid();
	return lm ? 0 : -EOPNOTSUPP;
}

int sc_fsinfo_new(const char *mountinfo, struct sc_fsinfo **ret)
{
	struct sc_fsinfo *fsi;

	if (!ret)
		return -EINVAL;
	fsi = calloc(1, sizeof(*fsi));
	if (!fsi)
		return -ENOMEM;
	fsi->live = !mountinfo;
	fsi->mountinfo = strdup(mountinfo ? mountinfo : "/proc/self/mountinfo");
	if (!fsi->mountinfo) {
		free(fsi);
		return -ENOMEM;
	}
	*ret = fsi;
	return 0;
}

static void facts_clear(struct sc_fs_facts *f)
{
	free(f->target);
	free(f->source);
	free(f->options);
	f->target = f->source = f->options = NULL;
}

void sc_fsinfo_free(struct sc_fsinfo *fsi)
{
	if (!fsi)
		return;
	for (size_t i = 0; i < fsi->n; i++) {
		facts_clear(&fsi->facts[i]->f);
		free(fsi->facts[i]);
	}
	free(fsi->facts);
	/* Made only through the libraries, which stay loaded. */
	if (fsi->table)
		sc_dl_libmount()->mnt_unref_table(fsi->table);
	if (fsi->blkid)
		sc_dl_libblkid()->blkid_put_cache(fsi->blkid);
	free(fsi->mountinfo);
	free(fsi);
}

static struct libmnt_table *table(struct sc_fsinfo *fsi,
				  const struct sc_libmount *lm)
{
	if (!fsi->parsed && lm) {
		fsi->parsed = true;
		fsi->table = lm->mnt_new_table();
		if (fsi->table &&
		    lm->mnt_table_parse_file(fsi->table, fsi->mountinfo) != 0) {
			lm->mnt_unref_table(fsi->table);
			fsi->table = NULL;
		}
	}
	return fsi->table;
}

static struct libmnt_fs *find_by_id(const struct sc_libmount *lm,
				    struct libmnt_table *tb, int id)
{
	struct libmnt_iter *it = lm->mnt_new_iter(MNT_ITER_BACKWARD);
	struct libmnt_fs *fs = NULL, *found = NULL;

	if (!it)
		return NULL;
	while (lm->mnt_table_next_fs(tb, it, &fs) == 0)
		if (lm->mnt_fs_get_id(fs) == id) {
			found = fs;
			break;
		}
	lm->mnt_free_iter(it);
	return found;
}

/* As the kernel writes a name into mountinfo: space, tab, newline and
 * backslash as \ooo, which libmount undoes. */
static void put_mangled(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
			fprintf(f, "\\%03o", (unsigned char)*s);
		else
			putc(*s, f);
	}
}

/* The per mount options of mountinfo's field 6 ("rw,nosuid,relatime"),
 * in the order of fs/proc_namespace.c's show_mountinfo(). */
static void put_mount_options(FILE *f, const struct sc_mount_fields *m)
{
	static const struct {
		uint64_t mask, value;
		const char *name;
	} flags[] = {
		{ SM_ATTR_NOSUID, SM_ATTR_NOSUID, ",nosuid" },
		{ SM_ATTR_NODEV, SM_ATTR_NODEV, ",nodev" },
		{ SM_ATTR_NOEXEC, SM_ATTR_NOEXEC, ",noexec" },
		{ SM_ATTR__ATIME, SM_ATTR_NOATIME, ",noatime" },
		{ SM_ATTR_NODIRATIME, SM_ATTR_NODIRATIME, ",nodiratime" },
		{ SM_ATTR__ATIME, SM_ATTR_RELATIME, ",relatime" },
		{ SM_ATTR_NOSYMFOLLOW, SM_ATTR_NOSYMFOLLOW, ",nosymfollow" },
		{ SM_ATTR_IDMAP, SM_ATTR_IDMAP, ",idmapped" },
	};

	fputs(m->attr & SM_ATTR_RDONLY ? "ro" : "rw", f);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if ((m->attr & flags[i].mask) == flags[i].value)
			fputs(flags[i].name, f);
}

/* The superblock's options of the last field: the flags, then what the
 * filesystem's show_options wrote, escaped already as in mountinfo. */
static void put_sb_options(FILE *f, const struct sc_mount_fields *m)
{
	static const struct {
		uint32_t mask;
		const char *name;
	} flags[] = {
		{ SM_SB_SYNCHRONOUS, ",sync" },
		{ SM_SB_DIRSYNC, ",dirsync" },
		{ SM_SB_LAZYTIME, ",lazytime" },
	};

	fputs(m->sb_flags & SM_SB_RDONLY ? "ro" : "rw", f);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if (m->sb_flags & flags[i].mask)
			fputs(flags[i].name, f);
	if (m->options && *m->options)
		fprintf(f, ",%s", m->options);
}

char *sc_fsinfo_mountinfo_line(const struct sc_mount_fields *m)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (!f)
		return NULL;
	fprintf(f, "%u %u %u:%u ", m->id, m->parent, m->dev_major,
		m->dev_minor);
	put_mangled(f, m->root);
	putc(' ', f);
	put_mangled(f, m->point);
	putc(' ', f);
	put_mount_options(f, m);
	fputs(" - ", f);
	put_mangled(f, m->type);
	if (m->subtype && *m->subtype) {
		putc('.', f);
		put_mangled(f, m->subtype);
	}
	putc(' ', f);
	put_mangled(f, m->source);
	putc(' ', f);
	put_sb_options(f, m);
	putc('\n', f);
	if (fclose(f) != 0) {
		free(line);
		return NULL;
	}
	return line;
}

/* What one of the put_*_options above writes, in a malloc'd string. */
static char *options_string(void (*put)(FILE *, const struct sc_mount_fields *),
			    const struct sc_mount_fields *m)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	put(f, m);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* Undoes the kernel's \ooo escapes in place, as libmount's unmangle()
 * does with a field of mountinfo. */
#define OCTAL(c) (((c) & ~7) == '0')
static void unmangle(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && OCTAL(s[1]) && OCTAL(s[2]) && OCTAL(s[3])) {
			*w++ = (char)(64 * (s[1] & 7) + 8 * (s[2] & 7) +
				      (s[3] & 7));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

/* Removes the first option called NAME (with or without a value) from
 * the comma-separated S; whether there was one.  Options here have no
 * quotes and no empty items (option_text_plain). */
static bool remove_option(char *s, const char *name)
{
	size_t n = strlen(name);
	char *p = s;

	while (*p) {
		char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		size_t name_len = strcspn(p, "=,");

		if (name_len == n && !strncmp(p, name, n)) {
			if (end)			/* "x,NAME,y" */
				memmove(p, end + 1, strlen(end + 1) + 1);
			else if (p > s)			/* "x,NAME" */
				p[-1] = '\0';
			else				/* "NAME" */
				*p = '\0';
			return true;
		}
		p += len + (end ? 1 : 0);
	}
	return false;
}

/* Options libmount's option parser and the simple one above read alike:
 * no quotes (libmount keeps commas inside them together), no empty
 * items, no whitespace. */
static bool option_text_plain(const char *s)
{
	return !strpbrk(s, "\" \t\n\r\v\f") && *s != ',' &&
	       !strstr(s, ",,") && (!*s || s[strlen(s) - 1] != ',');
}

/* The options libmount gives for a mountinfo line (mnt_fs_strdup_options
 * -> merge_optstr() in libmount/src/fs.c): the per mount and the
 * superblock options joined, "rw"/"ro" of both taken out, and one put
 * first: "ro" when either side is read-only.  NULL when out of memory. */
static char *merge_options(const char *vfs, const char *sb)
{
	size_t size = strlen(vfs) + strlen(sb) + 5;
	char *res, *p;
	int rw = 0, ro = 0;

	if (!strcmp(vfs, sb))
		return strdup(vfs);
	res = malloc(size);
	if (!res)
		return NULL;
	p = res + 3;
	snprintf(p, size - 3, "%s,%s", vfs, sb);
	rw += remove_option(p, "rw");
	rw += remove_option(p, "rw");
	if (rw != 2) {
		ro += remove_option(p, "ro");
		if (ro + rw < 2)
			ro += remove_option(p, "ro");
	}
	if (!*p)
		memcpy(res, ro ? "ro" : "rw", 3);
	else
		memcpy(res, ro ? "ro," : "rw,", 3);
	return res;
}

/* The one libmount entry of LINE, in a table of its own (*RET_TB, which
 * the caller unrefs), or NULL. */
static struct libmnt_fs *parse_line(const struct sc_libmount *lm,
				    const char *line,
				    struct libmnt_table **ret_tb)
{
	struct libmnt_table *tb = lm->mnt_new_table();
	struct libmnt_fs *fs = NULL;
	FILE *f;

	*ret_tb = NULL;
	if (!tb)
		return NULL;
	f = fmemopen((void *)line, strlen(line), "r");
	/* libmount insists on a file name, only to tell whose
	 * /proc/PID/mountinfo it reads: "/" names no process and costs no
	 * system call to resolve. */
	if (f && lm->mnt_table_parse_stream(tb, f, "/") == 0 &&
	    lm->mnt_table_get_nents(tb) == 1 &&
	    lm->mnt_table_first_fs(tb, &fs) == 0) {
		*ret_tb = tb;
	} else {
		fs = NULL;
		lm->mnt_unref_table(tb);
	}
	if (f)
		fclose(f);
	return fs;
}

/* statmount(2) through libc's syscall(), so that the fault shim of the
 * tests can stand in for a kernel without it, as for the other calls. */
static int sys_statmount(uint64_t id, uint64_t mask, struct sm_reply *buf,
			 size_t size)
{
	struct sm_req req = { .size = sizeof(req), .mnt_id = id,
			      .param = mask };

	if (__NR_statmount < 0)
		return -ENOSYS;
	return syscall(__NR_statmount, &req, buf, size, 0) < 0 ? -errno : 0;
}

/* A string of REPLY that the kernel set (FLAG in its mask), else "". */
static const char *sm_str(const struct sm_reply *r, uint32_t flag,
			  uint32_t off)
{
	return (r->mask & flag) && off < r->size - sizeof(*r) ?
		r->str + off : "";
}

/* The fields of the mount whose unique ID is ID, from statmount alone:
 * no table is read.  Returns 0 with *RET (its strings point into
 * *RET_REPLY, which the caller frees), or -errno: -ENOSYS, -EPERM (a
 * seccomp filter), -EINVAL... when the kernel cannot answer (and will
 * not later), -ENOENT when the mount is not in this namespace (any
 * more), -ENODATA when a field mountinfo would show is missing (a mount
 * point outside our root: mountinfo skips those), -EOVERFLOW when its
 * strings need more than 1 MiB. */
static int statmount_fields(uint64_t id, struct sc_mount_fields *ret,
			    struct sm_reply **ret_reply)
{
	struct sm_reply *r = NULL;
	struct sc_mount_fields m;
	size_t size = 4096;
	int e;

	for (;;) {
		struct sm_reply *n = realloc(r, size);

		if (!n) {
			free(r);
			return -ENOMEM;
		}
		r = n;
		e = sys_statmount(id, SM_WANT | SM_SUPPORTED_MASK, r, size);
		/* The strings did not fit; options can be long. */
		if (e != -EOVERFLOW || size >= (1U << 20))
			break;
		size *= 2;
	}
	if (e < 0)
		goto fail;
	e = -EINVAL;
	if (r->size < sizeof(*r) || r->size > size ||
	    !(r->mask & SM_SUPPORTED_MASK) ||
	    (r->supported_mask & SM_WANT) != SM_WANT)
		goto fail;
	/* Options and subtype are left out of the mask when empty. */
	e = -ENODATA;
	if ((r->mask & (SM_WANT & ~(SM_MNT_OPTS | SM_FS_SUBTYPE))) !=
	    (SM_WANT & ~(SM_MNT_OPTS | SM_FS_SUBTYPE)))
		goto fail;
	m = (struct sc_mount_fields){
		.id = r->mnt_id_old, .parent = r->mnt_parent_id_old,
		.dev_major = r->sb_dev_major, .dev_minor = r->sb_dev_minor,
		.sb_flags = r->sb_flags, .attr = r->mnt_attr,
		.root = sm_str(r, SM_MNT_ROOT, r->mnt_root),
		.point = sm_str(r, SM_MNT_POINT, r->mnt_point),
		.type = sm_str(r, SM_FS_TYPE, r->fs_type),
		.subtype = sm_str(r, SM_FS_SUBTYPE, r->fs_subtype),
		.source = sm_str(r, SM_SB_SOURCE, r->sb_source),
		.options = sm_str(r, SM_MNT_OPTS, r->mnt_opts),
	};
	/* mountinfo skips a mount outside the caller's root, and writes
	 * "none" for a mount made without a source: the table answers
	 * those, as before. */
	if (!*m.root || !*m.point || !*m.type || !*m.source)
		goto fail;
	*ret = m;
	*ret_reply = r;
	return 0;
fail:
	free(r);
	return e;
}

/* The UUID of a block device, through libblkid's cache (which probes the
 * device when the cache has nothing: needs read access to it). */
static bool blkid_uuid(struct sc_fsinfo *fsi, const char *dev, char *buf,
		       size_t size)
{
	const struct sc_libblkid *lb = sc_dl_libblkid();
	char *uuid;

	if (!lb)
		return false;
	if (!fsi->blkid && lb->blkid_get_cache(&fsi->blkid, "/dev/null") != 0)
		return false;
	uuid = lb->blkid_get_tag_value(fsi->blkid, "UUID", dev);
	if (!uuid)
		return false;
	snprintf(buf, size, "%s", uuid);
	free(uuid);
	return true;
}

/* Whether SRC is the path of a block device (*ST: its stat). */
static bool source_blockdev(const char *src, struct stat *st)
{
	return src && src[0] == '/' && stat(src, st) == 0 &&
	       S_ISBLK(st->st_mode);
}

/* The identity of a filesystem with superblock SBDEV whose source is a
 * block device (BLOCKDEV: SRC, stat in ST) or not, and its UUID when a
 * report wants it.  One filesystem, one source device: bind mounts and
 * btrfs subvolumes share it.  Its number costs a stat; the UUID would
 * cost opening and reading the device (milliseconds, and root), so it is
 * only read when a report will show it. */
static void set_identity(struct sc_fsinfo *fsi, struct entry *e,
			 const char *src, bool blockdev, const struct stat *st,
			 dev_t sbdev, enum sc_origin from)
{
	struct sc_fs_facts *f = &e->f;

	if (blockdev)
		snprintf(f->identity, sizeof(f->identity), "blk:%u:%u",
			 major(st->st_rdev), minor(st->st_rdev));
	else if (sbdev)
		snprintf(f->identity, sizeof(f->identity), "dev:%u:%u",
			 major(sbdev), minor(sbdev));
	if (f->identity[0])
		e->from[SC_FACT_IDENTITY] = from;
	if (blockdev && fsi->want_uuid &&
	    blkid_uuid(fsi, src, f->uuid, sizeof(f->uuid)))
		e->from[SC_FACT_UUID] = SC_ORIGIN_LIBBLKID;
}

static void set_class(struct entry *e, bool blockdev)
{
	enum sc_origin from;

	e->f.cls = classify(e->f.type, e->f.magic, blockdev, &from);
	e->from[SC_FACT_CLASS] = from != SC_ORIGIN_NONE ? from :
				 e->from[SC_FACT_TYPE];
}

/* The facts libmount gives for entry FS of a table or a line (FROM says
 * which). */
static void fill_from_fs(struct sc_fsinfo *fsi, struct entry *e,
			 const struct sc_libmount *lm, struct libmnt_fs *fs,
			 enum sc_origin from)
{
	struct sc_fs_facts *f = &e->f;
	const char *type = lm->mnt_fs_get_fstype(fs);
	const char *src = lm->mnt_fs_get_srcpath(fs);
	struct stat st;
	bool blockdev = source_blockdev(src, &st);

	f->mnt_id = lm->mnt_fs_get_id(fs);
	if (type) {
		/* mountinfo gives "fuse.sshfs" whole; keep it. */
		snprintf(f->type, sizeof(f->type), "%s", type);
		e->from[SC_FACT_TYPE] = from;
	}
	f->target = lm->mnt_fs_get_target(fs) ?
		    strdup(lm->mnt_fs_get_target(fs)) : NULL;
	f->source = lm->mnt_fs_get_source(fs) ?
		    strdup(lm->mnt_fs_get_source(fs)) : NULL;
	f->options = lm->mnt_fs_strdup_options(fs);
	e->from[SC_FACT_MOUNT] = from;
	set_identity(fsi, e, src, blockdev, &st, lm->mnt_fs_get_devno(fs),
		     from);
	set_class(e, blockdev);
}

/* The facts statmount's fields M give, without libmount: what
 * fill_from_fs would give for their mountinfo line, where that is
 * certain.  Unless FORCE, returns false (and fills nothing) where only
 * libmount can tell, or where it rewrites what the kernel said; true
 * when E is filled.  Out of memory leaves a string NULL. */
static bool fill_from_fields(struct sc_fsinfo *fsi, struct entry *e,
			     const struct sc_mount_fields *m, bool force)
{
	static const char *const odd = "\r\v\f";
	struct sc_fs_facts *f = &e->f;
	const char *sub = m->subtype && *m->subtype ? m->subtype : NULL;
	size_t n = strlen(m->point), del = strlen(" (deleted)");
	enum sc_fs_class cls;
	char *vfs = NULL, *sb = NULL;
	struct stat st;
	bool by_magic, blockdev = source_blockdev(m->source, &st);

	snprintf(f->type, sizeof(f->type), "%s%s%s", m->type, sub ? "." : "",
		 sub ? sub : "");
	if (!force) {
		/* Decisions there rest on type names (server-side copy
		 * between two mounts of one type), which libmount gives. */
		if (!classify_tables(f->type, f->magic, blockdev, &cls,
				     &by_magic) ||
		    cls == SC_FS_FUSE || cls == SC_FS_NETWORK ||
		    cls == SC_FS_UNKNOWN)
			goto libmount;
		/* libmount's parser turns /dev/root into the real device and
		 * drops a " (deleted)" mount point's suffix; \r, \v and \f
		 * split its fields; quoted options it reads its own way. */
		if (!strcmp(m->source, "/dev/root") ||
		    (n >= del && !strcmp(m->point + n - del, " (deleted)")) ||
		    strpbrk(m->root, odd) || strpbrk(m->point, odd) ||
		    strpbrk(m->source, odd) || strpbrk(f->type, odd) ||
		    (m->options && !option_text_plain(m->options)))
			goto libmount;
	}
	e->from[SC_FACT_TYPE] = SC_ORIGIN_STATMOUNT;
	f->mnt_id = (int)m->id;
	f->target = strdup(m->point);
	f->source = strdup(m->source);
	vfs = options_string(put_mount_options, m);
	sb = options_string(put_sb_options, m);
	if (vfs && sb) {
		unmangle(sb);
		f->options = merge_options(vfs, sb);
	}
	free(vfs);
	free(sb);
	e->from[SC_FACT_MOUNT] = SC_ORIGIN_STATMOUNT;
	set_identity(fsi, e, m->source, blockdev, &st,
		     makedev(m->dev_major, m->dev_minor), SC_ORIGIN_STATMOUNT);
	set_class(e, blockdev);
	return true;
libmount:
	f->type[0] = '\0';
	return false;
}

static struct entry *cache_add(struct sc_fsinfo *fsi)
{
	if (fsi->n == fsi->cap) {
		size_t cap = fsi->cap ? fsi->cap * 2 : 8;
		struct entry **n = realloc(fsi->facts, cap * sizeof(*n));

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
		if (fsi->facts[i]->f.dev == dev)
			return &fsi->facts[i]->f;
	return NULL;
}

/* What could not be learned stays unknown, but a facts entry is always
 * returned: the plan treats unknown as "try, and learn". */
static struct sc_fs_facts unknown_facts = {
	.mnt_id = -1, .cls = SC_FS_UNKNOWN, .can_clone = SC_MAYBE,
};

static struct entry *facts_new(struct sc_fsinfo *fsi, dev_t dev,
			       unsigned long magic, uint64_t fsid)
{
	struct entry *e = cache_add(fsi);

	if (!e)
		return NULL;
	e->f.dev = dev;
	e->f.mnt_id = -1;
	e->f.magic = magic;
	e->f.fsid = fsid;
	return e;
}

static const struct sc_fs_facts *facts_done(struct entry *e)
{
	struct sc_fs_facts *f = &e->f;

	/* Without a mountinfo entry, statfs's fsid tells filesystems apart
	 * (it differs per btrfs subvolume, so this is the cautious side). */
	if (!f->identity[0] && f->fsid) {
		snprintf(f->identity, sizeof(f->identity), "fsid:%llx",
			 (unsigned long long)f->fsid);
		e->from[SC_FACT_IDENTITY] = SC_ORIGIN_MAGIC;
	}
	f->can_clone = sc_fs_can_clone(f->type, f->cls);
	return f;
}

/* Facts for statmount's fields M into the new entry E: from the fields
 * themselves where that is certain, else from libmount's reading of
 * their mountinfo line, else (no libmount) from the fields again. */
static const struct sc_fs_facts *from_fields(struct sc_fsinfo *fsi,
					     struct entry *e,
					     const struct sc_mount_fields *m)
{
	const struct sc_libmount *lm;
	struct libmnt_table *tb = NULL;
	struct libmnt_fs *fs = NULL;
	char *line;

	/* A report prints the facts: libmount's, as always. */
	if (!fsi->want_uuid && fill_from_fields(fsi, e, m, false))
		return facts_done(e);
	lm = sc_dl_libmount();
	line = lm ? sc_fsinfo_mountinfo_line(m) : NULL;
	if (line) {
		fs = parse_line(lm, line, &tb);
		free(line);
	}
	if (fs) {
		fill_from_fs(fsi, e, lm, fs, SC_ORIGIN_LIBMOUNT);
		lm->mnt_unref_table(tb);
	} else {
		fill_from_fields(fsi, e, m, true);
	}
	return facts_done(e);
}

/* Facts from statmount(2) for the one mount whose unique ID is ID, or
 * NULL when the kernel cannot tell (the table then answers).  Remembers
 * a kernel that will never tell, so that it is asked once a run. */
static const struct sc_fs_facts *from_statmount(struct sc_fsinfo *fsi,
						dev_t dev, uint64_t id,
						unsigned long magic,
						uint64_t fsid)
{
	const struct sc_fs_facts *f = &unknown_facts;
	struct sc_mount_fields m;
	struct sm_reply *r = NULL;
	struct entry *e;
	int err = statmount_fields(id, &m, &r);

	if (err < 0) {
		/* Only this mount: gone, not shown in mountinfo either, or
		 * too big to describe.  Anything else is the kernel's (or a
		 * seccomp filter's) answer for every mount. */
		if (err != -ENOENT && err != -ENODATA && err != -ENOMEM &&
		    err != -EOVERFLOW)
			fsi->no_statmount = true;
		return NULL;
	}
	e = facts_new(fsi, dev, magic, fsid);
	if (e)
		f = from_fields(fsi, e, &m);
	free(r);
	return f;
}

/* Facts from the whole mount table (libmount), else the magic alone. */
static const struct sc_fs_facts *build(struct sc_fsinfo *fsi, dev_t dev,
				       int mnt_id, unsigned long magic,
				       uint64_t fsid, const char *path)
{
	const struct sc_libmount *lm = sc_dl_libmount();
	struct libmnt_table *tb = table(fsi, lm);
	struct libmnt_fs *fs = NULL;
	struct entry *e = facts_new(fsi, dev, magic, fsid);

	if (!e)
		return &unknown_facts;
	if (tb) {
		if (mnt_id >= 0)
			fs = find_by_id(lm, tb, mnt_id);
		if (!fs)
			fs = lm->mnt_table_find_devno(tb, dev,
						      MNT_ITER_BACKWARD);
		if (!fs && path)
			fs = lm->mnt_table_find_mountpoint(tb, path,
							   MNT_ITER_BACKWARD);
	}
	if (fs) {
		fill_from_fs(fsi, e, lm, fs, SC_ORIGIN_MOUNTINFO);
	} else {
		snprintf(e->f.type, sizeof(e->f.type), "%s",
			 type_from_magic(magic));
		if (e->f.type[0])
			e->from[SC_FACT_TYPE] = SC_ORIGIN_MAGIC;
		set_class(e, major(dev) != 0);
	}
	return facts_done(e);
}

const struct sc_fs_facts *sc_fsinfo_lookup_values(struct sc_fsinfo *fsi,
						  dev_t dev, int mnt_id,
						  unsigned long magic,
						  uint64_t fsid)
{
	const struct sc_fs_facts *f = cache_find(fsi, dev);

	return f ? f : build(fsi, dev, mnt_id, magic, fsid, NULL);
}

const struct sc_fs_facts *sc_fsinfo_lookup_fields(struct sc_fsinfo *fsi,
						  dev_t dev,
						  const struct sc_mount_fields *m,
						  unsigned long magic,
						  uint64_t fsid)
{
	const struct sc_fs_facts *f = cache_find(fsi, dev);
	struct entry *e;

	if (f)
		return f;
	e = facts_new(fsi, dev, magic, fsid);
	return e ? from_fields(fsi, e, m) : &unknown_facts;
}

const struct sc_fs_facts *sc_fsinfo_lookup(struct sc_fsinfo *fsi, int fd,
					   const struct stat *st)
{
	const struct sc_fs_facts *f;
	bool unique;
	struct statfs sfs;
	struct statx stx;
	char link[64], path[4096];
	unsigned long magic = 0;
	uint64_t fsid = 0;
	int mnt_id = -1;
	ssize_t n;

	if (!fsi || !st)
		return NULL;
	f = cache_find(fsi, st->st_dev);
	if (f)
		return f;
	unique = fsi->live && !fsi->no_statmount;
	if (fstatfs(fd, &sfs) == 0) {
		magic = (unsigned long)sfs.f_type;
		memcpy(&fsid, &sfs.f_fsid, MIN(sizeof(fsid), sizeof(sfs.f_fsid)));
	}
	/* STATX_MNT_ID: Linux 5.8.  With STATX_MNT_ID_UNIQUE (6.8) the same
	 * call gives the ID statmount takes; an older kernel ignores that
	 * bit and answers STATX_MNT_ID. */
	if (statx(fd, "", AT_EMPTY_PATH,
		  STATX_MNT_ID | (unique ? STATX_MNT_ID_UNIQUE : 0), &stx) == 0) {
		if (stx.stx_mask & STATX_MNT_ID_UNIQUE) {
			f = from_statmount(fsi, st->st_dev, stx.stx_mnt_id,
					   magic, fsid);
			if (f)
				return f;
			/* The table lists the reused ID: ask for it. */
			if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID,
				  &stx) != 0)
				stx.stx_mask = 0;
		}
		if (stx.stx_mask & STATX_MNT_ID)
			mnt_id = (int)stx.stx_mnt_id;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0 && path[0] == '/')
		path[n] = '\0';
	else
		n = 0;
	return build(fsi, st->st_dev, mnt_id, magic, fsid, n ? path : NULL);
}

enum sc_origin sc_fsinfo_origin(const struct sc_fsinfo *fsi,
				const struct sc_fs_facts *f,
				enum sc_fact fact)
{
	if (!fsi || !f || (unsigned)fact >= SC_FACT__MAX)
		return SC_ORIGIN_NONE;
	for (size_t i = 0; i < fsi->n; i++)
		if (&fsi->facts[i]->f == f)
			return (enum sc_origin)fsi->facts[i]->from[fact];
	return SC_ORIGIN_NONE;
}

const char *sc_origin_name(enum sc_origin o)
{
	static const char *const names[] = {
		[SC_ORIGIN_NONE] = "",		[SC_ORIGIN_MAGIC] = "magic",
		[SC_ORIGIN_STATMOUNT] = "statmount",
		[SC_ORIGIN_LIBMOUNT] = "libmount",
		[SC_ORIGIN_MOUNTINFO] = "mountinfo",
		[SC_ORIGIN_LIBBLKID] = "libblkid",
	};
	return (unsigned)o < ARRAY_SIZE(names) ? names[o] : "";
}

int sc_fsinfo_origins_text(const struct sc_fsinfo *fsi,
			   const struct sc_fs_facts *f, char *buf, size_t size)
{
	static const char *const facts[SC_FACT__MAX] = {
		[SC_FACT_TYPE] = "type",	[SC_FACT_CLASS] = "class",
		[SC_FACT_IDENTITY] = "identity",
		[SC_FACT_MOUNT] = "mount",	[SC_FACT_UUID] = "uuid",
	};
	size_t len = 0;

	if (!buf || !size)
		return -EINVAL;
	buf[0] = '\0';
	for (int i = 0; i < SC_FACT__MAX; i++) {
		enum sc_origin o = sc_fsinfo_origin(fsi, f, (enum sc_fact)i);
		int w;

		if (o == SC_ORIGIN_NONE)
			continue;
		w = snprintf(buf + len, size - len, "%s%s %s", len ? ", " : "",
			     facts[i], sc_origin_name(o));
		if (w < 0 || (size_t)w >= size - len)
			return -ENOSPC;
		len += (size_t)w;
	}
	return (int)len;
}


struct sc_kernel sc_kernel_running(void)
{
	struct sc_kernel k = { 0, 0 };
	struct utsname u;

	if (uname(&u) == 0)
		sscanf(u.release, "%d.%d", &k.major, &k.minor);
	return k;
}

/* The last minor version of each finished major series; the newest
 * series takes any minor. */
static const int last_minor[] = { [3] = 19, [4] = 20, [5] = 19, [6] = 19 };
#define NEWEST_MAJOR 7

int sc_kernel_parse(const char *text, struct sc_kernel *ret)
{
	const char *p = text;
	int v[3] = { 0, 0, 0 }, n = 0;

	if (!text || !ret)
		return -EINVAL;
	/* MAJOR.MINOR[.PATCH], then nothing or what uname -r adds after
	 * a '-' or '+' ("6.1.0-13-amd64") */
	while (n < 3) {
		long x = 0;
		const char *start = p;

		while (*p >= '0' && *p <= '9' && x < 1000)
			x = x * 10 + (*p++ - '0');
		if (p == start || (*p >= '0' && *p <= '9'))
			return -EINVAL;
		v[n++] = (int)x;
		if (*p != '.' || n == 3)
			break;
		p++;
	}
	if (n < 2 || (*p && *p != '-' && *p != '+'))
		return -EINVAL;
	if (v[0] == 2 ? v[1] != 6 :
	    v[0] < 2 || v[0] > NEWEST_MAJOR ||
	    (v[0] < NEWEST_MAJOR && v[1] > last_minor[v[0]]) || v[1] > 99)
		return -ERANGE;
	ret->major = v[0];
	ret->minor = v[1];
	return 0;
}

bool sc_kernel_at_least(struct sc_kernel k, int major, int minor)
{
	return k.major > major || (k.major == major && k.minor >= minor);
}
