#!/bin/bash
# make check's entry to the integration runner (see tests/Makemodule.am).
exec bash "$(cd "$(dirname "$0")" && pwd)/integration/run.sh" "$@"
