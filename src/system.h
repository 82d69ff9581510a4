/* What every file of the program (src/) includes: the engine's common
 * header (config.h, the public header, N_(), ARRAY_SIZE, MIN, the
 * cleanup attributes) -- the only header of lib/ the program sees: lib/
 * is not on its include path -- plus what only a program has: gettext
 * and the name it was invoked as. */
#ifndef SMARTCP_SYSTEM_H
#define SMARTCP_SYSTEM_H

#include "../lib/common.h"

#ifdef ENABLE_NLS
# include <libintl.h>
# define _(s) gettext(s)
#else
# define _(s) (s)
# define ngettext(a, b, n) ((n) == 1 ? (a) : (b))
#endif

/* Kept out of its caller's frame: for what a recursive function calls,
 * whose locals must not be on the stack once per level of the recursion. */
/* The name the program was invoked as (basename of argv[0]); messages
 * start with it, as cp's do. */
extern const char *sc_program_name;

#endif
