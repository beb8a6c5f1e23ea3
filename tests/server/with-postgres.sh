#!/bin/sh
# Runs "$@" beside a throwaway PostgreSQL 15 cluster on loopback: initdb in
# a temporary folder (as the postgres user when run as root: CI runs as
# root), a free port, stopped and removed at the end even when the command
# fails or the test is killed. The command finds the cluster in
# SIMHOUND_TEST_PG (a libpq URI for the superuser "postgres") and
# SIMHOUND_TEST_PG_HOST / SIMHOUND_TEST_PG_PORT.
#
# usage: with-postgres.sh [--clusters N] COMMAND [ARG…]
#   --clusters N  start N clusters; the extra ones are SIMHOUND_TEST_PG_2…
# SIMHOUND_TEST_PG_SETTINGS adds server settings ("-c shared_buffers=4GB
# -c huge_pages=on"), as an administrator tunes a real server.
set -eu

n=1
if [ "${1:-}" = "--clusters" ]; then n=$2; shift 2; fi

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "with-postgres.sh: no PostgreSQL server (apt-get install postgresql-15)" >&2; exit 1; }

top=$(mktemp -d "${TMPDIR:-/tmp}/simhound-pg.XXXXXX")
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
if [ "$(id -u)" = 0 ]; then chown postgres "$top"; fi

stop() {
  for d in "$top"/c*; do
    [ -f "$d/data/postmaster.pid" ] && as_pg "$bin/pg_ctl" -D "$d/data" -m immediate stop >/dev/null 2>&1 || true
  done
  rm -rf "$top"
}
trap stop EXIT
trap 'exit 130' INT TERM HUP

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

i=1
while [ "$i" -le "$n" ]; do
  d="$top/c$i"
  as_pg mkdir -p "$d"
  as_pg "$bin/initdb" -D "$d/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$top/initdb-$i.log" 2>&1 ||
    { cat "$top/initdb-$i.log" >&2; exit 1; }
  # A port taken between choosing and starting: try again.
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    if as_pg "$bin/pg_ctl" -D "$d/data" -w -t 30 -l "$d/log" \
         -o "-h 127.0.0.1 -p $port -k $d -c fsync=off -c max_connections=60 ${SIMHOUND_TEST_PG_SETTINGS:-}" start >/dev/null 2>&1; then
      break
    fi
    port=
  done
  [ -n "$port" ] || { cat "$d/log" >&2; exit 1; }
  uri="postgresql://postgres@127.0.0.1:$port/postgres"
  if [ "$i" = 1 ]; then
    export SIMHOUND_TEST_PG="$uri" SIMHOUND_TEST_PG_HOST=127.0.0.1 SIMHOUND_TEST_PG_PORT="$port"
  else
    export "SIMHOUND_TEST_PG_$i=$uri"
  fi
  i=$((i + 1))
done

"$@"
