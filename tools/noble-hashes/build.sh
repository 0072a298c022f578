#!/bin/sh
# build.sh writes web/assets/noble-hashes.js and its licence from the pinned @noble/hashes (package-lock.json):
# Keccak-256 as one classic script that sets window.nobleHashes, so that the verification page loads it as an
# asset and the standalone checker inlines it. Run it after changing the pinned version, and commit the output.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
version=$(node -p 'require("./node_modules/@noble/hashes/package.json").version')
out=../../web/assets/noble-hashes.js
{
	printf '/*! @noble/hashes %s (keccak_256 only), MIT License, (c) Paul Miller (paulmillr.com): see noble-hashes.LICENSE.\n' "$version"
	printf '    Built by tools/noble-hashes/build.sh from the npm package; do not edit. */\n'
	npx --no-install esbuild entry.js --bundle --format=iife --global-name=nobleHashes --minify --target=es2020 --legal-comments=none
} >"$out"
cp node_modules/@noble/hashes/LICENSE ../../web/assets/noble-hashes.LICENSE
echo "wrote $out (@noble/hashes $version)"
