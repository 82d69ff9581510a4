/* The walk: from operands to files, the way GNU cp does it, recording
 * each file for the report.  Messages follow cp's wording so scripts and
 * people see what they know; names are quoted with sc_quote(). */
#include "system.h"
#include "walk.h"
#include "copy.h"
#include "fsinfo.h"
#include "plan.h"
#include "pool.h"
#include "quote.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <acl/libacl.h>
#include <attr/error_context.h>
#include <attr/libattr.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

struct learned {
	const struct sc_fs_facts *src, *dst;
	unsigned roads;
};

/* A directory whose mode and times wait until every file in it is done. */
struct deferred {
	char *src, *dst;
	struct stat st;
	bool created;
};

/* -j: a run of consecutive new regular files of one directory, for one
 * worker.  Whole runs keep workers in different directories (creating
 * files in one directory serialises on its lock) and cost one hand-over
 * for many files. */
#define JOB_MAX 256
struct job {
	char *src[JOB_MAX], *dst[JOB_MAX];
	unsigned n;
	unsigned n_done;	/* the worker handed back the rest */
	unsigned failed;	/* files that failed */
	const struct sc_fs_facts *parent_facts;
};

struct hardlink {
	dev_t dev;
	ino_t ino;
	char *dst;
};

struct walk {
	const struct sc_options *o;
	/* Facts of the directory the walk just created and is filling, or
	 * NULL: its new entries need no lstat and no fstat. */
	const struct sc_fs_facts *parent_facts;
	char *backup;		/* backup made for the current file, or NULL */
	bool reported;		/* the current entry has its record */
	const char *current;	/* the file being copied, for progress */
	off_t current_size;
	struct sc_report *rep;
	struct sc_fsinfo *fsi;
	struct sc_copy_ctx ctx;
	struct sc_kernel kernel;
	mode_t umask;
	bool in_worker;		/* a -j worker's copy of the walk */
	struct walk *workers;	/* -j: one walk per worker thread */
	struct deferred *deferred;	/* -j: directory attributes, post-order */
	size_t n_deferred;
	/* The source directories being copied, outermost first: a link that
	 * leads back to one of them (-L, -H) would copy forever. */
	struct { dev_t dev; ino_t ino; } *ancestors;
	size_t n_ancestors, cap_ancestors;
	struct hardlink *links;
	size_t n_links;
	dev_t root_dev;		/* -x: the device of the current operand */
};

static void msg(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Failures: a message marks the entry being copied as failed; each
 * failed entry counts once, whatever number of messages it printed. */
static __thread bool entry_failed;
static __thread int last_errno;
static int n_failures;

/* -j: the pool, and the slot the current thread's output goes to.  The
 * walk thread writes to its own slots in the pool's order; a worker to
 * its job's slot; when the pool is flushing, output goes straight out. */
static struct sc_pool *pool;
static __thread struct sc_pool_slot *tl_slot;
static bool flushing;

/* Shared between the walk and the -j workers, under shared_lock: the
 * filesystem facts cache and what the run has learned. */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct learned *learned;
static size_t n_learned;

static struct sc_pool_slot *current_slot(void)
{
	if (tl_slot)
		return tl_slot;
	if (pool && !flushing)
		return sc_pool_own_slot(pool);
	return NULL;
}

/* Where -v lines and JSON records go now. */
static FILE *out_stream(void)
{
	struct sc_pool_slot *s = current_slot();

	return s ? s->out : stdout;
}

/* "smartcp: <what>: <strerror>" on stderr, as cp's error(). */
static void msg(int err, const char *fmt, ...)
{
	va_list ap;

	struct sc_pool_slot *slot = current_slot();
	FILE *f = slot ? slot->err : stderr;

	entry_failed = true;
	last_errno = err;
	if (!slot)
		fflush(stdout);
	fprintf(f, "%s: ", sc_program_name);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(f, ": %s", strerror(err));
	fputc('\n', f);
}

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, a);
	if (a && dir[a - 1] != '/')
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void report(struct walk *w, struct sc_record *rec)
{
	struct sc_pool_slot *slot = current_slot();

	w->reported = true;
	rec->backup = w->backup;
	sc_report_record(w->rep, rec, slot ? slot->out : NULL);
}

static void on_progress(void *arg, uint64_t done, enum sc_road road)
{
	struct walk *w = arg;

	sc_report_progress(w->rep, w->current, done, w->current_size, road);
}

/* Roads that failed "not here" for this pair of filesystems. */
static unsigned learned_get(const struct sc_fs_facts *s,
			    const struct sc_fs_facts *d)
{
	unsigned roads = 0;

	pthread_mutex_lock(&shared_lock);
	for (size_t i = 0; i < n_learned; i++)
		if (learned[i].src == s && learned[i].dst == d)
			roads = learned[i].roads;
	pthread_mutex_unlock(&shared_lock);
	return roads;
}

static void learned_add(const struct sc_fs_facts *s,
			const struct sc_fs_facts *d, unsigned roads)
{
	struct learned *n;
	size_t i;

	pthread_mutex_lock(&shared_lock);
	for (i = 0; i < n_learned; i++)
		if (learned[i].src == s && learned[i].dst == d)
			break;
	if (i == n_learned) {
		n = realloc(learned, (n_learned + 1) * sizeof(*n));
		if (!n)
			goto out;
		learned = n;
		learned[n_learned++] = (struct learned){ s, d, 0 };
	}
	learned[i].roads |= roads;
out:
	pthread_mutex_unlock(&shared_lock);
}

static const struct sc_fs_facts *lookup(struct walk *w, int fd,
					const struct stat *st)
{
	const struct sc_fs_facts *f;

	pthread_mutex_lock(&shared_lock);
	f = sc_fsinfo_lookup(w->fsi, fd, st);
	pthread_mutex_unlock(&shared_lock);
	return f;
}

static const char *hardlink_find(struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n_links; i++)
		if (w->links[i].dev == st->st_dev && w->links[i].ino == st->st_ino)
			return w->links[i].dst;
	return NULL;
}

static void hardlink_remember(struct walk *w, const struct stat *st,
			      const char *dst)
{
	struct hardlink *n = realloc(w->links, (w->n_links + 1) * sizeof(*n));

	if (!n)
		return;
	w->links = n;
	n[w->n_links].dev = st->st_dev;
	n[w->n_links].ino = st->st_ino;
	n[w->n_links].dst = strdup(dst);
	if (n[w->n_links].dst)
		w->n_links++;
}

/* --- attributes ------------------------------------------------------- */

/* libattr and libacl report through an error context; smartcp prints
 * its own messages, so the first failure is kept here. */
static void ctx_error(struct error_context *ctx, const char *fmt, ...)
{
	(void)ctx;
	(void)fmt;
}

static const char *ctx_quote(struct error_context *ctx, const char *name)
{
	(void)ctx;
	return name;
}

static void ctx_quote_free(struct error_context *ctx, const char *name)
{
	(void)ctx;
	(void)name;
}

static struct error_context quiet_ctx = {
	ctx_error, ctx_quote, ctx_quote_free
};

/* Applies --preserve to the open destination.  Returns 0 or -1. */
static int set_attrs_fd(struct walk *w, int in, int out, const char *src,
			const char *dst, const struct stat *st)
{
	const struct sc_options *o = w->o;
	int rc = 0;

	if (o->preserve_timestamps) {
		struct timespec ts[2] = { st->st_atim, st->st_mtim };

		if (futimens(out, ts) < 0) {
			msg(errno, _("preserving times for %s"), sc_quote(dst));
			rc = -1;
		}
	}
	if (o->preserve_ownership &&
	    fchown(out, st->st_uid, st->st_gid) < 0 &&
	    /* Not root: keep the group if we may, as cp does. */
	    fchown(out, (uid_t)-1, st->st_gid) < 0 &&
	    errno != EPERM && errno != EINVAL) {
		msg(errno, _("failed to preserve ownership for %s"),
		    sc_quote(dst));
		rc = -1;
	}
	/* Extended attributes as /etc/xattr.conf says: ACLs and other
	 * "permissions" attributes are left to perm_copy below, SELinux and
	 * NFSv4 bookkeeping are skipped. */
	if (o->preserve_xattr && in >= 0 &&
	    attr_copy_fd(src, in, dst, out, attr_copy_check_permissions,
			 &quiet_ctx) != 0 && errno != ENOTSUP &&
	    o->require_preserve) {
		msg(errno, _("preserving extended attributes for %s"),
		    sc_quote(dst));
		rc = -1;
	}
	/* Mode and POSIX ACLs together, as cp -p does; an ACL carries the
	 * rwx bits only, so set-id and sticky bits need a chmod as well. */
	if (o->preserve_mode &&
	    ((in >= 0 && perm_copy_fd(src, in, dst, out, &quiet_ctx) == 0 &&
	      !(st->st_mode & 07000)) ? 0 :
	     fchmod(out, st->st_mode & 07777)) < 0) {
		msg(errno, _("preserving permissions for %s"), sc_quote(dst));
		rc = -1;
	}
	return rc;
}

static int set_attrs_path(struct walk *w, const char *src, const char *dst,
			  const struct stat *st, bool created, bool is_link)
{
	const struct sc_options *o = w->o;
	int rc = 0;

	/* The order of set_attrs_fd: ownership first (chown clears set-id
	 * bits and capabilities), then xattrs, mode, times. */
	if (o->preserve_ownership &&
	    lchown(dst, st->st_uid, st->st_gid) < 0 &&
	    lchown(dst, (uid_t)-1, st->st_gid) < 0 &&
	    errno != EPERM && errno != EINVAL) {
		msg(errno, _("failed to preserve ownership for %s"),
		    sc_quote(dst));
		rc = -1;
	}
	if (!is_link && o->preserve_xattr && src &&
	    attr_copy_file(src, dst, attr_copy_check_permissions,
			   &quiet_ctx) != 0 && errno != ENOTSUP &&
	    o->require_preserve) {
		msg(errno, _("preserving extended attributes for %s"),
		    sc_quote(dst));
		rc = -1;
	}
	if (!is_link) {
		/* A new directory keeps its set-gid and sticky bits, less
		 * the umask, as with cp -r. */
		mode_t mode = o->preserve_mode ? st->st_mode & 07777 :
			      created ? st->st_mode & 07777 & ~w->umask : 0;

		if (o->preserve_mode && src && !(st->st_mode & 07000) &&
		    perm_copy_file(src, dst, &quiet_ctx) == 0)
			;	/* mode and ACL copied */
		else if (o->preserve_mode && src && (st->st_mode & 07000) &&
			 perm_copy_file(src, dst, &quiet_ctx) == 0 &&
			 chmod(dst, mode) == 0)
			;	/* ACL, then the special bits */
		else if ((o->preserve_mode || created) && chmod(dst, mode) < 0) {
			msg(errno, _("preserving permissions for %s"),
			    sc_quote(dst));
			rc = -1;
		}
	}
	if (o->preserve_timestamps) {
		struct timespec ts[2] = { st->st_atim, st->st_mtim };

		if (utimensat(AT_FDCWD, dst, ts, AT_SYMLINK_NOFOLLOW) < 0) {
			msg(errno, _("preserving times for %s"), sc_quote(dst));
			rc = -1;
		}
	}
	return rc;
}

/* --- overwrite rules --------------------------------------------------- */

static bool yes(void)
{
	char *line = NULL;
	size_t cap = 0;
	bool r = false;

	fflush(stderr);
	if (getline(&line, &cap, stdin) > 0)
		r = rpmatch(line) == 1;
	free(line);
	return r;
}

static char *backup_name(struct walk *w, const char *dst)
{
	const struct sc_options *o = w->o;
	char *name = NULL;
	enum sc_backup kind = o->backup;

	if (kind == SC_BACKUP_NUMBERED || kind == SC_BACKUP_EXISTING) {
		const char *slash = strrchr(dst, '/');
		const char *base = slash ? slash + 1 : dst;
		char *dir = slash ? strndup(dst, (size_t)(slash - dst + 1)) :
			    strdup(".");
		DIR *d = dir ? opendir(*dir ? dir : "/") : NULL;
		size_t blen = strlen(base);
		unsigned long max = 0;
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char *end;
			unsigned long v;

			if (strncmp(e->d_name, base, blen) ||
			    strncmp(e->d_name + blen, ".~", 2))
				continue;
			v = strtoul(e->d_name + blen + 2, &end, 10);
			if (end[0] == '~' && !end[1] && v > max)
				max = v;
		}
		if (d)
			closedir(d);
		free(dir);
		if (kind == SC_BACKUP_NUMBERED || max)
			return asprintf(&name, "%s.~%lu~", dst, max + 1) < 0 ?
				NULL : name;
	}
	return asprintf(&name, "%s%s", dst, o->suffix) < 0 ? NULL : name;
}

/* Decides about an existing non-directory destination.  Returns 1 to go
 * on (the destination may have been moved away), 0 to skip quietly, -1
 * on failure (reported). */
static int may_overwrite(struct walk *w, const char *dst,
			 const struct stat *sst, const struct stat *dst_st,
			 bool *dst_exists)
{
	const struct sc_options *o = w->o;

	if (o->interactive == SC_OVERWRITE_NEVER)
		return 0;
	if (o->update == SC_UPDATE_NONE)
		return 0;
	if (o->update == SC_UPDATE_OLDER &&
	    (dst_st->st_mtim.tv_sec > sst->st_mtim.tv_sec ||
	     (dst_st->st_mtim.tv_sec == sst->st_mtim.tv_sec &&
	      dst_st->st_mtim.tv_nsec >= sst->st_mtim.tv_nsec)))
		return 0;
	if (o->interactive == SC_OVERWRITE_ASK) {
		fprintf(stderr, _("%s: overwrite %s? "), sc_program_name,
			sc_quote(dst));
		if (!yes())
			return 0;
	}
	if (o->backup != SC_BACKUP_NONE) {
		char *b = backup_name(w, dst);

		if (!b || rename(dst, b) < 0) {
			msg(b ? errno : ENOMEM, _("cannot backup %s"),
			    sc_quote(dst));
			free(b);
			return -1;
		}
		free(w->backup);
		w->backup = b;		/* shown on the -v line */
		*dst_exists = false;
	} else if (o->remove_destination) {
		if (unlink(dst) < 0 && errno != ENOENT) {
			msg(errno, _("cannot remove %s"), sc_quote(dst));
			return -1;
		}
		if (o->verbose)
			fprintf(out_stream(), _("removed %s\n"), sc_quote(dst));
		*dst_exists = false;
	}
	return 1;
}

/* --- regular files ----------------------------------------------------- */

/* Facts for a path that may not exist yet (--explain): the nearest
 * existing ancestor's filesystem. */
static const struct sc_fs_facts *facts_for_path(struct walk *w,
						const char *path)
{
	char *p = strdup(path);
	const struct sc_fs_facts *f = NULL;

	while (p && *p) {
		int fd = open(p, O_PATH | O_CLOEXEC);
		struct stat st;
		char *slash;

		if (fd >= 0) {
			if (fstat(fd, &st) == 0)
				f = lookup(w, fd, &st);
			close(fd);
			break;
		}
		slash = strrchr(p, '/');
		if (!slash) {
			strcpy(p, ".");
			continue;
		}
		if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(p);
	return f;
}

static void make_plan(struct walk *w, struct sc_record *rec,
		      const struct stat *sst, mode_t dst_mode)
{
	struct sc_plan_input in = {
		.src_fs = rec->src_fs, .dst_fs = rec->dst_fs,
		.src_mode = sst->st_mode, .dst_mode = dst_mode,
		.src_size = sst->st_size, .kernel = w->kernel,
		.reflink = w->o->reflink, .roads = w->o->roads,
		.roads_forced = w->o->roads_forced,
	};
	in.learned = learned_get(rec->src_fs, rec->dst_fs);
	sc_plan_make(&in, &rec->plan);
	rec->planned = true;
}

/* --atomic: the temporary that a signal must not leave behind.  An
 * O_TMPFILE temporary has no name until it is committed, so SIGKILL
 * leaves nothing either; the named fallback is removed here. */
static char atomic_tmp[PATH_MAX + 64];
static volatile sig_atomic_t atomic_tmp_set;

/* A destination being written in place (no --atomic): a signal removes
 * it, so an interrupted copy leaves no file that looks complete.  One
 * slot per thread, the walk's (0) and each -j worker's.  SIGKILL cannot
 * be caught: only --atomic protects against it. */
#define MAX_THREADS 65
static char partial[MAX_THREADS][PATH_MAX];
static volatile sig_atomic_t partial_set[MAX_THREADS];
static __thread unsigned tl_index;

static void partial_begin(const char *dst)
{
	if (strlen(dst) < PATH_MAX) {
		strcpy(partial[tl_index], dst);
		partial_set[tl_index] = 1;
	}
}

static void partial_end(void)
{
	partial_set[tl_index] = 0;
}

static void on_fatal_signal(int sig)
{
	for (unsigned i = 0; i < MAX_THREADS; i++)
		if (partial_set[i])
			unlink(partial[i]);
	if (atomic_tmp_set)
		unlink(atomic_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* Opens an unnamed temporary in DST's directory (or a named one where
 * O_TMPFILE is not supported).  Returns the fd or -errno; *ret_named
 * tells whether atomic_tmp holds its name. */
static int atomic_open(const char *dst, bool *ret_named)
{
	_cleanup_free_ char *dir = dir_of(dst);
	int fd;

	*ret_named = false;
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	if (snprintf(atomic_tmp, sizeof(atomic_tmp), "%s/.smartcp.XXXXXX",
		     dir) >= (int)sizeof(atomic_tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(atomic_tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	atomic_tmp_set = 1;
	*ret_named = true;
	return fd;
}

/* Puts the finished temporary in DST's place with one rename. */
static int atomic_commit(int fd, const char *dst, bool named)
{
	_cleanup_free_ char *dir = dir_of(dst);
	char fdpath[64];
	int e;

	if (!dir)
		return -ENOMEM;
	if (!named) {
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		for (unsigned i = 0;; i++) {
			snprintf(atomic_tmp, sizeof(atomic_tmp),
				 "%s/.smartcp.%d.%u", dir, (int)getpid(), i);
			if (linkat(AT_FDCWD, fdpath, AT_FDCWD, atomic_tmp,
				   AT_SYMLINK_FOLLOW) == 0)
				break;
			if (errno != EEXIST || i > 100)
				return -errno;
		}
		atomic_tmp_set = 1;
	}
	if (rename(atomic_tmp, dst) < 0) {
		e = -errno;
		unlink(atomic_tmp);
		atomic_tmp_set = 0;
		return e;
	}
	atomic_tmp_set = 0;
	return 0;
}

static int fsync_dir_of(const char *path)
{
	_cleanup_free_ char *dir = dir_of(path);
	_cleanup_close_ int fd = -1;

	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		return errno == EINVAL ? 0 : -errno;
	return 0;
}

/* --if-changed: does DST already hold exactly IN's bytes?  1 yes, 0 no,
 * -errno.  Reads both to the end: sizes of generated files mean nothing. */
static int same_content(struct walk *w, int in, const char *dst,
			const struct stat *ist, bool size_trusted)
{
	_cleanup_close_ int fd = open(dst, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t half = w->ctx.bufsize / 2;
	char *a = w->ctx.buf, *b = w->ctx.buf + half;
	struct stat st;
	off_t at = 0;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (size_trusted && st.st_size != ist->st_size)
		return 0;
	for (;;) {
		ssize_t n = pread(in, a, half, at), m;

		if (n < 0)
			return -errno;
		m = pread(fd, b, half, at);
		if (m < 0)
			return -errno;
		if (n != m || memcmp(a, b, (size_t)n))
			return 0;
		if (n == 0)
			return 1;
		at += n;
	}
}

static bool attrs_match(const struct sc_options *o, const struct stat *s,
			const struct stat *d)
{
	return (!o->preserve_mode ||
		(s->st_mode & 07777) == (d->st_mode & 07777)) &&
	       (!o->preserve_ownership ||
		(s->st_uid == d->st_uid && s->st_gid == d->st_gid)) &&
	       (!o->preserve_timestamps ||
		(s->st_mtim.tv_sec == d->st_mtim.tv_sec &&
		 s->st_mtim.tv_nsec == d->st_mtim.tv_nsec));
}

/* Adds what a repair copy did to the record's result. */
static void merge_result(struct sc_copy_result *into,
			 const struct sc_copy_result *more)
{
	for (int i = 0; i < more->n_attempts &&
	     into->n_attempts < SC_MAX_ATTEMPTS; i++)
		into->attempt[into->n_attempts++] = more->attempt[i];
	for (int r = 0; r < SC_ROAD__MAX; r++)
		into->road_bytes[r] += more->road_bytes[r];
	into->bytes = more->bytes;
	into->size = more->size;
	into->holes = more->holes;
	into->err = more->err;
	into->side = more->side;
}

/* --verify after a successful copy; repairs once with read_write.
 * Returns 0 when the destination holds the source's bytes, else -errno
 * (-EBADMSG: still differs) with the message printed. */
static int verify_copy(struct walk *w, struct sc_record *rec, int in,
		       int out, const struct stat *ist, bool out_seekable)
{
	struct sc_plan rw = { .n_use = 1 };
	struct sc_copy_result again;
	bool side_read;
	off_t bad = 0;
	int v, e;

	for (int pass = 0;; pass++) {
		bool digests = rec->res.road_bytes[SC_ROAD_RW] == rec->res.bytes &&
			       sc_digests_cover(&w->ctx.dg, rec->res.size);

		if (!digests && (!S_ISREG(ist->st_mode) ||
				 sc_plan_size_untrusted(rec->src_fs))) {
			/* Bytes we cannot read twice, moved by a kernel road:
			 * only a copy through our own hands can be checked. */
			v = 0;
			bad = 0;
		} else {
			v = sc_verify(in, out, rec->res.size, digests,
				      S_ISREG(ist->st_mode) &&
				      !sc_plan_size_untrusted(rec->src_fs),
				      &w->ctx.dg, w->ctx.buf, w->ctx.bufsize,
				      &bad, &side_read);
		}
		if (v < 0) {
			msg(-v, side_read ? _("error reading %s") :
				_("error reading back %s"),
			    sc_quote(side_read ? rec->src : rec->dst));
			rec->failure = side_read ? "read" : "verify";
			return v;
		}
		if (v == 1) {
			rec->verify = pass ? SC_VERIFY_REPAIRED : SC_VERIFY_OK;
			return 0;
		}
		rec->verify_bad = bad;
		if (pass) {
			rec->verify = SC_VERIFY_FAILED;
			rec->failure = "verify";
			msg(0, _("%s differs from %s at byte %lld, also after copying again"),
			    sc_quote(rec->dst), sc_quote(rec->src),
			    (long long)bad);
			return -EBADMSG;
		}
		/* The road lied: copy again through read/write, where every
		 * byte passes through smartcp and is hashed on the way. */
		if (ftruncate(out, 0) < 0) {
			msg(errno, _("error writing %s"), sc_quote(rec->dst));
			return -errno;
		}
		rw.step[SC_ROAD_RW].use = true;
		for (int r = 0; r < SC_ROAD__MAX; r++)
			if (r != SC_ROAD_RW)
				rw.step[r].why = N_("repair after a failed verification");
		e = sc_copy_data(&w->ctx, in, out, ist, out_seekable, &rw,
				 !sc_plan_size_untrusted(rec->src_fs), &again);
		merge_result(&rec->res, &again);
		if (e < 0) {
			msg(-e, again.side == SC_SIDE_READ ?
				_("error reading %s") : _("error writing %s"),
			    sc_quote(again.side == SC_SIDE_READ ? rec->src :
				     rec->dst));
			rec->failure = again.side == SC_SIDE_READ ? "read" : "write";
			return e;
		}
	}
}

/* Copies regular file SRC (or, without -R, the data of a FIFO or device)
 * to DST.  PRE_IN >= 0 is SRC already open, with PRE_IST its fstat (the
 * fast path of a fresh tree); else SRC is opened here and checked against
 * SST, the stat the walk saw.  DST_ST is the stat of the existing
 * destination (links followed), or NULL when there is none. */
static int copy_regular(struct walk *w, const char *src, const char *dst,
			const struct stat *sst, const struct stat *dst_st,
			bool follow, int pre_in, const struct stat *pre_ist)
{
	bool dst_exists = dst_st != NULL;
	const struct sc_options *o = w->o;
	struct sc_record rec = { .src = src, .dst = dst, .kind = SC_KIND_FILE };
	struct timespec t0;
	struct stat ist, ost, old;
	_cleanup_close_ int in = -1;
	int out = -1, e = 0, flags;
	bool created = false, named_tmp = false, atomic = o->atomic;
	bool have_old = false, size_trusted, out_seekable;
	bool clone_only = o->reflink == SC_REFLINK_ALWAYS && !o->roads_forced;
	bool removable = false;	/* a failure removes the destination */
	unsigned new_learned;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pre_in >= 0) {
		in = pre_in;
		ist = *pre_ist;
	} else if ((in = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY |
			      (follow ? 0 : O_NOFOLLOW))) < 0) {
		msg(errno, _("cannot open %s for reading"), sc_quote(src));
		return -1;
	} else if (fstat(in, &ist) < 0) {
		msg(errno, _("cannot fstat %s"), sc_quote(src));
		return -1;
	}
	if (sst && (ist.st_ino != sst->st_ino || ist.st_dev != sst->st_dev)) {
		msg(0, _("skipping file %s, as it was replaced while being copied"),
		    sc_quote(src));
		return -1;
	}
	rec.src_fs = lookup(w, in, &ist);
	rec.src_size = ist.st_size;
	rec.src_sparse = (uint64_t)ist.st_blocks * 512 < (uint64_t)ist.st_size;
	size_trusted = !sc_plan_size_untrusted(rec.src_fs);

	if (o->explain) {
		rec.dst_fs = facts_for_path(w, dst);
		make_plan(w, &rec, &ist, dst_st ? dst_st->st_mode : S_IFREG);
		report(w, &rec);
		return 0;
	}

	if (dst_st) {	/* the walk's stat: no second one */
		old = *dst_st;
		have_old = true;
	}
	if (o->if_changed && have_old && S_ISREG(old.st_mode) &&
	    S_ISREG(ist.st_mode)) {
		e = same_content(w, in, dst, &ist, size_trusted);
		if (e < 0) {
			msg(-e, _("error reading %s"), sc_quote(src));
			return -1;
		}
		if (e == 1) {
			rec.unchanged = true;
			if (!attrs_match(o, &ist, &old) &&
			    set_attrs_path(w, src, dst, &ist, false, false) < 0)
				return -1;
			rec.seconds = elapsed(&t0);
			report(w, &rec);
			return 0;
		}
	}
	/* A running program cannot be opened for writing (ETXTBSY), but it
	 * can be replaced: --atomic renames over it, as install does. */
	if (atomic && have_old && !S_ISREG(old.st_mode))
		atomic = false;		/* a device or FIFO: write into it */

	flags = (o->verify ? O_RDWR : O_WRONLY) | O_CLOEXEC | O_NOCTTY;
	if (atomic) {
		out = atomic_open(dst, &named_tmp);
		if (out < 0) {
			msg(-out, _("cannot create regular file %s"),
			    sc_quote(dst));
			return -1;
		}
	} else if (dst_exists) {
		/* --reflink=always must leave the old file intact when the
		 * clone is refused: clone over it, then cut it to size. */
		out = open(dst, flags | (clone_only || o->attributes_only ?
					 0 : O_TRUNC));
		if (out < 0 && o->force && errno != ENOENT) {
			/* -f: a destination we cannot open goes, and a new
			 * one is made in its place */
			int err = errno;

			if (unlink(dst) < 0) {
				msg(err, _("cannot create regular file %s"),
				    sc_quote(dst));
				return -1;
			}
			dst_exists = false;
		} else if (out < 0) {
			/* cp's words, for an existing file too */
			msg(errno, _("cannot create regular file %s"),
			    sc_quote(dst));
			return -1;
		}
	}
	if (!atomic && !dst_exists) {
		out = open(dst, flags | O_CREAT | O_EXCL, ist.st_mode & 0777);
		if (out < 0) {
			msg(errno, _("cannot create regular file %s"),
			    sc_quote(dst));
			return -1;
		}
		created = true;
	}
	if (created && w->parent_facts) {
		/* A file just made in a directory just made: a regular file
		 * on the directory's filesystem, no need to ask. */
		ost.st_mode = S_IFREG;
		rec.dst_fs = w->parent_facts;
	} else if (fstat(out, &ost) < 0) {
		e = errno;
		msg(e, _("cannot fstat %s"), sc_quote(dst));
		goto fail;
	} else {
		rec.dst_fs = lookup(w, out, &ost);
	}
	out_seekable = S_ISREG(ost.st_mode) || S_ISBLK(ost.st_mode);
	/* Only a regular file of ours is ever removed: never /dev/null or
	 * another device or FIFO that was the destination. */
	removable = !atomic && !o->attributes_only && S_ISREG(ost.st_mode);
	if (removable)
		partial_begin(dst);
	make_plan(w, &rec, &ist, ost.st_mode);
	if (o->verify && !S_ISREG(ist.st_mode) && !S_ISBLK(ist.st_mode)) {
		/* A pipe cannot be read twice: its bytes must pass through
		 * smartcp to be checked. */
		for (int r = 0; r < SC_ROAD__MAX; r++)
			if (r != SC_ROAD_RW && rec.plan.step[r].use) {
				rec.plan.step[r].use = false;
				rec.plan.step[r].why = N_("--verify of a stream");
				rec.plan.n_use--;
			}
	}

	w->current = src;
	w->current_size = ist.st_size;
	if (!o->attributes_only) {
		e = sc_copy_data(&w->ctx, in, out, &ist, out_seekable,
				 &rec.plan, size_trusted,
				 &rec.res);
		rec.copied = true;
		/* Only errors that belong to the filesystem pair are learned:
		 * EPERM or ETXTBSY belong to one file. */
		new_learned = 0;
		for (int i = 0; i < rec.res.n_attempts; i++) {
			int err = -rec.res.attempt[i].err;

			if (err == EXDEV || err == EOPNOTSUPP ||
			    err == ENOSYS || err == ENOTTY)
				new_learned |= 1u << rec.res.attempt[i].road;
		}
		if (new_learned)
			learned_add(rec.src_fs, rec.dst_fs, new_learned);
		if (e == 0 && clone_only && dst_exists &&
		    ftruncate(out, ist.st_size) < 0) {
			e = -errno;
			rec.res.side = SC_SIDE_WRITE;
		}
		if (e < 0) {
			rec.err = e;
			if (clone_only && dst_exists && !created)
				removable = false;	/* untouched: keep it */
			if (o->reflink == SC_REFLINK_ALWAYS &&
			    rec.res.n_attempts &&
			    rec.res.attempt[rec.res.n_attempts - 1].road ==
			    SC_ROAD_CLONE) {
				rec.failure = "clone";
				msg(-e, _("failed to clone %s from %s"),
				    sc_quote(dst), sc_quote(src));
			} else if (rec.res.side == SC_SIDE_READ) {
				rec.failure = "read";
				msg(-e, _("error reading %s"), sc_quote(src));
			} else {
				rec.failure = "write";
				msg(-e, _("error writing %s"), sc_quote(dst));
			}
			e = -e;
			goto fail;
		}
		if (o->verify) {
			e = verify_copy(w, &rec, in, out, &ist, out_seekable);
			if (e < 0) {
				rec.err = e;
				e = -e;
				goto fail;
			}
		}
	}
	if (atomic && !o->preserve_mode)
		/* The new inode takes the old file's mode, as an overwrite
		 * in place would have kept it. */
		fchmod(out, have_old ? old.st_mode & 07777 :
			    ist.st_mode & 0777 & ~w->umask);
	if (atomic && !o->preserve_ownership && have_old &&
	    (old.st_uid != ost.st_uid || old.st_gid != ost.st_gid))
		(void)!fchown(out, old.st_uid, old.st_gid);
	if (set_attrs_fd(w, in, out, src, dst, &ist) < 0 && atomic) {
		e = EPERM;
		goto fail;
	}
	if (o->sync && fsync(out) < 0) {
		e = errno;
		msg(e, _("error writing %s"), sc_quote(dst));
		rec.err = -e;
		goto fail;
	}
	if (atomic) {
		e = atomic_commit(out, dst, named_tmp);
		if (e < 0) {
			e = -e;
			msg(e, _("cannot replace %s"), sc_quote(dst));
			rec.err = -e;
			goto fail;
		}
	}
	if (close(out) < 0) {
		out = -1;
		e = errno;
		msg(e, _("failed to close %s"), sc_quote(dst));
		rec.err = -e;
		goto fail;
	}
	partial_end();
	if (o->sync && (e = fsync_dir_of(dst)) < 0) {
		msg(-e, _("cannot sync the directory of %s"), sc_quote(dst));
		rec.err = e;
		rec.seconds = elapsed(&t0);
		if (w->o->json)
			report(w, &rec);
		return -1;
	}
	rec.seconds = elapsed(&t0);
	report(w, &rec);
	return 0;

fail:
	if (out >= 0)
		close(out);
	/* Never leave a destination that looks complete and is not.  With
	 * --atomic the old file was never touched and the temporary goes;
	 * without, what was written is a prefix, or nothing: remove it (an
	 * existing destination was already truncated by the open). */
	if (atomic) {
		if (named_tmp && atomic_tmp_set)
			unlink(atomic_tmp);
		atomic_tmp_set = 0;
	} else if (removable) {
		unlink(dst);
	}
	partial_end();
	rec.seconds = elapsed(&t0);
	if (!rec.err)
		rec.err = -e;
	if (w->o->json)
		report(w, &rec);
	return -1;
}

/* --- the walk ---------------------------------------------------------- */

static int copy_entry(struct walk *w, const char *src, const char *dst,
		      bool cmdline, unsigned char dtype);

struct dent {
	ino_t ino;
	unsigned char type;	/* d_type: DT_UNKNOWN on some filesystems */
	char *name;
};

static int by_ino(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* A directory's entries, sorted by inode: cp's order, and the fastest
 * to read on ext4. */
static int list_dir(const char *path, struct dent **ret, size_t *ret_n)
{
	DIR *d = opendir(path);
	struct dent *v = NULL, *nv;
	struct dirent *e;
	size_t n = 0, cap = 0;

	if (!d)
		return -errno;
	while ((errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n].ino = e->d_ino;
		v[n].type = e->d_type;
		v[n].name = strdup(e->d_name);
		if (!v[n].name)
			break;
		n++;
	}
	if (errno) {
		int err = errno;

		while (n)
			free(v[--n].name);
		free(v);
		closedir(d);
		return -err;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_ino);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Is DST (to be created) SRC itself or inside it? */
static bool inside(const char *src, const char *dst)
{
	_cleanup_free_ char *s = realpath(src, NULL);
	_cleanup_free_ char *parent = NULL, *d = NULL;
	const char *slash = strrchr(dst, '/');
	const char *base = slash ? slash + 1 : dst;
	size_t sl;

	if (!s)
		return false;
	parent = slash ? strndup(dst, (size_t)(slash - dst)) : strdup(".");
	if (!parent)
		return false;
	d = realpath(*parent ? parent : "/", NULL);
	if (!d)
		return false;
	if (*base && strcmp(base, ".") && strcmp(base, "..")) {
		char *full = join(d, base);

		free(d);
		d = full;
		if (!d)
			return false;
	}
	sl = strlen(s);
	return !strncmp(s, d, sl) && (d[sl] == '\0' || d[sl] == '/' ||
				      !strcmp(s, "/"));
}

static void job_free(struct job *j)
{
	for (unsigned i = 0; i < j->n; i++) {
		free(j->src[i]);
		free(j->dst[i]);
	}
	free(j);
}

/* Hands a run of files to the pool; on failure, says so for each. */
static int submit(struct job *j)
{
	if (sc_pool_submit(pool, j) == 0)
		return 0;
	for (unsigned i = 0; i < j->n; i++)
		msg(ENOMEM, "%s", sc_quote(j->src[i]));
	job_free(j);
	return -1;
}

static int copy_dir(struct walk *w, const char *src, const char *dst,
		    const struct stat *sst, bool dst_exists, bool cmdline)
{
	const struct sc_options *o = w->o;
	struct sc_record rec = { .src = src, .dst = dst, .kind = SC_KIND_DIR };
	const struct sc_fs_facts *dir_facts = NULL;
	struct job *batch = NULL;
	struct dent *ents = NULL;
	size_t n = 0;
	bool created = false;
	int rc = 0, e;

	for (size_t i = 0; i < w->n_ancestors; i++)
		if (w->ancestors[i].dev == sst->st_dev &&
		    w->ancestors[i].ino == sst->st_ino) {
			msg(0, _("cannot copy cyclic symbolic link %s"),
			    sc_quote(src));
			return -1;
		}
	if ((cmdline || o->deref == SC_DEREF_ALWAYS) && inside(src, dst)) {
		msg(0, _("cannot copy a directory, %s, into itself, %s"),
		    sc_quote(src), sc_quote(dst));
		return -1;
	}
	if (!dst_exists && !o->explain) {
		if (mkdir(dst, (sst->st_mode & 0777) | S_IRWXU) < 0) {
			msg(errno, _("cannot create directory %s"), sc_quote(dst));
			return -1;
		}
		created = true;
		dir_facts = facts_for_path(w, dst);
	}
	if (created || o->explain)
		report(w, &rec);
	if (o->one_file_system && !cmdline && sst->st_dev != w->root_dev)
		goto attrs;	/* a mount point: made, not entered */

	if (w->n_ancestors == w->cap_ancestors) {
		size_t cap = w->cap_ancestors ? 2 * w->cap_ancestors : 16;
		void *na = realloc(w->ancestors, cap * sizeof(*w->ancestors));

		if (!na) {
			msg(ENOMEM, "%s", sc_quote(src));
			rc = -1;
			goto attrs;
		}
		w->ancestors = na;
		w->cap_ancestors = cap;
	}
	w->ancestors[w->n_ancestors].dev = sst->st_dev;
	w->ancestors[w->n_ancestors++].ino = sst->st_ino;
	e = list_dir(src, &ents, &n);
	if (e < 0) {
		msg(-e, _("cannot access %s"), sc_quote(src));
		rc = -1;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		char *s = join(src, ents[i].name), *d = join(dst, ents[i].name);

		if (!s || !d) {
			msg(ENOMEM, "%s", sc_quote(src));
			rc = -1;
		} else if (pool && dir_facts && ents[i].type == DT_REG &&
			   !o->hard_link && !o->symbolic_link &&
			   !o->attributes_only) {
			/* -j: new files in a new directory go to a worker in
			 * runs; their output keeps its place in walk order */
			if (!batch && !(batch = calloc(1, sizeof(*batch)))) {
				msg(ENOMEM, "%s", sc_quote(s));
				rc = -1;
			} else {
				batch->src[batch->n] = s;
				batch->dst[batch->n++] = d;
				batch->parent_facts = dir_facts;
				s = d = NULL;	/* the job owns them now */
				if (batch->n == JOB_MAX) {
					/* the pool owns it from here */
					if (submit(batch) < 0)
						rc = -1;
					batch = NULL;
				}
			}
		} else {
			if (batch && submit(batch) < 0)
				rc = -1;
			batch = NULL;
			/* set for each entry: copying a subdirectory changes it */
			w->parent_facts = dir_facts;
			if (copy_entry(w, s, d, false, ents[i].type) < 0)
				rc = -1;
		}
		free(s);
		free(d);
		free(ents[i].name);
	}
	if (batch && submit(batch) < 0)
		rc = -1;
	free(ents);
	w->parent_facts = NULL;
done:
	w->n_ancestors--;
attrs:
	/* Modes and times of a directory go on after its contents: writing
	 * the entries would change the times, and a read-only mode would
	 * have stopped us writing them.  With -j its files may still be in
	 * flight: wait for the end of the run (the list is in post-order). */
	if (o->explain || !(created || o->preserve_mode ||
			    o->preserve_timestamps || o->preserve_ownership))
		return rc;
	if (pool) {
		struct deferred *dl = realloc(w->deferred, (w->n_deferred + 1) *
					      sizeof(*dl));

		if (dl) {
			w->deferred = dl;
			dl[w->n_deferred] = (struct deferred){
				strdup(src), strdup(dst), *sst, created };
			if (dl[w->n_deferred].src && dl[w->n_deferred].dst) {
				w->n_deferred++;
				return rc;
			}
			free(dl[w->n_deferred].src);
			free(dl[w->n_deferred].dst);
		}
	}
	if (set_attrs_path(w, src, dst, sst, created, false) < 0)
		rc = -1;
	return rc;
}

static int copy_symlink(struct walk *w, const char *src, const char *dst,
			const struct stat *sst, bool dst_exists)
{
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_SYMLINK };
	char *target = malloc((size_t)sst->st_size + 2);
	ssize_t n;

	if (!target) {
		msg(ENOMEM, "%s", sc_quote(src));
		return -1;
	}
	n = readlink(src, target, (size_t)sst->st_size + 1);
	if (n < 0) {
		msg(errno, _("cannot read symbolic link %s"), sc_quote(src));
		free(target);
		return -1;
	}
	target[n] = '\0';
	if (w->o->explain) {
		free(target);
		report(w, &rec);
		return 0;
	}
	if (dst_exists)
		unlink(dst);
	if (symlink(target, dst) < 0) {
		msg(errno, _("cannot create symbolic link %s"), sc_quote(dst));
		free(target);
		return -1;
	}
	free(target);
	set_attrs_path(w, NULL, dst, sst, true, true);
	report(w, &rec);
	return 0;
}

static int copy_special(struct walk *w, const char *src, const char *dst,
			const struct stat *sst, bool dst_exists)
{
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_SPECIAL };

	if (w->o->explain) {
		report(w, &rec);
		return 0;
	}
	if (dst_exists)
		unlink(dst);
	if (S_ISFIFO(sst->st_mode) ? mkfifo(dst, sst->st_mode & 07777) :
	    mknod(dst, sst->st_mode, sst->st_rdev)) {
		msg(errno, S_ISFIFO(sst->st_mode) ?
		    _("cannot create fifo %s") :
		    _("cannot create special file %s"), sc_quote(dst));
		return -1;
	}
	set_attrs_path(w, src, dst, sst, true, false);
	report(w, &rec);
	return 0;
}

static int copy_entry_1(struct walk *w, const char *src, const char *dst,
			bool cmdline);

/* -a, --preserve=links: SRC is another name of a file already copied to
 * PREV; DST becomes another name of PREV. */
static int link_to_earlier(struct walk *w, const char *prev, const char *src,
			   const char *dst, bool dst_exists)
{
	struct sc_record rec = { .src = src, .dst = dst,
				 .kind = SC_KIND_HARDLINK };

	if (!w->o->explain) {
		if (dst_exists)
			unlink(dst);
		if (link(prev, dst) < 0) {
			msg(errno, _("cannot create hard link %s to %s"),
			    sc_quote(dst), sc_quote(prev));
			return -1;
		}
	}
	report(w, &rec);
	return 0;
}

/* The fast path for a regular file entering a directory this run made:
 * nothing to overwrite, nothing to compare, so no lstat of either side.
 * Returns 1 when the caller must take the general path. */
static int copy_new_regular(struct walk *w, const char *src, const char *dst)
{
	const struct sc_options *o = w->o;
	struct stat ist;
	const char *prev;
	int in = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW |
		      O_NONBLOCK), r;

	if (in < 0)
		return 1;	/* let the general path see and say why */
	if (fstat(in, &ist) < 0 || !S_ISREG(ist.st_mode) ||
	    (o->one_file_system && ist.st_dev != w->root_dev)) {
		close(in);
		return 1;
	}
	if (o->preserve_links && ist.st_nlink > 1 && w->in_worker) {
		/* the hard-link map is the walk's: hand it back */
		close(in);
		return 1;
	}
	if (o->preserve_links && ist.st_nlink > 1 &&
	    (prev = hardlink_find(w, &ist))) {
		close(in);
		return link_to_earlier(w, prev, src, dst, false);
	}
	/* O_NONBLOCK was only for the open (a FIFO put in the file's place
	 * must not hang us); regular files ignore it. */
	r = copy_regular(w, src, dst, NULL, NULL, false, in, &ist);
	if (r == 0 && o->preserve_links && ist.st_nlink > 1)
		hardlink_remember(w, &ist, dst);
	return r;
}

static int copy_entry(struct walk *w, const char *src, const char *dst,
		      bool cmdline, unsigned char dtype)
{
	const struct sc_options *o = w->o;
	bool outer_failed = entry_failed, outer_reported = w->reported;
	int r = 1;

	entry_failed = false;
	w->reported = false;
	if (dtype == DT_REG && w->parent_facts && !o->explain &&
	    !o->hard_link && !o->symbolic_link && !o->attributes_only)
		r = copy_new_regular(w, src, dst);
	if (r == 1)
		r = copy_entry_1(w, src, dst, cmdline);
	if (entry_failed) {
		n_failures++;
		if (o->json && !w->reported) {
			/* failed before a record was made: say so anyway */
			struct sc_record rec = { .src = src, .dst = dst,
						 .kind = SC_KIND_FILE,
						 .err = -(last_errno ? last_errno :
							  EINVAL) };
			report(w, &rec);
		}
	}
	entry_failed = outer_failed;
	w->reported = outer_reported;

	free(w->backup);
	w->backup = NULL;
	return r;
}

static int copy_entry_1(struct walk *w, const char *src, const char *dst,
			bool cmdline)
{
	const struct sc_options *o = w->o;
	bool follow = o->deref == SC_DEREF_ALWAYS ||
		      (o->deref == SC_DEREF_ARGS && cmdline);
	struct stat sst, dst_st, dst_lst;
	bool dst_exists;
	const char *prev;
	int r;

	if ((follow ? stat(src, &sst) : lstat(src, &sst)) < 0) {
		msg(errno, _("cannot stat %s"), sc_quote(src));
		return -1;
	}
	if (cmdline)
		w->root_dev = sst.st_dev;
	if (S_ISDIR(sst.st_mode) && !o->recursive) {
		msg(0, _("-r not specified; omitting directory %s"),
		    sc_quote(src));
		return -1;
	}
	dst_exists = lstat(dst, &dst_lst) == 0;
	if (!dst_exists && errno != ENOENT) {
		msg(errno, _("cannot stat %s"), sc_quote(dst));
		return -1;
	}
	dst_st = dst_lst;
	if (dst_exists && S_ISLNK(dst_lst.st_mode) &&
	    stat(dst, &dst_st) < 0) {
		/* A dangling symlink: cp will not write through it. */
		if (!S_ISREG(sst.st_mode) || o->remove_destination) {
			dst_st = dst_lst;
		} else {
			msg(0, _("not writing through dangling symlink %s"),
			    sc_quote(dst));
			return -1;
		}
	}

	if (dst_exists && dst_st.st_dev == sst.st_dev &&
	    dst_st.st_ino == sst.st_ino && !S_ISDIR(sst.st_mode) &&
	    !(S_ISLNK(sst.st_mode) && !S_ISLNK(dst_lst.st_mode))) {
		msg(0, _("%s and %s are the same file"), sc_quote(src),
		    sc_quote(dst));
		return -1;
	}
	if (dst_exists && S_ISLNK(sst.st_mode) && !S_ISLNK(dst_lst.st_mode)) {
		/* Copying a link over the file it points to would leave a
		 * link to itself and lose the data. */
		struct stat target;

		if (stat(src, &target) == 0 && target.st_dev == dst_st.st_dev &&
		    target.st_ino == dst_st.st_ino) {
			msg(0, _("%s and %s are the same file"), sc_quote(src),
			    sc_quote(dst));
			return -1;
		}
	}
	if (dst_exists && S_ISDIR(sst.st_mode) && !S_ISDIR(dst_st.st_mode)) {
		msg(0, _("cannot overwrite non-directory %s with directory %s"),
		    sc_quote(dst), sc_quote(src));
		return -1;
	}
	if (dst_exists && !S_ISDIR(sst.st_mode) && S_ISDIR(dst_st.st_mode)) {
		msg(0, _("cannot overwrite directory %s with non-directory"),
		    sc_quote(dst));
		return -1;
	}
	if (S_ISDIR(sst.st_mode))
		return copy_dir(w, src, dst, &sst, dst_exists, cmdline);
	if (!dst_exists && dst[0] && dst[strlen(dst) - 1] == '/') {
		/* "dir/" names a directory that is not there */
		msg(ENOTDIR, _("cannot create regular file %s"), sc_quote(dst));
		return -1;
	}

	if (dst_exists && !o->explain) {
		r = may_overwrite(w, dst, &sst, &dst_st, &dst_exists);
		if (r <= 0)
			return r;
	}

	/* Hard links within the copied set (-a, --preserve=links). */
	if (o->preserve_links && sst.st_nlink > 1 &&
	    (prev = hardlink_find(w, &sst))) {
		return link_to_earlier(w, prev, src, dst, dst_exists);
	}

	if (o->hard_link || o->symbolic_link) {
		struct sc_record rec = { .src = src, .dst = dst,
			.kind = o->hard_link ? SC_KIND_HARDLINK : SC_KIND_SYMLINK };

		if (o->explain) {
			report(w, &rec);
			return 0;
		}
		if (o->symbolic_link && src[0] != '/' && strchr(dst, '/')) {
			/* a relative target would be resolved from the
			 * link's directory, not from here */
			msg(0, _("%s: can make relative symbolic links only in current directory"),
			    sc_quote_plain(dst));
			return -1;
		}
		if (dst_exists && (o->force || o->remove_destination))
			unlink(dst);
		if (o->hard_link ? linkat(AT_FDCWD, src, AT_FDCWD, dst,
					  follow ? AT_SYMLINK_FOLLOW : 0) :
				   symlink(src, dst)) {
			msg(errno, o->hard_link ?
			    _("cannot create hard link %s to %s") :
			    _("cannot create symbolic link %s to %s"),
			    sc_quote(dst), sc_quote(src));
			return -1;
		}
		report(w, &rec);
		return 0;
	}

	if (S_ISLNK(sst.st_mode))
		r = copy_symlink(w, src, dst, &sst, dst_exists);
	else if (S_ISREG(sst.st_mode) || !o->recursive ||
		 (o->copy_contents && !S_ISSOCK(sst.st_mode)))
		/* Without -R (or with --copy-contents), a FIFO or a device
		 * is read like a file: its data is copied, as cp does. */
		r = copy_regular(w, src, dst, &sst, dst_exists ? &dst_st : NULL,
				 follow, -1, NULL);
	else
		r = copy_special(w, src, dst, &sst, dst_exists);

	if (r == 0 && o->preserve_links && sst.st_nlink > 1)
		hardlink_remember(w, &sst, dst);
	return r;
}

/* --- operands ----------------------------------------------------------- */

static void strip_slashes(char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
}

/* The name SRC gets inside a target directory. */
static char *target_name(struct walk *w, const char *dir, const char *src)
{
	_cleanup_free_ char *copy = strdup(src);
	const char *base;
	char *slash;

	if (!copy)
		return NULL;
	if (w->o->parents)
		return join(dir, copy);
	strip_slashes(copy);
	slash = strrchr(copy, '/');
	base = slash && slash[1] ? slash + 1 : copy;
	return join(dir, base);
}

/* --parents: make the directories of SRC's path under DIR. */
static int make_parents(struct walk *w, const char *dir, const char *src)
{
	_cleanup_free_ char *rel = strdup(src);
	char *p, *slash;

	if (!rel)
		return -1;
	strip_slashes(rel);
	for (p = rel; (slash = strchr(p, '/')); p = slash + 1) {
		_cleanup_free_ char *d = NULL;
		struct stat st;

		*slash = '\0';
		d = join(dir, rel);
		if (!d)
			return -1;
		if (stat(d, &st) == 0) {
			if (!S_ISDIR(st.st_mode)) {
				msg(ENOTDIR, _("cannot make directory %s"),
				    sc_quote(d));
				return -1;
			}
		} else if (!w->o->explain && mkdir(d, 0777) < 0) {
			msg(errno, _("cannot make directory %s"), sc_quote(d));
			return -1;
		} else if (w->o->verbose) {
			/* cp prints these two names unquoted */
			fprintf(out_stream(), "%s -> %s\n", rel, d);
		}
		*slash = '/';
	}
	return 0;
}

static int run_operands(struct walk *w, char **ops, int n)
{
	const struct sc_options *o = w->o;
	const char *dir = o->target_directory;
	struct stat st;
	int rc = 0;

	if (n < 1 || (n < 2 && !dir)) {
		if (n < 1)
			msg(0, _("missing file operand"));
		else
			msg(0, _("missing destination file operand after %s"),
			    sc_quote(ops[0]));
		sc_options_try_help();
		return 1;
	}
	if (dir && o->no_target_directory) {
		msg(0, _("cannot combine --target-directory (-t) and --no-target-directory (-T)"));
		return 1;
	}
	if (o->no_target_directory) {
		if (n > 2) {
			msg(0, _("extra operand %s"), sc_quote(ops[2]));
			sc_options_try_help();
			return 1;
		}
	} else if (!dir) {
		bool is_dir = stat(ops[n - 1], &st) == 0 && S_ISDIR(st.st_mode);

		if (is_dir || n > 2) {
			dir = ops[--n];
			if (!is_dir) {
				msg(stat(dir, &st) < 0 ? errno : ENOTDIR,
				    _("target %s"), sc_quote(dir));
				return 1;
			}
		}
	} else {
		int err = stat(dir, &st) < 0 ? errno :
			  S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

		if (err) {
			msg(err, _("target directory %s"), sc_quote(dir));
			return 1;
		}
	}
	if (o->parents && !dir) {
		msg(0, _("with --parents, the destination must be a directory"));
		sc_options_try_help();
		return 1;
	}

	if (!dir) {
		char *src = ops[0];

		if (o->strip_trailing_slashes)
			strip_slashes(src);
		return copy_entry(w, src, ops[1], true, DT_UNKNOWN) < 0;
	}
	for (int i = 0; i < n; i++) {
		char *dst;

		if (o->strip_trailing_slashes)
			strip_slashes(ops[i]);
		if (o->parents && make_parents(w, dir, ops[i]) < 0) {
			rc = 1;
			continue;
		}
		dst = target_name(w, dir, ops[i]);
		if (!dst) {
			msg(ENOMEM, "%s", sc_quote(ops[i]));
			rc = 1;
			continue;
		}
		if (copy_entry(w, ops[i], dst, true, DT_UNKNOWN) < 0)
			rc = 1;
		free(dst);
	}
	return rc;
}

/* -j worker thread: copy a run of new files into the job's slot. */
static void run_job(void *arg, void *job, struct sc_pool_slot *slot,
		    unsigned id)
{
	struct walk *w = &((struct walk *)arg)->workers[id];
	struct job *j = job;

	tl_slot = slot;
	tl_index = 1 + id;
	w->parent_facts = j->parent_facts;
	for (j->n_done = 0; j->n_done < j->n; j->n_done++) {
		const char *src = j->src[j->n_done], *dst = j->dst[j->n_done];

		entry_failed = false;
		last_errno = 0;
		w->reported = false;
		if (copy_new_regular(w, src, dst) == 1)
			break;	/* the rest goes back to the walk, in order */
		if (entry_failed && w->o->json && !w->reported) {
			struct sc_record rec = {
				.src = src, .dst = dst, .kind = SC_KIND_FILE,
				.err = -(last_errno ? last_errno : EINVAL) };

			report(w, &rec);
		}
		j->failed += entry_failed;
	}
	tl_slot = NULL;
}

/* -j, on the walk thread: print a finished slot, in order. */
static void flush_slot(void *arg, struct sc_pool_slot *slot)
{
	struct walk *w = arg;
	struct job *j = slot->job;

	if (slot->out_len) {
		fwrite(slot->out_buf, 1, slot->out_len, stdout);
		fflush(stdout);
	}
	if (slot->err_len)
		fwrite(slot->err_buf, 1, slot->err_len, stderr);
	if (!j)
		return;
	n_failures += (int)j->failed;
	/* Files a worker handed back (a hard link, a file that changed
	 * type): the general path, here, at their place in the order. */
	flushing = true;
	for (unsigned i = j->n_done; i < j->n; i++) {
		w->parent_facts = j->parent_facts;
		copy_entry(w, j->src[i], j->dst[i], false, DT_UNKNOWN);
	}
	w->parent_facts = NULL;
	flushing = false;
	job_free(j);
}

static unsigned jobs_for(const struct sc_options *o)
{
	long n;

	/* Parallel only where order and prompts cannot suffer: a tree,
	 * really copied, without questions or temporaries to track. */
	if (!o->recursive || o->explain || o->atomic ||
	    o->interactive == SC_OVERWRITE_ASK)
		return 1;
	if (o->jobs)
		return MIN(o->jobs, MAX_THREADS - 1);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (unsigned)MIN(n, 16) : 1;
}

static int start_workers(struct walk *w, unsigned n)
{
	w->workers = calloc(n, sizeof(*w->workers));
	if (!w->workers)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		struct walk *k = &w->workers[i];

		*k = *w;
		k->in_worker = true;
		k->workers = NULL;
		k->backup = NULL;
		if (sc_copy_ctx_init(&k->ctx, w->o->sparse) < 0)
			return -ENOMEM;
		k->ctx.verify = w->o->verify;
	}
	return sc_pool_new(n, run_job, flush_slot, w, &pool);
}

static void stop_workers(struct walk *w, unsigned n)
{
	sc_pool_free(pool);	/* waits for and prints everything */
	pool = NULL;
	for (size_t i = 0; i < w->n_deferred; i++) {
		struct deferred *d = &w->deferred[i];

		if (set_attrs_path(w, d->src, d->dst, &d->st, d->created,
				   false) < 0)
			n_failures++;
		free(d->src);
		free(d->dst);
	}
	free(w->deferred);
	for (unsigned i = 0; w->workers && i < n; i++)
		sc_copy_ctx_done(&w->workers[i].ctx);
	free(w->workers);
}

int sc_walk_run(const struct sc_options *opts, struct sc_report *rep,
		char **operands, int n)
{
	struct walk w = { .o = opts, .rep = rep };
	unsigned jobs;
	int rc;

	if (sc_fsinfo_new(NULL, &w.fsi) < 0 ||
	    sc_copy_ctx_init(&w.ctx, opts->sparse) < 0) {
		msg(ENOMEM, "%s", sc_program_name);
		sc_fsinfo_free(w.fsi);
		return 1;
	}
	sc_fsinfo_want_uuid(w.fsi, opts->explain || opts->json);
	w.kernel = sc_kernel_running();
	w.umask = umask(0);
	umask(w.umask);
	w.ctx.verify = opts->verify;
	/* Progress: never in scripts -- only when stderr is a terminal. */
	if (isatty(STDERR_FILENO) && !opts->quiet && !opts->explain) {
		sc_report_progress_enable(rep, opts->progress);
		w.ctx.progress = on_progress;
		w.ctx.progress_arg = &w;
	}
	if (!opts->explain) {
		signal(SIGINT, on_fatal_signal);
		signal(SIGTERM, on_fatal_signal);
		signal(SIGHUP, on_fatal_signal);
		signal(SIGPIPE, on_fatal_signal);
	}

	jobs = jobs_for(opts);
	if (jobs > 1 && start_workers(&w, jobs) < 0) {
		stop_workers(&w, jobs);
		jobs = 1;	/* no threads: copy one by one */
	}
	rc = run_operands(&w, operands, n);
	if (jobs > 1)
		stop_workers(&w, jobs);
	if (n_failures)
		rc = 1;
	sc_report_finish(rep, n_failures ? n_failures : rc);
	n_failures = 0;

	sc_copy_ctx_done(&w.ctx);
	sc_fsinfo_free(w.fsi);
	free(w.backup);
	for (size_t i = 0; i < w.n_links; i++)
		free(w.links[i].dst);
	free(w.links);
	free(w.ancestors);
	free(learned);
	learned = NULL;
	n_learned = 0;
	return rc;
}
