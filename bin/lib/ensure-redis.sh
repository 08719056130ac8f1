# Sourced by bin/test. The queue tests (eval --queue, rlm-studio worker) start Debian's
# redis-server on a free loopback port; install it when missing.
rlm_ensure_redis() {
  if [ -x /usr/bin/redis-server ]; then
    return 0
  fi
  if [ "$(id -u)" != "0" ]; then
    echo "rlm-studio: the queue tests need redis-server at /usr/bin/redis-server; install it with: sudo apt-get install -y redis-server" >&2
    return 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "rlm-studio: the queue tests need redis-server at /usr/bin/redis-server and this system has no apt-get; install Redis there yourself" >&2
    return 1
  fi
  echo "rlm-studio: installing Debian's redis-server for the queue tests (once)" >&2
  apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server >&2
  if [ ! -x /usr/bin/redis-server ]; then
    echo "rlm-studio: apt-get did not install /usr/bin/redis-server" >&2
    return 1
  fi
}
