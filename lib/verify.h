/* --verify: prove the destination holds the source's bytes.  Private to
 * the library (the copier verifies; sc_copier_verify_fd is the public
 * call). */
#ifndef SMARTCP_VERIFY_H
#define SMARTCP_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <smartcp/smartcp.h>

/* Digests of the bytes read_write moved, one per chunk, at destination
 * offsets: a generated file that reads differently each time is checked
 * against what was read, not against a second read.  failed: out of
 * memory, fall back to re-reading. */
struct sc_chunk {
	off_t off;
	size_t len;
	uint64_t hash;
};
struct sc_digests {
	struct sc_chunk *v;
	size_t n, cap;
	bool failed;
};

void sc_digests_add(struct sc_digests *d, off_t off, const void *buf,
		    size_t len);
void sc_digests_reset(struct sc_digests *d);
void sc_digests_free(struct sc_digests *d);
/* True when the digests D cover [0, SIZE) without gaps. */
bool sc_digests_cover(const struct sc_digests *d, off_t size);

/* How sc_verify() compares, bits of its FLAGS. */
enum {
	VERIFY_DIGESTS = 1u << 0,	/* with the digests D, not with IN
					 * read again */
	VERIFY_REREAD = 1u << 1,	/* IN may be read again: with
					 * digests, to find the byte within
					 * the chunk that differs */
	VERIFY_DURABLE = 1u << 2,	/* fdatasync, not sync_file_range
					 * (paid anyway: SC_COPY_SYNC) */
	VERIFY_SPARSE = 1u << 3,	/* either file may have holes */
};

/* Reads OUT back from storage (its dirty pages written out with
 * sync_file_range, or fdatasync with VERIFY_DURABLE, then dropped from
 * the cache with POSIX_FADV_DONTNEED, so the device is read, not the
 * cache) and compares it: with the digests D with VERIFY_DIGESTS, else
 * with IN read again.  SIZE is the length the copy produced; a regular
 * OUT of another length differs at the shorter one.  VERIFY_SPARSE:
 * holes are not read where both files have them (SEEK_DATA).  BUF
 * (BUFSIZE bytes, at least 2) is scratch space.  Returns VERIFIED_EQUAL
 * (1), VERIFIED_DIFFERENT (0: *RET_BAD = the first differing offset; with
 * digests, without VERIFY_REREAD, the start of the first differing
 * chunk), or -errno on failure (*RET_SIDE tells what failed). */
enum { VERIFIED_DIFFERENT = 0, VERIFIED_EQUAL = 1 };
int sc_verify(int in, int out, off_t size, unsigned flags,
	      const struct sc_digests *d, char *buf, size_t bufsize,
	      off_t *ret_bad, enum sc_verify_side *ret_side);

/* The same for files whose st_size is not their length (generated
 * files, on either side): IN and OUT are read from offset 0 to their
 * ends (at most SSIZE_MAX bytes) and compared, their lengths included;
 * *RET_BAD is where they part, the shorter one's length when one is a
 * prefix of the other. */
int sc_verify_to_eof(int in, int out, bool durable, char *buf,
		     size_t bufsize, off_t *ret_bad,
		     enum sc_verify_side *ret_side);

#endif
