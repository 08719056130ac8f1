# Sourced by bin/test. The end-to-end tests drive Debian's Chromium (/usr/bin/chromium)
# with playwright-core; install it when missing.
rlm_ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then
    return 0
  fi
  if [ "$(id -u)" != "0" ]; then
    echo "rlm-studio: the end-to-end tests need Chromium at /usr/bin/chromium; install it with: sudo apt-get install -y chromium" >&2
    return 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "rlm-studio: the end-to-end tests need Chromium at /usr/bin/chromium and this system has no apt-get; install Chromium there yourself" >&2
    return 1
  fi
  echo "rlm-studio: installing Debian's chromium for the end-to-end tests (once)" >&2
  apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >&2
  if [ ! -x /usr/bin/chromium ]; then
    echo "rlm-studio: apt-get did not install /usr/bin/chromium" >&2
    return 1
  fi
}
