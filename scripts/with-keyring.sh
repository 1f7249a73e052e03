#!/bin/sh
# Run a command with an OS keychain (Secret Service) available, e.g. `scripts/with-keyring.sh vitest run`.
# Without a D-Bus session (CI, containers, SSH), start a private one with a throwaway, unlocked
# gnome-keyring so @napi-rs/keyring can store secrets; otherwise run the command as it is.
set -eu

if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

# npm puts node_modules/.bin on PATH for `npm test`; do the same when run by hand.
PATH="$(cd "$(dirname "$0")/.." && pwd)/node_modules/.bin:$PATH"
export PATH

if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] \
  || ! command -v dbus-run-session >/dev/null 2>&1 \
  || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  exec "$@"
fi

exec dbus-run-session -- sh -c '
  runtime=$(mktemp -d) data=$(mktemp -d)
  trap "rm -rf \"\$runtime\" \"\$data\"" EXIT
  trap "exit 130" INT
  trap "exit 143" TERM
  export XDG_RUNTIME_DIR="$runtime" XDG_DATA_HOME="$data"
  # The password only unlocks this throwaway keyring, which is deleted on exit.
  printf %s docwright-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  status=0
  "$@" || status=$?
  exit "$status"
' with-keyring "$@"
