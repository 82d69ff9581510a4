/* -j: runs of new files handed to worker threads, read ahead, and what
 * their copies came to said on the walk thread, in the walk's order. */
#include "common.h"
#include "tree/jobs.h"
#include "tree/progress.h"
#include "tree/paths.h"
#include "tree/readahead.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#ifndef MAX
# define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

/* -j: a run of consecutive new regular files of one directory, for one
 * worker.  Whole runs keep workers in different directories (creating
 * files in one directory serialises on its lock) and cost one hand-over
 * for many files. */
#define JOB_MAX 256
struct job {
	char *src[JOB_MAX], *dst[JOB_MAX];
	unsigned n;
	unsigned n_done;	/* the worker handed back the rest */
	/* what the copies of the first N_DONE came to, said by the walk
	 * thread (their reports from the run's spares) */
	struct job_result res[JOB_MAX];
	const struct sc_fs_facts *parent_facts;
	/* their data is read ahead in batches (readahead.c): the source
	 * directory is on a block-device filesystem */
	bool batch_reads;
	int dirfd;		/* their source directory, or -1 */
	int dst_dirfd;		/* the directory of their copies, or -1 */
};

struct jobs {
	const struct tree_opts *o;
	const struct jobs_ops *ops;
	void *arg;
	struct pool *pool;	/* NULL until the first job */
	unsigned jobs;		/* jobs_for(): 1 means no workers */
	unsigned workers;	/* threads the pool started with */
	/* Each worker's batches of reads (readahead.c), or NULL where
	 * io_uring cannot be had: posix_fadvise() then. */
	struct readahead **ra;
	/* The pool is saying a finished job, on the walk thread: output
	 * goes straight out. */
	bool flushing;
	/* Reports no job holds, for the workers' next files: as many as
	 * were ever in jobs at once (at most JOB_MAX for each job in the
	 * queue), made as they were first needed.  Under SPARE_LOCK. */
	struct sc_copy_report **spare;
	size_t n_spare, cap_spare;
	pthread_mutex_t spare_lock;
	/* The descriptors allowed, shared out (fd_plan()): directory levels
	 * the walk keeps open, jobs queued (two each), files opened ahead
	 * by each worker. */
	unsigned levels, queue, ahead;
	/* Out of descriptors all the same (jobs_fd_short()): no more
	 * read-ahead, and fewer workers copying at once. */
	atomic_bool short_of_fds;
	pthread_mutex_t gate;
	pthread_cond_t gate_open;
	unsigned active, allowed;	/* under GATE */
	/* The default's lone worker (jobs_ready()): files probed while
	 * no answer came, and what workers_for() said, 0 until asked. */
	unsigned probes, wanted;
};

/* The CPUs this process may run on: those of its affinity mask
 * (taskset, a cpuset cgroup, a container's limit), not all the machine
 * has, which more workers than it may use would only contend for; the
 * online ones where the mask cannot be read. */
static long cpus_usable(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set))
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* Parallel only where order and prompts cannot suffer: a tree, really
 * copied, without questions or temporaries to track. */
static unsigned jobs_for(const struct tree_opts *o)
{
	long n;

	if (!o->recursive || o->explain || o->atomic)
		return 1;
	if (o->jobs)
		return MIN(o->jobs, TREE_THREADS - 1);
	n = cpus_usable();
	return n > 1 ? (unsigned)MIN(n, 16) : 1;
}

/* -j: how many files of its run a worker keeps open ahead of the one it
 * copies, their data asked for.  A worker that opens, reads and writes one
 * small file after another has one read in flight at a time, and a cold
 * tree then runs at the device's depth-1 rate; the disk here answers ~3x
 * as many random 4 KiB reads a second with 8 in flight (fio, O_DIRECT).
 * The files are opened in batches of half as many (read_ahead()), whose
 * reads go to the device together (readahead.c): the larger the batch,
 * the fewer requests and interrupts. */
#define READ_AHEAD 32

/* Descriptors kept for what is not counted below: stdin, stdout, stderr,
 * libmount's and libblkid's files, xattr.conf, a backup's directory. */
#define FD_RESERVE 16
/* What the walk thread opens besides its directory levels: a directory
 * being listed, the source and the copy of a file, one more. */
#define FD_WALK 4
/* What a worker needs at least: the source and the copy, one more
 * (--if-changed, --verify reopen nothing, but libattr may). */
#define FD_WORKER 3

/* Descriptors open now, at the start: what the caller left open counts
 * against the limit too (a shell's `exec 9<file`, a parent's pipes).
 * /proc/self/fd lists them (less the one reading it); without /proc,
 * the lowest ones are asked for. */
static unsigned long fds_open(unsigned long limit)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned long n = 0;

	if (d) {
		while (readdir(d))
			n++;
		closedir(d);
		return n > 3 ? n - 3 : 0;	/* ".", "..", and D's own */
	}
	for (int fd = 0; (unsigned long)fd < MIN(limit, 4096ul); fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* Shares the descriptors RLIMIT_NOFILE allows among what keeps them, so
 * that a copy never runs out whatever the tree: directory levels the walk
 * keeps open (2 each: a tree of any depth costs no more, levels.c reopens
 * the others), then workers (fewer than asked when they cannot all have
 * FD_WORKER), then what is left, half to read-ahead, half to jobs
 * waiting in the queue (2 each: their source directory and its copy's).
 * Under `ulimit -n 64`, -j8: 4 levels, 8 workers, no read-ahead, 5 jobs
 * queued; at the usual 1024 nothing is cut but the queue's fds. */
static void fd_plan(struct jobs *j)
{
	struct rlimit rl;
	unsigned long limit = 1024, avail, left, used, w = j->jobs;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		limit = rl.rlim_cur == RLIM_INFINITY ? 1u << 20 :
			MIN(rl.rlim_cur, 1u << 20);
	/* stdin, stdout and stderr are in FD_RESERVE; anything else open
	 * is not ours to use */
	used = fds_open(limit);
	limit = limit > used - MIN(used, 3ul) ? limit - (used - MIN(used, 3ul)) : 0;
	j->levels = (unsigned)MIN(MAX(limit / 16, 2ul), 16ul);
	avail = limit > FD_RESERVE + FD_WALK + 2 * j->levels ?
		limit - FD_RESERVE - FD_WALK - 2 * j->levels : 0;
	if (w > 1 && avail / FD_WORKER < w)
		w = MAX(avail / FD_WORKER, 1ul);
	j->jobs = (unsigned)w;
	left = w > 1 ? avail - FD_WORKER * w : 0;
	j->ahead = w > 1 ? (unsigned)MIN(left / 2 / w, (unsigned long)READ_AHEAD) : 0;
	left -= j->ahead * (w > 1 ? w : 0);
	/* a job in the queue and the one being filled hold 2 each */
	j->queue = (unsigned)MIN(MAX(left / 2, 2ul) - 1, 64ul * w);
}

int jobs_new(const struct tree_opts *o, const struct jobs_ops *ops,
		void *arg, struct jobs **ret)
{
	struct jobs *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->o = o;
	j->ops = ops;
	j->arg = arg;
	j->jobs = jobs_for(o);
	/* Without -r there is no tree to share descriptors in: the plan's
	 * getrlimit and /proc/self/fd scan (5 system calls) would be paid
	 * by every one-file call of a script for nothing. */
	if (o->recursive)
		fd_plan(j);
	else
		j->levels = 2;
	pthread_mutex_init(&j->gate, NULL);
	pthread_cond_init(&j->gate_open, NULL);
	pthread_mutex_init(&j->spare_lock, NULL);
	*ret = j;
	return 0;
}

unsigned jobs_levels(const struct jobs *j)
{
	return j->levels;
}

void jobs_fd_short(struct jobs *j)
{
	atomic_store(&j->short_of_fds, true);
	pthread_mutex_lock(&j->gate);
	if (j->allowed > 1)
		j->allowed--;
	pthread_mutex_unlock(&j->gate);
}

/* A worker may copy a file: as many at once as are allowed. */
static void gate_enter(struct jobs *j)
{
	pthread_mutex_lock(&j->gate);
	while (j->active >= j->allowed)
		pthread_cond_wait(&j->gate_open, &j->gate);
	j->active++;
	pthread_mutex_unlock(&j->gate);
}

static void gate_leave(struct jobs *j)
{
	pthread_mutex_lock(&j->gate);
	j->active--;
	pthread_cond_broadcast(&j->gate_open);
	pthread_mutex_unlock(&j->gate);
}

/* A report for a worker's next file: a spare one, or a new one.  NULL
 * when there is no memory for it. */
static struct sc_copy_report *report_get(struct jobs *j)
{
	struct sc_copy_report *rep = NULL;

	pthread_mutex_lock(&j->spare_lock);
	if (j->n_spare)
		rep = j->spare[--j->n_spare];
	pthread_mutex_unlock(&j->spare_lock);
	if (!rep && sc_copy_report_new(&rep) < 0)
		return NULL;
	return rep;
}

/* The N reports of RES back among the spares. */
static void reports_put(struct jobs *j, struct job_result *res,
			unsigned n)
{
	pthread_mutex_lock(&j->spare_lock);
	for (unsigned i = 0; i < n; i++) {
		struct sc_copy_report *rep = (struct sc_copy_report *)res[i].rep;

		if (sc_grow(j->spare, j->n_spare, j->cap_spare, 64) == 0)
			j->spare[j->n_spare++] = rep;
		else
			sc_copy_report_free(rep);
		res[i].rep = NULL;
	}
	pthread_mutex_unlock(&j->spare_lock);
}

/* Closes what JOB keeps open. */
static void job_close(struct job *job)
{
	if (job->dirfd >= 0)
		close(job->dirfd);
	if (job->dst_dirfd >= 0)
		close(job->dst_dirfd);
	job->dirfd = job->dst_dirfd = -1;
}

static void job_free(struct job *job)
{
	job_close(job);
	for (unsigned i = 0; i < job->n; i++) {
		free(job->src[i]);
		free(job->dst[i]);
	}
	free(job);
}

/* --- on a worker -------------------------------------------------------- */

struct ahead {
	int fd[JOB_MAX];	/* opened ahead, or -errno */
	/* their fstat, file I's at I % (READ_AHEAD + 1): the files open
	 * ahead are I to I + READ_AHEAD at most */
	struct stat st[READ_AHEAD + 1];
	unsigned next;		/* first file not yet opened ahead */
	bool data;		/* ask for their data too */
	struct readahead *ra;	/* the worker's batches, or NULL */
};

/* Opens JOB's file I as the walk's copy of a new file would, takes its
 * fstat (before anything reads it: -p keeps the access time the file
 * had) and asks for its data, if DATA.  A regular file of a filesystem
 * on a block device joins the batch that read_ahead() sends; otherwise,
 * POSIX_FADV_WILLNEED starts the reads of the whole file (length 0: up
 * to i_size) and returns without waiting for them (mm/fadvise.c ->
 * force_page_cache_ra).  A file of another kind (a FIFO put in the
 * file's place) is not read: that would take a writer's data.  A
 * descriptor, or -errno: the copy then opens the file itself and
 * reports whatever went wrong, as before. */
static int open_ahead(const struct job *job, unsigned i,
		      const struct ahead *a, struct stat *st)
{
	int fd = job->dirfd >= 0 ?
		 openat(job->dirfd, tree_path_last(job->src[i]),
			NEW_SRC_FLAGS) :
		 open(job->src[i], NEW_SRC_FLAGS);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!a->data || !S_ISREG(st->st_mode) || st->st_size <= 0)
		return fd;
	if (a->ra && job->batch_reads &&
	    readahead_add(a->ra, fd, st->st_size))
		return fd;
	posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
	return fd;
}

/* Keeps the files after file I of JOB open ahead, as many as the
 * descriptors allow (fd_plan()): none once they ran short.  They are
 * opened in batches: when fewer than half the depth are left ahead, up
 * to the depth, their reads sent together. */
static void read_ahead(const struct jobs *j, const struct job *job,
		       struct ahead *a, unsigned i)
{
	unsigned depth = atomic_load(&j->short_of_fds) ? 0 : j->ahead;

	/* every file before NEXT was opened ahead (or was not, < 0) */
	if (!depth)
		return;
	if (a->next <= i)
		a->next = i;
	else if (a->next > i + (depth + 1) / 2 || a->next >= job->n)
		return;
	for (; a->next < job->n && a->next <= i + depth; a->next++)
		a->fd[a->next] = open_ahead(job, a->next, a,
					    &a->st[a->next % (READ_AHEAD + 1)]);
	if (a->ra)
		readahead_submit(a->ra);
}

static void ahead_close(const struct job *job, struct ahead *a)
{
	for (unsigned i = 0; i < a->next && i < job->n; i++)
		if (a->fd[i] >= 0)
			close(a->fd[i]);
}

/* -j worker thread: copy a run of new files, keeping what each came to
 * in the job. */
static void run_job(void *arg, void *p, unsigned id)
{
	struct jobs *j = arg;
	struct job *job = p;
	struct ahead a = { .next = 0, .ra = j->ra ? j->ra[id] : NULL };

	/* A clone shares the source's blocks without reading them: reading
	 * them ahead would only cost a cold tree on btrfs or xfs reads it
	 * never needed. */
	a.data = !job->parent_facts ||
		 sc_fs_facts_can_clone(job->parent_facts) == SC_NO ||
		 j->o->reflink_never;
	for (job->n_done = 0; job->n_done < job->n; job->n_done++) {
		unsigned i = job->n_done;
		struct job_file f = {
			.src = job->src[i], .dst = job->dst[i],
			.dirfd = job->dirfd, .dst_dirfd = job->dst_dirfd,
			.parent_facts = job->parent_facts,
			.ahead_fd = -1,
		};
		struct job_result *res = &job->res[i];
		struct sc_copy_report *rep = report_get(j);
		int r;

		if (!rep)
			break;	/* no memory: the walk copies the rest */
		gate_enter(j);
		read_ahead(j, job, &a, i);
		if (i < a.next) {
			f.ahead_fd = a.fd[i];
			f.ahead_st = &a.st[i % (READ_AHEAD + 1)];
			a.fd[i] = -1;	/* the copy closes it */
		}
		*res = (struct job_result){ .rep = rep };
		r = j->ops->copy(j->arg, id, &f, rep, res);
		gate_leave(j);
		if (r == JOB_BACK) {
			reports_put(j, res, 1);
			break;	/* the rest goes back to the walk, in order */
		}
	}
	ahead_close(job, &a);
	if (a.ra)
		readahead_wait(a.ra);
	/* its directories go back when the walk says the job: the
	 * caller's after may look at a source that failed through them
	 * (struct sc_tree_entry's src_dirfd) */
}

/* --- on the walk thread ------------------------------------------------- */

/* On the walk thread, with nothing of the pool's left to print before
 * them: JOB's files from its N_DONE-th on, by the general path. */
static void copy_back(struct jobs *j, struct job *job)
{
	j->flushing = true;
	for (unsigned i = job->n_done; i < job->n; i++) {
		struct job_file f = {
			.src = job->src[i], .dst = job->dst[i],
			.dirfd = job->dirfd, .dst_dirfd = job->dst_dirfd,
			.parent_facts = job->parent_facts,
			.ahead_fd = -1,
		};

		j->ops->copy_back(j->arg, &f);
	}
	j->flushing = false;
	job_free(job);
}

/* On the walk thread, in the walk's order: what the copies of JOB's
 * files that a worker made came to, said. */
static void say_job(struct jobs *j, struct job *job)
{
	j->flushing = true;
	for (unsigned i = 0; i < job->n_done; i++) {
		struct job_file f = {
			.src = job->src[i], .dst = job->dst[i],
			.dirfd = job->dirfd, .dst_dirfd = job->dst_dirfd,
			.parent_facts = job->parent_facts,
			.ahead_fd = -1,
		};

		j->ops->after(j->arg, &f, &job->res[i]);
	}
	j->flushing = false;
	reports_put(j, job->res, job->n_done);
}

/* -j, on the walk thread: say a finished job, or print what the walk
 * thread said while jobs before it were not yet said, in order. */
static void flush_slot(void *arg, struct pool_slot *slot)
{
	struct jobs *j = arg;
	struct job *job = slot->job;

	if (!job) {
		if (!j->ops->output)
			return;	/* nothing was buffered: no one to hand it */
		if (slot->n_runs)
			j->ops->output(j->arg, slot->seq, 0, NULL, 0,
				       slot->runs, slot->n_runs);
		else
			j->ops->output(j->arg, slot->out_buf, slot->out_len,
				       slot->err_buf, slot->err_len, NULL, 0);
		return;
	}
	say_job(j, job);
	/* Files a worker handed back (a hard link, a file that changed
	 * type): the general path, here, at their place in the order. */
	copy_back(j, job);
}

/* Is DST ext4 without a journal?  ext4 says so for a mounted filesystem
 * in /sys/fs/ext4/DEV/journal_task: "<none>" (fs/ext4/sysfs.c), DEV
 * being the block device's name (/sys/dev/block/MAJ:MIN leads to it). */
static bool ext4_without_journal(const struct sc_fs_facts *dst)
{
	char link[PATH_MAX], path[PATH_MAX + 64], buf[16] = "";
	const char *name;
	ssize_t n;
	int fd;

	if (!dst || sc_fs_facts_magic(dst) != 0xEF53)	/* EXT4_SUPER_MAGIC */
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u",
		 major(sc_fs_facts_dev(dst)), minor(sc_fs_facts_dev(dst)));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	name = strrchr(link, '/');
	snprintf(path, sizeof(path), "/sys/fs/ext4/%s/journal_task",
		 name ? name + 1 : link);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= 6 && !strncmp(buf, "<none>", 6);
}

/* How many workers copy into DST when -j was not given: J->jobs (one a
 * CPU), but at most one on ext4 without a journal.  There ext4 checks
 * every inode it is about to allocate for a recent deletion by looking
 * its inode table block up in the buffer cache (fs/ext4/ialloc.c,
 * recently_deleted(), only when the filesystem has no journal), and a
 * new file's inode is searched from the start of the first group of its
 * parent's flex group with free inodes (find_group_other()): every
 * directory of a tree copy shares that group, so two threads creating
 * files at once race for the same free inodes whatever directories they
 * fill.  Measured on this kind of machine: -j2 spent twice the kernel
 * time of -j1, and a third of it under recently_deleted(); a lock around
 * our own creates did not help (5 runs each, shared machine).
 * One worker still overlaps the walk with the copies and keeps reads in
 * flight (read_ahead), which pays when they wait on the device; with the
 * tree in the page cache even that one meets the walk in ext4 (measured
 * warm on this VM's root filesystem, 20,000 files, 5 runs alternating:
 * one worker 0.86 s median and 0.77 s of system time, none 0.62 s and
 * 0.51 s, cp -r 0.70 s), so jobs_ready() asks first. */
static unsigned workers_for(const struct jobs *j,
			    const struct sc_fs_facts *dst)
{
	if (!j->o->jobs && ext4_without_journal(dst))
		return 1;
	return j->jobs;
}

/* cachestat(2), Linux 6.5 (include/uapi/linux/mman.h); glibc 2.36 has no
 * wrapper, and the number is the same on every architecture. */
#ifndef SYS_cachestat
# define SYS_cachestat 451
#endif
struct cachestat_range {
	uint64_t off, len;		/* len 0: to the end of the file */
};
struct cachestat_out {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		 nr_recently_evicted;
};

/* What data_cached() found. */
enum cached {
	CACHED_NOT = 0,
	CACHED_ALL,
	CACHED_UNKNOWN,		/* an empty file, not a regular file, no way
				 * to ask */
};

/* Are the first LEN bytes of FD's data all in the page cache, as
 * mincore(2) on a map of them tells?  enum cached. */
static enum cached map_cached(int fd, size_t len, long page)
{
	size_t n = (len + (size_t)page - 1) / (size_t)page;
	unsigned char vec[256];	/* 1 MiB of 4 KiB pages */
	enum cached r = CACHED_UNKNOWN;
	void *map;

	if (n > sizeof(vec))
		return CACHED_UNKNOWN;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return CACHED_UNKNOWN;
	if (mincore(map, len, vec) == 0) {
		r = CACHED_ALL;
		for (size_t i = 0; i < n; i++)
			if (!(vec[i] & 1))
				r = CACHED_NOT;
	}
	munmap(map, len);
	return r;
}

/* Is the data of NAME in directory DIRFD all in the page cache?  enum
 * cached.  cachestat(2) asks in one call; before 6.5, or where it is
 * refused (a file we neither own nor may write), mincore(2) on a map of
 * its first MiB.  A map marks the file accessed (mmap's file_accessed()):
 * when the copy keeps the source's times (KEEP_ATIME) it must find the
 * atime as it was, so the map is made through O_NOATIME, which only the
 * file's owner may use, or not at all. */
static enum cached data_cached(int dirfd, const char *name, bool keep_atime)
{
	long page = sysconf(_SC_PAGESIZE);
	struct cachestat_range range = { 0, 0 };
	struct cachestat_out cs;
	struct stat st;
	uint64_t pages;
	int fd = openat(dirfd, name, NEW_SRC_FLAGS);
	enum cached r = CACHED_UNKNOWN;

	if (fd < 0)
		return CACHED_UNKNOWN;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    page <= 0)
		goto out;
	pages = ((uint64_t)st.st_size + (uint64_t)page - 1) / (uint64_t)page;
	if (syscall(SYS_cachestat, fd, &range, &cs, 0) == 0) {
		r = cs.nr_cache >= pages ? CACHED_ALL : CACHED_NOT;
	} else {
		size_t len = (size_t)MIN((uint64_t)st.st_size, (uint64_t)1 << 20);
		int mfd = fd;

		if (keep_atime) {
			mfd = openat(dirfd, name, NEW_SRC_FLAGS | O_NOATIME);
			if (mfd < 0)
				goto out;
		}
		r = map_cached(mfd, len, page);
		if (mfd != fd)
			close(mfd);
	}
out:
	close(fd);
	return r;
}

/* Each worker's ring for its batches of reads, made here on the walk
 * thread before the workers start.  Where there is none (no io_uring, no
 * memory, no read-ahead), posix_fadvise() asks a file at a time. */
static void start_read_ahead(struct jobs *j)
{
	unsigned made = 0;

	if (!j->workers || j->ahead < 2 ||
	    !(j->ra = calloc(j->workers, sizeof(*j->ra))))
		return;
	for (unsigned i = 0; i < j->workers; i++)
		made += readahead_new(&j->ra[i]) == 0;	/* else NULL */
	if (!made) {
		free(j->ra);
		j->ra = NULL;
		return;
	}
	/* a ring is a descriptor: where they are counted (fd_plan()),
	 * it takes one of the worker's files ahead */
	if (j->ahead < READ_AHEAD)
		j->ahead--;
}

/* Files probed for the lone worker's question before it starts anyway. */
#define PROBE_MAX 16

/* The workers start with the first run of files to hand them, not
 * before: a copy of one file, or of directories holding none, costs no
 * threads.  Where the default comes to one worker (workers_for()), it
 * starts only if the first file with data, NAME in DIRFD, is not all in
 * the page cache: a tree read from the device keeps its reads in flight,
 * a cached one is copied by the walk alone. */
bool jobs_ready(struct jobs *j, const struct sc_fs_facts *dst,
		   int dirfd, const char *name)
{
	if (j->pool)
		return true;
	if (j->jobs <= 1)
		return false;
	if (!j->wanted)
		j->wanted = workers_for(j, dst);
	if (j->wanted == 1 && j->probes < PROBE_MAX) {
		enum cached cached = data_cached(dirfd, name,
						 j->o->preserve_timestamps);

		if (cached == CACHED_ALL) {
			j->jobs = 1;	/* for the rest of the run */
			return false;
		}
		if (cached == CACHED_UNKNOWN) {
			j->probes++;	/* this file here; ask with the next */
			return false;
		}
	}
	/* Short of memory, fewer workers (each has a copy buffer; the pool
	 * starts as many threads as it can): none, and the walk copies. */
	j->workers = j->ops->start(j->arg, j->wanted);
	j->allowed = j->workers;
	start_read_ahead(j);
	if (!j->workers ||
	    pool_new(j->workers, j->queue,
			j->ops->interleave, run_job,
			flush_slot, j, &j->pool) < 0) {
		jobs_finish(j);
		j->jobs = 1;	/* no threads: copy one by one */
		return false;
	}
	return true;
}

bool jobs_running(const struct jobs *j)
{
	return j->pool;
}

struct pool_slot *jobs_own_slot(struct jobs *j)
{
	if (j && j->pool && !j->flushing)
		return pool_own_slot(j->pool);
	return NULL;
}

void jobs_submit(struct jobs *j, struct job **batch)
{
	struct job *job = *batch;

	if (!job)
		return;
	*batch = NULL;
	if (pool_submit(j->pool, job) == 0)
		return;
	/* no memory for its place in the queue: its files come after
	 * everything queued, copied here */
	pool_drain(j->pool);
	copy_back(j, job);
}

/* A descriptor of directory FD of its own for a job, or -1 (FD < 0, or
 * none to be had). */
static int keep_dir(int fd)
{
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

int jobs_add(struct jobs *j, struct job **batch, int dirfd,
		const struct sc_fs_facts *src_facts, int dst_dirfd,
		const struct sc_fs_facts *facts, char *src, char *dst)
{
	struct job *job = *batch;

	if (!job) {
		/* short of memory: this one is the walk's */
		if (!(job = calloc(1, sizeof(*job))))
			return -ENOMEM;
		job->dirfd = keep_dir(dirfd);
		job->dst_dirfd = keep_dir(dst_dirfd);
		if ((dirfd >= 0 && job->dirfd < 0) ||
		    (dst_dirfd >= 0 && job->dst_dirfd < 0)) {
			/* out of descriptors: this one is the walk's */
			jobs_fd_short(j);
			job_close(job);
			free(job);
			return -EMFILE;
		}
	}
	*batch = job;
	job->src[job->n] = src;
	job->dst[job->n++] = dst;
	job->parent_facts = facts;
	job->batch_reads = src_facts && sc_fs_facts_class(src_facts) == SC_FS_LOCAL;
	/* the pool owns it from here */
	if (job->n == JOB_MAX)
		jobs_submit(j, batch);
	return 0;
}

void jobs_finish(struct jobs *j)
{
	pool_free(j->pool);	/* waits for and prints everything */
	j->pool = NULL;
	j->ops->stop(j->arg, j->workers);
	for (unsigned i = 0; j->ra && i < j->workers; i++)
		readahead_free(j->ra[i]);
	free(j->ra);
	j->ra = NULL;
	while (j->n_spare)
		sc_copy_report_free(j->spare[--j->n_spare]);
	free(j->spare);
	j->spare = NULL;
	j->cap_spare = 0;
}


void jobs_free(struct jobs *j)
{
	if (!j)
		return;
	pthread_mutex_destroy(&j->gate);
	pthread_cond_destroy(&j->gate_open);
	pthread_mutex_destroy(&j->spare_lock);
	free(j);
}
