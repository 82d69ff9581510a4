#!/bin/bash
# The matrix of issue 27 without a fault, part 1: no option of smartcp's
# own, --atomic and --verify, each with -p, -a and neither, onto every
# kind of destination.  Each cell runs --explain with its options first
# and holds the plan to the run; an absent destination is tried with
# each source mode.  (Part 2: t-matrix-none-2.sh; the trees and
# --attributes-only: t-matrix-none-tree-attr.sh.)
# The rows, destinations and invariants are in lib-matrix.sh; each
# broken invariant is one line naming the cell, and the last line counts
# the cells.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-matrix.sh"

mx_main none 'plain atomic verify'
