/* Verification reads the destination back from storage, not from the page
 * cache the copy just filled: the dirty pages are written out and waited
 * for, dropped with POSIX_FADV_DONTNEED, and only then read.  A reflink or
 * offload that claims success proves nothing: OpenZFS 2.2 block cloning
 * and several copy_file_range offloads returned success with wrong data.
 *
 * Writing out is sync_file_range, not fdatasync: reading back needs the
 * pages on the device, not a journal commit and a cache flush per file
 * (-r --verify of 20,000 small files on xfs: 21 s with fdatasync).
 * Durability is --sync's job, and with --sync fdatasync is used, since it
 * is paid anyway.  Where pages stay in the cache after that (NFS keeps
 * unstable writes until a COMMIT, someone else maps the file), mincore
 * sees them and fdatasync is done after all. */
#include "common.h"
#include "verify.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
/* XXH3 compiled in from the header, not called in libxxhash.so: the same
 * digests, and one shared library fewer to map and relocate at every
 * start, which scripts that run smartcp once per file pay each time. */
#define XXH_INLINE_ALL
#include <xxhash.h>

void sc_digests_add(struct sc_digests *d, off_t off, const void *buf,
		    size_t len)
{
	if (d->failed || !len)
		return;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		struct sc_chunk *v = realloc(d->v, cap * sizeof(*v));

		if (!v) {
			d->failed = true;
			return;
		}
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = (struct sc_chunk){ off, len, XXH3_64bits(buf, len) };
}

void sc_digests_reset(struct sc_digests *d)
{
	d->n = 0;
	d->failed = false;
}

void sc_digests_free(struct sc_digests *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

bool sc_digests_cover(const struct sc_digests *d, off_t size)
{
	off_t at = 0;

	if (!d || d->failed)
		return false;
	for (size_t i = 0; i < d->n; i++) {
		if (d->v[i].off != at)
			return false;
		at += (off_t)d->v[i].len;
	}
	return at == size;
}

static ssize_t read_full(int fd, char *buf, size_t len, off_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, off + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Compares [off, off + len) of IN and OUT, half the buffer each side.
 * Returns VERIFIED_EQUAL, VERIFIED_DIFFERENT (*ret_bad = first differing
 * byte), or -errno, *RET_SIDE (when not NULL) SC_VSIDE_SOURCE when
 * reading IN failed; it is left as it was when reading OUT failed. */
static int first_diff(int in, int out, off_t off, size_t len, char *buf,
		      size_t bufsize, off_t *ret_bad,
		      enum sc_verify_side *ret_side)
{
	size_t half = bufsize / 2;
	off_t at = off, end = off + (off_t)len;

	while (at < end) {
		size_t want = (size_t)MIN((off_t)half, end - at);
		ssize_t a = read_full(in, buf, want, at);
		ssize_t b;

		if (a < 0) {
			if (ret_side)
				*ret_side = SC_VSIDE_SOURCE;
			return (int)a;
		}
		b = read_full(out, buf + half, want, at);
		if (b < 0)
			return (int)b;
		if (a != b || memcmp(buf, buf + half, (size_t)a)) {
			size_t i = 0;

			while (i < (size_t)MIN(a, b) && buf[i] == buf[half + i])
				i++;
			*ret_bad = at + (off_t)i;
			return VERIFIED_DIFFERENT;
		}
		if (a == 0)
			break;
		at += a;
	}
	return VERIFIED_EQUAL;
}

/* True when no page of OUT's first SIZE bytes is in the page cache, as
 * far as mincore can tell; false when it cannot tell. */
static bool out_of_cache(int out, off_t size, unsigned char *vec,
			 size_t veclen)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t len;
	void *map;
	bool gone = true;

	if (psz <= 0 || (uint64_t)size > SIZE_MAX)
		return false;
	len = (size_t)size;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, out, 0);
	if (map == MAP_FAILED)
		return false;
	for (size_t at = 0; at < len && gone;) {
		size_t pages = MIN(veclen, (len - at + (size_t)psz - 1) /
					   (size_t)psz);
		size_t bytes = MIN(pages * (size_t)psz, len - at);

		if (mincore((char *)map + at, bytes, vec) < 0) {
			gone = false;
			break;
		}
		for (size_t i = 0; i < pages && gone; i++)
			gone = !(vec[i] & 1);
		at += bytes;
	}
	munmap(map, len);
	return gone;
}

/* Puts OUT's bytes on the device and drops them from the page cache.
 * VEC (VECLEN bytes) is scratch space. */
static int drop_cache(int out, off_t size, bool durable, unsigned char *vec,
		      size_t veclen)
{
	if (!durable && size > 0) {
		if (sync_file_range(out, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
				    SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER) == 0) {
			posix_fadvise(out, 0, 0, POSIX_FADV_DONTNEED);
			if (out_of_cache(out, size, vec, veclen))
				return 0;
		} else if (errno == EIO || errno == ENOSPC ||
			   errno == EDQUOT) {
			return -errno;	/* the write-back failed */
		}
	}
	/* fdatasync fails with EINVAL on files that cannot sync (pipes,
	 * some special files); there is no page cache to drop there. */
	if (fdatasync(out) < 0 && errno != EINVAL && errno != EROFS)
		return -errno;
	posix_fadvise(out, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

/* Where FD has data at or after AT (SEEK_DATA), or END when it has none
 * there; -errno when it cannot tell. */
static off_t data_at(int fd, off_t at, off_t end)
{
	off_t d = lseek(fd, at, SEEK_DATA);

	if (d < 0 && errno == ENXIO)
		return end;
	return d < 0 ? -errno : MIN(d, end);
}

/* Where the data of FD at AT ends (SEEK_HOLE): AT when it is in a hole;
 * -errno when it cannot tell. */
static off_t hole_at(int fd, off_t at, off_t end)
{
	off_t h = lseek(fd, at, SEEK_HOLE);

	if (h < 0 && errno == ENXIO)
		return at;
	return h < 0 ? -errno : MIN(h, end);
}

/* first_diff() over [0, END) of two files that may have holes: where
 * both have a hole nothing is read (a 20 GiB sparse file with 12 KiB of
 * data reads 12 KiB twice); where either has data, both are read (a
 * hole reads as zeros, as it must compare).  A file whose holes cannot
 * be asked for is read whole. */
static int sparse_diff(int in, int out, off_t end, char *buf,
		       size_t bufsize, off_t *ret_bad,
		       enum sc_verify_side *ret_side)
{
	off_t at = 0;

	while (at < end) {
		off_t d1 = data_at(in, at, end), d2 = data_at(out, at, end);
		off_t h1, h2, stop;
		int e;

		if (d1 < 0 || d2 < 0)
			return first_diff(in, out, at, (size_t)(end - at), buf,
					  bufsize, ret_bad, ret_side);
		if (MIN(d1, d2) > at) {
			at = MIN(d1, d2);	/* a hole in both */
			continue;
		}
		h1 = hole_at(in, at, end);
		h2 = hole_at(out, at, end);
		if (h1 < 0 || h2 < 0)
			return first_diff(in, out, at, (size_t)(end - at), buf,
					  bufsize, ret_bad, ret_side);
		/* one of them has data at AT: up to where neither has */
		stop = h1 > h2 ? h1 : h2;
		if (stop <= at)
			stop = end;
		e = first_diff(in, out, at, (size_t)(stop - at), buf, bufsize,
			       ret_bad, ret_side);
		if (e != VERIFIED_EQUAL)
			return e;
		at = stop;
	}
	return VERIFIED_EQUAL;
}

int sc_verify(int in, int out, off_t size, unsigned flags,
	      const struct sc_digests *d, char *buf, size_t bufsize,
	      off_t *ret_bad, enum sc_verify_side *ret_side)
{
	struct stat st;
	int e;

	if (!buf || bufsize < 2 || !ret_bad || !ret_side ||
	    ((flags & VERIFY_DIGESTS) && !d))
		return -EINVAL;
	*ret_side = SC_VSIDE_WRITE;
	e = drop_cache(out, size, flags & VERIFY_DURABLE, (unsigned char *)buf,
		       bufsize);
	if (e < 0)
		return e;
	*ret_side = SC_VSIDE_BACK;
	if (fstat(out, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode) && st.st_size != size) {
		*ret_bad = MIN(st.st_size, size);
		return VERIFIED_DIFFERENT;
	}
	if (flags & VERIFY_DIGESTS) {
		/* A chunk is one read of the read_write road: at most the
		 * buffer's size. */
		for (size_t i = 0; i < d->n; i++) {
			const struct sc_chunk *c = &d->v[i];
			ssize_t n = read_full(out, buf, MIN(bufsize, c->len),
					      c->off);

			if (n < 0)
				return (int)n;
			if ((size_t)n != c->len ||
			    XXH3_64bits(buf, (size_t)n) != c->hash) {
				/* The digest tells the chunk; a source that
				 * can be read again tells the byte. */
				*ret_bad = c->off;
				if (flags & VERIFY_REREAD)
					first_diff(in, out, c->off, c->len,
						   buf, bufsize, ret_bad, NULL);
				return VERIFIED_DIFFERENT;
			}
		}
		return VERIFIED_EQUAL;
	}
	posix_fadvise(in, 0, 0, POSIX_FADV_SEQUENTIAL);
	if ((flags & VERIFY_SPARSE) && S_ISREG(st.st_mode))
		return sparse_diff(in, out, size, buf, bufsize, ret_bad,
				   ret_side);
	return first_diff(in, out, 0, (size_t)size, buf, bufsize, ret_bad,
			  ret_side);
}

int sc_verify_to_eof(int in, int out, bool durable, char *buf,
		     size_t bufsize, off_t *ret_bad,
		     enum sc_verify_side *ret_side)
{
	struct stat st;
	int e;

	if (!buf || bufsize < 2 || !ret_bad || !ret_side)
		return -EINVAL;
	*ret_side = SC_VSIDE_BACK;
	if (fstat(out, &st) < 0)
		return -errno;
	*ret_side = SC_VSIDE_WRITE;
	e = drop_cache(out, S_ISREG(st.st_mode) ? st.st_size : 0, durable,
		       (unsigned char *)buf, bufsize);
	if (e < 0)
		return e;
	*ret_side = SC_VSIDE_BACK;
	/* first_diff() stops where both reads return 0 */
	return first_diff(in, out, 0, SSIZE_MAX, buf, bufsize, ret_bad,
			  ret_side);
}
