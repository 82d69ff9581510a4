#!/bin/bash
# EIO writing a faultfs destination at its first byte, in its middle and
# at its last byte, on every road, and in the middle with --atomic: exit 1,
# "error writing 'DST': Input/output error", the destination absent or a
# differing prefix with nothing past the bad offset (with --atomic the old
# destination byte for byte, same inode), no temporary, the source
# unchanged.  The fault is set on the destination directory, so the file
# smartcp creates (or its temporary) inherits it.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

ff_setup
ff_all_roads eio_write_start eio_write_middle eio_write_end eio_write_atomic
