/* treecmp: do two trees hold the same thing, however deep?  A test
 * helper for trees nested past PATH_MAX, where diff -r and cmp fail on
 * the names they build: it walks both trees by directory descriptor
 * (openat, fstatat, readlinkat), so no name it hands the kernel is longer
 * than one entry's.
 *
 *	treecmp [-a] A B
 *
 * Compares type, contents of regular files and targets of symlinks; with
 * -a also what cp -a keeps: mode, owner, modification time (of symlinks
 * too), user.* extended attributes, and hard links (entries that are one
 * file in A are one file in B, and no others are).  Says the first
 * difference with its path below A and B and exits 1; exits 0 when the
 * trees are the same, 2 when one cannot be read.  Holds two descriptors
 * per level of the walk. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static bool attrs;		/* -a */

/* Hard links: A's inode -> B's inode, for files with several names. */
static struct pair { ino_t a, b; } *pairs;
static size_t n_pairs, cap_pairs;

/* The path below the operands, for messages: grows with the walk. */
static char *where;
static size_t where_len, where_cap;

static int differ(const char *what)
{
	printf("treecmp: %s differ: %s\n", what, where_len ? where : ".");
	return 1;
}

static int broken(const char *what)
{
	fprintf(stderr, "treecmp: %s '%s': %s\n", what,
		where_len ? where : ".", strerror(errno));
	return 2;
}

static void where_push(const char *name, size_t *saved)
{
	size_t n = strlen(name);

	*saved = where_len;
	if (where_len + n + 2 > where_cap) {
		where_cap = 2 * (where_len + n + 2);
		where = realloc(where, where_cap);
		if (!where)
			abort();
	}
	if (where_len)
		where[where_len++] = '/';
	memcpy(where + where_len, name, n + 1);
	where_len += n;
}

static void where_pop(size_t saved)
{
	where_len = saved;
	if (where)
		where[where_len] = '\0';
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The names in directory FD, sorted; *N of them.  NULL on error. */
static char **names(int fd, size_t *n)
{
	int rfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = rfd >= 0 ? fdopendir(rfd) : NULL;
	char **v = NULL;
	size_t cap = 0;
	struct dirent *e;

	*n = 0;
	if (!d)
		return NULL;
	rewinddir(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				abort();
		}
		v[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	if (!v)
		v = malloc(sizeof(*v));
	qsort(v, *n, sizeof(*v), by_name);
	return v;
}

static int same_bytes(int da, int db, const char *name)
{
	int a = openat(da, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int b = openat(db, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	static char ba[65536], bb[65536];
	int r = 0;

	if (a < 0 || b < 0) {
		r = broken("cannot open");
		goto out;
	}
	for (;;) {
		ssize_t x = read(a, ba, sizeof(ba)), y;

		if (x < 0) {
			r = broken("cannot read");
			break;
		}
		/* B read as far as A was */
		for (y = 0; y < x;) {
			ssize_t k = read(b, bb + y, (size_t)(x - y));

			if (k <= 0)
				break;
			y += k;
		}
		if (y != x || memcmp(ba, bb, (size_t)x)) {
			r = differ("contents");
			break;
		}
		if (x == 0) {
			if (read(b, bb, 1) != 0)
				r = differ("contents");
			break;
		}
	}
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	return r;
}

static int same_link(int da, int db, const char *name)
{
	static char ta[65536], tb[65536];
	ssize_t x = readlinkat(da, name, ta, sizeof(ta));
	ssize_t y = readlinkat(db, name, tb, sizeof(tb));

	if (x < 0 || y < 0)
		return broken("cannot read link");
	return x == y && !memcmp(ta, tb, (size_t)x) ? 0 :
	       differ("symlink targets");
}

/* user.* attributes of NAME in DA and DB (regular files and
 * directories: through /proc, which resolves the descriptor). */
static int same_xattrs(int da, int db, const char *name)
{
	char pa[64 + 256], pb[64 + 256];
	static char la[65536], lb[65536], va[65536], vb[65536];
	ssize_t x, y;

	snprintf(pa, sizeof(pa), "/proc/self/fd/%d/%s", da, name);
	snprintf(pb, sizeof(pb), "/proc/self/fd/%d/%s", db, name);
	x = llistxattr(pa, la, sizeof(la));
	y = llistxattr(pb, lb, sizeof(lb));
	if (x < 0 || y < 0)
		return errno == ENOTSUP ? 0 : broken("cannot list xattrs of");
	for (ssize_t i = 0; i < x; i += (ssize_t)strlen(la + i) + 1) {
		ssize_t m, k;

		if (strncmp(la + i, "user.", 5))
			continue;
		m = lgetxattr(pa, la + i, va, sizeof(va));
		k = lgetxattr(pb, la + i, vb, sizeof(vb));
		if (m < 0 || k != m || memcmp(va, vb, (size_t)m))
			return differ("xattrs");
	}
	for (ssize_t i = 0; i < y; i += (ssize_t)strlen(lb + i) + 1)
		if (!strncmp(lb + i, "user.", 5) &&
		    lgetxattr(pa, lb + i, va, sizeof(va)) < 0)
			return differ("xattrs");
	return 0;
}

/* A file with several names in A: its copy must be the one B has for
 * every other name of it, and a file no other of A's. */
static int same_links(const struct stat *a, const struct stat *b)
{
	if (a->st_nlink != b->st_nlink)
		return differ("link counts");
	if (a->st_nlink < 2)
		return 0;
	for (size_t i = 0; i < n_pairs; i++)
		if (pairs[i].a == a->st_ino || pairs[i].b == b->st_ino)
			return pairs[i].a == a->st_ino &&
			       pairs[i].b == b->st_ino ? 0 :
			       differ("hard links");
	if (n_pairs == cap_pairs) {
		cap_pairs = cap_pairs ? 2 * cap_pairs : 16;
		pairs = realloc(pairs, cap_pairs * sizeof(*pairs));
		if (!pairs)
			abort();
	}
	pairs[n_pairs++] = (struct pair){ a->st_ino, b->st_ino };
	return 0;
}

static int same_tree(int da, int db);

/* Entry NAME of directories DA and DB. */
static int same_entry(int da, int db, const char *name)
{
	struct stat a, b;
	int r;

	if (fstatat(da, name, &a, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fstatat(db, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return broken("cannot stat");
	if ((a.st_mode & S_IFMT) != (b.st_mode & S_IFMT))
		return differ("types");
	if (attrs) {
		if (!S_ISLNK(a.st_mode) &&
		    (a.st_mode & 07777) != (b.st_mode & 07777))
			return differ("modes");
		if (a.st_uid != b.st_uid || a.st_gid != b.st_gid)
			return differ("owners");
		if (!S_ISDIR(a.st_mode) &&
		    (a.st_mtim.tv_sec != b.st_mtim.tv_sec ||
		     a.st_mtim.tv_nsec != b.st_mtim.tv_nsec))
			return differ("modification times");
		if (!S_ISDIR(a.st_mode) && (r = same_links(&a, &b)))
			return r;
		if ((S_ISREG(a.st_mode) || S_ISDIR(a.st_mode)) &&
		    (r = same_xattrs(da, db, name)))
			return r;
	}
	if (S_ISREG(a.st_mode))
		return same_bytes(da, db, name);
	if (S_ISLNK(a.st_mode))
		return same_link(da, db, name);
	if (S_ISDIR(a.st_mode)) {
		int fa = openat(da, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				O_CLOEXEC);
		int fb = openat(db, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				O_CLOEXEC);

		r = fa < 0 || fb < 0 ? broken("cannot open directory") :
		    same_tree(fa, fb);
		if (fa >= 0)
			close(fa);
		if (fb >= 0)
			close(fb);
		/* a directory's time changes as its entries are made: only
		 * after them can it be compared */
		if (!r && attrs && (a.st_mtim.tv_sec != b.st_mtim.tv_sec ||
				    a.st_mtim.tv_nsec != b.st_mtim.tv_nsec))
			r = differ("modification times");
		return r;
	}
	return 0;
}

/* The entries of directories DA and DB. */
static int same_tree(int da, int db)
{
	size_t na, nb, i;
	char **a = names(da, &na), **b = names(db, &nb);
	int r = 0;

	if (!a || !b) {
		r = broken("cannot read directory");
	} else {
		for (i = 0; !r && i < na && i < nb; i++) {
			size_t saved;

			where_push(a[i], &saved);
			r = strcmp(a[i], b[i]) ? differ("names") :
			    same_entry(da, db, a[i]);
			if (!r)
				where_pop(saved);
		}
		if (!r && na != nb)
			r = differ("numbers of entries");
	}
	for (i = 0; a && i < na; i++)
		free(a[i]);
	for (i = 0; b && i < nb; i++)
		free(b[i]);
	free(a);
	free(b);
	return r;
}

int main(int argc, char **argv)
{
	int da, db;

	if (argc == 4 && !strcmp(argv[1], "-a")) {
		attrs = true;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: treecmp [-a] A B\n");
		return 2;
	}
	da = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	db = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (da < 0 || db < 0) {
		perror("treecmp");
		return 2;
	}
	return same_tree(da, db);
}
