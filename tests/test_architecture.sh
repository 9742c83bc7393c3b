#!/usr/bin/env bash
# docs/architecture.md against the tree (tests/architecture_check.py): no include from a lower
# layer to a higher one, and every source file described, every file it names present.
#   tests/test_architecture.sh [BUILD_DIR]   (run_tests.sh runs it from the repository root)
set -u
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cmocka_lines.sh
source "$dir/cmocka_lines.sh"
includes_point_down() { python3 "$dir/architecture_check.py" layers .; }
every_file_described() { python3 "$dir/architecture_check.py" files .; }
run_test includes_point_down
run_test every_file_described
[ $failed -eq 0 ]
