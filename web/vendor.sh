#!/usr/bin/env bash
# Fetches the UI's graph library from the npm registry, pinned, into
# web/static/vendor/: its ES module build and its license. Run it to
# upgrade (change VERSION, then update the hashes in static/vendor/VENDOR,
# which web/vendor_test.go checks). Nothing else needs Node or npm.
set -euo pipefail
VERSION=3.34.4
cd "$(dirname "$0")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "cytoscape@$VERSION" >/dev/null && tar xzf "cytoscape-$VERSION.tgz")
rm -f static/vendor/cytoscape-*.mjs static/vendor/cytoscape-*.LICENSE
cp "$tmp/package/dist/cytoscape.esm.min.mjs" "static/vendor/cytoscape-$VERSION.esm.min.mjs"
cp "$tmp/package/LICENSE" "static/vendor/cytoscape-$VERSION.LICENSE"
(cd static/vendor && sha256sum "cytoscape-$VERSION.esm.min.mjs" "cytoscape-$VERSION.LICENSE")
