/* libsmartcp 1: copy a file by the right road -- clone (FICLONE),
 * copy_file_range, splice or read/write -- chosen from facts about the
 * two filesystems and the running kernel, with fallback from the exact
 * offset reached, holes kept, the end of file proved by a read, a
 * verification that reads the destination back, the metadata cp -p keeps,
 * and a destination never left looking complete when it is not.
 *
 * Conventions (libsmartcp(3) says the same at more length):
 * - Functions return >= 0 on success or a negative errno value.  The
 *   library never prints, never exits, never installs signal handlers and
 *   never changes the process's umask, locale or working directory.
 * - A copy into a pipe or a socket whose reader is gone returns -EPIPE
 *   and does not end the process: where SIGPIPE's action is the default,
 *   the copying thread blocks it while the data goes to such a stream,
 *   takes back the SIGPIPE its own write raised (one that was pending
 *   before is left), and restores its signal mask.  A program that
 *   installed a SIGPIPE handler gets its signal, as it asked, and then
 *   -EPIPE when the handler returns; an ignored SIGPIPE stays ignored.
 * - Every object is opaque: created by *_new, released by *_free (which
 *   accept NULL), read through accessors.  Structures the caller fills
 *   (struct sc_copy_args, struct sc_meta_args, struct sc_plan_input, and
 *   struct sc_event, which the library fills for the caller) begin with
 *   their size: set it to sizeof; the library reads and writes no member
 *   past it, so code built against an older header keeps working.
 * - Options are bits of a flags word (SC_COPY_*) and setters: a new
 *   option is a new bit or a new function, never a changed structure.
 * - Reasons (sc_plan_why) are English, untranslated strings with static
 *   lifetime; the smartcp text domain translates them
 *   (dgettext("smartcp", why)).
 * - Threads: a copier may be used by several threads at once (its facts
 *   cache and what it learned are shared, under its own lock); a copy
 *   context (struct sc_copy_ctx) and a report by one thread at a time.
 *   No set-up call is needed before threads start (see sc_init()).
 * - Stability: this is API and ABI version 1 (SONAME libsmartcp.so.1).
 *   Functions are only added (in new symbol-version nodes); enums only
 *   gain values at their end; a road, an event or a flag value a program
 *   does not know must be handled as "other".  A change that breaks this
 *   moves the SONAME. */
#ifndef SMARTCP_SMARTCP_H
#define SMARTCP_SMARTCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version and set-up ---------------------------------------------- */

/* The API version this header describes; sc_api_version() says which
 * one the loaded library implements (never less, for the same SONAME). */
#define SC_API_VERSION 1
/* The functions this header adds within SC_API_VERSION: 1 (API 1.1:
 * sc_made_check, sc_stack_info...), 2 (1.2: sc_backup_name), 3 (1.3: the
 * tree copy, sc_tree_*).  A program that needs the tree copy can test
 * #if SC_API_MINOR >= 3; the library it loads has each symbol version
 * (LIBSMARTCP_1.N) it was linked with, or the loader refuses it. */
#define SC_API_MINOR 3
int sc_api_version(void);
/* "0.1.0": the package version of the library actually loaded. */
const char *sc_version(void);
/* Kept for the programs that call it: libsmartcp loads libmount and
 * libblkid where a fact needs them and sets up their debug masks there,
 * under its own once, so no thread races in that set-up and there is
 * nothing left for this to do before threads start.  Any number of
 * calls, from any thread.  0. */
int sc_init(void);

/* ---- Roads ----------------------------------------------------------- */

/* The roads, in the order a plan tries them.  More may be added at the
 * end: size nothing by today's four, use sc_road_count(). */
enum sc_road {
	SC_ROAD_CLONE,		/* ioctl(FICLONE): share the extents */
	SC_ROAD_RANGE,		/* copy_file_range(2) */
	SC_ROAD_SPLICE,		/* splice(2) through a pipe */
	SC_ROAD_RW,		/* read(2)/write(2) */
};
#define SC_ROAD_BIT(road) (1u << (road))
/* How many roads this library knows (4). */
unsigned sc_road_count(void);
/* "clone", "copy_file_range", "splice", "read_write"; "?" otherwise.
 * An interface (smartcp's -v, --explain, --json): never changes. */
const char *sc_road_name(enum sc_road road);
/* The road called NAME; -EINVAL for NULL or a name that is no road. */
int sc_road_from_name(const char *name);

enum sc_reflink { SC_REFLINK_AUTO, SC_REFLINK_ALWAYS, SC_REFLINK_NEVER };
enum sc_sparse { SC_SPARSE_AUTO, SC_SPARSE_ALWAYS, SC_SPARSE_NEVER };

/* ---- Facts about filesystems ----------------------------------------- */

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

/* What is known of one filesystem: owned by the cache (or the copier)
 * that made it, and valid as long as that lives.  Two facts pointers of
 * one cache are equal exactly when they describe one device. */
struct sc_fs_facts;

/* Every accessor accepts NULL (unknown facts): 0, -1, NULL, "unknown",
 * "", SC_FS_UNKNOWN or SC_MAYBE. */
dev_t sc_fs_facts_dev(const struct sc_fs_facts *f);
/* The mount id (mountinfo field 1), -1 unknown. */
int sc_fs_facts_mnt_id(const struct sc_fs_facts *f);
unsigned long sc_fs_facts_magic(const struct sc_fs_facts *f);	/* f_type */
uint64_t sc_fs_facts_fsid(const struct sc_fs_facts *f);	/* f_fsid */
/* "ext4", "fuse.sshfs" (type.subtype); "" when a filesystem's type could
 * not be learned; "unknown" for NULL. */
const char *sc_fs_facts_type(const struct sc_fs_facts *f);
/* The mount point, the mount source ("/dev/vda", "server:/x") and the
 * VFS and filesystem options, comma separated; NULL when unknown. */
const char *sc_fs_facts_target(const struct sc_fs_facts *f);
const char *sc_fs_facts_source(const struct sc_fs_facts *f);
const char *sc_fs_facts_options(const struct sc_fs_facts *f);
/* Equal identities mean one filesystem: "blk:MAJ:MIN" of the source
 * block device, else "dev:MAJ:MIN" of the superblock, else "fsid:HEX";
 * "" when none is known. */
const char *sc_fs_facts_identity(const struct sc_fs_facts *f);
/* The UUID from libblkid (block devices, when asked for), else "". */
const char *sc_fs_facts_uuid(const struct sc_fs_facts *f);
enum sc_fs_class sc_fs_facts_class(const struct sc_fs_facts *f);
enum sc_tristate sc_fs_facts_can_clone(const struct sc_fs_facts *f);

/* "generated", "memory", "local", "network", "fuse", "overlay",
 * "unknown"; "?" for a value out of range. */
const char *sc_fs_class_name(enum sc_fs_class cls);

/* A cache of facts, per device.  MOUNTINFO: a mountinfo file to read
 * instead of the running system (tests with fixtures); NULL: the running
 * system.  0, -EINVAL (RET NULL), -ENOMEM. */
struct sc_fsinfo;
int sc_fsinfo_new(const char *mountinfo, struct sc_fsinfo **ret);
void sc_fsinfo_free(struct sc_fsinfo *fsi);
/* Also read UUIDs with libblkid for facts built from now on. */
void sc_fsinfo_want_uuid(struct sc_fsinfo *fsi, bool want);
/* Loads libmount (and, when sc_fsinfo_want_uuid asked for UUIDs,
 * libblkid) now, on the calling thread.  Lookups load them by themselves
 * where a fact needs them, thread-safely; a program that starts threads
 * calls this first when they may be needed, so that no library's
 * first-use set-up runs in a thread.  0, or -EOPNOTSUPP when libmount
 * cannot be loaded (facts then come from statmount and the magic number
 * alone).  sc_copier_preload() does it for a copier's cache. */
int sc_fsinfo_preload(struct sc_fsinfo *fsi);
/* Where each of F's facts came from, as "type statmount, class magic,
 * identity statmount, mount libmount, uuid libblkid" (the facts FSI
 * made; the origins are "magic", "statmount", "libmount", "mountinfo"
 * and "libblkid"), into BUF.  Its length (0 for facts FSI did not make,
 * assumed ones), -EINVAL, or -ENOSPC when it does not fit.
 * sc_copier_origins_text() does it for a copier's facts. */
int sc_fsinfo_origins_text(const struct sc_fsinfo *fsi,
			   const struct sc_fs_facts *f, char *buf, size_t size);

/* Facts for the filesystem holding open descriptor FD (any access mode,
 * O_PATH too) whose fstat is ST.  Never fails: what cannot be learned
 * stays unknown (type "", class as the magic number says); NULL only
 * when FSI or ST is NULL or memory ran out.  One thread at a time (a
 * copier's cache has its own lock: sc_copier_facts). */
const struct sc_fs_facts *sc_fsinfo_lookup(struct sc_fsinfo *fsi, int fd,
					   const struct stat *st);

/* Facts for a filesystem of type TYPE that is not looked at, for asking
 * the plan about another machine: the class and clone ability a mount of
 * that type would have.  FS says which assumed filesystems are one (their
 * identity is "assumed:FS"), MOUNT which are one mount (the mount id).
 * Since API 1.1 TYPE may name the version of the module behind it, and
 * the module's parameters that known-bad stacks name, as
 * TYPE@VERSION[,NAME=VALUE...] ("zfs@2.2.0",
 * "zfs@2.2.3,zfs_bclone_enabled=1"; sc_fs_facts_module() gives them
 * back); without them the version is unknown, and rows that name one may
 * hold.  0; -ENOENT for a type smartcp does not know (sc_fs_type_name
 * lists them; "fuse.X" is any FUSE filesystem) or a parameter no row of
 * that type names; -EINVAL (TYPE or RET NULL, a VERSION or VALUE that is
 * no number); -ENAMETOOLONG; -ENOMEM.  Free with sc_fs_facts_free (only
 * facts made here: a cache's facts belong to the cache). */
int sc_fs_facts_assume(const char *type, int fs, int mount,
		       struct sc_fs_facts **ret);
void sc_fs_facts_free(struct sc_fs_facts *f);
/* The I-th type name sc_fs_facts_assume knows, NULL past the last. */
const char *sc_fs_type_name(size_t i);

/* A kernel version, e.g. 6.18 -> {6, 18}.  A value type: it will not
 * grow. */
struct sc_kernel {
	int major, minor;
};
/* The running kernel's version ({0, 0} when uname cannot tell). */
struct sc_kernel sc_kernel_running(void);
bool sc_kernel_at_least(struct sc_kernel k, int major, int minor);
/* Parses MAJOR.MINOR, MAJOR.MINOR.PATCH, or what uname -r prints
 * ("6.1.0-13-amd64"), each number of at most three digits, leading
 * zeros counted.  0; -EINVAL when TEXT or RET is NULL or TEXT is not of
 * that form ("10000.1", "6.0001" too);
 * -ERANGE when no such Linux exists (2.6, 3.0 to 3.19, 4.0 to 4.20, 5.0
 * to 5.19, 6.0 to 6.19 and 7.x do). */
int sc_kernel_parse(const char *text, struct sc_kernel *ret);

/* ---- The plan -------------------------------------------------------- */

/* The plan is a pure function of these facts: no I/O, so a program can
 * ask what would happen on another kernel or filesystem. */
struct sc_plan_input {
	size_t size;		/* sizeof(struct sc_plan_input) */
	/* NULL: unknown, and then taken as a generated file's would be
	 * (its size not trusted, no clone, no copy_file_range) */
	const struct sc_fs_facts *src_fs, *dst_fs;
	mode_t src_mode, dst_mode;	/* only the S_IFMT bits matter */
	off_t src_size;
	struct sc_kernel kernel;
	enum sc_reflink reflink;
	enum sc_sparse sparse;
	unsigned roads;		/* allowed roads, SC_ROAD_BIT()s; 0: all */
	bool roads_forced;	/* the caller's choice beats the rules */
	unsigned learned;	/* roads that failed "not here" for this pair */
};

/* An ordered plan: for every road, whether it will be tried and why. */
struct sc_plan;

/* Makes the plan for IN in *RET.  0, -EINVAL (a NULL, a size too small
 * for the members up to LEARNED, unknown road bits, an enum out of
 * range, ROADS_FORCED with no road), -ENOMEM.  At least one road is used
 * unless IN restricted the roads (roads, roads_forced, SC_REFLINK_ALWAYS,
 * SC_SPARSE_*). */
int sc_plan_new(const struct sc_plan_input *in, struct sc_plan **ret);
void sc_plan_free(struct sc_plan *plan);
/* The roads that will be tried, SC_ROAD_BIT()s, and how many. */
unsigned sc_plan_roads(const struct sc_plan *plan);
unsigned sc_plan_n_use(const struct sc_plan *plan);
/* Whether ROAD will be tried; why it is tried or left out (never NULL
 * for a road this library knows; NULL for another); whether an input
 * left it out (roads, reflink, sparse, the copier's flags) rather than
 * the facts.  False, NULL and false for a NULL plan. */
bool sc_plan_use(const struct sc_plan *plan, enum sc_road road);
const char *sc_plan_why(const struct sc_plan *plan, enum sc_road road);
bool sc_plan_by_option(const struct sc_plan *plan, enum sc_road road);

/* True when FS's st_size is not the length of its files (the generated
 * filesystems), or FS is unknown (NULL). */
bool sc_plan_size_untrusted(const struct sc_fs_facts *fs);

/* ---- Known-bad stacks (API 1.1) -------------------------------------- */

/* Where a fast road, or hole detection, has corrupted data, hung or
 * failed in the field: the filesystem, kernel and module versions, what
 * went wrong and what a plan does there (smartcp --rules prints the
 * table).  A plan whose facts match a row acts on it: it leaves out the
 * roads the row is about (and does not look for holes), or takes them
 * and has the copy verified, or only names the row; sc_plan_advisory()
 * says which.  Strings are static and English; WHY and DOES are msgids
 * of the smartcp text domain. */
struct sc_stack_info {
	size_t size;		/* set by the caller:
				 * sizeof(struct sc_stack_info) */
	const char *id;		/* "zfs-bclone-2.2.0": never changes */
	const char *cite;	/* "zfs#15526": the source, short */
	const char *title;	/* "OpenZFS 2.2.0 with block cloning" */
	const char *fs;		/* the types, blank-separated; "*": any */
	const char *side;	/* "source", "dest" or "either": the end
				 * that must be on it */
	/* The conditions: "any", "6.17", "6.8 and later", "4.19 and
	 * earlier", "4.5 to 4.19"; the module and its versions ("zfs 2.2.0",
	 * "zfs 2.1.4 to 2.1.13, 2.2.0 to 2.2.1"); a parameter of it
	 * ("zfs_bclone_enabled=1 (default 0)"); the libc ("glibc 2.41 to
	 * 2.42").  "" where there is none. */
	const char *kernel, *module, *param, *libc;
	unsigned roads;		/* SC_ROAD_BIT()s of the roads it is about */
	bool holes;		/* ... and hole detection (SEEK_DATA) */
	const char *seen;	/* "corruption", "hang", "empty destination",
				 * "error" */
	const char *action;	/* "skip", "verify", "fallback", "note",
				 * "none" (smartcp cannot meet it) */
	const char *why;	/* the plan's reason: "known to corrupt data
				 * on OpenZFS 2.2.0 with block cloning
				 * (zfs#15526)" */
	const char *does;	/* what smartcp does there, in words */
	const char *what;	/* what was seen, and where it was fixed */
	const char *source;	/* where it was reported (a URL) */
	const char *date;	/* ... and when: "2023-11-14" */
	/* A stack where the row holds, for both ends, as
	 * sc_fs_facts_assume() takes it ("zfs@2.2.0"), and its Linux
	 * ("6.1"); "" for a row of action "none". */
	const char *example, *example_kernel;
};
/* Fills RET (RET->size set by the caller) with row I of the table.  0,
 * -ERANGE past the last row, -EINVAL (RET NULL or too small). */
int sc_stack_info(size_t i, struct sc_stack_info *ret);

/* What a row of the table that holds for a plan's facts does to it. */
struct sc_advisory {
	size_t size;		/* set by the caller:
				 * sizeof(struct sc_advisory) */
	size_t stack;		/* the row, for sc_stack_info() */
	const char *id;		/* ... its id */
	/* "skip": ROADS are left out, hole detection too with HOLES;
	 * "verify": ROADS are taken and the copy is verified (as with
	 * SC_COPY_VERIFY); "fallback", "note": ROADS are taken. */
	const char *action;
	unsigned roads;		/* the roads of the row the plan would take
				 * without it (SC_ROAD_BIT()s) */
	unsigned forced;	/* ... taken all the same: the caller forced
				 * them (roads_forced; SC_REFLINK_ALWAYS for
				 * the clone) */
	bool holes;		/* hole detection is not used */
	bool verify;		/* the copy is verified because of it */
	bool maybe;		/* a fact the row needs is unknown (the
				 * module's version): it may hold; roads it
				 * would skip for corruption are taken and
				 * verified instead ("verify"), the others
				 * skipped, hole detection not used */
	const char *why;	/* the row's reason (its WHY) */
};
/* The I-th row that holds for PLAN's facts and concerns a road it would
 * take (or its hole detection): the rows that skip first, then the
 * others, each in the table's order.  0, -ERANGE past the last, -EINVAL
 * (a NULL, RET->size too small). */
int sc_plan_advisory(const struct sc_plan *plan, unsigned i,
		     struct sc_advisory *ret);

/* The module behind F where known-bad stacks name its version (OpenZFS),
 * as --assume-fs takes it after '@': the version the module gives
 * ("2.2.0-1"), then ",NAME=VALUE" for each parameter of it that rows
 * name and that was read ("2.2.3-1,zfs_bclone_enabled=1"); "" when none
 * was read (and for NULL).  Read from /sys/module only for a type that
 * rows name, once per filesystem; the directory $SMARTCP_SYS_MODULE
 * names stands in for /sys/module (for tests). */
const char *sc_fs_facts_module(const struct sc_fs_facts *f);

/* ---- A source that changed while it was copied ----------------------- */

/* In order of weight; sc_change_name() gives the JSON names. */
enum sc_change_how {
	SC_CHANGE_NONE,
	SC_CHANGE_STATUS,	/* only ctime changed */
	SC_CHANGE_REWRITTEN,	/* same size, another mtime */
	SC_CHANGE_SHRANK,
	SC_CHANGE_GREW,
	SC_CHANGE_REMOVED,	/* the name leads nowhere now */
	SC_CHANGE_REPLACED,	/* the name leads to another file now */
};
/* "none", "status", "rewritten", "shrank", "grew", "removed",
 * "replaced"; "?" for a value out of range. */
const char *sc_change_name(enum sc_change_how how);

/* ---- The copier ------------------------------------------------------ */

/* Options of a copier, bits of the flags word of sc_copier_new(). */
enum {
	SC_COPY_VERIFY = 1u << 0,	/* read the copy back and compare */
	SC_COPY_SYNC = 1u << 1,		/* fsync the copy (and, for a new
					 * name, its directory) */
	SC_COPY_ATOMIC = 1u << 2,	/* copy into a temporary in the
					 * destination's directory, renamed
					 * into place when complete; one the
					 * caller may not write is refused
					 * unless SC_FILE_FORCE (then the name
					 * given, not a link's target, gets a
					 * new file) */
	SC_COPY_IF_CHANGED = 1u << 3,	/* a destination that holds the
					 * source's bytes only gets its
					 * metadata */
	SC_COPY_NO_DATA = 1u << 4,	/* metadata only (cp
					 * --attributes-only): no byte is
					 * written, nothing truncated */
	SC_COPY_KEEP_MODE = 1u << 5,	/* permission bits and ACLs */
	SC_COPY_KEEP_OWNER = 1u << 6,	/* owner and group (set-id bits
					 * only where the owner was kept) */
	SC_COPY_KEEP_TIMES = 1u << 7,	/* access and modification times */
	SC_COPY_KEEP_XATTR = 1u << 8,	/* extended attributes, by the
					 * rules of xattr.conf */
	SC_COPY_DEFAULT_MODE = 1u << 9,	/* a new file gets 0666 less the
					 * umask, not the source's bits */
	SC_COPY_META_STRICT = 1u << 10,	/* a metadata failure fails the
					 * copy (cp --preserve=...); else it
					 * is reported and the copy stands */
	SC_COPY_XATTR_STRICT = 1u << 11,	/* ... for xattrs too */
	SC_COPY_LIVE_SOURCE = 1u << 12,	/* the source may change while it
					 * is copied (a log being written):
					 * with SC_COPY_VERIFY the copy is
					 * proven against the bytes that
					 * were read (their digests, the
					 * length included), never by
					 * reading the source again, and so
					 * read_write is its only road.
					 * Since API 1.1 */
};

/* Copies file after file, remembering facts per filesystem and the
 * roads that failed "not here" for each pair of filesystems.  Thread
 * safe: several threads may copy through one copier at once, each with
 * its own struct sc_copy_ctx; the facts cache and what was learned are
 * shared, under the copier's lock. */
struct sc_copier;

/* Creates a copier with FLAGS (SC_COPY_*).  0; -EINVAL (RET NULL, an
 * unknown flag); -ENOMEM.  The defaults: all roads, SC_REFLINK_AUTO,
 * SC_SPARSE_AUTO, the running kernel, the process's umask (read from
 * /proc/self/status the first time a mode needs it, 022 when that cannot
 * be read), /etc/xattr.conf (read the first time SC_COPY_KEEP_XATTR
 * needs it), no progress. */
int sc_copier_new(unsigned flags, struct sc_copier **ret);
void sc_copier_free(struct sc_copier *c);
unsigned sc_copier_flags(const struct sc_copier *c);

/* Setters: call them before the first copy (they are not synchronised
 * with copies in flight).  Each returns 0 or -EINVAL (C NULL, a value
 * out of range). */
/* Only ROADS (SC_ROAD_BIT()s, not 0); FORCED: in plan order, whatever
 * the rules say (smartcp's --road).  When the rules leave out every
 * allowed road, a copy fails with -EOPNOTSUPP, and so it does when none
 * of them can be taken (a clone refused, copy_file_range's EXDEV): an
 * existing destination is then left as it was, for its old bytes are
 * dropped only once a road serves. */
int sc_copier_set_roads(struct sc_copier *c, unsigned roads, bool forced);
int sc_copier_set_reflink(struct sc_copier *c, enum sc_reflink reflink);
int sc_copier_set_sparse(struct sc_copier *c, enum sc_sparse sparse);
/* Plans for KERNEL instead of the running one (explanations only: the
 * calls that copy refuse with -EINVAL while a kernel or facts are
 * assumed). */
int sc_copier_assume_kernel(struct sc_copier *c, struct sc_kernel kernel);
/* Plans as if the source were on SRC_FS and the destination on DST_FS
 * (owned by the caller, to outlive C); explanations only, as above. */
int sc_copier_assume_fs(struct sc_copier *c, const struct sc_fs_facts *src_fs,
			const struct sc_fs_facts *dst_fs);
/* The umask new files are made with (the kernel applies it at creation;
 * the copier needs it only where it sets a mode itself: bits held back
 * at creation, SC_COPY_DEFAULT_MODE). */
int sc_copier_set_umask(struct sc_copier *c, mode_t umask);
/* The xattr.conf that SC_COPY_KEEP_XATTR follows (NULL: none: every
 * attribute is copied but ACLs -- system.posix_acl_access and _default,
 * system.nfs4_acl -- which SC_COPY_KEEP_MODE keeps); read now.  A file
 * that does not exist, or cannot be read or parsed, leaves no rules, and
 * its -errno (-ENOENT, ...) is reported (SC_EV_META_XATTR_CONF, ATTR its
 * path) with every attribute, as libattr does.  0, -EINVAL, -ENOMEM. */
int sc_copier_set_xattr_conf(struct sc_copier *c, const char *path);
/* Also read filesystem UUIDs (libblkid) for the facts reports show. */
int sc_copier_want_uuid(struct sc_copier *c, bool want);
/* Loads now, on the calling thread, the libraries facts may need
 * (libmount; libblkid with sc_copier_want_uuid), so that threads started
 * afterwards do not wait for the loader.  0, or -EOPNOTSUPP when
 * libmount cannot be loaded (facts then come from statmount(2) and the
 * magic number alone). */
int sc_copier_preload(struct sc_copier *c);

/* Facts of the filesystem of FD (fstat ST), from the copier's cache.
 * Thread safe.  NULL as sc_fsinfo_lookup. */
const struct sc_fs_facts *sc_copier_facts(struct sc_copier *c, int fd,
					   const struct stat *st);
/* sc_fsinfo_origins_text() for facts of the copier's cache.  Thread
 * safe. */
int sc_copier_origins_text(struct sc_copier *c, const struct sc_fs_facts *f,
			   char *buf, size_t size);
/* ... of NAME (relative to DIRFD, AT_FDCWD: a path, symlinks followed),
 * or, for a name that does not exist (yet), of its nearest existing
 * ancestor.  NULL when none. */
const struct sc_fs_facts *sc_copier_facts_at(struct sc_copier *c, int dirfd,
					      const char *name);

/* ---- Copying --------------------------------------------------------- */

/* A thread's means of copying through a copier: its buffer (allocated
 * on first need: a clone or a copy_file_range needs none), its pipe for
 * splice, the digests of what read_write moved, and the state a signal
 * handler needs to remove a copy in progress.  One thread at a time; as
 * many as there are threads.  Lives no longer than its copier. */
struct sc_copy_ctx;
int sc_copy_ctx_new(struct sc_copier *c, struct sc_copy_ctx **ret);
/* Closes what X holds (each once) and frees it. */
void sc_copy_ctx_free(struct sc_copy_ctx *x);

/* Progress and cancellation: FN is called after every step that moved
 * bytes, with the bytes this call has moved so far (a hole skipped is no
 * byte moved; a clone reports the file's size once; a verification's
 * repair goes on counting from there, so DONE never goes back) and the
 * road moving them.  A non-zero return cancels the copy as
 * sc_copy_ctx_cancel does.  NULL: none. */
typedef int (*sc_progress_fn)(void *arg, uint64_t done, enum sc_road road);
void sc_copy_ctx_set_progress(struct sc_copy_ctx *x, sc_progress_fn fn,
			      void *arg);

/* Out of descriptors: FN is called when opening a file fails with
 * EMFILE or ENFILE (ERR), with a counter the copy keeps for this open
 * (TRIES, 0 at first), and returns true when the caller gave some back
 * and the open is to be tried again.  NULL: never. */
typedef bool (*sc_fd_short_fn)(void *arg, int err, unsigned *tries);
void sc_copy_ctx_set_fd_short(struct sc_copy_ctx *x, sc_fd_short_fn fn,
			      void *arg);

/* Cancels the copy running on X, from any thread or a signal handler
 * (async-signal-safe): it stops at its next step, removes what it made
 * (a temporary, a file it created; a destination it was overwriting is
 * emptied, as it can no longer be what it was) and returns -ECANCELED.
 * Sticky until sc_copy_ctx_reset_cancel(). */
void sc_copy_ctx_cancel(struct sc_copy_ctx *x);
void sc_copy_ctx_reset_cancel(struct sc_copy_ctx *x);

/* For a signal handler that is about to end the process (it cannot wait
 * for the copy to stop): removes what the copy in progress on X has made,
 * as cancellation would, now: a file it created goes while its name
 * still leads to it (else it is emptied through its descriptor), a file
 * that was there before is emptied, a named temporary goes.  Async-signal-safe; the copy must not go on
 * afterwards.  True when something was removed or emptied. */
bool sc_copy_ctx_abandon(struct sc_copy_ctx *x);

/* One file to copy.  Set SIZE to sizeof(struct sc_copy_args) and every
 * member you do not use to its zero value (the descriptors to -1). */
struct sc_copy_args {
	size_t size;
	/* The source: SRC_NAME relative to SRC_DIRFD (AT_FDCWD: a path),
	 * opened here; or SRC_FD >= 0, open for reading, with SRC_ST its
	 * fstat (NULL: asked here); SRC_NAME then only serves to look again
	 * whether the file changed (NULL: its descriptor is asked).  The
	 * caller keeps SRC_FD.  A SRC_FD not open for reading (O_PATH, or
	 * O_WRONLY) is refused with -EBADF, nothing touched; one of a pipe
	 * or a socket is read as a stream (SC_FILE_SOURCE_ANY). */
	int src_dirfd;
	const char *src_name;
	int src_fd;
	const struct stat *src_st;
	/* The file the caller expects there (st_dev, st_ino): another one
	 * is refused (SC_EV_REPLACED).  NULL: any. */
	const struct stat *src_expect;
	/* The destination: DST_NAME relative to DST_DIRFD; or DST_FD >= 0,
	 * open for writing (O_RDWR with SC_COPY_VERIFY), written from offset
	 * 0 and cut to what was copied, never removed or renamed (the caller
	 * keeps it; SC_COPY_ATOMIC does not apply); a regular file a failed
	 * copy wrote into (cancelled, ENOSPC...) is emptied, as a file
	 * overwritten in place is.  It gets bytes only: the SC_COPY_KEEP_*
	 * flags do not apply to it (as to sc_copier_copy_fd's OUT), and
	 * SC_COPY_IF_CHANGED, finding it equal, leaves it as it is
	 * (SC_REPORT_UNCHANGED).  A DST_FD that is not so (O_PATH, O_RDONLY,
	 * a regular file opened O_APPEND, or not O_RDWR where it is read
	 * back: SC_COPY_VERIFY, SC_COPY_IF_CHANGED) is refused with -EBADF
	 * before anything is touched, as sc_copier_copy_fd refuses it, and
	 * explained so (not under SC_COPY_NO_DATA, which writes nothing). */
	int dst_dirfd;
	const char *dst_name;
	int dst_fd;
	/* What the caller found at the destination (its stat, symlinks
	 * followed), when the caller looked: saves a stat (SC_FILE_NEW: it
	 * found none). */
	const struct stat *dst_st;
	/* Facts of the destination's directory: a file created there with
	 * O_EXCL is on that filesystem, no fstat needed.  NULL: look. */
	const struct sc_fs_facts *dst_dir_facts;
	unsigned flags;		/* SC_FILE_* */
};

/* Bits of sc_copy_args.flags. */
enum {
	SC_FILE_NOFOLLOW = 1u << 0,	/* a symlink as the source is refused
					 * (ELOOP), not followed */
	SC_FILE_NEW = 1u << 1,		/* the caller found no destination:
					 * it is created (O_EXCL) */
	SC_FILE_FORCE = 1u << 2,	/* an existing destination that cannot
					 * be opened is removed and made anew
					 * (cp -f) */
	SC_FILE_DANGLING = 1u << 3,	/* a dangling symlink as the
					 * destination is written through
					 * (POSIX); else refused */
	SC_FILE_SOURCE_ANY = 1u << 4,	/* a FIFO or a device as the source
					 * is read as a stream; else only
					 * regular files: another is
					 * refused (-EINVAL) at once, never
					 * opened for reading */
	SC_FILE_COMPARE_ONLY = 1u << 5,	/* with SC_COPY_IF_CHANGED: only the
					 * comparison -- a destination that
					 * holds the source's bytes gets its
					 * metadata (SC_REPORT_UNCHANGED), one
					 * that does not is left as it is */
};

/* What one copy found and did; reused from copy to copy (each call
 * resets it).  One thread at a time. */
struct sc_copy_report;
int sc_copy_report_new(struct sc_copy_report **ret);
void sc_copy_report_free(struct sc_copy_report *r);

/* Copies one file as ARGS says, by the copier's options: opens the
 * source, compares with SC_COPY_IF_CHANGED, opens the destination (in
 * place, removed first with SC_FILE_FORCE, or a temporary with
 * SC_COPY_ATOMIC), plans, copies with fallback, checks that the source
 * held still, verifies and repairs once, keeps the metadata asked for,
 * syncs, commits.  On failure the destination is never left looking
 * complete: a file it created, or a temporary, is removed; a file it was
 * overwriting in place is emptied (it keeps its names, owner, mode and
 * attributes); an atomic copy leaves the old
 * destination untouched; a destination the call knew it could not copy
 * into (no road, a stream it could not verify) is not touched, nor is a
 * file in place that keeps its bytes until a road serves (roads
 * restricted or forced, SC_REFLINK_ALWAYS, DST_FD) when none could be
 * taken.  A
 * metadata failure under SC_COPY_META_STRICT fails the call, but a file
 * copied in place keeps its data (it is whole), as cp leaves it; with
 * SC_COPY_ATOMIC the temporary goes and the old file stays (none is
 * made): all or nothing.  An old file's mode that the temporary cannot
 * take (a filesystem that refuses chmod: vfat, some FUSE ones) is not
 * asked for by the caller: it is a warning (SC_EV_OLD_MODE, not fatal),
 * and the whole copy replaces the old file all the same.
 * Returns 0 or -errno (the same as sc_copy_report_error()); REP (may be
 * NULL) says what happened, step by step, in its events.  -EINVAL for
 * bad arguments, and for a source that is the destination (by its name,
 * another of its names, a symlink to it or a descriptor of it), whatever
 * the flags: nothing touched; -EOPNOTSUPP when no allowed road
 * could be taken, -EBADMSG when the copy still differs after one copy
 * again, -ECANCELED when cancelled. */
int sc_copy_ctx_copy(struct sc_copy_ctx *x, const struct sc_copy_args *args,
		     struct sc_copy_report *rep);

/* Everything sc_copy_ctx_copy would decide up to the first byte, and
 * nothing done: the same pipeline, which stops before the first thing
 * that would change a file.  The source is opened O_PATH (a FIFO is never
 * opened for reading); what the copy would do to the destination -- open
 * it for writing, remove it (SC_FILE_FORCE), make it or a temporary -- is
 * asked of the kernel (access(2) of the file or its directory), not
 * done.  Fills REP's facts and plan, and the event that would end the
 * copy before its data (a source that is refused or cannot be read, the
 * source as its own destination, a dangling symlink, a destination that
 * cannot be written or read back for verification, no road left...).
 * 0, or the -errno the copy would fail with there.  What only the data
 * can tell is not foreseen: a road that fails, and SC_COPY_IF_CHANGED's
 * comparison, which reads both files (explain describes the copy of a
 * destination that differs).  The caller's word is taken where the
 * copy would find out: SC_FILE_NEW over a file means it will be moved
 * away first, and a directory of the destination that does not exist
 * yet one the caller makes first (its nearest existing ancestor is
 * asked).  Assumed facts and kernels (sc_copier_assume_*) are used. */
int sc_copy_ctx_explain(struct sc_copy_ctx *x,
			const struct sc_copy_args *args,
			struct sc_copy_report *rep);

/* Metadata alone, for what is not a regular file's copy (a directory, a
 * symlink, a device made by the caller), by the copier's SC_COPY_KEEP_*
 * flags; the same code a file's copy uses. */
struct sc_meta_args {
	size_t size;		/* sizeof(struct sc_meta_args) */
	/* The source and destination: descriptors (>= 0), open or O_PATH,
	 * else the names relative to the directory descriptors (AT_FDCWD:
	 * paths); names are never followed if they are symlinks (but for
	 * a source whose SRC_ST is what its symlink leads to).  A name is
	 * held by descriptor before anything is set, and checked: of
	 * SRC_ST's type, and, SC_MADE_CREATED, not another name of an
	 * older file and the caller's (sc_made_check()); the source is
	 * SRC_ST's inode.  Every attribute is then set through that
	 * descriptor, never by name: whoever may write the directory can
	 * swap the name for a symlink or a hard link meanwhile.  Pass an
	 * O_PATH descriptor held since the object was made (and checked
	 * with sc_made_check()) to close that window entirely. */
	int src_fd, src_dirfd;
	const char *src_name;
	int dst_fd, dst_dirfd;
	const char *dst_name;
	const struct stat *src_st;	/* required */
	/* How the destination came to be: SC_MADE_* bits, the mode it was
	 * made with (MADE_MODE, with SC_MADE_MODE_KNOWN), the bits held back
	 * at creation (OMITTED: see sc_copier_omitted), the owner-write bit
	 * added to set xattrs (EXTRA), and an existing destination's mode
	 * (OLD_MODE, with SC_MADE_OLD). */
	unsigned made;
	mode_t made_mode, omitted, extra, old_mode;
};
enum {
	SC_MADE_CREATED = 1u << 0,	/* made by the caller now */
	SC_MADE_MODE_KNOWN = 1u << 1,
	SC_MADE_RESTORE = 1u << 2,	/* MADE_MODE | OMITTED must be set */
	SC_MADE_OLD = 1u << 3,		/* an existing destination */
	SC_MADE_PARENT = 1u << 4,	/* a directory of a path made for the
					 * destination (cp --parents): set
					 * by path (AT_FDCWD), SRC_ST's mode
					 * restored with SC_MADE_RESTORE */
};
/* 0, or the -errno of the first failure that counts (SC_COPY_META_STRICT,
 * or one that always does: SC_EV_META_DEFAULT_MODE, SC_EV_META_STAT and
 * any of SC_MADE_PARENT); every failure is an event of REP.  -EINVAL, and
 * nothing set, when the destination is the source's inode (metadata
 * onto itself), whatever the SC_MADE_* bits.  -ESTALE
 * (SC_EV_REPLACED: its WHICH 0 the source, 1 the destination) when a
 * named end is not the object it must be; nothing was set.  -EINVAL for
 * bad arguments. */
int sc_copy_ctx_meta(struct sc_copy_ctx *x, const struct sc_meta_args *args,
		     struct sc_copy_report *rep);
/* The permission bits of SRC_MODE to hold back when making its copy, so
 * that nobody opens it before its owner is right (SC_COPY_KEEP_OWNER:
 * group and other bits) or a directory before its contents are in (its
 * group and other write bits). */
mode_t sc_copier_omitted(const struct sc_copier *c, mode_t src_mode);
/* Is FD (O_PATH is enough: opened with O_PATH | O_NOFOLLOW right after
 * the object was made) what its caller made a moment ago with mkdirat(2),
 * mknodat(2), mkfifoat(3) or symlinkat(2) and MODE (the type and the
 * permission bits it asked for)?  Someone who may write the directory
 * can rename a new object away and put a symlink, a hard link to another
 * file, or an object of their own under its name before it is opened.
 * Checked: the type; one name only (not a directory); the caller's owner
 * and no permission bits beyond MODE's (a directory may have its
 * parent's set-group-ID bit), where the filesystem gives what is made
 * its maker's owner and asked mode (the usual local ones; not FAT, NFS
 * or FUSE, where the mount or the server decides); a directory empty.
 * 0; -ESTALE when it is not the object made; -EINVAL for bad arguments
 * (MODE without a type); or the -errno of a call that could not tell
 * (fstat(2), the directory's listing: -EMFILE...).  *RET_ST (may be
 * NULL): its fstat.  Since API 1.1. */
int sc_made_check(int fd, mode_t mode, struct stat *ret_st);
/* Does D already have what the copier's SC_COPY_KEEP_* would give it
 * from S (mode, owner, modification time)? */
bool sc_copier_meta_match(const struct sc_copier *c, const struct stat *s,
			  const struct stat *d);

/* ---- What a copy did: the report ------------------------------------- */

/* Facts of both ends (NULL when not reached), the kernel planned for,
 * and the plan (NULL when none was made; valid until the next call). */
const struct sc_fs_facts *sc_copy_report_src_fs(const struct sc_copy_report *r);
const struct sc_fs_facts *sc_copy_report_dst_fs(const struct sc_copy_report *r);
struct sc_kernel sc_copy_report_kernel(const struct sc_copy_report *r);
const struct sc_plan *sc_copy_report_plan(const struct sc_copy_report *r);
/* The source's fstat before its first byte (NULL: not opened). */
const struct stat *sc_copy_report_src_stat(const struct sc_copy_report *r);

/* The road chain: for every road tried, in order, the error that ended
 * it (0: none; SC_ERR_ZERO: it said "nothing more" though data followed)
 * and the bytes it moved.  A repair after a failed verification adds its
 * attempts after the first copy's. */
#define SC_ERR_ZERO 1
unsigned sc_copy_report_attempts(const struct sc_copy_report *r);
/* 0, or -ERANGE when I is past the last attempt, -EINVAL for R NULL.
 * Each RET_* may be NULL. */
int sc_copy_report_attempt(const struct sc_copy_report *r, unsigned i,
			   enum sc_road *ret_road, int *ret_err,
			   uint64_t *ret_bytes);
/* Bytes of data moved (all roads; a repair's included), and by ROAD. */
uint64_t sc_copy_report_bytes(const struct sc_copy_report *r);
uint64_t sc_copy_report_road_bytes(const struct sc_copy_report *r,
				   enum sc_road road);
/* The destination's final size (what the data step left). */
off_t sc_copy_report_size(const struct sc_copy_report *r);
/* How the data step itself ended: 0, or the -errno that stopped it (the
 * road's own: -EXDEV where the call says -EOPNOTSUPP), and which end
 * failed (RET_SIDE may be NULL). */
enum sc_side { SC_SIDE_NONE, SC_SIDE_READ, SC_SIDE_WRITE };
int sc_copy_report_data_error(const struct sc_copy_report *r,
			      enum sc_side *ret_side);

/* What happened, SC_REPORT_* bits. */
enum {
	SC_REPORT_OPENED = 1u << 0,	/* the source was opened */
	SC_REPORT_PLANNED = 1u << 1,	/* a plan was made */
	SC_REPORT_COPIED = 1u << 2,	/* the data step ran */
	SC_REPORT_CREATED = 1u << 3,	/* the destination is new */
	SC_REPORT_REMOVED = 1u << 4,	/* an existing destination was
					 * removed first (SC_FILE_FORCE) */
	SC_REPORT_UNCHANGED = 1u << 5,	/* SC_COPY_IF_CHANGED: it held the
					 * source's bytes already */
	SC_REPORT_HOLES = 1u << 6,	/* the copy has holes that were kept */
	SC_REPORT_SEEK_DATA = 1u << 7,	/* data found with SEEK_DATA */
	SC_REPORT_ZERO_SCAN = 1u << 8,	/* zero blocks written as holes */
	SC_REPORT_EXTEND_FAILED = 1u << 9,	/* the last ftruncate failed */
	SC_REPORT_DEST_OPENED = 1u << 10,	/* the destination (or its
						 * temporary) was opened */
};
unsigned sc_copy_report_flags(const struct sc_copy_report *r);

/* The outcome: 0 or -errno. */
int sc_copy_report_error(const struct sc_copy_report *r);

enum sc_verify_result {
	SC_VERIFIED_NONE,	/* not asked, or not reached */
	SC_VERIFIED_OK,		/* read back: the source's bytes (with
				 * SC_COPY_LIVE_SOURCE: those read, even
				 * where it changed since) */
	SC_VERIFIED_REPAIRED,	/* ... after one copy again */
	SC_VERIFIED_CURRENT,	/* the source changed; the copy equals it
				 * as it now is */
	SC_VERIFIED_RECOPIED,	/* ... once copied again */
	SC_VERIFIED_FAILED,	/* still different (or nothing provable) */
};
/* *RET_BAD (may be NULL): the first differing offset seen. */
enum sc_verify_result sc_copy_report_verify(const struct sc_copy_report *r,
					    off_t *ret_bad);

/* How the source changed while it was copied (SC_CHANGE_NONE: it did
 * not); its sizes before and after; AGAIN: it changed again while it was
 * copied once more for verification.  The copy holds what was read.
 * Each RET_* may be NULL. */
enum sc_change_how sc_copy_report_change(const struct sc_copy_report *r,
					 off_t *ret_before, off_t *ret_after,
					 bool *ret_again);

/* Events, in order: every failure, and the few things worth saying that
 * are not failures (a destination removed first, a source that changed).
 * A program words its messages from them. */
enum sc_event_kind {
	SC_EV_OPEN_SOURCE,	/* open(2) of the source */
	SC_EV_STAT_SOURCE,	/* its fstat */
	SC_EV_REPLACED,		/* not the file SRC_EXPECT says (err
				 * -ESTALE) */
	SC_EV_COMPARE,		/* SC_COPY_IF_CHANGED could not read */
	SC_EV_REMOVE_DEST,	/* SC_FILE_FORCE removed it (err 0), or
				 * could not (err) */
	SC_EV_OPEN_DEST,	/* open(2) of the destination or temporary,
				 * or the symlink to it that cannot be
				 * followed */
	SC_EV_DANGLING,		/* a dangling symlink, not written through
				 * (err -ENOENT) */
	SC_EV_STAT_DEST,
	SC_EV_UNVERIFIABLE,	/* SC_COPY_VERIFY into what cannot be read
				 * back (a FIFO, a device, a stream) */
	SC_EV_DATA,		/* the data: SIDE tells which end failed;
				 * sc_copy_report_data_error() says more */
	SC_EV_CHANGED,		/* the source changed while copied (a note;
				 * FATAL where it left nothing provable) */
	SC_EV_VERIFY,		/* verification could not read or write
				 * (VSIDE), or found a difference after the
				 * repair (err 0, OFFSET) */
	SC_EV_REPAIR_START,	/* emptying the copy for its repair */
	SC_EV_REPAIR,		/* the repair's data (SIDE) */
	SC_EV_META_TIMES,	/* metadata (see SC_COPY_META_STRICT) */
	SC_EV_META_NARROW,	/* narrowing an old mode before the chown */
	SC_EV_META_OWNER,
	SC_EV_META_XATTR,	/* FORMAT, ATTR and WHICH say it as libattr
				 * does */
	SC_EV_META_XATTR_CONF,	/* xattr.conf could not be read (ATTR: its
				 * path), said for every attribute */
	SC_EV_META_MODE,	/* mode and ACL (SC_COPY_KEEP_MODE) */
	SC_EV_META_RESTORE,	/* the bits held back at creation */
	SC_EV_META_DEFAULT_MODE,	/* SC_COPY_DEFAULT_MODE's chmod */
	SC_EV_META_STAT,	/* the mode creation gave could not be asked */
	SC_EV_OLD_LIST,		/* SC_COPY_ATOMIC over a file: its
				 * attributes could not be listed */
	SC_EV_OLD_GET,		/* ... one (ATTR) could not be read */
	SC_EV_OLD_SET,		/* ... nor set on the new file */
	SC_EV_OLD_ACL,		/* ... an inherited ACL not removed */
	SC_EV_OLD_MODE,		/* ... its mode not taken (a warning:
				 * the copy replaces it all the same),
				 * or the new file not asked (fatal) */
	SC_EV_PARENT_TIMES,	/* SC_MADE_PARENT: times */
	SC_EV_PARENT_OWNER,	/* ... owner */
	SC_EV_PARENT_MODE,	/* ... mode and ACL */
	SC_EV_PARENT_RESTORE,	/* ... the mode restored */
	SC_EV_SYNC,		/* fsync of the copy */
	SC_EV_COMMIT,		/* the temporary linked or renamed into
				 * place */
	SC_EV_CLOSE,
	SC_EV_SYNC_DIR,		/* fsync of the directory */
	SC_EV_CANCELED,
};
enum sc_verify_side {
	SC_VSIDE_BACK,		/* reading the destination back */
	SC_VSIDE_SOURCE,	/* reading the source again */
	SC_VSIDE_WRITE,		/* writing the destination out */
};
struct sc_event {
	size_t size;		/* set by the caller: sizeof(struct sc_event) */
	enum sc_event_kind kind;
	int err;		/* 0 or -errno */
	bool fatal;		/* it failed the copy */
	bool error;		/* cp says it as an error (else a warning
				 * or a note) */
	enum sc_side side;	/* SC_EV_DATA, SC_EV_REPAIR */
	enum sc_verify_side vside;	/* SC_EV_VERIFY */
	off_t offset;		/* SC_EV_VERIFY: the first differing byte */
	/* SC_EV_META_XATTR: libattr's message (a printf format, translated
	 * in libattr's domain, with one %s for ATTR when it names one, then
	 * one for the file) and the attribute's name; WHICH: 0 the source,
	 * 1 the destination.  SC_EV_META_XATTR_CONF: FORMAT "%s", ATTR the
	 * path.  SC_EV_OLD_GET and SC_EV_OLD_SET: ATTR.  SC_EV_REPLACED of
	 * sc_copy_ctx_meta: WHICH as for xattrs.  Valid until the report
	 * is reused or freed. */
	const char *format;
	const char *attr;
	int which;
};
unsigned sc_copy_report_events(const struct sc_copy_report *r);
/* Fills RET (RET->size set by the caller) with event I.  0, -ERANGE past
 * the last, -EINVAL (a NULL, a size too small). */
int sc_copy_report_event(const struct sc_copy_report *r, unsigned i,
			 struct sc_event *ret);

/* ---- Simple calls ---------------------------------------------------- */

/* Copies all of IN (open for reading) into OUT (open for writing) from
 * offset 0 of each through the copier's own context (calls from several
 * threads take turns): a regular OUT is cut to what was copied, once it
 * is known that a road can be taken, and emptied when the copy fails
 * after that (a prefix of IN is never left in it); a FIFO, socket or
 * character device takes the bytes as a stream.  Files are read and written with
 * positional calls: the offsets of IN and OUT are not moved (a stream's
 * are, by what was read or written).  Metadata flags and SC_COPY_ATOMIC
 * do not apply.  Returns 0 when every byte was copied (and, with
 * SC_COPY_VERIFY, read back equal), else -errno:
 *   -EINVAL  C is NULL, or IN and OUT are one file, or facts or a kernel
 *            are assumed;
 *   -EBADF   IN not open for reading, OUT not open for writing (O_PATH
 *            too; a directory, which cannot be), a closed or negative
 *            descriptor, a regular OUT opened O_APPEND, or with
 *            SC_COPY_VERIFY an OUT not opened O_RDWR;
 *   -EISDIR  IN is a directory;
 *   -EOPNOTSUPP  SC_COPY_VERIFY into what cannot be read back (nothing is
 *            written), or no allowed road could be taken (roads, forced,
 *            SC_REFLINK_ALWAYS refused, also across filesystems: the
 *            road's own error, -EXDEV, is in the report);
 *   -EIO, -ENOSPC, -EDQUOT, -EFBIG, -EPIPE, -EAGAIN ...  a read or write
 *            that failed;
 *   -EBADMSG verification found the copy different, also after one
 *            copy again;
 *   -ECANCELED  cancelled (sc_copy_ctx_cancel on sc_copier_ctx(C), or
 *            the progress function).
 * A source that changed while it was copied is no error: REP says how. */
int sc_copier_copy_fd(struct sc_copier *c, int in, int out,
		      struct sc_copy_report *rep);

/* Copies the regular file at SRC (following symlinks) to the path DST
 * atomically, with the copier's flags (SC_COPY_ATOMIC is implied): the
 * data goes to a temporary in DST's directory -- an unnamed O_TMPFILE
 * linked into place (linkat with AT_EMPTY_PATH, or through
 * /proc/self/fd), or, where neither can be done, a hidden
 * ".smartcp.XXXXXX" -- renamed over DST when complete; on any failure
 * DST is as it was and the temporary is gone.  Without
 * SC_COPY_KEEP_MODE the new file gets SRC's permission bits without
 * set-id and sticky bits, less the umask.  A DST that is a symlink is
 * written through: the file it leads to is replaced, in its own
 * directory.  A DST its caller may not write (its mode, an immutable
 * file) is refused as SC_COPY_ATOMIC refuses it, with the -errno an open
 * for writing would give (-EACCES, -EPERM, -EROFS), and left as it is.
 * Errors as sc_copier_copy_fd, and those of open(2), linkat(2) and
 * rename(2), plus
 *   -EINVAL  C, SRC or DST NULL or "", SRC not a regular file (a FIFO, a
 *            device, a socket), an existing DST that is not one (or a
 *            symlink to one: it cannot be replaced atomically; it is
 *            left as it is), or SRC the same file as DST;
 *   -ENOENT  also DST a dangling symlink (not written through);
 *   -EISDIR  SRC or DST a directory, or DST ending in "/". */
int sc_copier_copy_path(struct sc_copier *c, const char *src,
			const char *dst, struct sc_copy_report *rep);

/* The plan for copying IN to OUT (any access mode, O_PATH too; OUT may
 * be the directory a new file would be made in).  Nothing is read or
 * written.  Fills REP's facts and plan.  0, -EINVAL (C or REP NULL),
 * -EBADF, -EISDIR (IN a directory), -ENOMEM. */
int sc_copier_explain_fd(struct sc_copier *c, int in, int out,
			 struct sc_copy_report *rep);

/* Reads OUT back from storage and compares it with IN from offset 0:
 * length and bytes (holes both files report alike are not read).  The
 * length of a file whose st_size is not its length (one on /proc, /sys
 * or another generated filesystem, sc_plan_size_untrusted()) is where
 * its reads end: both files are then read to their ends.
 * 1 equal; 0 different (*RET_BAD, may be NULL: the first differing
 * offset, or the shorter length); -EINVAL (C NULL, not regular files or
 * block devices), -EBADF, -EISDIR, or the -errno of a read. */
int sc_copier_verify_fd(struct sc_copier *c, int in, int out,
			off_t *ret_bad);

/* The copier's own context, which the simple calls use (for
 * sc_copy_ctx_cancel and sc_copy_ctx_set_progress).  NULL when C is
 * NULL or memory ran out. */
struct sc_copy_ctx *sc_copier_ctx(struct sc_copier *c);

/* ---- Backup names (API 1.2) ------------------------------------------ */

/* How a file's backup is named, as GNU's --backup=CONTROL names it. */
enum sc_backup {
	SC_BACKUP_NONE,		/* no backup (sc_backup_name: -EINVAL) */
	SC_BACKUP_SIMPLE,	/* NAME and the suffix: NAME~ */
	SC_BACKUP_NUMBERED,	/* NAME.~N~, N one more than the highest */
	SC_BACKUP_EXISTING,	/* numbered where NAME has numbered backups,
				 * else simple */
};

/* What the name sc_backup_name() made is (bits of what it returns). */
enum {
	/* NAME.~N~: another process may take it between this call and
	 * the rename, so rename with RENAME_NOREPLACE and, on EEXIST, ask
	 * again */
	SC_BACKUP_NAME_NUMBERED = 1u << 0,
	/* too long for the directory (its NAME_MAX): NAME's first bytes
	 * and "~", always the same name for NAME, as GNU cp makes it */
	SC_BACKUP_NAME_SHORTENED = 1u << 1,
};

/* The name of the next backup of NAME (a name in directory DIRFD, or
 * AT_FDCWD; NAME may have a directory part, resolved as openat(2)
 * resolves it) under CONTROL, with SUFFIX for a simple one (NULL: "~";
 * used as given, so a suffix with a slash names another directory:
 * GNU cp takes "~" for one).  *RET_NAME gets the new name, with NAME's
 * directory part (free() it).  A numbered backup reads the directory
 * for the highest N of NAME.~N~ (any kind of entry: the names only, none
 * followed; N a decimal number without leading zeros, of any length,
 * counted as text as GNU cp counts).  A numbered or "existing" name
 * that would be NAME_MAX bytes or more in the directory
 * (fpathconf(_PC_NAME_MAX)) is shortened as GNU cp shortens it: the
 * first bytes of NAME, NAME_MAX - 2 at most, and "~"; one as long as a
 * backup that is there is not (that one fits).  A simple name is never
 * shortened nor is the directory read.  Reentrant: no state is kept
 * between calls, so any thread may call it.  Nothing is made or
 * renamed.  A bit set of SC_BACKUP_NAME_* (0: a simple name), or
 * -errno, *RET_NAME then NULL:
 *   -EINVAL  NAME NULL or "", or ending in "/", RET_NAME NULL, CONTROL
 *            SC_BACKUP_NONE or no control;
 *   -ENOENT, -EACCES, -ENOTDIR, -EBADF, -EMFILE ...  the directory
 *            could not be opened or read (numbered and existing only;
 *            GNU cp takes such a directory to have no numbered backups
 *            and does not shorten: the caller decides);
 *   -ENOMEM. */
int sc_backup_name(int dirfd, const char *name, enum sc_backup control,
		   const char *suffix, char **ret_name);

/* ---- Trees (API 1.3) -------------------------------------------------- */

/* sc_tree_copy() copies a directory and all it holds (or anything else
 * the operand is) as cp -r does: depth first, each directory's entries
 * in the order of their inode numbers, each regular file through the
 * copier's pipeline (its road picked per file, and why, in its report),
 * directories, symlinks and special files made anew and given the
 * metadata the copier keeps (SC_COPY_KEEP_*), and, with
 * SC_TREE_HARDLINKS, another name of a file copied earlier linked to its
 * copy.  Its guarantees:
 *   - no depth limit: names past PATH_MAX are reached through directory
 *     descriptors, of which it holds a bounded number (it reopens the
 *     ones it let go, checked to be the same directory);
 *   - memory flat in the number of entries (a directory's names while
 *     it is copied, and one name per file with other names);
 *   - everything it makes is held by a descriptor from the moment it is
 *     made and checked (sc_made_check) before any attribute is set, and
 *     a link or a file replaced is made under a random name and renamed
 *     into place: a tree that others can write cannot turn the copy
 *     into a change of some other file;
 *   - a source directory swapped for another, or a copy moved away,
 *     while it is copied, is said, and nothing else is taken for it;
 *   - a file that changed while it was copied is said (its report).
 * The library says nothing: what happens reaches the caller through its
 * callbacks (struct sc_tree_ops), on the thread that called
 * sc_tree_copy(), in the walk's order, also when files are copied on
 * other threads (sc_tree_set_threads()). */
struct sc_tree;

/* sc_tree_new()'s flags. */
enum {
	SC_TREE_FOLLOW = 1u << 0,	/* every symlink is followed (cp -L) */
	SC_TREE_FOLLOW_TOP = 1u << 1,	/* the operand, if a symlink (cp -H) */
	SC_TREE_ONE_FS = 1u << 2,	/* a directory on another filesystem
					 * is made, not entered (cp -x) */
	SC_TREE_HARDLINKS = 1u << 3,	/* another name of a file copied
					 * becomes a link to its copy */
	SC_TREE_FLAT = 1u << 4,		/* not recursive: a directory is
					 * refused (SC_TREE_NOT_RECURSIVE);
					 * FIFOs and devices are read as
					 * files (cp without -r) */
	SC_TREE_STREAMS = 1u << 5,	/* FIFOs and devices are read as files
					 * (cp -r --copy-contents) */
	SC_TREE_LINK_FILES = 1u << 6,	/* hard links to the sources instead
					 * of copies (cp -l) */
	SC_TREE_SYMLINK_FILES = 1u << 7,	/* symlinks to the sources (cp -s) */
	SC_TREE_EXPLAIN = 1u << 8,	/* plan each file; make nothing */
	SC_TREE_FORCE = 1u << 9,	/* a file that cannot be opened for
					 * writing is removed and made anew;
					 * a link replaces what is there
					 * (cp -f) */
	SC_TREE_DANGLING = 1u << 10,	/* a dangling symlink where a file
					 * goes is written through (POSIX) */
	SC_TREE_DST_NOFOLLOW = 1u << 11,	/* what is at the destination is
					 * looked at itself, never through a
					 * symlink: BEFORE moves or removes
					 * it (cp -b, --remove-destination) */
	SC_TREE_SAME_SYMLINK = 1u << 12,	/* a symlink there that has the
					 * target the copy would have is
					 * taken as the copy (cp -u) */
};

/* A tree copy through copier C (its settings as they are now: the roads, the
 * metadata, --verify, --atomic, --if-changed... apply to every file; C must
 * outlive it), with FLAGS (SC_TREE_*), into *RET.  One sc_tree_copy() at a
 * time.  0, -EINVAL (C or RET NULL, an unknown flag, FOLLOW with FOLLOW_TOP,
 * LINK_FILES with SYMLINK_FILES), -ENOMEM. */
int sc_tree_new(struct sc_copier *c, unsigned flags, struct sc_tree **ret);
void sc_tree_free(struct sc_tree *t);

/* Copies new files on THREADS threads, the caller's among them (1: on
 * the caller's alone, the default; 0: as many as pay for the
 * destination).  Only the new regular files of a directory the copy
 * made go to other threads (nothing is there to decide about: BEFORE
 * is not asked of them, on one thread or several; sc_tree_set_exclude()
 * leaves files out).  0; -EINVAL after the first copy, or for more than
 * 64. */
int sc_tree_set_threads(struct sc_tree *t, unsigned threads);

/* What an entry is. */
enum sc_tree_kind {
	SC_TREE_DIR,		/* a directory */
	SC_TREE_FILE,		/* a regular file (or the data of a FIFO or
				 * device, read as a file); also an entry
				 * whose type is not known yet */
	SC_TREE_SYMLINK,
	SC_TREE_SPECIAL,	/* a FIFO, device or socket, made anew */
	SC_TREE_HARDLINK,	/* another name of a file copied earlier (or,
				 * SC_TREE_LINK_FILES, a link to the source) */
};

/* One entry, valid during the callback. */
struct sc_tree_entry {
	size_t size;		/* sizeof(struct sc_tree_entry) */
	enum sc_tree_kind kind;
	/* How deep: 1, the operand; 2, an entry of its directory; ... 0:
	 * none (a directory's attributes set at the end).  An entry ends
	 * with AFTER's SC_TREE_END: a callback at a depth deeper than the
	 * last one's is about a new entry; one at a depth the walk came
	 * back to, about the directory there. */
	unsigned depth;
	bool top;		/* the operand */
	bool parent;		/* one of the operand's directories
				 * (SC_TREE_ARGS_PARENTS) */
	/* Whole names, for messages (past PATH_MAX too). */
	const char *src, *dst;
	/* The names the kernel is to be given: SRC_NAME in SRC_DIRFD, DST_NAME
	 * in DST_DIRFD (-1: not at hand). */
	int src_dirfd, dst_dirfd;
	const char *src_name, *dst_name;
	const struct stat *sst;	/* the source, NULL where not known */
	bool followed;		/* ... stat'ed through a symlink */
	/* BEFORE: the destination as the copy meets it (through a symlink
	 * where a file's data is written, else the name itself), NULL:
	 * nothing there; DST_LOOP: a symlink loop that cannot be followed,
	 * DST_ST its own stat; DST_ERR: the errno it could not be looked at
	 * for, or 0. */
	const struct stat *dst_st;
	bool dst_loop;
	int dst_err;
	/* SC_TREE_HARDLINK: the copy this is another name of (or the source
	 * linked to); a symlink made instead of a copy: its target;
	 * SC_TREE_DIR_LINK: the copy of the directory met again.  BEFORE:
	 * with SC_TREE_HARDLINKS, the copy made earlier of another name of
	 * the source, which this becomes a link to if copied (NULL:
	 * none). */
	const char *earlier;
};

/* Where an entry failed.  Each names a side: the source (SRC) or the copy
 * (DST). */
enum sc_tree_stage {
	SC_TREE_STAT,		/* SRC: cannot be stat'ed */
	SC_TREE_VANISHED,	/* SRC: listed, gone before its turn (ENOENT) */
	SC_TREE_NOT_RECURSIVE,	/* SRC: a directory, and SC_TREE_FLAT */
	SC_TREE_NO_DIR,		/* DST: "d/", and no directory d */
	SC_TREE_READLINK,	/* SRC: a symlink's target cannot be read */
	SC_TREE_MAKE,		/* DST: cannot be made (a link: to EARLIER) */
	SC_TREE_CHECK,		/* DST: what was made cannot be looked at */
	SC_TREE_REPLACED,	/* DST: not there as it was made */
	SC_TREE_SRC_REPLACED,	/* SRC: replaced or moved while copied */
	SC_TREE_ENTER_MODE,	/* DST: a new directory cannot be given the
				 * mode that lets the copy write into it */
	SC_TREE_READ_DIR,	/* SRC: a directory cannot be opened or read */
	SC_TREE_COPY_LOST,	/* DST: a directory's copy cannot be opened
				 * again */
	SC_TREE_CYCLE,		/* SRC: a directory the walk is already in */
	SC_TREE_INTO_ITSELF,	/* SRC, DST: the operand's names; the copy
				 * would go into the directory copied */
	SC_TREE_DIR_LINK,	/* EARLIER, DST: the operand met again,
				 * through a symlink, as its own copy */
	SC_TREE_RELATIVE_LINK,	/* DST: a symlink to a relative name asked
				 * for in another directory than the current
				 * one */
	SC_TREE_EARLIER_REPLACED, /* EARLIER: the copy a hard link was to be
				 * made to is not there as it was made */
	SC_TREE_MEMORY,		/* SRC, or DST where SRC is NULL: memory ran
				 * out for the walk's own state (ENOMEM) */
	SC_TREE_UNSAFE_LINK,	/* DST: a symlink where a directory of the
				 * operand's path is, in a directory others
				 * may write: not followed */
	SC_TREE_NOT_DIR,	/* DST: not a directory, where one of the
				 * operand's path goes */
};

/* When AFTER is called. */
enum sc_tree_point {
	SC_TREE_END,		/* the entry is done (a directory: left,
				 * all in it done) */
	SC_TREE_ENTERED,	/* a directory made or found, entered: its
				 * entries come next */
	SC_TREE_LATE,		/* a directory's attributes, set at the end
				 * of the copy (threads: after its files);
				 * no SRC and ERR: one lost before they
				 * could be set (ERROR told why) */
	SC_TREE_PARENT,		/* one of the operand's directories
				 * (SC_TREE_ARGS_PARENTS): MADE, just made;
				 * else its attributes, after the copy */
};

/* What became of an entry, told to AFTER. */
struct sc_tree_result {
	size_t size;		/* sizeof(struct sc_tree_result) */
	enum sc_tree_point point;
	int err;		/* -errno: the walk could not copy it (told
				 * to ERROR, or BEFORE failed it), or, a
				 * directory, something in it failed (-EIO
				 * where it had no errno of its own); 0 */
	bool skipped;		/* BEFORE left it as it was */
	bool made;		/* made (or, explaining, would be); a
				 * directory: made (SC_TREE_ENTERED) */
	bool replaced;		/* a link took the place of what was there */
	/* The entry's report: a file's copy (REP_ERR: what the copy
	 * returned, SECONDS: in how long), else the metadata set on what
	 * was made (REP_ERR: what that returned); NULL: none.  OLD_ST: the
	 * destination there before (NULL: none). */
	const struct sc_copy_report *rep;
	int rep_err;
	double seconds;
	const struct stat *old_st;
};

/* What the caller answers. */
enum sc_tree_verdict {
	SC_TREE_CONTINUE,	/* go on (BEFORE: copy the entry) */
	SC_TREE_SKIP,		/* BEFORE: leave it, which is no failure */
	SC_TREE_QUIT,		/* stop the copy: sc_tree_copy() returns
				 * -ECANCELED */
};

/* BEFORE's decision. */
struct sc_tree_decision {
	size_t size;		/* sizeof(struct sc_tree_decision) */
	enum sc_tree_verdict verdict;
	unsigned flags;		/* SC_TREE_DST_* */
};

enum {
	/* BEFORE moved the destination away (a backup) or removed it: it
	 * is made anew */
	SC_TREE_DST_GONE = 1u << 0,
	/* BEFORE left the destination as it is (SC_TREE_SKIP) as the
	 * copy: with SC_TREE_HARDLINKS, the source's other names become
	 * links to it */
	SC_TREE_DST_KEPT = 1u << 1,
};

/* AFTER's answer, beside 0 and -errno: copied, but something about it
 * failed (an attribute): no other name is linked to it. */
enum { SC_TREE_FLAWED = 1 };

/* A stretch of the output sc_tree_set_ops()'s OUTPUT gets back: up to
 * END (from where the one before ended) for stderr (TO_ERR) or
 * stdout. */
struct sc_tree_run {
	size_t end;
	bool to_err;
};

struct sc_tree_ops {
	size_t size;		/* sizeof(struct sc_tree_ops) */
	/* Entry E, not yet copied, its source and destination looked at:
	 * D says whether to copy it (D->verdict), and what the caller did
	 * to the destination (D->flags).  0, or -errno: E failed (the
	 * caller said why).  NULL: copy everything.  Not asked of a new
	 * regular file in a directory the copy made, where nothing is to
	 * be decided (the fast path; sc_tree_set_exclude() leaves such
	 * files out). */
	int (*before)(void *arg, const struct sc_tree_entry *e,
		      struct sc_tree_decision *d);
	/* Entry E's report (R->point says when).  0; -errno: it failed, as
	 * the caller counts it; SC_TREE_FLAWED. */
	int (*after)(void *arg, const struct sc_tree_entry *e,
		     const struct sc_tree_result *r);
	/* Entry E failed at STAGE with errno ERR (0: none, the stage says
	 * it all): continue, or quit. */
	enum sc_tree_verdict (*error)(void *arg, const struct sc_tree_entry *e,
				      enum sc_tree_stage stage, int err);
	/* Threads: what the callbacks printed on the streams
	 * sc_tree_streams() gave them while files copied on other threads
	 * ahead of it were not yet handed to AFTER, handed back in the
	 * walk's order to be printed: OUT_LEN bytes for stdout and ERR_LEN
	 * for stderr; or, with SC_TREE_OPS_INTERLEAVE, OUT holding both,
	 * cut into N_RUNS RUNS in the order they were printed.  NULL: the
	 * callbacks are still called in the walk's order, but what they
	 * print goes out at once, ahead of what AFTER prints later for
	 * files copied on other threads before them. */
	void (*output)(void *arg, const char *out, size_t out_len,
		       const char *err, size_t err_len,
		       const struct sc_tree_run *runs, size_t n_runs);
	unsigned flags;		/* SC_TREE_OPS_* */
};

enum {
	/* OUTPUT: stdout and stderr keep one order between them (they are
	 * one file, or the caller wants them as cp prints them) */
	SC_TREE_OPS_INTERLEAVE = 1u << 0,
};

/* The callbacks, with ARG (copied: OPS need not outlive the call).
 * 0, -EINVAL. */
int sc_tree_set_ops(struct sc_tree *t, const struct sc_tree_ops *ops,
		    void *arg);

/* Entries whose names match one of PATTERNS (fnmatch(3), without flags:
 * "*.o", "cache"), a NULL-terminated list, copied), found in a directory
 * the copy goes through, are not copied, and the callbacks are not told
 * of them; the operand itself always is.  (BEFORE's SC_TREE_SKIP leaves
 * out what it is asked about; files a thread copies are not asked.)
 * NULL or an empty list: none.  0, -EINVAL, -ENOMEM. */
int sc_tree_set_exclude(struct sc_tree *t, const char *const *patterns);

/* Where a callback prints, on the caller's thread, to keep the walk's
 * order (OUTPUT): *OUT and *ERR are buffers while files copied on other
 * threads ahead of it are not yet said, else NULL (stdout and
 * stderr). */
void sc_tree_streams(struct sc_tree *t, FILE **out, FILE **err);

/* The operand and its copy. */
struct sc_tree_args {
	size_t size;		/* sizeof(struct sc_tree_args) */
	/* the operand: SRC_NAME in SRC_DIRFD (AT_FDCWD: a path); its copy
	 * DST_NAME in DST_DIRFD */
	int src_dirfd, dst_dirfd;
	const char *src_name, *dst_name;
	/* whole names for the callbacks (NULL: SRC_NAME, DST_NAME) */
	const char *src_path, *dst_path;
	unsigned flags;		/* SC_TREE_ARGS_* */
	/* SC_TREE_ARGS_PARENTS: DST_DIRFD's path, for the names of the
	 * directories made in it */
	const char *dst_dir_path;
};

enum {
	/* cp --parents: SRC_NAME is a path relative to the working
	 * directory, and its copy goes under DST_DIRFD at that same path
	 * (DST_NAME ignored): its directories that are missing there are
	 * made like their sources (less what must wait: their modes and
	 * owners, set after the copy), those found followed only where
	 * they are directories, or symlinks in a directory nobody but the
	 * caller or root may write; AFTER hears of each (PARENT set:
	 * SC_TREE_PARENT) */
	SC_TREE_ARGS_PARENTS = 1u << 0,
};

/* Copies the operand A says, and all it holds.  Copies made one after the other
 * through T share what they learned: another name of a file an earlier one
 * copied is linked to its copy (SC_TREE_HARDLINKS).  0: everything was copied
 * (or skipped as BEFORE said); -errno: something failed, the first failure's
 * errno: a stage the walk told ERROR of, or an entry AFTER answered was failed
 * (-errno, or SC_TREE_FLAWED: -EIO) -- without an AFTER, one whose copy or
 * metadata failed (the result's ERR, REP_ERR).  A file copied on another thread
 * is told to AFTER later, in its place, and its failure is what the copy then
 * running, or sc_tree_finish(), returns; -ECANCELED: cancelled
 * (sc_tree_cancel(), a callback's SC_TREE_QUIT): nothing more was begun, the
 * file being written was removed or emptied as for one file, and what was made
 * before it stays (AFTER told of each); -EINVAL (A NULL or without a source),
 * -EBUSY (a copy of T is running). */
int sc_tree_copy(struct sc_tree *t, const struct sc_tree_args *a);

/* Ends T's copies: waits for the files other threads copy, and sets the
 * attributes of the directories that waited for them (AFTER:
 * SC_TREE_LATE).  sc_tree_free() does it when it was not done.  0, or
 * -errno: something told meanwhile failed, as for sc_tree_copy();
 * -ECANCELED: the tree was cancelled. */
int sc_tree_finish(struct sc_tree *t);

/* Stops a running sc_tree_copy() as soon as it can: nothing more is
 * begun, and the files being copied stop within a chunk.  For good: the
 * copies after it return -ECANCELED at once.  Any thread, or a signal
 * handler; T NULL: nothing. */
void sc_tree_cancel(struct sc_tree *t);

/* How far T's copies got: the files copied and their bytes.
 * Async-signal-safe, for a handler. */
void sc_tree_progress(const struct sc_tree *t, uint64_t *files,
		      uint64_t *bytes);

/* For a signal handler about to end the process: the files being
 * copied are removed, or emptied where their name no longer leads to
 * them (sc_copy_ctx_abandon()); an --atomic temporary goes.  Whether a
 * partly written file went.  Async-signal-safe. */
bool sc_tree_abandon(struct sc_tree *t);

/* FN(ARG, FILE, DONE, SIZE, ROAD) as the caller's thread copies a file
 * (sc_copy_ctx_set_progress()): FILE's whole name, DONE of its SIZE
 * bytes, by ROAD.  FN's nonzero answer cancels the tree copy, as
 * sc_tree_cancel() does.  NULL: none.
 * 0, -EINVAL. */
int sc_tree_set_progress(struct sc_tree *t,
			 int (*fn)(void *arg, const char *file, uint64_t done,
				   off_t size, enum sc_road road),
			 void *arg);

#ifdef __cplusplus
}
#endif

#endif
