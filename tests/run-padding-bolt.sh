#!/bin/bash
# run-padding-bolt.sh: BOLT's layout: the program headers in a later, already aligned
# segment, with and without PT_PHDR, in a program and in libraries
# (tests/padding.sh, part bolt).
PADDING_PARTS=bolt
# shellcheck source=tests/padding.sh
. "$(dirname "${BASH_SOURCE[0]}")/padding.sh"
