#!/bin/bash
# The matrix of issue 27 without a fault, for -j4 -r on a tree and
# --attributes-only, each also with --atomic, and each with -p, -a and
# neither, onto every kind of destination.  Each cell runs --explain with
# its options first and holds the plan to the run.  (The options that
# copy one file: t-matrix-none.sh and t-matrix-none-2.sh.)
# The rows, destinations and invariants are in lib-matrix.sh; each
# broken invariant is one line naming the cell, and the last line counts
# the cells.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-matrix.sh"

mx_main none 'attributes-only atomic+attributes-only j4-tree j4-tree+atomic'
