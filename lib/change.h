/* A source that changed while it was copied.  What identifies a file's
 * content is looked at before the first byte and after the last: its
 * size, its modification and status change times to the nanosecond, and
 * which file (inode and device) its name leads to.  sc_change_compare,
 * sc_change_identity and sc_change_name are public (<smartcp/smartcp.h>,
 * which also says what each enum sc_change_how means); struct sc_change
 * is what the smartcp program records of a change for its report. */
#ifndef SMARTCP_CHANGE_H
#define SMARTCP_CHANGE_H

#include <stdbool.h>
#include <sys/types.h>

#include <smartcp/smartcp.h>

struct sc_change {
	enum sc_change_how how;
	off_t size_before, size_after;	/* of the file that was read */
	bool again;		/* it changed again while copied again */
};

#endif
