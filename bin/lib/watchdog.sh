# Sourced by bin/test. A test worker blocked in native code fires none of vitest's timeouts, and
# the run would wait until CI gives up on it: it happened a few times in Python-heavy runs and
# could not be made to happen again. Past a limit far beyond a whole run (RLM_TEST_WATCHDOG_SECONDS,
# default 45 minutes; a run takes about 15), the watchdog prints what each process of the run is
# doing (each thread's kernel wait, and the native stacks of Node processes when gdb is there or
# can be installed), then stops the run, which fails.

# Runs "$@" in a process group of its own under the watchdog; returns its exit status. Job
# control (set -m) gives it the group; without it, bash would start it ignoring SIGINT, which its
# processes and the tests that send SIGINT would inherit.
rlm_run_watched() {
  local limit="${RLM_TEST_WATCHDOG_SECONDS:-2700}"
  local fired
  fired="$(mktemp)"
  rm -f "$fired"
  set -m
  "$@" </dev/null &
  local group=$!
  set +m
  (
    local waited=0 grace
    while kill -0 "$group" 2>/dev/null; do
      if [ "$waited" -ge "$limit" ]; then
        : >"$fired"
        echo "rlm-studio: the test run is still going after ${limit}s; what its processes are doing, then it is stopped:" >&2
        rlm_describe_group "$group" >&2
        kill -TERM -- "-$group" 2>/dev/null
        # A process whose JavaScript thread is blocked never runs a SIGTERM handler.
        for grace in 1 2 3 4 5; do
          kill -0 -- "-$group" 2>/dev/null || exit 0
          sleep 1
        done
        kill -KILL -- "-$group" 2>/dev/null
        exit 0
      fi
      # Not holding the run's output open once the run is over.
      sleep 1 >/dev/null 2>&1
      waited=$((waited + 1))
    done
  ) &
  local dog=$!
  # The run is not in the terminal's foreground group, so a Ctrl-C here does not reach it: pass it on.
  trap 'kill -TERM -- "-$group" 2>/dev/null' INT TERM
  local status=0
  wait "$group" || status=$?
  trap - INT TERM
  # Once it has fired, the watchdog finishes stopping the run; otherwise it is no longer needed.
  if [ -e "$fired" ]; then
    wait "$dog" 2>/dev/null || true
    rm -f "$fired"
  else
    kill "$dog" 2>/dev/null || true
  fi
  return "$status"
}

# Every process of process group GROUP: its command line, CPU time and each thread's kernel
# wait; then the threads' native stacks of its Node processes, with gdb.
rlm_describe_group() {
  local group=$1 stat line rest pid fields task
  local nodes=()
  for stat in /proc/[0-9]*/stat; do
    read -r line <"$stat" 2>/dev/null || continue
    pid=${stat#/proc/}
    pid=${pid%/stat}
    # After the command name (in parentheses, may hold spaces): state ppid pgrp session … utime stime.
    rest=${line##*) }
    read -r -a fields <<<"$rest"
    [ "${fields[2]}" = "$group" ] || continue
    echo "== process $pid (parent ${fields[1]}, state ${fields[0]}, CPU $(((fields[11] + fields[12]) / 100)) s): $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    for task in /proc/"$pid"/task/*; do
      echo "   thread ${task##*/} $(cat "$task/comm" 2>/dev/null): waits in $(cat "$task/wchan" 2>/dev/null || echo '?')"
    done
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "node" ]; then nodes+=("$pid"); fi
  done
  [ "${#nodes[@]}" -gt 0 ] || return 0
  if ! command -v gdb >/dev/null 2>&1; then
    if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
      echo "(no gdb here for the native stacks of the Node processes)"
      return 0
    fi
    echo "(installing gdb for the native stacks of the Node processes)"
    apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y gdb >/dev/null 2>&1 || return 0
  fi
  for pid in "${nodes[@]}"; do
    echo "== native stacks of process $pid"
    timeout 60 gdb -p "$pid" -batch -ex 'thread apply all bt 30' 2>/dev/null | grep -E '^(Thread|#)' | head -600
  done
}
