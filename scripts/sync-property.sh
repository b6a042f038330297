#!/bin/sh
# Runs the seeded sync properties on more seeds than the test suite does:
#   scripts/sync-property.sh [SEEDS] [FIRST_SEED]
# - three devices through a fault-injecting proxy (SyncFaultPropertyTests);
# - each shipped module's record edited offline on two devices (ModuleSyncPropertyTests: SEEDS per
#   module).
# A failure names its seed; replay it alone with: scripts/sync-property.sh 1 SEED. The network seeds
# run with the hub's store in PostgreSQL too when TESSERA_SYNC_NETWORK_POSTGRES_SEEDS is set (a
# private server the tests start).
set -e
cd "$(dirname "$0")/.."
swift build --build-tests
TESSERA_SYNC_NETWORK_SEEDS="${1:-5000}" TESSERA_SYNC_NETWORK_FIRST_SEED="${2:-1}" \
    TESSERA_SYNC_NETWORK_POSTGRES_SEEDS="${TESSERA_SYNC_NETWORK_POSTGRES_SEEDS:-0}" \
    TESSERA_SYNC_MODULE_SEEDS="${1:-1000}" TESSERA_SYNC_MODULE_FIRST_SEED="${2:-1}" \
    swift test --skip-build --filter "SyncFaultPropertyTests|ModuleSyncPropertyTests"
