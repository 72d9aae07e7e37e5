#!/usr/bin/env bash
# Builds and checks every install path of mcp-web, as a user of each would take it:
#   1. server.json valid against the MCP registry's published schema, its versions the
#      crate's;
#   2. the wheel (maturin, bindings = "bin"): built, installed into a fresh virtualenv with
#      `pip install .`, and `uvx --from . mcp-web serve` answering tools/list on stdio;
#   3. the Claude Desktop extension: `mcpb validate` on the manifest, `mcpb pack` of it with
#      the release binary, the .mcpb holding both, the packed binary answering tools/list;
#   4. the three crates package for crates.io (`cargo package --workspace`: each one built
#      from its .crate file, in dependency order, the unpublished workspace crates
#      resolved from the packages just made).
# Slow (release builds), so not part of .ci/run. Tools come from PyPI (maturin, uv,
# jsonschema) and npm (@anthropic-ai/mcpb), installed under target/package-check/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work="${CARGO_TARGET_DIR:-$root/target}/package-check"
mkdir -p "$work"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
say() { printf '\n== %s\n' "$*"; }
fail() { printf 'package.sh: %s\n' "$*" >&2; exit 1; }

say "tools (maturin, uv, jsonschema; @anthropic-ai/mcpb)"
if [ ! -x "$work/venv/bin/maturin" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install --quiet --disable-pip-version-check \
    'maturin>=1.9,<2' 'uv>=0.8' 'jsonschema>=4.18'
fi
if [ ! -x "$work/npm/node_modules/.bin/mcpb" ]; then
  npm install --silent --no-audit --no-fund --prefix "$work/npm" @anthropic-ai/mcpb@2.1.2
fi
py="$work/venv/bin/python"
mcpb="$work/npm/node_modules/.bin/mcpb"

say "server.json against the registry schema"
"$py" - "$version" <<'PY'
import json, sys
import jsonschema
version = sys.argv[1]
schema = json.load(open("ci/registry/server.schema.json"))
server = json.load(open("server.json"))
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = sorted(validator.iter_errors(server), key=lambda e: list(e.path))
for e in errors:
    print(f"server.json {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
if errors:
    sys.exit(1)
versions = {server["version"]} | {p["version"] for p in server["packages"]}
versions.add(json.load(open("packaging/mcpb/manifest.json"))["version"])
if versions != {version}:
    sys.exit(f"server.json and manifest.json versions {sorted(versions)} are not the crate's {version}")
readme = open("README.md").read()
if f"mcp-name: {server['name']}" not in readme:
    sys.exit("README.md lacks the registry's ownership line 'mcp-name: " + server["name"] + "'")
print("server.json is valid;", "versions", version)
PY

say "wheel: maturin build --release"
rm -rf "$work/wheels"
"$work/venv/bin/maturin" build --release --quiet --out "$work/wheels"
wheel=$(ls "$work"/wheels/mcp_web-"$version"-*.whl)
# The listing is read whole first: `grep -q` would close the pipe early (pipefail).
listing=$("$py" -m zipfile -l "$wheel")
grep -q "mcp_web-$version.data/scripts/mcp-web" <<<"$listing" || fail "the wheel holds no mcp-web script"

say "pip install . into a fresh virtualenv"
rm -rf "$work/pip-venv"
python3 -m venv "$work/pip-venv"
"$work/pip-venv/bin/pip" install --quiet --disable-pip-version-check "$root"
"$work/pip-venv/bin/mcp-web" --version | grep -qx "mcp-web $version" || fail "mcp-web --version"

# One initialize and one tools/list on stdio; the answer must list the four tools.
tools_list() {
  printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"package.sh","version":"0"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
    | "$@" | grep '"id":2' | "$py" -c '
import json, sys
names = sorted(t["name"] for t in json.loads(sys.stdin.read())["result"]["tools"])
assert names == ["web_crawl", "web_fetch", "web_grep", "web_search"], names
print("tools/list:", ", ".join(names))'
}
tools_list "$work/pip-venv/bin/mcp-web" serve

say "uvx --from . mcp-web serve"
UV_CACHE_DIR="$work/uv-cache" tools_list "$work/venv/bin/uvx" --from "$root" mcp-web serve

say "Claude Desktop extension: mcpb validate, mcpb pack"
stage="$work/mcpb"
rm -rf "$stage" && mkdir -p "$stage/server"
cp packaging/mcpb/manifest.json "$stage/"
cp "${CARGO_TARGET_DIR:-$root/target}/release/mcp-web" "$stage/server/mcp-web"
"$mcpb" validate "$stage/manifest.json"
"$mcpb" pack "$stage" "$work/mcp-web-$version.mcpb"
listing=$("$py" -m zipfile -l "$work/mcp-web-$version.mcpb")
grep -q "server/mcp-web" <<<"$listing" || fail "the bundle holds no binary"
grep -q "manifest.json" <<<"$listing" || fail "the bundle holds no manifest"
tools_list "$stage/server/mcp-web" serve

say "crates: cargo package --workspace (each crate built from its package)"
cargo package --workspace --locked
for crate in mcp-web-core mcp-web-kit mcp-web-server; do
  file="${CARGO_TARGET_DIR:-$root/target}/package/$crate-$version.crate"
  [ -f "$file" ] || fail "no $file"
  listing=$(tar -tzf "$file")
  grep -qx "$crate-$version/README.md" <<<"$listing" || fail "$crate has no README.md"
done

say "all install paths checked: $work"
