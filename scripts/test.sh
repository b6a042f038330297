#!/usr/bin/env bash
# The README's test command: installs what the tests use (scripts/setup.sh test), builds, and runs
# the whole suite; .ci/run calls exactly this. Extra arguments go to the first `swift test`
# (`scripts/test.sh --filter TesseraSyncTests`), and then only that part runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
swift build --build-tests
if [ $# -gt 0 ]; then exec swift test --skip-build "$@"; fi
swift test --skip-build
swift test --package-path sdk
# Three shipped modules' suites again, in the process tier (docs/isolation.md).
TESSERA_TEST_ISOLATION=process swift test --skip-build --filter "TesseraBabyTests|TesseraFinanceTests|TesseraStressTests"
