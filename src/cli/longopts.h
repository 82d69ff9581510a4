/* smartcp's options as getopt_long sees them, and GNU cp's rules for
 * abbreviating them (--pr means --preserve to cp, whatever smartcp adds).
 * Read by options.c alone. */
#ifndef SMARTCP_LONGOPTS_H
#define SMARTCP_LONGOPTS_H

#include <getopt.h>
#include <stddef.h>

/* getopt_long's values for the options without a letter. */
enum {
	OPT_ATTRIBUTES_ONLY = 256, OPT_ALLOW_CHANGING_SOURCE, OPT_ASSUME_FS,
	OPT_ATOMIC, OPT_BACKUP, OPT_COPY_CONTENTS,
	OPT_DEBUG, OPT_EXPLAIN, OPT_HELP, OPT_IF_CHANGED, OPT_JSON, OPT_KERNEL,
	OPT_NO_PRESERVE, OPT_PARENTS, OPT_PRESERVE, OPT_PROGRESS, OPT_REFLINK,
	OPT_REMOVE_DESTINATION, OPT_ROAD, OPT_RULES, OPT_SPARSE, OPT_STRIP_SLASHES,
	OPT_SYNC, OPT_UPDATE, OPT_VERIFY, OPT_VERSION, OPT_BAD_LONG,
};

#define SHORT_OPTIONS "abdfHij:lLnpPqrRsS:t:TuvxZ"

/* Every long option, for getopt_long. */
extern const struct option sc_long_options[];

/* How many rewritten arguments exist now: give it to
 * sc_longopts_restore() after the parse. */
size_t sc_longopts_mark(void);
/* Rewrites each long option of ARGV in full as getopt_long will meet it
 * (see longopts.c), before getopt_long runs. */
void sc_longopts_expand(int argc, char **argv);
/* After getopt_long: the caller's strings go back into ARGV in place of
 * those sc_longopts_expand() made since MARK, and each of the N option
 * values in VALUES that pointed into one of ours points at the same
 * bytes of the caller's string.  Ours are freed. */
void sc_longopts_restore(int argc, char **argv, size_t mark,
			 const char **const values[], size_t n);
/* Says what is wrong with the long option sc_longopts_expand() set aside
 * (OPT_BAD_LONG's ARG), in getopt_long's words, as PROG. */
void sc_longopts_bad(const char *prog, const char *arg);

#endif
