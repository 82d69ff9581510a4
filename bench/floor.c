/* floor MODE SRC DST: the least a copy of the tree SRC into DST costs the
 * filesystem, on one thread, for bench.sh's floor rows.  Directories are
 * made, regular files are written, nothing else is copied (no modes,
 * times, links or special files).  MODE:
 *   create   the files' names and sizes with bytes from memory, reading
 *            no file: fstatat, openat O_CREAT|O_EXCL, write, close a file
 *   copy     the fewest calls a copier that reads makes: openat the
 *            source, fstat, openat the copy, copy_file_range of st_size
 *            bytes, close both (6 a file; the type from readdir)
 *   checked  copy, and the two checks smartcp makes for a file that may
 *            change while it is copied: a read at st_size that must find
 *            the end, and a new fstatat by name after the copy (8 a file)
 *
 * Benchmark helper only: bench.sh compiles it with cc; it is not part of
 * smartcp. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum mode { CREATE, COPY, CHECKED };

static enum mode mode;
static char buf[1 << 20];

static void die(const char *what, const char *name)
{
	fprintf(stderr, "floor: %s %s: %s\n", what, name, strerror(errno));
	exit(1);
}

/* writes SIZE bytes from memory into new file NAME of DFD */
static void create(int dfd, const char *name, off_t size)
{
	int o = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		       0644);

	if (o < 0)
		die("openat", name);
	while (size > 0) {
		ssize_t k = write(o, buf, size < (off_t)sizeof(buf) ?
				  (size_t)size : sizeof(buf));

		if (k <= 0)
			die("write", name);
		size -= k;
	}
	if (close(o) < 0)
		die("close", name);
}

/* copies regular file NAME of SFD into DFD */
static void copy(int sfd, int dfd, const char *name)
{
	struct stat st, after;
	off_t left;
	int i = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), o;

	if (i < 0 || fstat(i, &st) < 0)
		die("open", name);
	o = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (o < 0)
		die("openat", name);
	for (left = st.st_size; left > 0;) {
		ssize_t k = copy_file_range(i, NULL, o, NULL, (size_t)left, 0);

		if (k <= 0)
			die("copy_file_range", name);
		left -= k;
	}
	if (mode == CHECKED &&
	    (pread(i, buf, sizeof(buf), st.st_size) != 0 ||
	     fstatat(sfd, name, &after, AT_SYMLINK_NOFOLLOW) < 0 ||
	     after.st_size != st.st_size))
		die("changed:", name);
	if (close(o) < 0)
		die("close", name);
	close(i);
}

static void tree(int sfd, int dfd)
{
	DIR *d = fdopendir(sfd);
	struct dirent *e;

	if (!d)
		die("fdopendir", "");
	while ((e = readdir(d))) {
		struct stat st;
		int s, o;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (mode != CREATE && e->d_type == DT_REG) {
			copy(dirfd(d), dfd, e->d_name);
			continue;
		}
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			die("fstatat", e->d_name);
		if (S_ISREG(st.st_mode)) {
			if (mode == CREATE)
				create(dfd, e->d_name, st.st_size);
			else
				copy(dirfd(d), dfd, e->d_name);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if (mkdirat(dfd, e->d_name, 0755) < 0)
			die("mkdirat", e->d_name);
		s = openat(dirfd(d), e->d_name,
			   O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		o = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (s < 0 || o < 0)
			die("openat", e->d_name);
		tree(s, o);
		close(o);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	int s, d;

	if (argc != 4 || (strcmp(argv[1], "create") &&
			  strcmp(argv[1], "copy") && strcmp(argv[1], "checked"))) {
		fprintf(stderr, "usage: floor create|copy|checked SRC DST\n");
		return 2;
	}
	mode = !strcmp(argv[1], "create") ? CREATE :
	       !strcmp(argv[1], "copy") ? COPY : CHECKED;
	s = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s < 0)
		die("open", argv[2]);
	if (mkdir(argv[3], 0755) < 0)
		die("mkdir", argv[3]);
	d = open(argv[3], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		die("open", argv[3]);
	tree(s, d);
	return 0;
}
