#!/bin/bash
# EIO reading a faultfs source at its first byte, in its middle and at its
# last byte, on every road (for copy_file_range, faultfs's own server-side
# copy meets the fault): exit 1, "error reading 'SRC': Input/output error",
# the destination absent or a differing prefix with nothing past the bad
# offset, no temporary, the source unchanged.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

ff_setup
ff_all_roads eio_read_start eio_read_middle eio_read_end
