#!/usr/bin/env bash
# The browser tests that do not time a page (tests/test_browser.c's main says which), run by
# make test beside the other tests; test_browser itself runs alone, first, with the timed ones.
#   tests/test_browser_pages.sh BUILD_DIR
MMPROF_BROWSER_PART=pages exec "${1:-build}/tests/test_browser"
