/* The destination: may it be written, what becomes of what is there
 * (backups, removal, links made in its place), and the signal handler
 * that has the library remove what an interrupted copy leaves. */
#include "system.h"
#include "dest.h"
#include "paths.h"
#include "quote.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define SAME_INODE(a, b) ((a).st_dev == (b).st_dev && (a).st_ino == (b).st_ino)

/* Makes NAME in DIRFD a hard link to TARGET (FLAGS for linkat) or, with
 * !HARD, a symlink holding TARGET's name. */
static int make_name(bool hard, const struct sc_at *target, int dirfd,
		     const char *name, int flags)
{
	return hard ? linkat(target->dirfd, target->name, dirfd, name, flags) :
		      symlinkat(target->name, dirfd, name);
}

/* make_name() under a free temporary name, ".smartcp.PID.N", in DST's
 * directory: in its DIRFD, or beside its path when that is AT_FDCWD.
 * The name (relative to DST->dirfd) is written to TMP.  0 or -errno. */
static int make_temp_name(bool hard, const struct sc_at *target, int flags,
			  const struct sc_at *dst, char *tmp, size_t size)
{
	_cleanup_free_ char *dir = NULL;

	if (dst->dirfd < 0 && !(dir = sc_path_dir(dst->path)))
		return -ENOMEM;
	for (unsigned i = 0;; i++) {
		if (snprintf(tmp, size, "%s%s.smartcp.%d.%u", dir ? dir : "",
			     dir ? "/" : "", (int)getpid(), i) >= (int)size)
			return -ENAMETOOLONG;
		if (make_name(hard, target, dst->dirfd, tmp, flags) == 0)
			return 0;
		if (errno != EEXIST || i > 100)
			return -errno;
	}
}

/* An answer to a question, read from stdin: yes in the locale's words. */
static bool answer_is_yes(void)
{
	char *line = NULL;
	size_t cap = 0;
	bool r = false;

	if (getline(&line, &cap, stdin) > 0)
		r = rpmatch(line) == 1;
	free(line);
	return r;
}

char *sc_dest_backup_name(const struct sc_options *o, int dirfd,
			  const char *dst)
{
	char *name = NULL;
	enum sc_backup kind = o->backup;

	if (kind == SC_BACKUP_NUMBERED || kind == SC_BACKUP_EXISTING) {
		const char *slash = strrchr(dst, '/');
		const char *base = slash ? slash + 1 : dst;
		char *dir = slash ? strndup(dst, (size_t)(slash - dst + 1)) :
			    strdup(".");
		int fd = dirfd >= 0 ? openat(dirfd, ".", O_RDONLY | O_DIRECTORY |
					     O_CLOEXEC) : -1;
		DIR *d = fd >= 0 ? fdopendir(fd) :
			 dir && dirfd < 0 ? opendir(*dir ? dir : "/") : NULL;
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
		else if (fd >= 0)
			close(fd);
		free(dir);
		if (kind == SC_BACKUP_NUMBERED || max)
			return asprintf(&name, "%s.~%lu~", dst, max + 1) < 0 ?
				NULL : name;
	}
	return asprintf(&name, "%s%s", dst, o->suffix) < 0 ? NULL : name;
}

bool sc_dest_deref_never(const struct sc_options *o, bool cmdline)
{
	return o->deref == SC_DEREF_NEVER ||
	       (o->deref == SC_DEREF_ARGS && !cmdline);
}

bool sc_dest_same_file_ok(const struct sc_options *o, const struct sc_at *src,
			  const struct stat *sst, const struct sc_at *dst,
			  const struct stat *dst_st, bool cmdline,
			  bool *ret_nothing_to_do)
{
	bool same = SAME_INODE(*sst, *dst_st), same_link;
	bool never = sc_dest_deref_never(o, cmdline);
	struct stat sl, dl, a, b;

	*ret_nothing_to_do = false;
	if (same && o->hard_link) {
		*ret_nothing_to_do = true;
		return true;
	}
	if (never) {
		same_link = same;
		sl = *sst;
		dl = *dst_st;
		if (S_ISLNK(sl.st_mode) && S_ISLNK(dl.st_mode)) {
			/* two links: fine unless one entry */
			bool sn = sc_at_same_entry(src, dst);

			if (!sn && o->backup != SC_BACKUP_NONE)
				return true;
			if (!sn && same_link) {
				*ret_nothing_to_do = true;
				return true;
			}
			return !sn;
		}
	} else {
		if (!same)
			return true;
		if (fstatat(dst->dirfd, dst->name, &dl, AT_SYMLINK_NOFOLLOW) < 0 ||
		    fstatat(src->dirfd, src->name, &sl, AT_SYMLINK_NOFOLLOW) < 0)
			return true;
		same_link = SAME_INODE(sl, dl);
		if (S_ISLNK(sl.st_mode) && S_ISLNK(dl.st_mode) &&
		    o->remove_destination)
			return true;
	}
	if (o->backup != SC_BACKUP_NONE) {
		if (!same_link)
			/* backing up the file a followed link names would
			 * leave the link dangling */
			return !(!never &&
				 S_ISLNK(sl.st_mode) && !S_ISLNK(dl.st_mode));
		return !sc_at_same_entry(src, dst);
	}
	if (o->remove_destination) {
		if (S_ISLNK(dl.st_mode))
			return true;
		if (same_link && dl.st_nlink > 1 && !sc_at_same_entry(src, dst))
			return true;
	}
	if (!S_ISLNK(sl.st_mode) && !S_ISLNK(dl.st_mode)) {
		if (!SAME_INODE(sl, dl))
			return true;
		if (o->hard_link) {
			*ret_nothing_to_do = true;
			return true;
		}
	}
	if (o->symbolic_link && S_ISLNK(dl.st_mode))
		return true;	/* a link may be made again */
	if (never) {
		if (S_ISLNK(sl.st_mode) ?
		    fstatat(src->dirfd, src->name, &a, 0) < 0 : (a = sl, false))
			return true;
		if (S_ISLNK(dl.st_mode) ?
		    fstatat(dst->dirfd, dst->name, &b, 0) < 0 : (b = dl, false))
			return true;
		if (!SAME_INODE(a, b))
			return true;
		if (o->hard_link) {
			*ret_nothing_to_do = !S_ISLNK(dl.st_mode);
			return true;
		}
	}
	return false;
}

bool sc_dest_backup_is_source(const struct sc_options *o, const char *src,
			      const struct stat *sst, int dirfd,
			      const char *dst)
{
	_cleanup_free_ char *sb = sc_path_base(src), *db = sc_path_base(dst);
	_cleanup_free_ char *back = NULL;
	size_t dl, xl = strlen(o->suffix);
	struct stat st;

	if (!sb || !db)
		return false;
	dl = strlen(db);
	if (strlen(sb) != dl + xl || memcmp(sb, db, dl) ||
	    strcmp(sb + dl, o->suffix))
		return false;
	if (asprintf(&back, "%s%s", dst, o->suffix) < 0) {
		back = NULL;
		return false;
	}
	return fstatat(dirfd, dirfd >= 0 ? sc_path_last(back) : back, &st,
		       0) == 0 && SAME_INODE(st, *sst);
}

bool sc_dest_ask_overwrite(const struct sc_options *o, bool privileged,
			   const struct sc_at *dst, const struct stat *dst_st)
{
	/* a file we may not write is named as such, with its mode, as cp
	 * does */
	bool unwritable = !S_ISLNK(dst_st->st_mode) && !privileged &&
			  faccessat(dst->dirfd, dst->name, W_OK,
				    AT_EACCESS) != 0;

	sc_report_ask_overwrite(dst->path, dst_st, unwritable,
				o->force || o->remove_destination);
	return answer_is_yes();
}

bool sc_dest_update_skips(const struct sc_options *o, const struct stat *sst,
			  const struct stat *dst_st)
{
	if (o->update == SC_UPDATE_NONE || o->update == SC_UPDATE_NONE_FAIL)
		return true;
	return o->update == SC_UPDATE_OLDER &&
	       (dst_st->st_mtim.tv_sec > sst->st_mtim.tv_sec ||
		(dst_st->st_mtim.tv_sec == sst->st_mtim.tv_sec &&
		 dst_st->st_mtim.tv_nsec >= sst->st_mtim.tv_nsec));
}

int sc_dest_make_link(bool hard, const struct sc_at *target,
		      const struct sc_at *dst, bool follow, bool replace)
{
	int flags = follow ? AT_SYMLINK_FOLLOW : 0;
	_cleanup_free_ char *tmp = NULL;
	struct stat st;
	int e;

	if (make_name(hard, target, dst->dirfd, dst->name, flags) == 0)
		return 0;
	if (errno != EEXIST || !replace)
		return -errno;
	tmp = malloc(PATH_MAX);
	if (!tmp)
		return -ENOMEM;
	e = make_temp_name(hard, target, flags, dst, tmp, PATH_MAX);
	if (e < 0)
		return e;
	if (renameat(dst->dirfd, tmp, dst->dirfd, dst->name) < 0) {
		e = -errno;
		unlinkat(dst->dirfd, tmp, 0);
		return e;
	}
	/* renaming one name of a file onto another does nothing */
	if (fstatat(dst->dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0)
		unlinkat(dst->dirfd, tmp, 0);
	return 1;
}

/* The copy context of each thread that copies files, the walk's (0)
 * and each -j worker's: a signal that ends the run has the library
 * remove what the copy in progress on each made (sc_copy_ctx_abandon: a
 * file written in place while its name still leads to it, else emptied;
 * a named --atomic temporary).  Set by its thread before its first
 * copy, read by the handler on whichever thread the signal lands: an
 * atomic pointer (lock-free, so safe in a handler).  SIGKILL cannot be
 * caught: only --atomic protects against it. */
static struct sc_copy_ctx *_Atomic copying[SC_DEST_THREADS];

void sc_dest_register(unsigned thread, struct sc_copy_ctx *x)
{
	if (thread < SC_DEST_THREADS)
		atomic_store_explicit(&copying[thread], x,
				      memory_order_release);
}

/* How far the run got, for the line a signal leaves (sc_dest_done()). */
static atomic_ullong done_files, done_bytes;
/* That line, translated before any signal (gettext is not safe in a
 * handler); NULL: not said. */
static const char *interrupted_fmt, *removed_note;

void sc_dest_done(uint64_t bytes)
{
	atomic_fetch_add_explicit(&done_files, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&done_bytes, bytes, memory_order_relaxed);
}

/* Appends S to BUF (of SIZE, *LEN used). */
static void put_str(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s && *len + 1 < size)
		buf[(*len)++] = *s++;
}

static void put_num(char *buf, size_t size, size_t *len,
		    unsigned long long v)
{
	char d[24];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 23);
	while (n && *len + 1 < size)
		buf[(*len)++] = d[--n];
}

/* The line on stderr that says where SIG stopped the run, REMOVED:
 * whether a partly written file went.  printf() is not safe in a
 * handler: FMT's %s and %llu are filled here, in order (the program's
 * name, the signal's, the files, the bytes). */
static void say_interrupted(int sig, bool removed)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGINT, "SIGINT" }, { SIGTERM, "SIGTERM" },
		{ SIGHUP, "SIGHUP" }, { SIGPIPE, "SIGPIPE" },
	};
	const char *sname = "?";
	unsigned long long nums[2] = {
		atomic_load_explicit(&done_files, memory_order_relaxed),
		atomic_load_explicit(&done_bytes, memory_order_relaxed),
	};
	char buf[512];
	size_t len = 0;
	int strs = 0, n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].sig == sig)
			sname = names[i].name;
	for (const char *f = interrupted_fmt; *f; f++) {
		if (f[0] == '%' && f[1] == 's') {
			put_str(buf, sizeof(buf), &len,
				strs++ ? sname : sc_program_name);
			f++;
		} else if (!strncmp(f, "%llu", 4)) {
			put_num(buf, sizeof(buf), &len, n < 2 ? nums[n] : 0);
			n++;
			f += 3;
		} else if (len + 1 < sizeof(buf)) {
			buf[len++] = *f;
		}
	}
	if (removed)
		put_str(buf, sizeof(buf), &len, removed_note);
	put_str(buf, sizeof(buf), &len, "\n");
	(void)!write(STDERR_FILENO, buf, len);
}

static void on_fatal_signal(int sig)
{
	int saved = errno;
	bool removed = false;

	for (unsigned i = 0; i < SC_DEST_THREADS; i++) {
		struct sc_copy_ctx *x =
			atomic_load_explicit(&copying[i],
					     memory_order_acquire);

		if (x)
			removed |= sc_copy_ctx_abandon(x);
	}
	if (interrupted_fmt)
		say_interrupted(sig, removed);
	signal(sig, SIG_DFL);
	/* delivered when this handler returns (the signal is blocked in
	 * it): the interrupted code never sees errno changed */
	raise(sig);
	errno = saved;
}

/* A signal the caller ignores stays ignored: nohup (SIGHUP), a script's
 * background job (SIGINT), `trap '' PIPE` (write then fails with EPIPE,
 * reported as cp reports it). */
void sc_dest_catch_signals(bool say)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	if (say) {
		/* TRANSLATORS: the program's name, the signal's (SIGINT),
		 * then the files and the bytes copied, in this order */
		interrupted_fmt = _("%s: interrupted by %s after %llu files (%llu bytes) were copied");
		removed_note = _("; the file being written was removed");
	}

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		signal(sigs[i], on_fatal_signal);
	}
}

bool sc_dest_must_remove(const struct sc_options *o, const struct stat *sst,
			 const struct stat *dst_st, bool cmdline)
{
	/* --atomic replaces a regular file by a rename, which gives the name
	 * a new inode as a removal would (its other names keep the old
	 * bytes), without the window in which there is no file, and without
	 * losing it when the copy then fails. */
	if (o->atomic && !o->attributes_only && S_ISREG(sst->st_mode) &&
	    S_ISREG(dst_st->st_mode))
		return false;
	return o->remove_destination ||
	       (!o->attributes_only &&
		((o->preserve_links && dst_st->st_nlink > 1) ||
		 (sc_dest_deref_never(o, cmdline) && !S_ISREG(sst->st_mode))));
}

int sc_dest_remove(struct sc_msgs *m, const struct sc_at *dst, bool verbose,
		   bool say_if_gone)
{
	int r = unlinkat(dst->dirfd, dst->name, 0);

	if (r < 0 && errno != ENOENT) {
		sc_report_error(m, errno, _("cannot remove %s"),
				sc_quote(dst->path));
		return -1;
	}
	if (verbose && (r == 0 || say_if_gone))
		sc_report_removed(m, dst->path);
	return 0;
}
