#!/bin/sh
# Once everything is installed into the staging tree $DESTDIR, before
# packaging: align every ELF program and shared library in it.
elfpmd -r -j"$(nproc)" "$DESTDIR"
