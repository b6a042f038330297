#!/usr/bin/env bash
# The hub and, beside it, the safe-travel watcher (docs/safetravel.md, "Deadlines on the hub"), in one
# command. The watcher is the safetravel module on an always-on host logged in to the hub as the
# service member "watcher"; travellers' devices with `"watcher": "watcher"` in their config invite it.
#
#   TESSERA_WATCHER_PASSWORD=… scripts/hub-with-watcher.sh        # Ctrl-C stops both
#
# The first run creates the person "watcher" at the hub and logs the watcher's data directory in
# (the password comes from the environment, never an argument); later runs just start both.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${TESSERA:-.build/debug/tessera}
HUB=${TESSERA_HUB_DEPLOYMENT:-manifests/deployments/hub.json}
WATCHER=${TESSERA_WATCHER_DEPLOYMENT:-manifests/deployments/watcher.json}
PORT=${TESSERA_HUB_PORT:-8430}
: "${TESSERA_WATCHER_PASSWORD:?set TESSERA_WATCHER_PASSWORD, the watcher\'s password at the hub}"

if ! "$T" hub person list --json --deployment "$HUB" | grep -q '"watcher"'; then
    printf '%s\n' "$TESSERA_WATCHER_PASSWORD" | "$T" hub person add watcher --deployment "$HUB"
fi

"$T" serve --deployment "$HUB" &
hub=$!
watcher=
# Ctrl-C or a TERM stops both (children started with & in a script ignore SIGINT themselves).
trap 'kill $hub $watcher 2>/dev/null; wait' EXIT
trap 'exit 130' INT TERM

for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.2; done
if ! "$T" sync status --deployment "$WATCHER" | grep -q ', logged in'; then
    printf '%s\n' "$TESSERA_WATCHER_PASSWORD" | "$T" sync login watcher --device "safe-travel watcher" --deployment "$WATCHER"
fi
"$T" serve --deployment "$WATCHER" &
watcher=$!
wait "$hub"
