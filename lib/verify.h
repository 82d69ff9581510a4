/* --verify: prove the destination holds the source's bytes.  sc_verify
 * and struct sc_digests are public (<smartcp/smartcp.h>); the digests are
 * kept by the engine with the functions below. */
#ifndef SMARTCP_VERIFY_H
#define SMARTCP_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <smartcp/smartcp.h>

/* Digests of the bytes read_write moved, one per chunk, at destination
 * offsets: a generated file that reads differently each time is checked
 * against what was read, not against a second read.  d->failed: out of
 * memory, fall back to re-reading. */
void sc_digests_add(struct sc_digests *d, off_t off, const void *buf,
		    size_t len);
void sc_digests_reset(struct sc_digests *d);
void sc_digests_free(struct sc_digests *d);

#endif
