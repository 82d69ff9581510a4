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
 * before.  Without libmount what statmount or the magic gave stands.
 *
 * This file is the facts and their cache; the class by magic number and
 * type name is fsclass.c's, statmount and mountinfo lines are
 * mountinfo.c's, the loading of libmount and libblkid dl.c's, and the
 * kernel's version kernel.c's. */
#include "common.h"
#include "fsinfo.h"

#include "dl.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#ifndef STATX_MNT_ID
# define STATX_MNT_ID 0x1000U
#endif
/* The 64-bit mount ID that is never reused, the one statmount(2) takes:
 * Linux 6.8.  Asked for with STATX_MNT_ID, it wins: stx_mnt_id then holds
 * the unique ID and stx_mask says so. */
#ifndef STATX_MNT_ID_UNIQUE
# define STATX_MNT_ID_UNIQUE 0x4000U
#endif

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

	e->f.cls = sc_fs_classify_from(e->f.type, e->f.magic, blockdev, &from);
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
	struct stat st;
	bool by_magic, blockdev = source_blockdev(m->source, &st);

	snprintf(f->type, sizeof(f->type), "%s%s%s", m->type, sub ? "." : "",
		 sub ? sub : "");
	if (!force) {
		/* Decisions there rest on type names (server-side copy
		 * between two mounts of one type), which libmount gives. */
		if (!sc_fs_classify_tables(f->type, f->magic, blockdev, &cls,
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
		    (m->options && !sc_mountinfo_options_plain(m->options)))
			goto libmount;
	}
	e->from[SC_FACT_TYPE] = SC_ORIGIN_STATMOUNT;
	f->mnt_id = (int)m->id;
	f->target = strdup(m->point);
	f->source = strdup(m->source);
	f->options = sc_mountinfo_options(m);
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
	module_facts_read(f);
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
		fs = sc_mountinfo_parse_line(lm, line, &tb);
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
	int err = sc_statmount_fields(id, &m, &r);

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
			fs = sc_mountinfo_find_id(lm, tb, mnt_id);
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
			 sc_fs_type_from_magic(magic));
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

	if (!fsi || !buf || !size)
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

