/* -j: the data of files a worker is about to copy, asked for in batches.
 *
 * posix_fadvise(POSIX_FADV_WILLNEED) starts the reads of one file and
 * unplugs them at once (mm/fadvise.c -> force_page_cache_ra ->
 * blk_finish_plug): every small file is a request of its own, and on a
 * virtio disk each request rings the device, which in a VM is an exit to
 * the host.  Reads handed to io_uring in one io_uring_enter() are issued
 * under one plug (io_uring/io_uring.c, io_submit_sqes), so the block
 * layer sends the device the whole batch at once.  Measured on this
 * kind of machine (the root filesystem, 20,000 files of 0-16 KiB, caches
 * dropped, reads only): posix_fadvise of 8 or 32 files ahead 0.58-0.71 s
 * wall and 0.46-0.58 s of system time (7,600-9,300 device interrupts, 32
 * ahead); batches of 16 through io_uring 0.31 s and 0.22 s, 1,500
 * interrupts; of 32, 0.28 s and 0.20 s, 880.
 *
 * The ring is driven with the raw system calls (include/uapi/linux/
 * io_uring.h): a few dozen lines, not worth a library dependency. */
#include "common.h"
#include "tree/readahead.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Entries in the submission queue: more than a worker ever has open
 * ahead (READ_AHEAD in jobs.c); the completion queue is twice that. */
#define RING_ENTRIES 64
/* What each read asks for at most.  Every read goes into the same
 * scratch buffer: the bytes are never looked at. */
#define SCRATCH (64 * 1024)

struct readahead {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail;
	struct io_uring_sqe *sqes;	/* a map of their own */
	void *rings;			/* both queues, one map */
	size_t rings_len, sqes_len;
	unsigned sq_entries, cq_entries;
	unsigned queued;	/* in the queue, not yet handed over */
	unsigned inflight;	/* handed over, completion not yet seen */
	bool broken;		/* io_uring_enter() failed: hand nothing more */
	char *scratch;
};

static int ring_setup(unsigned entries, struct io_uring_params *p)
{
	/* SUBMIT_ALL (5.18): one read that fails at once (its file gone)
	 * does not stop the rest of the batch.  COOP_TASKRUN (5.19): the
	 * completions wait for the worker's next system call instead of
	 * interrupting it.  Older kernels refuse the flags: ask without. */
	static const unsigned tries[] = {
#if defined(IORING_SETUP_SUBMIT_ALL) && defined(IORING_SETUP_COOP_TASKRUN)
		IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN,
#endif
		0,
	};
	int fd = -1;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		memset(p, 0, sizeof(*p));
		p->flags = tries[i];
		fd = (int)syscall(__NR_io_uring_setup, entries, p);
		if (fd >= 0 || errno != EINVAL)
			break;
	}
	return fd < 0 ? -errno : fd;
}

/* Maps LEN bytes of ring FD at OFFSET (IORING_OFF_*), or NULL. */
static void *map_ring(int fd, size_t len, off_t offset)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, offset);

	return p == MAP_FAILED ? NULL : p;
}

int readahead_new(struct readahead **ret)
{
	struct io_uring_params p;
	struct readahead *ra;
	size_t sq_len, cq_len;
	char *rings;
	int fd = ring_setup(RING_ENTRIES, &p), r = -ENOMEM;

	if (fd < 0)
		return fd;
	/* Native workers came with 5.12, after buffered reads that miss
	 * the cache stopped holding a kernel thread each (5.9); one mmap
	 * for both queues came with 5.4. */
	if (!(p.features & IORING_FEAT_NATIVE_WORKERS) ||
	    !(p.features & IORING_FEAT_SINGLE_MMAP)) {
		close(fd);
		return -EOPNOTSUPP;
	}
	ra = calloc(1, sizeof(*ra));
	if (!ra)
		goto fail;
	ra->fd = fd;
	ra->scratch = malloc(SCRATCH);
	if (!ra->scratch)
		goto fail;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	ra->rings_len = sq_len > cq_len ? sq_len : cq_len;
	ra->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	ra->rings = map_ring(fd, ra->rings_len, IORING_OFF_SQ_RING);
	ra->sqes = ra->rings ? map_ring(fd, ra->sqes_len, IORING_OFF_SQES) :
		   NULL;
	if (!ra->sqes) {
		r = -errno;
		goto fail;
	}
	rings = ra->rings;
	ra->sq_tail = (unsigned *)(rings + p.sq_off.tail);
	ra->sq_mask = (unsigned *)(rings + p.sq_off.ring_mask);
	ra->sq_array = (unsigned *)(rings + p.sq_off.array);
	ra->cq_head = (unsigned *)(rings + p.cq_off.head);
	ra->cq_tail = (unsigned *)(rings + p.cq_off.tail);
	ra->sq_entries = p.sq_entries;
	ra->cq_entries = p.cq_entries;
	*ret = ra;
	return 0;
fail:
	if (ra) {
		if (ra->rings)
			munmap(ra->rings, ra->rings_len);
		free(ra->scratch);
		free(ra);
	}
	close(fd);
	return r;
}

/* Counts the completions the kernel has posted and frees their places,
 * without a system call. */
static void reap(struct readahead *ra)
{
	unsigned head = *ra->cq_head;
	unsigned tail = __atomic_load_n(ra->cq_tail, __ATOMIC_ACQUIRE);

	ra->inflight -= tail - head;	/* one completion each, no more */
	__atomic_store_n(ra->cq_head, tail, __ATOMIC_RELEASE);
}

bool readahead_add(struct readahead *ra, int fd, off_t size)
{
	struct io_uring_sqe *sqe;
	unsigned idx;

	if (ra->broken || size <= 0)
		return false;
	if (ra->queued + ra->inflight >= ra->cq_entries)
		reap(ra);
	/* a full completion queue would make the kernel keep the rest on
	 * a list of its own: ask another way instead */
	if (ra->queued >= ra->sq_entries ||
	    ra->queued + ra->inflight >= ra->cq_entries)
		return false;
	idx = (*ra->sq_tail + ra->queued) & *ra->sq_mask;
	sqe = &ra->sqes[idx];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (unsigned long)ra->scratch;
	sqe->len = (unsigned)MIN(size, (off_t)SCRATCH);
	sqe->off = 0;
	ra->sq_array[idx] = idx;
	ra->queued++;
	return true;
}

void readahead_submit(struct readahead *ra)
{
	if (!ra->queued || ra->broken)
		return;
	__atomic_store_n(ra->sq_tail, *ra->sq_tail + ra->queued,
			 __ATOMIC_RELEASE);
	while (ra->queued) {
		long n = syscall(__NR_io_uring_enter, ra->fd, ra->queued, 0,
				 0, NULL, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* What is left in the queue stays there unsent: a
			 * later call could read a descriptor reused for a
			 * pipe by then, and take its data. */
			ra->broken = true;
			break;
		}
		ra->queued -= (unsigned)n;
		ra->inflight += (unsigned)n;
	}
	reap(ra);
}

void readahead_wait(struct readahead *ra)
{
	reap(ra);
	while (ra->inflight) {
		long n = syscall(__NR_io_uring_enter, ra->fd, 0, ra->inflight,
				 IORING_ENTER_GETEVENTS, NULL, 0);

		if (n < 0 && errno != EINTR) {
			ra->broken = true;
			return;
		}
		reap(ra);
	}
}

void readahead_free(struct readahead *ra)
{
	if (!ra)
		return;
	readahead_wait(ra);
	munmap(ra->sqes, ra->sqes_len);
	munmap(ra->rings, ra->rings_len);
	close(ra->fd);
	/* Reads the kernel may still finish write into the scratch buffer:
	 * it is freed only when none is left. */
	if (!ra->inflight)
		free(ra->scratch);
	free(ra);
}
