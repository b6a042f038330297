#!/usr/bin/env bash
# Renders the SDK's DocC documentation with the toolchain's own tools (no package plugin needed):
#   scripts/sdk-docs.sh [OUTPUT]   → OUTPUT (default .build/sdk-docs/TesseraSDK.doccarchive)
# Serve the archive's folder with any static web server (python3 -m http.server) and open
# /documentation/tesserasdk, or run `docc preview` with the same inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/sdk-docs/TesseraSDK.doccarchive}
swift package --package-path sdk dump-symbol-graph >/dev/null
graphs=.build/sdk-docs/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
cp sdk/.build/*/symbolgraph/TesseraSDK.symbols.json sdk/.build/*/symbolgraph/TesseraSDK@*.symbols.json "$graphs/"
docc convert \
  --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name TesseraSDK --fallback-bundle-identifier dev.tessera.sdk \
  --output-path "$out"
echo "wrote $out"
