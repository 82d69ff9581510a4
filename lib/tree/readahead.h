/* -j: the data of files a worker is about to copy, asked for in batches
 * through io_uring, so that the block layer sends the device one batch
 * of reads instead of one request (and one notification) a file. */
#ifndef SMARTCP_TREE_READAHEAD_H
#define SMARTCP_TREE_READAHEAD_H

#include <stdbool.h>
#include <sys/types.h>

struct readahead;

/* A ring of its own for one worker, made on the walk thread before the
 * workers start.  0, or -errno: -ENOSYS, -EPERM (io_uring not built in,
 * disabled by the kernel.io_uring_disabled sysctl or a seccomp filter),
 * -EOPNOTSUPP (a kernel before 5.12, whose buffered reads through
 * io_uring waited on its own worker threads), -ENOMEM.  The caller then
 * asks with posix_fadvise(), a file at a time, as before. */
int readahead_new(struct readahead **ret);

/* Queues a read of the first bytes of FD, a regular file of SIZE bytes
 * (at most a 64 KiB scratch buffer's worth; the kernel's read-ahead
 * window takes it on from there).  The bytes read are never looked at:
 * only their arrival in the page cache counts.  false when the queue is
 * full or the ring broke: the caller asks another way. */
bool readahead_add(struct readahead *ra, int fd, off_t size);

/* Hands everything queued to the kernel in one system call and returns
 * without waiting for the reads. */
void readahead_submit(struct readahead *ra);

/* Waits until no read is in flight: before the worker's job ends, so
 * that nothing the kernel still has is left behind. */
void readahead_wait(struct readahead *ra);

/* Waits, then closes the ring and frees.  NULL is fine. */
void readahead_free(struct readahead *ra);

#endif
