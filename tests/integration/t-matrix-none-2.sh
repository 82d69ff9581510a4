#!/bin/bash
# The matrix of issue 27 without a fault, part 2: --if-changed, --sync,
# -j4 on a file and --atomic --remove-destination, each with -p, -a and
# neither, onto every kind of destination (the last onto those it does
# not replace by a file).  Each cell runs --explain with its options first and
# holds the plan to the run; an absent destination is tried with each
# source mode.  (Part 1: t-matrix-none.sh.)
# The rows, destinations and invariants are in lib-matrix.sh; each
# broken invariant is one line naming the cell, and the last line counts
# the cells.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-matrix.sh"

mx_main none 'if-changed sync j-file atomic+remove-destination'
