#!/usr/bin/env bash
# make test-sql: tests/test_db.sh on every committed run file of samples/ instead of three.
exec bash "$(dirname "$0")/test_db.sh" "${1:-build}" all
