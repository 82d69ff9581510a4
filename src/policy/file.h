/* The copy of one regular file: open the source, prepare the
 * destination, copy and verify, finish or abandon. */
#ifndef SMARTCP_FILE_H
#define SMARTCP_FILE_H

#include <stdbool.h>
#include <sys/stat.h>

struct cp;
struct sc_tree_entry;
struct sc_tree_result;

/* What the copy of regular file TE->src (or the data of a FIFO or
 * device) to TE->dst came to, from its report (R: the library's answer,
 * the report, the time it took, the destination that was there): its
 * events said in cp's words, its record made, --debug's line.  With
 * --explain, the plan.  Returns 0, or -errno with the messages said and,
 * for --json, the record made; CP's messages say whether it failed in
 * part. */
int sc_file_said(struct cp *cp, const struct sc_tree_entry *te,
		 const struct sc_tree_result *r);

/* What sc_file_unchanged() found, when it did not fail. */
enum sc_file_same {
	SC_FILE_DIFFERS = 0,	/* (or --explain, which reads no data) */
	SC_FILE_SAME,		/* left alone, reported unchanged */
};

/* --if-changed, before cp backs the destination up or removes it: when
 * it (TE->dst, DST_ST, an existing regular file) already holds the bytes
 * of TE->src (SST; FOLLOW: followed, a symlink), it is left alone but
 * for the attributes --preserve asks for, and reported unchanged.  enum
 * sc_file_same, or -errno (said). */
int sc_file_unchanged(struct cp *cp, const struct sc_tree_entry *te,
		      const struct stat *sst, const struct stat *dst_st,
		      bool follow);

#endif
