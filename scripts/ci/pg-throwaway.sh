#!/usr/bin/env bash
# pg-throwaway.sh: a throwaway PostgreSQL server for tests (.ci/run), on a Unix socket only.
#
#   eval "$(pg-throwaway.sh start /tmp/pgt.XXXX)"   # prints export lines on stdout
#   pg-throwaway.sh stop  /tmp/pgt.XXXX             # stops it and removes the dir
#   pg-throwaway.sh halt  DIR [fast|immediate]      # stops it, keeping the dir (start resumes it)
#   pg-throwaway.sh restart DIR [fast|immediate]    # pg_ctl restart in that mode (default fast)
#
# start: installs Debian's postgresql if its server binaries are missing (root
# only), initialises DIR/data (trust auth, UTF8, fsync off), listens only on the
# socket DIR/.s.PGSQL.$PORT (no TCP), creates database memoryd_test with the
# unaccent extension, and prints PGHOST/PGPORT/PGUSER/PGDATABASE exports. The
# same lines are written to DIR/env. Progress goes to stderr.
# Re-running start on a running DIR just prints the exports again.
#
# Env knobs: PGT_PORT (5432; only names the socket file), PGT_DB (memoryd_test),
# PGT_OS_USER (postgres when run as root), PGT_TIMEOUT (seconds per wait, 60),
# PGT_FSYNC (off; on makes the cluster durable: fsync and synchronous_commit on,
# for tests that check what survives a crash).
set -Eeuo pipefail

PORT="${PGT_PORT:-5432}"
DB="${PGT_DB:-memoryd_test}"
SUPERUSER=postgres          # database role name of the bootstrap superuser
WAIT="${PGT_TIMEOUT:-60}"
MARKER=.pg-throwaway        # only dirs holding this file are ever rm -rf'd

log() { printf 'pg-throwaway: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
trap 'log "FAILED (exit $?) at line $LINENO: $BASH_COMMAND"' ERR

usage() { echo "usage: $0 start|stop DIR, or halt|restart DIR [fast|immediate]" >&2; exit 2; }
[ $# -eq 2 ] || [ $# -eq 3 ] || usage
CMD="$1"
MODE="${3:-fast}"
case "$MODE" in fast|immediate) ;; *) usage ;; esac
case "$2" in /*) DIR="$2" ;; *) DIR="$PWD/$2" ;; esac
DIR="${DIR%/}"
# DIR ends up inside postgresql.conf quotes and a connection string: keep it plain.
[[ "$DIR" =~ ^/[A-Za-z0-9._/-]+$ ]] || die "DIR must be an absolute path of [A-Za-z0-9._/-] (got '$DIR')"
[ "$DIR" != / ] || die "refusing DIR=/"
# A Unix socket path must fit in sockaddr_un.sun_path (108 bytes with the NUL).
SOCK="$DIR/.s.PGSQL.$PORT"
[ "${#SOCK}" -le 107 ] || die "socket path $SOCK is ${#SOCK} bytes; must be <= 107: use a shorter DIR (e.g. mktemp -d /tmp/pgt.XXXX)"

# --- where the server binaries are -----------------------------------------
find_bindir() {
  local d
  # highest major version with both initdb and unaccent
  for d in $(printf "%s\n" /usr/lib/postgresql/*/bin | sort -V -r); do
    local ver; ver="$(basename "$(dirname "$d")")"
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && [ -x "$d/psql" ] && [ -x "$d/pg_isready" ] \
       && [ -f "/usr/share/postgresql/$ver/extension/unaccent.control" ]; then
      echo "$d"; return 0
    fi
  done
  return 1
}

install_pg() {
  [ "$(id -u)" = 0 ] || die "PostgreSQL server binaries (with unaccent) are missing and we are not root: apt-get install postgresql postgresql-contrib"
  command -v apt-get >/dev/null || die "PostgreSQL is missing and there is no apt-get"
  local t0; t0="$(now)"
  log "installing postgresql from Debian packages"
  # No 'main' cluster in /var/lib/postgresql: we never use it, and it costs an initdb.
  mkdir -p /etc/postgresql-common/createcluster.d
  [ -e /etc/postgresql-common/createcluster.d/50-pg-throwaway.conf ] \
    || echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/50-pg-throwaway.conf
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get -o DPkg::Lock::Timeout=120 update -qq >&2
  # On Debian 12+ postgresql-contrib is a metapackage; unaccent ships in postgresql-NN.
  timeout 900 apt-get -o DPkg::Lock::Timeout=120 install -y -qq --no-install-recommends \
    postgresql postgresql-contrib >&2
  log "install took $(since "$t0")s"
}

# --- run a command as the unprivileged cluster owner -----------------------
if [ "$(id -u)" = 0 ]; then
  OSUSER="${PGT_OS_USER:-postgres}"
else
  OSUSER="$(id -un)"
fi
as_owner() {
  # cwd and HOME in DIR so neither initdb nor psql trips over /root.
  if [ "$(id -u)" = 0 ]; then
    (cd "$DIR" && HOME="$DIR" runuser -u "$OSUSER" -- "$@")
  else
    (cd "$DIR" && HOME="$DIR" "$@")
  fi
}
psql_su() { # psql_su DBNAME SQL
  as_owner env PGOPTIONS='-c client_min_messages=warning' \
    timeout "$WAIT" "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" -U "$SUPERUSER" -d "$1" -c "$2" >&2
}

print_env() {
  cat > "$DIR/env" <<EOF
export PGHOST=$DIR
export PGPORT=$PORT
export PGUSER=$SUPERUSER
export PGDATABASE=$DB
EOF
  cat "$DIR/env"
}

# A zombie is not alive. (pg_ctl status and kill -0 count zombies as running, and
# some container inits reap orphans only every second or so.)
pid_alive() { local st; st="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" && [ -n "$st" ] && [ "$st" != Z ]; }
pm_pid() { head -n1 "$DIR/data/postmaster.pid" 2>/dev/null || true; }
is_running() {
  local pid; pid="$(pm_pid)"
  [ -n "$pid" ] && pid_alive "$pid" \
    && as_owner timeout "$WAIT" "$BIN/pg_isready" -q -h "$DIR" -p "$PORT" -t "$WAIT"
}
# After a crash, wait (bounded) until the dead postmaster's pid is fully gone,
# or the new postmaster takes the zombie for a live one and refuses to start.
wait_stale_pid_gone() {
  local pid i; pid="$(pm_pid)"
  [ -n "$pid" ] || return 0
  for ((i = 0; i < WAIT * 10; i++)); do [ -e "/proc/$pid" ] && ! pid_alive "$pid" || return 0; sleep 0.1; done
  die "stale postmaster $pid did not go away within ${WAIT}s"
}

do_start() {
  local t0; t0="$(now)"
  BIN="$(find_bindir)" || { install_pg; BIN="$(find_bindir)" || die "no usable /usr/lib/postgresql/*/bin after install"; }
  local ver; ver="$(basename "$(dirname "$BIN")")"
  log "using $BIN (PostgreSQL $("$BIN/postgres" --version | awk '{print $3}'))"

  if [ "$(id -u)" = 0 ] && ! id -u "$OSUSER" >/dev/null 2>&1; then
    if [ -z "${PGT_OS_USER:-}" ] && id -u nobody >/dev/null 2>&1; then OSUSER=nobody; else die "no such user $OSUSER"; fi
  fi

  if [ -e "$DIR" ] && [ ! -f "$DIR/$MARKER" ] && [ -n "$(ls -A "$DIR")" ]; then
    die "$DIR exists, is not empty and was not made by this script"
  fi
  mkdir -p "$DIR"
  touch "$DIR/$MARKER"
  if [ "$(id -u)" = 0 ]; then chown -R "$OSUSER": "$DIR"; fi
  chmod 700 "$DIR"
  as_owner test -w "$DIR" || die "$OSUSER cannot write $DIR (a parent directory not searchable?)"

  if is_running; then
    log "already running in $DIR"
    print_env
    return 0
  fi

  local t1; t1="$(now)"
  if [ ! -f "$DIR/data/PG_VERSION" ]; then
    # C.UTF-8 ships with Debian's libc; fall back to C (still UTF8-encoded) elsewhere.
    local loc=C
    if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then loc=C.UTF-8; fi
    as_owner timeout "$WAIT" "$BIN/initdb" -D "$DIR/data" -U "$SUPERUSER" --auth=trust \
      --encoding=UTF8 --locale="$loc" --no-sync >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    cat >> "$DIR/data/postgresql.conf" <<EOF

# --- pg-throwaway: socket only, no durability ---
listen_addresses = ''
port = $PORT
unix_socket_directories = '$DIR'
unix_socket_permissions = 0777
fsync = ${PGT_FSYNC:-off}
synchronous_commit = ${PGT_FSYNC:-off}
full_page_writes = ${PGT_FSYNC:-off}
max_connections = 200
logging_collector = off
EOF
    log "initdb took $(since "$t1")s (locale $loc)"
  fi

  local t2; t2="$(now)"
  wait_stale_pid_gone
  as_owner "$BIN/pg_ctl" start -D "$DIR/data" -l "$DIR/server.log" -w -t "$WAIT" -s \
    || { tail -n 30 "$DIR/server.log" >&2 || true; die "pg_ctl start failed"; }
  log "server start took $(since "$t2")s"

  local t3; t3="$(now)"
  # unaccent in template1 too, so any database created later has it.
  psql_su template1 "CREATE EXTENSION IF NOT EXISTS unaccent"
  if ! as_owner "$BIN/psql" -X -tA -h "$DIR" -p "$PORT" -U "$SUPERUSER" -d postgres \
        -c "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
    psql_su postgres "CREATE DATABASE \"$DB\""
  fi
  psql_su "$DB" "CREATE EXTENSION IF NOT EXISTS unaccent"
  log "database setup took $(since "$t3")s"
  log "ready: PostgreSQL $ver on $SOCK, database $DB; total start $(since "$t0")s"
  print_env
}

do_stop() {
  if [ ! -e "$DIR" ]; then log "$DIR does not exist; nothing to stop"; return 0; fi
  [ -f "$DIR/$MARKER" ] || die "$DIR was not made by this script; not touching it"
  BIN="$(find_bindir)" || BIN=""
  local pid; pid="$(pm_pid)"
  if [ -n "$pid" ] && pid_alive "$pid"; then
    if [ -n "$BIN" ] && ! as_owner "$BIN/pg_ctl" stop -D "$DIR/data" -m fast -w -t "$WAIT" -s; then
      log "fast stop failed; trying immediate"
      as_owner "$BIN/pg_ctl" stop -D "$DIR/data" -m immediate -w -t "$WAIT" -s || true
    fi
    # Last resort: the postmaster by its pid, only if it is still this cluster's.
    if pid_alive "$pid" && [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$DIR/data" ]; then
      log "killing postmaster $pid"
      kill -KILL "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do pid_alive "$pid" || break; sleep 0.1; done
    fi
  fi
  rm -rf -- "$DIR"
  log "stopped and removed $DIR"
}

do_halt() {
  [ -f "$DIR/$MARKER" ] || die "$DIR was not made by this script; not touching it"
  BIN="$(find_bindir)" || die "no PostgreSQL server binaries"
  as_owner "$BIN/pg_ctl" stop -D "$DIR/data" -m "$MODE" -w -t "$WAIT" -s
}

do_restart() {
  [ -f "$DIR/$MARKER" ] || die "$DIR was not made by this script; not touching it"
  BIN="$(find_bindir)" || die "no PostgreSQL server binaries"
  as_owner "$BIN/pg_ctl" restart -D "$DIR/data" -m "$MODE" -l "$DIR/server.log" -w -t "$WAIT" -s
}

case "$CMD" in
  start) do_start ;;
  stop) do_stop ;;
  halt) do_halt ;;
  restart) do_restart ;;
  *) usage ;;
esac
