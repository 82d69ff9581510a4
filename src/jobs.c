/* -j: runs of new files handed to worker threads, read ahead, and their
 * output put back in the walk's order. */
#include "system.h"
#include "jobs.h"
#include "dest.h"
#include "paths.h"
#include "quote.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>

/* -j: a run of consecutive new regular files of one directory, for one
 * worker.  Whole runs keep workers in different directories (creating
 * files in one directory serialises on its lock) and cost one hand-over
 * for many files. */
#define JOB_MAX 256
struct sc_job {
	char *src[JOB_MAX], *dst[JOB_MAX];
	unsigned n;
	unsigned n_done;	/* the worker handed back the rest */
	unsigned failed;	/* files that failed */
	const struct sc_fs_facts *parent_facts;
	int dirfd;		/* their source directory, or -1 */
};

struct sc_jobs {
	const struct sc_options *o;
	const struct sc_jobs_ops *ops;
	void *arg;
	struct sc_pool *pool;	/* NULL until the first job */
	unsigned jobs;		/* jobs_for(): 1 means no workers */
	unsigned workers;	/* threads the pool started with */
	/* The pool is printing a finished job, on the walk thread: output
	 * goes straight out. */
	bool flushing;
	unsigned failed;	/* files that failed on workers */
	int fd_budget;		/* see sc_jobs_keep_fd() */
};

/* Parallel only where order and prompts cannot suffer: a tree, really
 * copied, without questions or temporaries to track. */
static unsigned jobs_for(const struct sc_options *o)
{
	long n;

	if (!o->recursive || o->explain || o->atomic || o->parents ||
	    o->interactive == SC_OVERWRITE_ASK)
		return 1;
	if (o->jobs)
		return MIN(o->jobs, SC_DEST_THREADS - 1);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (unsigned)MIN(n, 16) : 1;
}

/* The lower half of the descriptors allowed. */
static int fd_budget(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	       rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < INT_MAX ?
	       (int)(rl.rlim_cur / 2) : 512;
}

int sc_jobs_new(const struct sc_options *o, const struct sc_jobs_ops *ops,
		void *arg, struct sc_jobs **ret)
{
	struct sc_jobs *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->o = o;
	j->ops = ops;
	j->arg = arg;
	j->jobs = jobs_for(o);
	j->fd_budget = fd_budget();
	*ret = j;
	return 0;
}

int sc_jobs_keep_fd(const struct sc_jobs *j, int fd)
{
	int k = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (k >= j->fd_budget) {
		close(k);
		k = -1;
	}
	return k;
}

static void job_free(struct sc_job *job)
{
	if (job->dirfd >= 0)
		close(job->dirfd);
	for (unsigned i = 0; i < job->n; i++) {
		free(job->src[i]);
		free(job->dst[i]);
	}
	free(job);
}

/* --- on a worker -------------------------------------------------------- */

/* -j: how many files of its run a worker keeps open ahead of the one it
 * copies, their data asked for.  A worker that opens, reads and writes one
 * small file after another has one read in flight at a time, and a cold
 * tree then runs at the device's depth-1 rate; the disk here answers ~3x
 * as many random 4 KiB reads a second with 8 in flight (fio, O_DIRECT). */
#define READ_AHEAD 8

struct ahead {
	int fd[JOB_MAX];	/* opened ahead, or -1 */
	unsigned next;		/* first file not yet opened ahead */
	bool data;		/* ask for their data too */
};

/* Opens JOB's file I as the walk's copy of a new file would and asks for
 * its data: POSIX_FADV_WILLNEED starts the reads of the whole file
 * (length 0: up to i_size) and returns without waiting for them
 * (mm/fadvise.c -> force_page_cache_readahead).  On a cached file it
 * finds the pages and costs one system call.  -1 if it cannot: the copy
 * then opens the file itself and reports whatever went wrong, as
 * before. */
static int open_ahead(const struct sc_jobs *j, const struct sc_job *job,
		      unsigned i, bool data)
{
	int fd = job->dirfd >= 0 ?
		 openat(job->dirfd, sc_path_last(job->src[i]),
			SC_NEW_SRC_FLAGS) :
		 open(job->src[i], SC_NEW_SRC_FLAGS);

	if (fd < 0)
		return -1;
	/* only the lower half of the descriptors (sc_jobs_keep_fd), never
	 * the ones the copies need */
	if (fd >= j->fd_budget) {
		close(fd);
		return -1;
	}
	/* a FIFO put in the file's place says ESPIPE: nothing to do */
	if (data)
		posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
	return fd;
}

/* Keeps the READ_AHEAD files after file I of JOB open ahead. */
static void read_ahead(const struct sc_jobs *j, const struct sc_job *job,
		       struct ahead *a, unsigned i)
{
	if (a->next <= i)
		a->next = i;
	for (; a->next < job->n && a->next <= i + READ_AHEAD; a->next++)
		a->fd[a->next] = open_ahead(j, job, a->next, a->data);
}

static void ahead_close(const struct sc_job *job, struct ahead *a)
{
	for (unsigned i = 0; i < a->next && i < job->n; i++)
		if (a->fd[i] >= 0)
			close(a->fd[i]);
}

/* -j worker thread: copy a run of new files into the job's slot. */
static void run_job(void *arg, void *p, struct sc_pool_slot *slot,
		    unsigned id)
{
	struct sc_jobs *j = arg;
	struct sc_job *job = p;
	struct ahead a = { .next = 0 };

	/* A clone shares the source's blocks without reading them: reading
	 * them ahead would only cost a cold tree on btrfs or xfs reads it
	 * never needed. */
	a.data = !job->parent_facts || job->parent_facts->can_clone == SC_NO ||
		 j->o->reflink == SC_REFLINK_NEVER;
	for (job->n_done = 0; job->n_done < job->n; job->n_done++) {
		unsigned i = job->n_done;
		struct sc_job_file f = {
			.src = job->src[i], .dst = job->dst[i],
			.dirfd = job->dirfd,
			.at_name = job->dirfd >= 0 ?
				   sc_path_last(job->src[i]) : NULL,
			.parent_facts = job->parent_facts,
		};
		int r;

		read_ahead(j, job, &a, i);
		f.ahead_fd = a.fd[i];
		a.fd[i] = -1;	/* the copy closes it */
		r = j->ops->copy(j->arg, id, slot, &f);
		if (r == 1)
			break;	/* the rest goes back to the walk, in order */
		job->failed += r < 0;
	}
	ahead_close(job, &a);
}

/* --- on the walk thread ------------------------------------------------- */

/* -j, on the walk thread: print a finished slot, in order. */
static void flush_slot(void *arg, struct sc_pool_slot *slot)
{
	struct sc_jobs *j = arg;
	struct sc_job *job = slot->job;

	sc_report_buffered(slot->out_buf, slot->out_len, slot->err_buf,
			   slot->err_len);
	if (!job)
		return;
	j->failed += job->failed;
	/* Files a worker handed back (a hard link, a file that changed
	 * type): the general path, here, at their place in the order. */
	j->flushing = true;
	for (unsigned i = job->n_done; i < job->n; i++) {
		struct sc_job_file f = {
			.src = job->src[i], .dst = job->dst[i],
			.dirfd = job->dirfd,
			.at_name = job->dirfd >= 0 ?
				   sc_path_last(job->src[i]) : NULL,
			.parent_facts = job->parent_facts,
			.ahead_fd = -1,
		};

		j->ops->copy_back(j->arg, &f);
	}
	j->flushing = false;
	job_free(job);
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

	if (!dst || dst->magic != 0xEF53)	/* EXT4_SUPER_MAGIC */
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u",
		 major(dst->dev), minor(dst->dev));
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
 * CPU), but one on ext4 without a journal.  There ext4 checks every inode
 * it is about to allocate for a recent deletion by looking its inode
 * table block up in the buffer cache (fs/ext4/ialloc.c, recently_deleted(),
 * only when the filesystem has no journal), and a new file's inode is
 * searched from the start of the first group of its parent's flex group
 * with free inodes (find_group_other()): every directory of a tree copy
 * shares that group, so two threads creating files at once race for the
 * same free inodes whatever directories they fill.  Measured on this kind
 * of machine: -j2 spent twice the kernel time of -j1, and a third of it
 * under recently_deleted(); a lock around our own creates did not help
 * (5 runs each, shared machine).
 * One worker still overlaps the walk with the copies and keeps reads in
 * flight (read_ahead). */
static unsigned workers_for(const struct sc_jobs *j,
			    const struct sc_fs_facts *dst)
{
	if (!j->o->jobs && ext4_without_journal(dst))
		return 1;
	return j->jobs;
}

/* The workers start with the first run of files to hand them, not
 * before: a copy of one file, or of directories holding none, costs no
 * threads. */
bool sc_jobs_ready(struct sc_jobs *j, const struct sc_fs_facts *dst)
{
	if (j->pool)
		return true;
	if (j->jobs <= 1)
		return false;
	j->workers = workers_for(j, dst);
	if (j->ops->start(j->arg, j->workers) < 0 ||
	    sc_pool_new(j->workers, run_job, flush_slot, j, &j->pool) < 0) {
		sc_jobs_finish(j);
		j->jobs = 1;	/* no threads: copy one by one */
		return false;
	}
	return true;
}

bool sc_jobs_running(const struct sc_jobs *j)
{
	return j->pool;
}

struct sc_pool_slot *sc_jobs_own_slot(struct sc_jobs *j)
{
	if (j && j->pool && !j->flushing)
		return sc_pool_own_slot(j->pool);
	return NULL;
}

int sc_jobs_submit(struct sc_jobs *j, struct sc_msgs *m,
		   struct sc_job **batch)
{
	struct sc_job *job = *batch;

	if (!job)
		return 0;
	*batch = NULL;
	if (sc_pool_submit(j->pool, job) == 0)
		return 0;
	for (unsigned i = 0; i < job->n; i++)
		sc_report_error(m, ENOMEM, "%s", sc_quote(job->src[i]));
	job_free(job);
	return -1;
}

int sc_jobs_add(struct sc_jobs *j, struct sc_msgs *m, struct sc_job **batch,
		int dirfd, const struct sc_fs_facts *facts, char *src,
		char *dst)
{
	struct sc_job *job = *batch;

	if (!job && (job = calloc(1, sizeof(*job))))
		job->dirfd = dirfd < 0 ? -1 : sc_jobs_keep_fd(j, dirfd);
	if (!job) {
		sc_report_error(m, ENOMEM, "%s", sc_quote(src));
		free(src);
		free(dst);
		return -1;
	}
	*batch = job;
	job->src[job->n] = src;
	job->dst[job->n++] = dst;
	job->parent_facts = facts;
	/* the pool owns it from here */
	if (job->n == JOB_MAX)
		return sc_jobs_submit(j, m, batch);
	return 0;
}

void sc_jobs_finish(struct sc_jobs *j)
{
	sc_pool_free(j->pool);	/* waits for and prints everything */
	j->pool = NULL;
	j->ops->stop(j->arg, j->workers);
}

unsigned sc_jobs_failures(const struct sc_jobs *j)
{
	return j->failed;
}

void sc_jobs_free(struct sc_jobs *j)
{
	free(j);
}
