#!/bin/bash
# The matrix of issue 27 under ENOSPC, for the options that copy one file:
# none of smartcp's own, --explain, --atomic, --verify, --if-changed,
# --sync and -j4, each with -p, -a and neither, onto every kind of
# destination.  (The trees and --attributes-only:
# t-matrix-enospc-tree-attr.sh.)
# The fault: the destination is on a tmpfs too small for any of the
# copies (128 KiB; a source is 300 KiB, the tree 350 KiB); a device
# destination has /dev/full's numbers (ENOSPC on every write); a FIFO's
# reader stops after 64 KiB (EPIPE or SIGPIPE for the writer).
# The rows, destinations and invariants are in lib-matrix.sh; each
# broken invariant is one line naming the cell, and the last line counts
# the cells.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-matrix.sh"

mx_main enospc 'plain explain atomic verify if-changed sync j-file'
