/* Did the copy come out right: --verify, the one repair it may make, and
 * what a source that changed while it was copied means for the copy.
 * The phases of sc_file_copy() call these; each says its own messages
 * through report.c and fills the record. */
#ifndef SMARTCP_PROOF_H
#define SMARTCP_PROOF_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "change.h"
#include "report.h"

struct walk;

/* --verify after a successful copy of IN to OUT (OUT_MODE its type, IST
 * the source's stat); repairs once with read_write.  Returns 0 when the
 * destination holds the source's bytes, else -errno (-EBADMSG: still
 * differs) with the message said and REC->failure set. */
int sc_proof_verify(struct walk *w, struct sc_record *rec, int in, int out,
		    mode_t out_mode, const struct stat *ist,
		    bool out_seekable);

/* Has SRC, open as IN and fstat'ed as BEFORE before its first byte was
 * copied, changed since (its name looked at again as the walk opened
 * it)?  Fills CH; true when it changed.  Never fails. */
bool sc_proof_source_changed(struct walk *w, const char *src, int in,
			     bool follow, const struct stat *before,
			     bool generated, struct sc_change *ch);

/* The destination OUT of a source that changed (REC->change) as it must
 * be left: its size asked, cut to what the source still holds.  0 or
 * -errno. */
int sc_proof_settle_changed(struct sc_record *rec, int out, bool out_reg,
			    bool generated);

/* Says that the source changed while it was copied (REC->change) and
 * fails the file, unless ALLOWED. */
void sc_proof_say_changed(struct walk *w, struct sc_record *rec,
			  bool allowed);

/* --verify of a source that changed while it was copied: compared with
 * the source as it now is, copied once more if they differ.  0 when the
 * destination holds the source as it now is, else -errno with the
 * message said (-EBADMSG: it changed again, or still differs). */
int sc_proof_verify_changed(struct walk *w, struct sc_record *rec, int in,
			    int out, mode_t out_mode, bool out_seekable,
			    bool follow, bool generated);

#endif
