#!/bin/sh
# fetch.sh re-fetches the API docs viewer served at /docs: the pinned Redoc standalone bundle from npm,
# its license and the licenses of what it bundles. `make docs-viewer` runs it; commit what it writes.
# npm pack checks the tarball against the registry's integrity hash; REDOC_INTEGRITY pins that hash too.
set -eu
REDOC_VERSION=2.5.4
REDOC_INTEGRITY=sha512-M6jWhG1qoBnH6TFmzJnstyCZ87HmOY/UzDm78mHiYihEdlV/YcS9ogOo1NlElnJMeLsyxHFe2yFc4sNjHTrABQ==
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent --json "redoc@$REDOC_VERSION" > pack.json
grep -q "\"integrity\": \"$REDOC_INTEGRITY\"" pack.json || { echo "fetch.sh: redoc@$REDOC_VERSION integrity differs from the pinned one" >&2; exit 1; }
tar xzf "redoc-$REDOC_VERSION.tgz"
cp package/bundles/redoc.standalone.js "$here/redoc.standalone.js"
cp package/bundles/redoc.standalone.js.LICENSE.txt "$here/redoc.standalone.js.LICENSE.txt"
cp package/LICENSE "$here/LICENSE"
echo "fetched redoc@$REDOC_VERSION into $here"
