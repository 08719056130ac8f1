# Sourced by the bin/ scripts. Puts a Node 24 first on PATH and keeps node_modules in step
# with package-lock.json. Node 24 is the Node inside current Electron and the major that
# isolated-vm 7 ships prebuilt binaries for.
RLM_NODE_MAJOR=24
RLM_NODE_VERSION=24.21.0
: "${root:?root must be set by the caller}"
RLM_RUNTIME="$root/.runtime"

# Sets RLM_PLATFORM to Node's names for this machine ("linux-x64", "darwin-arm64"…), as npm's
# per-platform packages spell them. bash's own OSTYPE/HOSTTYPE, not `uname`: every launch runs
# this, and a spawn costs ms.
rlm_platform() {
  local os arch
  case "${OSTYPE:-}" in
    linux*) os=linux ;;
    darwin*) os=darwin ;;
    *) echo "rlm-studio: unsupported OS $(uname -s) for automatic Node provisioning; install Node $RLM_NODE_MAJOR yourself" >&2; return 1 ;;
  esac
  case "${HOSTTYPE:-}" in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) echo "rlm-studio: unsupported CPU $(uname -m)" >&2; return 1 ;;
  esac
  RLM_PLATFORM="$os-$arch"
}

rlm_node_dir() {
  rlm_platform || return 1
  echo "$RLM_RUNTIME/node_modules/node/node_modules/node-$RLM_PLATFORM"
}

# Succeeds when DIR/node_modules holds this platform's native binding for each installed package
# that needs one. npm can skip an optional dependency without a word (npm/cli#4828): one CI run
# got rolldown without @rolldown/binding-linux-x64-gnu, and Vite and Vitest could not start.
# Globs only (no spawn): the launch fast path runs it. Prints the first missing binding.
rlm_native_bindings_present() {
  local modules="$1/node_modules" pkg pattern
  rlm_platform || return 1
  for pkg in rolldown lightningcss; do
    [ -d "$modules/$pkg" ] || continue
    case "$pkg" in
      rolldown) pattern="$modules/@rolldown/binding-$RLM_PLATFORM*" ;;
      lightningcss) pattern="$modules/lightningcss-$RLM_PLATFORM*" ;;
    esac
    if ! compgen -G "$pattern/package.json" >/dev/null; then
      echo "${pattern#"$modules/"}"
      return 1
    fi
  done
}

rlm_system_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "$RLM_NODE_MAJOR" ]
}

rlm_ensure_node() {
  local dir
  # Not $(rlm_node_dir): a subshell is a fork on every command's start.
  rlm_platform || return 1
  dir="$RLM_RUNTIME/node_modules/node/node_modules/node-$RLM_PLATFORM"
  if [ -x "$dir/bin/node" ]; then
    export PATH="$dir/bin:$PATH"
    export npm_config_nodedir="$dir"
    RLM_NODE_BIN="$dir/bin/node"
    return 0
  fi
  if rlm_system_node_ok && [ -z "${RLM_FORCE_RUNTIME:-}" ]; then
    return 0
  fi
  echo "rlm-studio: fetching Node $RLM_NODE_VERSION from the npm registry into .runtime/ (once)" >&2
  mkdir -p "$RLM_RUNTIME"
  [ -f "$RLM_RUNTIME/package.json" ] || echo '{"private":true,"description":"Node runtime for rlm-studio"}' >"$RLM_RUNTIME/package.json"
  (cd "$RLM_RUNTIME" && npm install --no-audit --no-fund --no-save --loglevel=error "node@$RLM_NODE_VERSION" >&2)
  if [ ! -x "$dir/bin/node" ]; then
    echo "rlm-studio: Node $RLM_NODE_VERSION did not install into $dir" >&2
    return 1
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
}

rlm_ensure_deps() {
  # Reinstall only when the lock file or the Node version changed (not on every edit of
  # package.json scripts): npm ci empties node_modules, which breaks anything running.
  local stamp="$root/node_modules/.rlm-installed" want node_bin
  # Fast path without spawning anything (every launch pays this): the stamp is newer than both
  # the lock file and the node binary, so neither changed since it was written (git and npm
  # give the files they write a fresh mtime).
  node_bin="${RLM_NODE_BIN:-}"
  [ -n "$node_bin" ] || node_bin="$(command -v node)" || node_bin=""
  if [ -n "$node_bin" ] && [ "$stamp" -nt "$root/package-lock.json" ] && [ "$stamp" -nt "$node_bin" ] && rlm_native_bindings_present "$root" >/dev/null; then
    return 0
  fi
  want="$(node -v) $(cksum <"$root/package-lock.json")"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && rlm_native_bindings_present "$root" >/dev/null; then
    touch "$stamp" # same content, so the fast path holds again next time
    return 0
  fi
  local attempt missing
  for attempt in 1 2; do
    echo "rlm-studio: installing npm dependencies with Node $(node -v)" >&2
    # The Electron binary downloads on first launch, not at install: nothing here needs the internet.
    (cd "$root" && ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2)
    if missing="$(rlm_native_bindings_present "$root")"; then
      echo "$want" >"$stamp"
      return 0
    fi
    echo "rlm-studio: npm ci left out the native binding $missing (an optional dependency; npm/cli#4828)" >&2
  done
  echo "rlm-studio: $missing is still missing after installing twice; run npm ci again, or install it by hand" >&2
  return 1
}
