# Sourced by bin/test. The CPython REPL (`--repl cpython`) runs the machine's python3 inside
# bubblewrap; its tests need both, and numpy to show that a session sees the packages installed
# for that Python. Install Debian's bubblewrap, python3 and python3-numpy when missing.
rlm_ensure_sandbox() {
  local missing=()
  [ -x /usr/bin/bwrap ] || missing+=(bubblewrap)
  [ -x /usr/bin/python3 ] || missing+=(python3)
  if [ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
    missing+=(python3-numpy)
  fi
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  if [ "$(id -u)" != "0" ]; then
    echo "rlm-studio: the CPython REPL's tests need ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
    return 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "rlm-studio: the CPython REPL's tests need ${missing[*]} and this system has no apt-get; install them there yourself" >&2
    return 1
  fi
  echo "rlm-studio: installing Debian's ${missing[*]} for the CPython REPL's tests (once)" >&2
  apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >&2
  if [ ! -x /usr/bin/bwrap ] || ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
    echo "rlm-studio: apt-get did not install ${missing[*]}" >&2
    return 1
  fi
}
