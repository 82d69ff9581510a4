/* libsmartcp: copy a file by the right road -- clone (FICLONE),
 * copy_file_range, splice or read/write -- chosen from facts about the
 * two filesystems and the running kernel, with fallback from the exact
 * offset reached, holes kept, the end of file proved by a read, and a
 * verification that reads the destination back.
 *
 * Conventions (libsmartcp(3) says the same at more length):
 * - Functions return >= 0 on success or a negative errno value.  The
 *   library never prints, never exits, never installs signal handlers and
 *   never changes the process's umask, locale or working directory.
 * - Reasons (sc_plan_step.why) are English, untranslated strings with
 *   static lifetime; the smartcp text domain translates them
 *   (dgettext("smartcp", why)).
 * - Objects are created by *_new and released by *_free (which accept
 *   NULL).  A pointer returned into an object lives as long as the
 *   object.  One object is used by one thread at a time; distinct objects
 *   may be used from different threads at once.  Before the first
 *   threads start, call sc_init() once (see below).
 * - Members of the structures below that are not documented as results
 *   are private.  Structures may grow between releases whose SONAME
 *   differs; code compiled against this header needs the SONAME it was
 *   built with. */
#ifndef SMARTCP_SMARTCP_H
#define SMARTCP_SMARTCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version and set-up ---------------------------------------------- */

/* "0.1.0": the version of the library actually loaded. */
const char *sc_version(void);

/* Runs the lazy first-use set-up of the libraries libsmartcp relies on
 * (libmount's and libblkid's debug masks and caches) so that later calls
 * from several threads do not race in it.  Call once before starting
 * threads that use libsmartcp; calling it again does nothing.  0. */
int sc_init(void);

/* ---- Roads ----------------------------------------------------------- */

/* The four roads, in the order a plan tries them.  The names returned by
 * sc_road_name() are an interface (smartcp's -v, --explain and --json)
 * and never change. */
enum sc_road {
	SC_ROAD_CLONE,		/* ioctl(FICLONE): share the extents */
	SC_ROAD_RANGE,		/* copy_file_range(2) */
	SC_ROAD_SPLICE,		/* splice(2) through a pipe */
	SC_ROAD_RW,		/* read(2)/write(2) */
	SC_ROAD__MAX
};
#define SC_ROAD_BIT(road) (1u << (road))
#define SC_ROADMASK_ALL 0xfu

/* "clone", "copy_file_range", "splice", "read_write"; "?" otherwise. */
const char *sc_road_name(enum sc_road road);
/* The road called NAME, or -1. */
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

/* What is known of one filesystem.  All members are results. */
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
	enum sc_fs_class class;
	enum sc_tristate can_clone;
};

/* A cache of facts, per device. */
struct sc_fsinfo;

/* Creates a cache.  MOUNTINFO is a mountinfo file to use instead of the
 * running system (for tests with fixtures); NULL means the running
 * system: statmount(2) for the mounts of the files looked up, where the
 * kernel has it, else /proc/self/mountinfo, read once when first needed.
 * 0, or -ENOMEM. */
int sc_fsinfo_new(const char *mountinfo, struct sc_fsinfo **ret);
void sc_fsinfo_free(struct sc_fsinfo *fsi);

/* Also read filesystem UUIDs with libblkid for the facts built from now
 * on (opens and reads each block device once). */
void sc_fsinfo_want_uuid(struct sc_fsinfo *fsi, bool want);

/* Loads libmount (and, when sc_fsinfo_want_uuid asked for UUIDs,
 * libblkid) now, on the calling thread.  Lookups load them by themselves
 * where a fact needs them, thread-safely; a program that starts threads
 * calls this first when they may be needed (a tree copied by several
 * workers), so that no library's first-use set-up runs in a worker.
 * 0, or -EOPNOTSUPP when libmount cannot be loaded (facts then come from
 * statmount and the magic number alone).  Since LIBSMARTCP_0.1. */
int sc_fsinfo_preload(struct sc_fsinfo *fsi);

/* Where each of F's facts came from, as "type statmount, class magic,
 * identity statmount, mount libmount, uuid libblkid" (the facts FSI
 * made; the origins are "magic", "statmount", "libmount", "mountinfo"
 * and "libblkid"), into BUF.  Its length (0 for facts FSI did not make,
 * assumed ones), -EINVAL, or -ENOSPC when it does not fit.  Since
 * LIBSMARTCP_0.1. */
int sc_fsinfo_origins_text(const struct sc_fsinfo *fsi,
			   const struct sc_fs_facts *f, char *buf, size_t size);

/* Facts for the filesystem holding open descriptor FD whose fstat is ST.
 * Only the first file of a device costs syscalls.  Never fails: what
 * cannot be learned stays unknown (SC_FS_UNKNOWN, type "unknown"); NULL
 * only when FSI or ST is NULL or memory ran out.  Lives as long as FSI. */
const struct sc_fs_facts *sc_fsinfo_lookup(struct sc_fsinfo *fsi, int fd,
					   const struct stat *st);

/* "generated", "memory", "local", "network", "fuse", "overlay",
 * "unknown". */
const char *sc_fs_class_name(enum sc_fs_class cls);

/* Facts for a filesystem of type TYPE that is not looked at: the class
 * and clone ability a mount of that type would be given, for asking
 * the plan about another machine.  No identity and no mount: the caller
 * says which assumed filesystems are one (IDENTITY, MNT_ID).  0; -ENOENT
 * for a type smartcp does not know (sc_fs_type_name lists those it
 * does, and "fuse.SUBTYPE" is any FUSE filesystem); -ENAMETOOLONG. */
int sc_fs_facts_assume(const char *type, struct sc_fs_facts *ret);
/* The I-th type name sc_fs_facts_assume knows, NULL past the last. */
const char *sc_fs_type_name(size_t i);

/* A kernel version, e.g. 6.18 -> {6, 18}. */
struct sc_kernel {
	int major, minor;
};
/* The running kernel's version ({0, 0} when uname cannot tell). */
struct sc_kernel sc_kernel_running(void);
bool sc_kernel_at_least(struct sc_kernel k, int major, int minor);
/* Parses TEXT as a kernel version: MAJOR.MINOR, MAJOR.MINOR.PATCH, or
 * what uname -r prints ("6.1.0-13-amd64").  0; -EINVAL when TEXT is not
 * of that form; -ERANGE when no such Linux exists (2.6, 3.0 to 3.19, 4.0
 * to 4.20, 5.0 to 5.19, 6.0 to 6.19 and 7.x do). */
int sc_kernel_parse(const char *text, struct sc_kernel *ret);

/* ---- The plan -------------------------------------------------------- */

/* The plan is a pure function of these facts: no I/O, so a program can
 * ask what would happen on another kernel or filesystem. */
struct sc_plan_input {
	const struct sc_fs_facts *src_fs, *dst_fs;	/* NULL: unknown */
	mode_t src_mode, dst_mode;	/* only the S_IFMT bits matter */
	off_t src_size;
	struct sc_kernel kernel;
	enum sc_reflink reflink;
	enum sc_sparse sparse;
	unsigned roads;		/* allowed roads, SC_ROAD_BIT()s */
	bool roads_forced;	/* the caller's choice beats the rules */
	unsigned learned;	/* roads that failed "not here" for this pair */
};

struct sc_plan_step {
	bool use;		/* result: the road will be tried */
	const char *why;	/* result: why it is used or left out */
	bool by_option;		/* result: left out because an input said so */
};

struct sc_plan {
	struct sc_plan_step step[SC_ROAD__MAX];	/* indexed by enum sc_road */
	int n_use;		/* result: roads that will be tried */
};

/* Fills PLAN from IN.  Yields at least one road unless IN restricted the
 * roads (roads other than all, roads_forced, SC_REFLINK_ALWAYS). */
void sc_plan_make(const struct sc_plan_input *in, struct sc_plan *plan);

/* True when FS's st_size is not the length of its files' content (the
 * generated filesystems: /proc, sysfs, tracefs, debugfs...), or FS is
 * unknown (NULL). */
bool sc_plan_size_untrusted(const struct sc_fs_facts *fs);

/* The plan of a repair after a failed verification: read_write alone,
 * every other road skipped with that reason. */
void sc_plan_repair(struct sc_plan *ret);

/* ---- Running a plan -------------------------------------------------- */

/* One road's attempt: it moved BYTES, then ended with ERR. */
struct sc_attempt {
	enum sc_road road;
	int err;		/* 0, -errno, or SC_ERR_ZERO */
	uint64_t bytes;
};
/* The road returned 0 (nothing more) though a read then found data: the
 * 0 bytes copied of a /proc file on Linux 5.3-5.18. */
#define SC_ERR_ZERO 1
#define SC_MAX_ATTEMPTS 8

/* Which end an error came from. */
enum sc_side { SC_SIDE_NONE, SC_SIDE_READ, SC_SIDE_WRITE };

/* What a copy did.  All members are results. */
struct sc_copy_result {
	struct sc_attempt attempt[SC_MAX_ATTEMPTS];	/* the road chain */
	int n_attempts;
	uint64_t bytes;			/* bytes of data moved */
	off_t size;			/* final destination size */
	uint64_t road_bytes[SC_ROAD__MAX];
	bool holes;			/* destination has holes we kept */
	bool seek_data;			/* data found with SEEK_DATA/SEEK_HOLE */
	bool zero_scan;			/* zero blocks written as holes */
	bool extend_failed;		/* the last ftruncate (holes at the
					 * end, the size) failed */
	unsigned learned;		/* roads that failed "not here" */
	int err;			/* 0 or -errno */
	enum sc_side side;		/* the failing end */
};

/* Digests of the bytes read_write moved (private; see sc_copy_ctx). */
struct sc_chunk {
	off_t off;
	size_t len;
	uint64_t hash;
};
struct sc_digests {
	struct sc_chunk *v;
	size_t n, cap;
	bool failed;
};

/* Resources for copying many files in a row: a buffer, a pipe for
 * splice, and the digests for verification.  Set-up with
 * sc_copy_ctx_init, released with sc_copy_ctx_done.  The caller may set
 * VERIFY and PROGRESS, and may use BUF (BUFSIZE bytes) as scratch space
 * between copies; the rest is private. */
struct sc_copy_ctx {
	char *buf;
	size_t bufsize;
	int pipe[2];
	size_t pipesize;
	enum sc_sparse sparse;
	/* Keep digests of what read_write read, for sc_verify(): a file
	 * that reads differently each time (/proc) is then checked against
	 * what was read, not against a second read. */
	bool verify;
	/* Called after every step that moved bytes, with the bytes this
	 * file has moved so far and the road moving them. */
	void (*progress)(void *arg, uint64_t done, enum sc_road road);
	void *progress_arg;
	struct sc_digests dg;
};

/* 0, or -ENOMEM.  BUFSIZE is 256 KiB, or as little as 16 KiB when
 * memory is short. */
int sc_copy_ctx_init(struct sc_copy_ctx *ctx, enum sc_sparse sparse);
void sc_copy_ctx_done(struct sc_copy_ctx *ctx);

/* Copies the data of IN (whose fstat is ST) to OUT, which is empty and
 * open for writing (OUT_SEEKABLE: it takes offsets: a regular file or a
 * block device), by PLAN.  SIZE_TRUSTED says whether st_size is even a
 * hint (not on generated filesystems); either way the end is confirmed
 * by a read.  Falls back from road to road only on "not here" errors
 * and from the exact offset reached; EIO, ENOSPC and EDQUOT never fall
 * back.  Returns 0 or -errno; RES says what happened whatever the
 * outcome, with res->side naming the failing end.  The destination is
 * then as long as what was copied: the caller decides what a failure
 * means for it (sc_copy_path removes it). */
int sc_copy_data(struct sc_copy_ctx *ctx, int in, int out,
		 const struct stat *st, bool out_seekable,
		 const struct sc_plan *plan, bool size_trusted,
		 struct sc_copy_result *res);

/* True for the errors (ERR > 0) after which ROAD may hand over to the
 * next road. */
bool sc_copy_not_here(enum sc_road road, int err, bool road_moved_bytes);

/* Adds what a second copy of the same file (a repair) did to INTO: its
 * attempts after INTO's, its bytes per road added; the totals, size,
 * holes and error become MORE's. */
void sc_copy_result_merge(struct sc_copy_result *into,
			  const struct sc_copy_result *more);

/* ---- Verification ---------------------------------------------------- */

enum sc_verify_side {
	SC_VSIDE_BACK,		/* reading the destination back */
	SC_VSIDE_SOURCE,	/* reading the source again */
	SC_VSIDE_WRITE,		/* writing the destination out */
};

/* True when the digests D cover [0, SIZE) without gaps. */
bool sc_digests_cover(const struct sc_digests *d, off_t size);

/* Reads OUT back from storage (its dirty pages written out with
 * sync_file_range, or fdatasync when DURABLE, then dropped from the
 * cache with POSIX_FADV_DONTNEED, so the device is read, not the cache)
 * and compares it: with the digests D when USE_DIGESTS, else with IN
 * read again.  SIZE is the length the copy produced.  BUF (BUFSIZE
 * bytes, at least 2) is scratch space.  Returns 1 when equal, 0 when not
 * (*RET_BAD = the first differing offset; with digests of a source that
 * is not REREADABLE, the start of the first differing chunk), -errno on
 * failure (*RET_SIDE tells what failed). */
int sc_verify(int in, int out, off_t size, bool use_digests,
	      bool rereadable, bool durable, const struct sc_digests *d,
	      char *buf, size_t bufsize, off_t *ret_bad,
	      enum sc_verify_side *ret_side);

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

/* Compares BEFORE, the fstat of the open source taken before its first
 * byte was copied, with AFTER, its fstat after the last.  GENERATED: the
 * source is on a generated filesystem, whose sizes and times mean
 * nothing: only identity counts there.  Returns how it changed. */
enum sc_change_how sc_change_compare(const struct stat *before,
				     const struct stat *after, bool generated);

/* Compares the file read (BEFORE) with what its name leads to now (NOW,
 * a stat of the name; NAME_ERR 0 or that stat's -errno).  Returns
 * SC_CHANGE_REPLACED, SC_CHANGE_REMOVED (-ENOENT or -ENOTDIR, never for
 * GENERATED sources) or SC_CHANGE_NONE. */
enum sc_change_how sc_change_identity(const struct stat *before,
				      const struct stat *now, int name_err,
				      bool generated);

/* "none", "status", "rewritten", "shrank", "grew", "removed",
 * "replaced". */
const char *sc_change_name(enum sc_change_how how);

/* ---- Copying a file: the whole rule set in one call ------------------ */

/* Options for a copier; zero-initialised means the defaults: all roads,
 * SC_REFLINK_AUTO, SC_SPARSE_AUTO, no verification, no progress. */
struct sc_copy_options {
	unsigned roads;		/* SC_ROAD_BIT()s allowed; 0 = all.  When
				 * the rules leave out every allowed road,
				 * a copy fails with -EOPNOTSUPP */
	bool roads_forced;	/* only ROADS, in plan order, whatever the
				 * rules say (smartcp's --road) */
	enum sc_reflink reflink;
	enum sc_sparse sparse;
	bool verify;		/* read the destination back and compare */
	bool durable;		/* fdatasync the destination before verifying
				 * or returning (smartcp's --sync) */
	void (*progress)(void *arg, uint64_t done, enum sc_road road);
	void *progress_arg;
};

/* Copies one file after another with the same options, remembering
 * facts per filesystem and the roads that failed "not here" for each
 * pair of filesystems.  One thread at a time. */
struct sc_copier;

/* Creates a copier in *RET.  0, -EINVAL (RET NULL, unknown bits in
 * roads, an enum out of range, roads_forced with no road), or -ENOMEM.
 * OPTS may be NULL (the defaults); it is copied.  Free with
 * sc_copier_free (which accepts NULL). */
int sc_copier_new(const struct sc_copy_options *opts,
		  struct sc_copier **ret);
void sc_copier_free(struct sc_copier *c);

/* What a copy (or a plan alone) found and did.  Everything is a result;
 * the pointers live as long as the copier. */
struct sc_copy_report {
	const struct sc_fs_facts *src_fs, *dst_fs;
	struct sc_kernel kernel;
	struct sc_plan plan;		/* the roads, each with its reason */
	struct sc_copy_result result;	/* the road chain that was taken */
	/* 1: the destination was read back and holds the source's bytes;
	 * 0: not asked, or not proven (the copy then failed). */
	int verified;
	/* How the source changed while it was copied (SC_CHANGE_NONE: it
	 * did not).  The copy holds what was read. */
	enum sc_change_how changed;
};

/* The plan for copying IN to OUT, open descriptors of any access mode
 * (O_PATH too); for a destination not yet created, OUT may be its
 * directory, and the plan assumes a regular file there.  Nothing is read
 * or written.  Fills RET's src_fs, dst_fs, kernel and plan.  0, -EINVAL
 * (C or RET NULL), -EBADF, -EISDIR (IN is a directory) or -ENOMEM. */
int sc_copier_explain_fd(struct sc_copier *c, int in, int out,
			 struct sc_copy_report *ret);

/* Copies all of IN (open for reading) into OUT (open for writing) from
 * offset 0 of each: a regular OUT is truncated first; a FIFO, socket or
 * character device takes the bytes as a stream.  Returns 0 when every
 * byte was copied (and, with verify, read back equal), else -errno:
 *   -EINVAL  C is NULL, or IN and OUT are the same file;
 *   -EBADF   IN not open for reading, OUT not open for writing (O_PATH
 *            descriptors included), a closed or negative descriptor, a
 *            regular OUT opened with O_APPEND, or with verify an OUT not
 *            opened O_RDWR (it is read back);
 *   -EISDIR  IN or OUT is a directory;
 *   -EOPNOTSUPP  verify with an OUT that cannot be read back (a FIFO,
 *            a socket, a character device): nothing is written; or no
 *            road allowed by the options could be taken (roads,
 *            roads_forced, SC_REFLINK_ALWAYS: clone refused);
 *   -EIO, -ENOSPC, -EDQUOT, ...   the error of the read or write that
 *            failed (ret->result.side says which end);
 *   -EBADMSG verification found the destination different (twice: a
 *            mismatch is copied again once, through read_write).
 * A source that changed while it was copied is no error: the copy holds
 * what was read, and ret->changed says how it changed (a regular OUT is
 * cut to the source's new size when it shrank).  Whatever the outcome,
 * a regular OUT is never left longer than what was copied.  RET (may be
 * NULL) says what happened, also on failure. */
int sc_copier_copy_fd(struct sc_copier *c, int in, int out,
		      struct sc_copy_report *ret);

/* Copies the file at SRC (following symbolic links) to the path DST,
 * atomically: the data goes to a temporary file in DST's directory (an
 * unnamed O_TMPFILE where the filesystem has it, else a hidden
 * ".NAME.RANDOM.sc-tmp"), which is renamed over DST only when complete
 * (and verified); on any failure it is removed and DST is left as it
 * was.  The new file gets SRC's permission bits without the set-user-ID,
 * set-group-ID and sticky bits, masked by the umask (or a default ACL)
 * as open(2) does; DST's old owner and mode are not kept.  With durable,
 * the directory is synced after the rename.  Errors as
 * sc_copier_copy_fd, and those of open(2), linkat(2) and rename(2), plus:
 *   -EINVAL  C, SRC or DST NULL or "", SRC not a regular file (a device
 *            or FIFO may never end), or DST naming the same file as SRC;
 *   -EISDIR  SRC or DST is a directory (or DST ends in "/").
 * umask(2) is never called (it is process-wide): the kernel applies the
 * umask when it creates the file.  A process killed during the copy may
 * leave a hidden temporary file behind where the filesystem has no
 * O_TMPFILE. */
int sc_copier_copy_path(struct sc_copier *c, const char *src,
			const char *dst, struct sc_copy_report *ret);

/* Reads OUT back from storage and compares it with IN read again, as
 * verification does after a copy (see sc_verify).  Both must be regular
 * files or block devices open for reading.  1 equal, 0 different
 * (*RET_BAD, if RET_BAD is not NULL, the first differing offset),
 * -EINVAL (C NULL, a descriptor of another type), -EBADF, -EISDIR, or
 * the -errno of a read. */
int sc_copier_verify_fd(struct sc_copier *c, int in, int out,
			off_t *ret_bad);

#ifdef __cplusplus
}
#endif

#endif
