/* swapdir: a test helper that races a copy (issue 27, item 11): while
 * the copy fills a directory it just made, the directory is moved away
 * and a symlink to a directory outside the copy is put in its place, as
 * someone who may write the destination's parent could do.
 *
 *	swapdir WATCH COPY VICTIM LOG PROGRAM [ARG...]
 *
 * Watches directory WATCH (a source directory) with inotify for IN_OPEN,
 * then runs PROGRAM (the copy).  The first time WATCH itself is opened
 * while PROGRAM runs (the copy starts reading it, after making COPY),
 * PROGRAM is stopped, and if it still holds WATCH open (it is still
 * copying it: the event may come late), COPY is renamed to COPY.moved, a
 * symlink to VICTIM takes its name and "swapped" is written to LOG; then
 * PROGRAM goes on.  Exits with PROGRAM's exit status (128 + N when a
 * signal N ended it), or 125 when it cannot do its part.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Has an inotify event in BUF (N bytes) said that the watched directory
 * itself was opened (not a file in it)? */
static int dir_opened(const char *buf, ssize_t n)
{
	for (ssize_t off = 0; off < n;) {
		const struct inotify_event *ev =
			(const struct inotify_event *)(buf + off);

		if ((ev->mask & IN_OPEN) && ev->len == 0)
			return 1;
		off += (ssize_t)sizeof(*ev) + ev->len;
	}
	return 0;
}

/* Does process PID hold directory DIR (a real path) open? */
static int holds(pid_t pid, const char *dir)
{
	char fds[64], link[PATH_MAX + 64], got[PATH_MAX + 1];
	DIR *d;
	struct dirent *e;
	int found = 0;

	snprintf(fds, sizeof(fds), "/proc/%d/fd", (int)pid);
	d = opendir(fds);
	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		ssize_t n;

		snprintf(link, sizeof(link), "%s/%s", fds, e->d_name);
		n = readlink(link, got, sizeof(got) - 1);
		if (n <= 0)
			continue;
		got[n] = '\0';
		found = !strcmp(got, dir);
	}
	closedir(d);
	return found;
}

static int swap(const char *copy, const char *victim, const char *log)
{
	size_t n = strlen(copy);
	char *moved = malloc(n + sizeof(".moved"));
	FILE *f;

	if (!moved)
		return -1;
	memcpy(moved, copy, n);
	memcpy(moved + n, ".moved", sizeof(".moved"));
	if (rename(copy, moved) < 0 || symlink(victim, copy) < 0) {
		fprintf(stderr, "swapdir: swapping %s: %s\n", copy,
			strerror(errno));
		free(moved);
		return -1;
	}
	free(moved);
	f = fopen(log, "w");
	if (!f || fputs("swapped\n", f) == EOF || fclose(f) == EOF) {
		fprintf(stderr, "swapdir: %s: %s\n", log, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *watch, *copy, *victim, *log;
	static char real[PATH_MAX];
	int in, st, done = 0;
	pid_t pid;

	if (argc < 6) {
		fprintf(stderr,
			"usage: swapdir WATCH COPY VICTIM LOG PROGRAM [ARG...]\n");
		return 125;
	}
	watch = argv[1];
	copy = argv[2];
	victim = argv[3];
	log = argv[4];
	if (!realpath(watch, real)) {
		fprintf(stderr, "swapdir: %s: %s\n", watch, strerror(errno));
		return 125;
	}
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, watch, IN_OPEN | IN_ONLYDIR) < 0) {
		fprintf(stderr, "swapdir: watching %s: %s\n", watch,
			strerror(errno));
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		perror("swapdir: fork");
		return 125;
	}
	if (pid == 0) {
		execvp(argv[5], argv + 5);
		fprintf(stderr, "swapdir: %s: %s\n", argv[5], strerror(errno));
		_exit(127);
	}
	for (;;) {
		struct pollfd p = { .fd = in, .events = POLLIN };
		char buf[4096] __attribute__((aligned(8)));
		ssize_t n;
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return status_of(st);
		if (r < 0) {
			perror("swapdir: waitpid");
			return 125;
		}
		if (done) {
			if (waitpid(pid, &st, 0) != pid) {
				perror("swapdir: waitpid");
				return 125;
			}
			return status_of(st);
		}
		if (poll(&p, 1, 5) < 0 && errno != EINTR) {
			perror("swapdir: poll");
			return 125;
		}
		n = read(in, buf, sizeof(buf));
		if (n <= 0 || !dir_opened(buf, n))
			continue;
		/* only while PROGRAM copies WATCH: a swap after it left it
		 * would be a change to a finished copy */
		if (kill(pid, SIGSTOP) < 0 ||
		    waitpid(pid, &st, WUNTRACED) != pid) {
			perror("swapdir: stopping the copy");
			return 125;
		}
		if (!WIFSTOPPED(st))
			return status_of(st);
		if (holds(pid, real) && swap(copy, victim, log) < 0) {
			kill(pid, SIGCONT);
			waitpid(pid, &st, 0);
			return 125;
		}
		/* the first open only: later ones are the copy coming back
		 * to a directory it has done */
		done = 1;
		kill(pid, SIGCONT);
	}
}
