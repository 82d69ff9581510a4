/* The copy of one regular file: open the source, prepare the
 * destination, copy and verify, finish or abandon. */
#ifndef SMARTCP_FILE_H
#define SMARTCP_FILE_H

#include <stdbool.h>
#include <sys/stat.h>

struct worker;
struct entry;
struct sc_job_file;
struct sc_job_result;

/* Copies regular file SRC (or the data of a FIFO or device) to DST, the
 * entry ENT.
 * PRE_IN >= 0 is SRC already open, with PRE_IST its fstat (the fast path
 * of a fresh tree); it is closed here.  Else SRC is opened here (through
 * the walk's directory descriptor, following a symlink only if FOLLOW)
 * and checked against SST, the stat the walk saw.  DST_ST is the stat of
 * the existing destination (links followed), or NULL when there is none.
 * Returns 0, or -errno with the messages said and, for --json, the
 * record made; WK's messages say whether ENT failed in part.  On thread WK
 * (the walk's, or a -j worker's). */
int sc_file_copy(struct worker *wk, struct entry *ent, const char *src,
		 const char *dst, const struct stat *sst,
		 const struct stat *dst_st, bool follow, int pre_in,
		 const struct stat *pre_ist);

/* What sc_file_unchanged() found, when it did not fail. */
enum sc_file_same {
	SC_FILE_DIFFERS = 0,	/* (or --explain, which reads no data) */
	SC_FILE_SAME,		/* left alone, reported unchanged */
};

/* --if-changed, before the walk backs DST up or removes it: when DST
 * (DST_ST, an existing regular file) already holds the bytes of SRC
 * (SST; FOLLOW as for sc_file_copy()), it is left alone but for the
 * attributes --preserve asks for, and reported unchanged.  enum
 * sc_file_same, or -errno (said). */
int sc_file_unchanged(struct worker *wk, struct entry *ent, const char *src,
		      const char *dst, const struct stat *sst,
		      const struct stat *dst_st, bool follow);

/* -j (struct sc_jobs_ops' after), on the walk thread (ARG: the struct
 * walk), in the walk's order: what a worker's copy of new file JF came to
 * (RES), said as sc_file_copy() says it, straight to stdout and stderr.
 * 0, or -errno when it failed (said). */
int sc_file_after(void *arg, const struct sc_job_file *jf,
		  const struct sc_job_result *res);

#endif
