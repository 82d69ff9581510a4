/* The copy engine: runs a plan on one pair of open descriptors, falls
 * back from road to road on "not here" errors from the exact offsets
 * reached, keeps holes, and checks the end of file with a real read.
 * Its interface (struct sc_copy_ctx, sc_copy_data, struct
 * sc_copy_result) is public, in <smartcp/smartcp.h>. */
#ifndef SMARTCP_COPY_H
#define SMARTCP_COPY_H

#include <smartcp/smartcp.h>

#include "road.h"

#endif
