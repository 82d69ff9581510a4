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
struct sc_tree_entry;
struct sc_tree_result;

/* What the copy of regular file TE->src (or the data of a FIFO or
 * device) to TE->dst, the entry ENT, came to, from its report (R: the
 * library's answer, the report, the time it took, the destination that
 * was there): its events said in cp's words, its record made, --debug's
 * line.  With --explain, the plan.  Returns 0, or -errno with the
 * messages said and, for --json, the record made; WK's messages say
 * whether ENT failed in part.  On the walk thread. */
int sc_file_said(struct worker *wk, struct entry *ent,
		 const struct sc_tree_entry *te, const struct sc_tree_result *r);

/* What sc_file_unchanged() found, when it did not fail. */
enum sc_file_same {
	SC_FILE_DIFFERS = 0,	/* (or --explain, which reads no data) */
	SC_FILE_SAME,		/* left alone, reported unchanged */
};

/* --if-changed, before the walk backs DST up or removes it: when DST
 * (DST_ST, an existing regular file) already holds the bytes of SRC
 * (SST; FOLLOW: it is followed, a symlink), it is left alone but for the
 * attributes --preserve asks for, and reported unchanged.  enum
 * sc_file_same, or -errno (said). */
int sc_file_unchanged(struct worker *wk, struct entry *ent, const char *src,
		      const char *dst, const struct stat *sst,
		      const struct stat *dst_st, bool follow);

/* -j (struct sc_jobs_ops' after), on the walk thread (ARG: the struct
 * walk), in the walk's order: what a worker's copy of new file JF came to
 * (RES), said as sc_file_said() says it, straight to stdout and stderr.
 * 0, or -errno when it failed (said). */
int sc_file_after(void *arg, const struct sc_job_file *jf,
		  const struct sc_job_result *res);

#endif
