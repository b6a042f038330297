#!/usr/bin/env bash
# Soaks the sync convergence property test on many more seeds than the test suite's 300:
#   scripts/sync-soak.sh [SEEDS] [FIRST] [STEPS]     (defaults: 5000 seeds from 1000, 120 steps each; ≈15 seeds/s on 2 cores)
# Each seed runs three replicas through STEPS random operations and lossy, duplicated, reordered
# delivery, then demands identical tables, conflicts and merkle tries. A failure names its seed and
# the operations; rerun one with `scripts/sync-soak.sh 1 SEED STEPS`.
set -euo pipefail
cd "$(dirname "$0")/.."
export TESSERA_SYNC_SEEDS="${1:-5000}" TESSERA_SYNC_SEED_START="${2:-1000}" TESSERA_SYNC_STEPS="${3:-120}"
swift build --build-tests
swift test --skip-build --filter 'TesseraSyncTests.ConvergenceTests/soak'
