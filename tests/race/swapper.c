/* swapper: the attacker of the race tests (issue 35).  Root copies into
 * a directory another user owns; that user watches the directory with
 * inotify and, the moment a name the copy makes appears there, swaps the
 * new object for one of its own: a symlink to a file or directory it may
 * not touch (root's attribute calls by name then land on it), a hard link
 * to such a file, or a directory of its own (root then fills it).
 *
 *	swapper [-u UID:GID] [-k KIND] [-t TARGET] [-n PATTERN] [-c COUNT]
 *		[-e EVENTS] [-x NAME] [-r | -f] [-o OBJDIR] [-s] [-p CPU]
 *		[-l LOG] [-P PREFIX | -R PREFIX] [-N COUNT] DIR PROGRAM [ARG...]
 *
 * Runs PROGRAM (the copy) with the swapper's own credentials, and does its
 * part as UID:GID (given: the swapper drops to it, supplementary groups
 * cleared, before it makes anything or watches; PROGRAM starts only after
 * that).  Before PROGRAM starts it makes COUNT objects of KIND in DIR (or
 * in OBJDIR, on the same filesystem: where DIR is a source the copy
 * lists, the objects must not be in it), named .swap.0, .swap.1, ...:
 *	symlink   a symlink to TARGET (the default)
 *	hardlink  a hard link to TARGET (fs.protected_hardlinks: UID must own
 *		  TARGET or may read and write it)
 *	dir       an empty directory, mode 0755
 *	file      an empty regular file, mode 0644
 * Then, for each event in DIR (EVENTS, comma-separated: create, moved
 * (IN_MOVED_TO), attrib, close (IN_CLOSE_WRITE), closeread
 * (IN_CLOSE_NOWRITE), open (IN_OPEN), gone (IN_MOVED_FROM, IN_DELETE);
 * create,moved by default) whose name matches
 * PATTERN (fnmatch(3) without FNM_PERIOD, "*" by default: a temporary
 * ".name" the copy makes first is fair game; the .swap.N names never
 * match) and
 * was not swapped before, the next object is put in its place with one
 * renameat2(RENAME_EXCHANGE): the copy's object is then .swap.N.  After a
 * "gone" event the object takes the name the copy left instead (renameat2
 * RENAME_NOREPLACE); with -r, the object replaces the copy's (a plain
 * rename: the copy's object is gone, none of it left to read).  -x NAME
 * swaps NAME instead of the name the event names (once): PATTERN then
 * only picks the event, and "." is DIR itself (open: the copy starts
 * reading DIR, a source directory).  At most COUNT swaps (1 by default;
 * 0: none, only what -P or -R plant).
 *
 * -f (flip): after the one swap (COUNT 1), the object and the copy's own
 * are exchanged again and again, one renameat2(RENAME_EXCHANGE) after the
 * other, until PROGRAM ends: a window between two calls of the copy that
 * no event shows (a check of a name, then its use) is hit as often as the
 * copy meets the name in the other state.  Where the name is at the end
 * is whichever state the last exchange left.
 *
 * A swap is one system call after the event is read.  The swapper waits
 * for events in poll(); -s reads them in a busy loop instead, which on
 * this 2-CPU VM won a quarter as often (a spinning process is the first
 * the scheduler puts aside); -p CPU pins the swapper and PROGRAM to one
 * CPU.  The swapper stops watching when PROGRAM ends: a swap after that
 * is no race.
 *
 * Names planted before PROGRAM starts, once its process ID is known (N
 * objects of KIND, -N COUNT, 202 by default):
 *	-P PREFIX  PREFIX, PID, "." and I for I in 0..N-1 (".smartcp.":
 *		   the names smartcp 396ad10 gave its link temporaries)
 *	-R PREFIX  PREFIX and 6 characters of [a-z0-9], drawn as smartcp
 *		   396ad10 drew its temporary names when O_TMPFILE failed
 *		   (rand_r seeded with PID ^ time(NULL)): N names for each
 *		   second from one before now to two after
 *
 * LOG (stdout when not given) gets one line per swap tried, once PROGRAM
 * has ended: "swapped NAME .swap.N INODE" (INODE: the number of the
 * object swapped in, to find it again wherever the copy moved it) or
 * "missed NAME .swap.N: ERROR" (the name went away before the exchange),
 * "planted N" when it planted, and "flipped N" (the exchanges after the
 * first) with -f.
 * Exits with PROGRAM's exit status (128 + N when signal N ended it), 125
 * when it cannot do its part.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define PREFIX ".swap."
#define MAX_SWAPS 4096
#define GONE (IN_MOVED_FROM | IN_DELETE)

enum kind { KIND_SYMLINK, KIND_HARDLINK, KIND_DIR, KIND_FILE };

struct conf {
	const char *dir, *target, *pattern, *log, *xname, *objdir;
	const char *plant_pid, *plant_prefix;	/* -P, -R */
	enum kind kind;
	unsigned count, plants;
	uint32_t events;
	bool spin;
	bool drop;
	bool replace;		/* -r */
	bool flip;		/* -f */
	int cpu;		/* -1: not pinned */
	uid_t uid;
	gid_t gid;
};

/* what was tried, written to LOG at the end (no I/O in the loop) */
struct tried {
	char *name;
	int err;		/* 0: swapped */
	ino_t ino;		/* of the object swapped in */
};

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "swapper: %s%s%s: %s\n", what, arg ? " " : "",
		arg ? arg : "", strerror(errno));
	exit(125);
}

static void usage(void)
{
	fputs("usage: swapper [-u UID:GID] [-k symlink|hardlink|dir|file] "
	      "[-t TARGET] [-n PATTERN]\n"
	      "               [-c COUNT] [-e EVENTS] [-x NAME] [-r | -f] "
	      "[-o OBJDIR] [-s] [-p CPU] [-l LOG]\n"
	      "               [-P PREFIX | -R PREFIX] [-N COUNT] "
	      "DIR PROGRAM [ARG...]\n", stderr);
	exit(125);
}

static uint32_t parse_events(const char *s)
{
	static const struct { const char *name; uint32_t mask; } ev[] = {
		{ "create", IN_CREATE }, { "moved", IN_MOVED_TO },
		{ "attrib", IN_ATTRIB }, { "close", IN_CLOSE_WRITE },
		{ "closeread", IN_CLOSE_NOWRITE },
		{ "open", IN_OPEN }, { "gone", GONE },
	};
	uint32_t m = 0;
	char *copy = strdup(s), *save = NULL, *tok;

	if (!copy)
		die("strdup", NULL);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
			if (!strcmp(tok, ev[i].name))
				break;
		if (i == sizeof(ev) / sizeof(ev[0]))
			usage();
		m |= ev[i].mask;
	}
	free(copy);
	return m;
}

static enum kind parse_kind(const char *s)
{
	static const char *const names[] = { "symlink", "hardlink", "dir",
					     "file" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return (enum kind)i;
	usage();
	return KIND_SYMLINK;
}

static unsigned parse_count(const char *s, unsigned min)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*end || end == s || n < min || n > MAX_SWAPS)
		usage();
	return (unsigned)n;
}

static void parse_user(const char *s, struct conf *c)
{
	unsigned long u, g;
	char *end;

	u = strtoul(s, &end, 10);
	if (*end != ':')
		usage();
	g = strtoul(end + 1, &end, 10);
	if (*end)
		usage();
	c->uid = (uid_t)u;
	c->gid = (gid_t)g;
	c->drop = true;
}

static int parse_args(int argc, char **argv, struct conf *c)
{
	int opt;

	*c = (struct conf){ .pattern = "*", .count = 1, .cpu = -1,
			    .plants = 202,
			    .events = IN_CREATE | IN_MOVED_TO };
	while ((opt = getopt(argc, argv, "+u:k:t:n:c:e:x:rfo:sl:p:P:R:N:")) != -1) {
		switch (opt) {
		case 'u': parse_user(optarg, c); break;
		case 'k': c->kind = parse_kind(optarg); break;
		case 't': c->target = optarg; break;
		case 'n': c->pattern = optarg; break;
		case 'c': c->count = parse_count(optarg, 0); break;
		case 'e': c->events = parse_events(optarg); break;
		case 'x': c->xname = optarg; break;
		case 'r': c->replace = true; break;
		case 'f': c->flip = true; break;
		case 'o': c->objdir = optarg; break;
		case 's': c->spin = true; break;
		case 'l': c->log = optarg; break;
		case 'p': c->cpu = (int)parse_count(optarg, 0); break;
		case 'P': c->plant_pid = optarg; break;
		case 'R': c->plant_prefix = optarg; break;
		case 'N': c->plants = parse_count(optarg, 1); break;
		default: usage();
		}
	}
	if (argc - optind < 2 ||
	    ((c->kind == KIND_SYMLINK || c->kind == KIND_HARDLINK) &&
	     !c->target) ||
	    (c->plant_pid && c->plant_prefix) ||
	    (c->flip && (c->replace || c->count != 1)) ||
	    c->cpu >= CPU_SETSIZE || (!strcmp(c->pattern, ".") && !c->xname))
		usage();
	c->dir = argv[optind];
	return optind + 1;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("pinning to a CPU", NULL);
}

static void drop_privileges(const struct conf *c)
{
	if (!c->drop)
		return;
	if (setgroups(0, NULL) < 0 || setresgid(c->gid, c->gid, c->gid) < 0 ||
	    setresuid(c->uid, c->uid, c->uid) < 0)
		die("dropping privileges", NULL);
}

/* One object of C's kind, NAME in DIR (DFD).  0 or -1 (errno). */
static int make_object(int dfd, const struct conf *c, const char *name)
{
	int fd;

	switch (c->kind) {
	case KIND_SYMLINK:
		return symlinkat(c->target, dfd, name);
	case KIND_HARDLINK:
		return linkat(AT_FDCWD, c->target, dfd, name, 0);
	case KIND_DIR:
		return mkdirat(dfd, name, 0755);
	default:
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    0644);
		return fd < 0 ? -1 : close(fd);
	}
}

/* The objects to swap in, .swap.0 ... .swap.COUNT-1 in DIR or OBJDIR
 * (by DFD); their inode numbers into T. */
static void make_objects(int dfd, const struct conf *c, struct tried *t)
{
	char name[32];
	struct stat st;

	for (unsigned i = 0; i < c->count; i++) {
		snprintf(name, sizeof(name), PREFIX "%u", i);
		if (make_object(dfd, c, name) < 0 ||
		    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			die("making", name);
		t[i].ino = st.st_ino;
	}
}

/* -R: the names smartcp 396ad10 tried from SEED, N of them. */
static unsigned plant_random(int dfd, const struct conf *c, unsigned seed)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(c->plant_prefix);
	char name[256];
	unsigned made = 0;

	if (n > sizeof(name) - 7)
		usage();
	memcpy(name, c->plant_prefix, n);
	for (unsigned i = 0; i < c->plants; i++) {
		for (size_t k = 0; k < 6; k++)
			name[n + k] = abc[rand_r(&seed) % 36];
		name[n + 6] = '\0';
		if (make_object(dfd, c, name) == 0)
			made++;
		else if (errno != EEXIST)
			die("planting", name);
	}
	return made;
}

/* -P, -R: the names PROGRAM (PID) will try, made first; how many. */
static unsigned plant(int dfd, const struct conf *c, pid_t pid)
{
	unsigned made = 0;
	char name[256];

	if (c->plant_prefix) {
		time_t now = time(NULL);

		for (time_t t = now - 1; t <= now + 2; t++)
			made += plant_random(dfd, c,
					     (unsigned)pid ^ (unsigned)t);
	} else if (c->plant_pid) {
		for (unsigned i = 0; i < c->plants; i++) {
			if (snprintf(name, sizeof(name), "%s%d.%u",
				     c->plant_pid, (int)pid, i) >=
			    (int)sizeof(name))
				usage();
			if (make_object(dfd, c, name) < 0)
				die("planting", name);
			made++;
		}
	}
	return made;
}

/* The name EV asks to swap (-x NAME whatever EV names), or NULL when it
 * asks for none: not one of ours, not one swapped before. */
static const char *wanted(const struct conf *c,
			  const struct inotify_event *ev,
			  const struct tried *t, unsigned n)
{
	const char *name = c->xname ? c->xname : ev->name;

	if (!(ev->mask & c->events) ||
	    (ev->len && !strncmp(ev->name, PREFIX, sizeof(PREFIX) - 1)) ||
	    (ev->len ? fnmatch(c->pattern, ev->name, 0) :
		       !c->xname || strcmp(c->pattern, ".")))
		return NULL;
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return NULL;
	return name;
}

/* Puts object OBJ in NAME's place: exchanged with it, or, when NAME has
 * just gone (MASK), in the place it left, or (-r) over it.  0 or an
 * errno. */
static int swap_one(int odfd, int dfd, const struct conf *c,
		    const char *obj, const char *name, uint32_t mask)
{
	unsigned flags = (mask & GONE) ? RENAME_NOREPLACE :
			 c->replace ? 0 : RENAME_EXCHANGE;

	return syscall(SYS_renameat2, odfd, obj, dfd, name, flags) < 0 ?
	       errno : 0;
}

/* Swaps what BUF (N bytes of events) names, in DFD with the objects in
 * ODFD; the number tried so far. */
static unsigned swap_events(const int dfd[2], const struct conf *c,
			    const char *buf, ssize_t n, struct tried *t,
			    unsigned done)
{
	for (ssize_t off = 0; off < n && done < c->count;) {
		const struct inotify_event *ev =
			(const struct inotify_event *)(buf + off);
		const char *name = wanted(c, ev, t, done);
		char obj[32];

		off += (ssize_t)sizeof(*ev) + ev->len;
		if (!name)
			continue;
		snprintf(obj, sizeof(obj), PREFIX "%u", done);
		t[done].err = swap_one(dfd[1], dfd[0], c, obj, name,
				       ev->mask);
		t[done].name = strdup(name);
		if (!t[done].name)
			die("strdup", NULL);
		done++;
	}
	return done;
}

/* Has the program (PIDFD) ended? */
static bool ended(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* -f: NAME (swapped with object .swap.0 a moment ago) and the object
 * exchanged until the program (PIDFD) ends; how many times. */
static unsigned long flip(int pidfd, const int dfd[2], const char *name)
{
	unsigned long n = 0;

	for (unsigned i = 1;; i++) {
		/* a name gone for a moment (renamed by the copy) may come
		 * back: tried again until the end */
		if (syscall(SYS_renameat2, dfd[1], PREFIX "0", dfd[0], name,
			    RENAME_EXCHANGE) == 0)
			n++;
		if (i % 8 == 0 && ended(pidfd))
			return n;
	}
}

/* Watches until the program (PIDFD) has ended or COUNT swaps were tried;
 * the number tried.  -f: the flips into *FLIPS. */
static unsigned watch(int in, int pidfd, const int dfd[2],
		      const struct conf *c, struct tried *t,
		      unsigned long *flips)
{
	char buf[64 * 1024] __attribute__((aligned(8)));
	struct pollfd p[2] = { { .fd = in, .events = POLLIN },
			       { .fd = pidfd, .events = POLLIN } };
	unsigned done = 0;

	while (done < c->count) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n > 0) {
			done = swap_events(dfd, c, buf, n, t, done);
			if (c->flip && done && !t[0].err)
				*flips = flip(pidfd, dfd, t[0].name);
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			die("reading inotify events", NULL);
		if (poll(p, 2, c->spin ? 0 : -1) < 0 && errno != EINTR)
			die("poll", NULL);
		if (p[1].revents)
			break;	/* the program has ended */
	}
	return done;
}

static void write_log(FILE *f, const struct conf *c, const struct tried *t,
		      unsigned n, unsigned planted, unsigned long flips)
{
	if (c->plant_pid || c->plant_prefix)
		fprintf(f, "planted %u\n", planted);
	if (c->flip)
		fprintf(f, "flipped %lu\n", flips);
	for (unsigned i = 0; i < n; i++) {
		if (t[i].err)
			fprintf(f, "missed %s " PREFIX "%u: %s\n", t[i].name,
				i, strerror(t[i].err));
		else
			fprintf(f, "swapped %s " PREFIX "%u %llu\n", t[i].name,
				i, (unsigned long long)t[i].ino);
	}
	if (fflush(f) == EOF || (c->log && fclose(f) == EOF))
		die("writing", c->log ? c->log : "the log");
}

/* The program, started once the parent says so (a byte on GO); without
 * it (the parent died) it never runs. */
static pid_t start(char **argv, int *go)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe", NULL);
	pid = fork();
	if (pid < 0)
		die("fork", NULL);
	if (pid == 0) {
		char b;

		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(125);
		close(p[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "swapper: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/* The events of making the objects are not the program's. */
static void drain(int in)
{
	char buf[4096] __attribute__((aligned(8)));

	while (read(in, buf, sizeof(buf)) > 0)
		;
}

int main(int argc, char **argv)
{
	static struct tried t[MAX_SWAPS];
	struct conf c;
	FILE *log;
	int first = parse_args(argc, argv, &c), in, dfd[2], go, st, pidfd;
	unsigned n, planted;
	unsigned long flips = 0;
	pid_t pid;

	/* opened as the caller: UID may not write there */
	log = c.log ? fopen(c.log, "w") : stdout;
	if (!log)
		die("opening", c.log);
	pin(c.cpu);
	pid = start(argv + first, &go);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		die("pidfd_open", NULL);
	drop_privileges(&c);
	dfd[0] = open(c.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd[0] < 0)
		die("opening", c.dir);
	dfd[1] = c.objdir ? open(c.objdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) :
			    dfd[0];
	if (dfd[1] < 0)
		die("opening", c.objdir);
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, c.dir, c.events | IN_ONLYDIR) < 0)
		die("watching", c.dir);
	make_objects(dfd[1], &c, t);
	planted = plant(dfd[0], &c, pid);
	drain(in);
	if (write(go, "g", 1) != 1)
		die("starting the program", NULL);
	close(go);
	n = watch(in, pidfd, dfd, &c, t, &flips);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid", NULL);
	write_log(log, &c, t, n, planted, flips);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
