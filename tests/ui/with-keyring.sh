#!/bin/sh
# Runs "$@" in a private D-Bus session with a GNOME Keyring of its own (an
# login keyring with a throwaway password, unlocked, in a temporary folder), so that tests
# keep passwords through libsecret without touching the user's keyring.
# Sets SIMHOUND_TEST_KEYRING=1 when the keyring started.
set -eu
if [ -z "${SIMHOUND_IN_KEYRING:-}" ]; then
  export SIMHOUND_IN_KEYRING=1
  exec dbus-run-session -- "$0" "$@"
fi
top=$(mktemp -d "${TMPDIR:-/tmp}/simhound-keyring.XXXXXX")
trap 'rm -rf "$top"' EXIT
export XDG_DATA_HOME="$top/data" XDG_RUNTIME_DIR="$top/run" XDG_CACHE_HOME="$top/cache"
mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR" "$XDG_CACHE_HOME"
chmod 700 "$XDG_RUNTIME_DIR"
if command -v gnome-keyring-daemon >/dev/null &&
   eval "$(printf 'simhound-test' | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)"; then
  export SIMHOUND_TEST_KEYRING=1
fi
"$@"
