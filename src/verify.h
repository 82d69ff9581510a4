/* --verify: prove the destination holds the source's bytes. */
#ifndef SMARTCP_VERIFY_H
#define SMARTCP_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Digests of the bytes read_write moved, one per chunk, at destination
 * offsets: a generated file that reads differently each time is checked
 * against what was read, not against a second read. */
struct sc_chunk {
	off_t off;
	size_t len;
	uint64_t hash;
};

struct sc_digests {
	struct sc_chunk *v;
	size_t n, cap;
	bool failed;		/* out of memory: fall back to re-reading */
};

void sc_digests_add(struct sc_digests *d, off_t off, const void *buf,
		    size_t len);
void sc_digests_reset(struct sc_digests *d);
void sc_digests_free(struct sc_digests *d);
/* True when the chunks cover [0, size) without gaps. */
bool sc_digests_cover(const struct sc_digests *d, off_t size);

/* Reads OUT back from storage (written out with sync_file_range, or
 * fdatasync when DURABLE, then POSIX_FADV_DONTNEED, then read) and
 * compares it: with the digests when USE_DIGESTS, else with IN read
 * again.  SIZE is the length the copy produced.  Returns 1 when equal, 0
 * when not (*ret_bad = first differing offset; with digests of a source
 * that is not REREADABLE, the start of the first differing chunk), -errno
 * on failure (*ret_side tells what failed). */
enum sc_verify_side {
	SC_VSIDE_BACK,		/* reading the destination back */
	SC_VSIDE_SOURCE,	/* reading the source again */
	SC_VSIDE_WRITE,		/* writing the destination out */
};

int sc_verify(int in, int out, off_t size, bool use_digests,
	      bool rereadable, bool durable, const struct sc_digests *d,
	      char *buf, size_t bufsize, off_t *ret_bad,
	      enum sc_verify_side *ret_side);

#endif
