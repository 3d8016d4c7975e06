#!/bin/bash
# run-invisible-textrel.sh: text relocations and execute-only text get no
# stub, and the result runs as the original in every cache state
# (tests/invisible.sh, cases 4).
INVISIBLE_PARTS=textrel
# shellcheck source=tests/invisible.sh
. "$(dirname "${BASH_SOURCE[0]}")/invisible.sh"
