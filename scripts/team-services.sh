#!/usr/bin/env bash
# The team server's services on one machine: PostgreSQL with pgvector and an S3-compatible object store
# (SeaweedFS's S3 gateway), both real servers keeping their data under DIR, on free loopback ports.
#
#   eval "$(bash scripts/team-services.sh start DIR)"   starts both (or finds them running) and prints the
#                                                      exports; DIR/env.sh holds the same lines
#   bash scripts/team-services.sh status DIR           exit 0 when both run, 3 otherwise
#   bash scripts/team-services.sh stop DIR             stops both and waits until they have exited
#   bash scripts/team-services.sh stop DIR postgres    stops PostgreSQL alone (the S3 gateway runs on); a later
#                                                      start starts it again on the same data and, when it is
#                                                      still free, the same port: a database restart, as the
#                                                      failover tests make one under running nodes
#
# The binaries come from the repository's .venv (scripts/install.sh puts them there). PostgreSQL refuses to
# run as root, so under root it runs as the system user $LECTERN_PG_USER (default lectern-pg, created when
# missing). A later start reuses DIR's data, credentials and, when they are still free, its ports.
set -euo pipefail

usage() { echo "usage: $0 start|stop|status DIR, or $0 stop DIR postgres" >&2; exit 2; }
[ $# -eq 2 ] || { [ $# -eq 3 ] && [ "$1" = stop ] && [ "$3" = postgres ]; } || usage
CMD=$1
ONLY=${3:-}
case "$CMD" in start | stop | status) ;; *) usage ;; esac

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV="$ROOT/.venv"
PGBIN=""
for d in "$VENV"/lib/python3*/site-packages/pgserver/pginstall/bin; do [ -d "$d" ] && PGBIN=$d; done
WEED="$VENV/bin/weed"
PG_USER=${LECTERN_PG_USER:-lectern-pg}
BUCKET=lectern
REGION=us-east-1

if [ ! -d "$2" ]; then
  case "$CMD" in
    stop) exit 0 ;;
    status) printf 'postgres: stopped\ns3: stopped\n'; exit 3 ;;
  esac
  mkdir -p "$2"
fi
DIR=$(cd "$2" && pwd)
PGDATA="$DIR/pg"
PGLOG="$DIR/postgres.log"
WEEDDIR="$DIR/seaweedfs"
WEEDLOG="$DIR/seaweedfs.log"
WEEDPID="$DIR/seaweedfs.pid"
S3CONF="$DIR/s3.json"
PORTS="$DIR/ports"
ENVFILE="$DIR/env.sh"

# The last line printed is the one that says what went wrong; the log's tail above it says why.
fail() {
  if [ -n "${2:-}" ] && [ -s "$2" ]; then
    echo "--- last lines of $2" >&2
    tail -n 25 "$2" >&2
    [ -z "$(tail -c 1 "$2")" ] || echo >&2
  fi
  echo "team-services: $1" >&2
  exit 1
}

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi
}

pg_running() { [ -f "$PGDATA/PG_VERSION" ] && as_pg "$PGBIN/pg_ctl" status -D "$PGDATA" >/dev/null 2>&1; }

# The pid file alone could name a process that has since been reused: check it is our weed on our DIR.
weed_pid() {
  local pid
  pid=$(cat "$WEEDPID" 2>/dev/null || true)
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] &&
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "-dir=$WEEDDIR " && echo "$pid"
}

# Prints N loopback ports that are free now, all different (each socket stays bound until all are chosen),
# then, with --pair, one more port P whose P + 10000 is free too, and that P + 10000.
free_ports() {
  python3 - "$@" <<'PY'
import random, socket, sys
socks = []
def bind(port):
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    socks.append(s)
    return s.getsockname()[1]
ports = [bind(0) for _ in range(int(sys.argv[1]))]
if "--pair" in sys.argv:
    for _ in range(1000):
        p = random.randrange(20000, 55000)
        try:
            a = bind(p)
        except OSError:
            continue
        try:
            ports += [a, bind(p + 10000)]
            break
        except OSError:
            pass
    else:
        sys.exit("no free pair of ports P, P+10000 on 127.0.0.1")
print(" ".join(map(str, ports)))
PY
}

ports_free() {
  python3 - "$@" <<'PY'
import socket, sys
for p in sys.argv[1:]:
    s = socket.socket()
    # As the servers do: a port whose last connections linger in TIME_WAIT is free to listen on.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", int(p)))
    except OSError:
        sys.exit(1)
    finally:
        s.close()
PY
}

s3_curl() {
  curl --silent --show-error --max-time 5 --aws-sigv4 "aws:amz:$REGION:s3" \
    --user "$ACCESS_KEY:$SECRET_KEY" "$@"
}

load_state() {
  PG_PORT="" WEED_PORTS=""
  # shellcheck disable=SC1090
  [ -f "$PORTS" ] && . "$PORTS"
  ACCESS_KEY=$(sed -n 's/.*"accessKey": *"\([^"]*\)".*/\1/p' "$S3CONF" 2>/dev/null || true)
  SECRET_KEY=$(sed -n 's/.*"secretKey": *"\([^"]*\)".*/\1/p' "$S3CONF" 2>/dev/null || true)
}

write_env() {
  local s3_port
  s3_port=$(echo "$WEED_PORTS" | cut -d' ' -f7)
  cat >"$ENVFILE" <<EOF
export LECTERN_DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/lectern
export LECTERN_OBJECT_STORE_URL=s3://$BUCKET/
export AWS_ENDPOINT_URL_S3=http://127.0.0.1:$s3_port
export AWS_ACCESS_KEY_ID=$ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$SECRET_KEY
export AWS_REGION=$REGION
EOF
  chmod 600 "$ENVFILE"
}

check_binaries() {
  if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/postgres" ] || [ ! -x "$WEED" ]; then
    fail "PostgreSQL or SeaweedFS is missing from $VENV: run bash scripts/install.sh"
  fi
  command -v curl >/dev/null || fail "curl is needed to check the S3 gateway: apt-get install curl"
}

# Root cannot run PostgreSQL: give the data directory and its log to an unprivileged system user.
prepare_pg_user() {
  [ "$(id -u)" -eq 0 ] || return 0
  id -u "$PG_USER" >/dev/null 2>&1 ||
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$PG_USER" ||
    fail "could not create the system user $PG_USER that runs PostgreSQL"
  chmod a+x "$DIR"
  mkdir -p "$PGDATA"
  touch "$PGLOG"
  chown "$PG_USER" "$PGDATA" "$PGLOG"
  as_pg test -x "$PGBIN/postgres" ||
    fail "user $PG_USER cannot run $PGBIN/postgres: a directory on that path is closed to other users"
  as_pg test -w "$PGDATA" ||
    fail "user $PG_USER cannot write $PGDATA: a directory above $DIR is closed to other users"
}

start_pg() {
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres -A trust -E UTF8 --no-locale >"$DIR/initdb.log" 2>&1 ||
      fail "initdb failed for $PGDATA" "$DIR/initdb.log"
    # TCP on loopback only: no Unix socket, whose path length DIR could exceed.
    printf "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n" >>"$PGDATA/postgresql.conf"
    # Every node holds a pool of connections (up to 10 each): room for a few API nodes, workers and tools.
    printf "max_connections = 300\n" >>"$PGDATA/postgresql.conf"
  fi
  if [ -z "$PG_PORT" ] || ! ports_free "$PG_PORT"; then PG_PORT=$(free_ports 1); fi
  as_pg "$PGBIN/pg_ctl" start -D "$PGDATA" -l "$PGLOG" -o "-p $PG_PORT" -w -t 60 >/dev/null 2>&1 9>&- ||
    fail "PostgreSQL did not start on 127.0.0.1:$PG_PORT" "$PGLOG"
  "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -t 30 ||
    fail "PostgreSQL does not answer on 127.0.0.1:$PG_PORT" "$PGLOG"
  local psql=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres)
  if [ -z "$("${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'lectern'")" ]; then
    "${psql[@]}" -d postgres -c "CREATE DATABASE lectern" >>"$PGLOG" 2>&1 ||
      fail "could not create the database lectern" "$PGLOG"
  fi
  "${psql[@]}" -d lectern -c "CREATE EXTENSION IF NOT EXISTS vector" >>"$PGLOG" 2>&1 ||
    fail "could not create the extension vector in the database lectern" "$PGLOG"
}

start_weed() {
  mkdir -p "$WEEDDIR"
  if [ ! -s "$S3CONF" ] || [ -z "$ACCESS_KEY" ]; then
    ACCESS_KEY=lectern$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
    SECRET_KEY=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
    (umask 077 && cat >"$S3CONF" <<EOF
{
  "identities": [
    {
      "name": "lectern",
      "credentials": [{ "accessKey": "$ACCESS_KEY", "secretKey": "$SECRET_KEY" }],
      "actions": ["Admin", "Read", "Write", "List", "Tagging"]
    }
  ]
}
EOF
    )
  fi
  # master, master gRPC, volume, volume gRPC, filer, filer gRPC, S3, S3 gRPC, admin, admin gRPC: all chosen
  # here, since SeaweedFS would otherwise take its default ports, which other servers may hold. Its admin's
  # worker dials the admin's HTTP port + 10000 whatever -admin.port.grpc says, hence the pair.
  # shellcheck disable=SC2086
  if [ -z "$WEED_PORTS" ] || ! ports_free $WEED_PORTS; then WEED_PORTS=$(free_ports 8 --pair); fi
  local p
  read -ra p <<<"$WEED_PORTS"
  # `weed mini` rather than `weed server`: its parts stop in an order that takes 2 s, not 16.
  # No bucket made on a first upload: as on S3, a misnamed bucket is an error, not a new bucket.
  # setsid: the server outlives this script and is not stopped by a Ctrl-C meant for its caller.
  setsid "$WEED" mini -dir="$WEEDDIR" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -master.port="${p[0]}" -master.port.grpc="${p[1]}" -master.telemetry=false \
    -volume.port="${p[2]}" -volume.port.grpc="${p[3]}" \
    -filer.port="${p[4]}" -filer.port.grpc="${p[5]}" -filer.localSocket="$DIR/filer.sock" \
    -s3.port="${p[6]}" -s3.port.grpc="${p[7]}" -s3.port.iceberg=0 -s3.port.lance=0 \
    -s3.config="$S3CONF" -s3.localSocket="$DIR/s3.sock" -s3.autoCreateBucket=false \
    -admin.port="${p[8]}" -admin.port.grpc="${p[9]}" -admin.ui=false -webdav=false \
    </dev/null >>"$WEEDLOG" 2>&1 9>&- &
  local pid=$! url="http://127.0.0.1:${p[6]}" i
  echo "$pid" >"$WEEDPID"
  for i in $(seq 120); do
    # alive, not weed_pid: until setsid has exec'd, the child's command line is still this script's.
    alive "$pid" || fail "SeaweedFS exited while starting" "$WEEDLOG"
    [ "$(s3_curl -o /dev/null -w '%{http_code}' "$url/" 2>/dev/null)" = 200 ] && break
    [ "$i" -eq 120 ] && fail "the S3 gateway does not answer on $url after 60 s" "$WEEDLOG"
    sleep 0.5
  done
  if [ "$(s3_curl -o /dev/null -w '%{http_code}' --head "$url/$BUCKET")" != 200 ]; then
    local code
    code=$(s3_curl -o "$DIR/bucket.xml" -w '%{http_code}' -X PUT "$url/$BUCKET") || true
    [ "$code" = 200 ] || fail "could not create the bucket $BUCKET (HTTP $code)" "$DIR/bucket.xml"
    rm -f "$DIR/bucket.xml"
  fi
  wait_objects "$url" "$pid"
}

# Ready means objects can be written and read, not only that the gateway answers: its bucket listing and
# HEAD are answered by the filer alone, before the volume server has joined the master, and for a moment
# after a restart a GET of an object written before it, or a PUT, still failed with InternalError (seen
# as a flaky "keeps a row and an object across stop and start" under load). So: the probe object the last
# start left must read back (or be missing, on a first start), and a new one written now must read back.
PROBE=.team-services/ready
wait_objects() {
  local url=$1 pid=$2 token hash i old
  token=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
  hash=$(printf %s "$token" | sha256sum | cut -d' ' -f1)
  for i in $(seq 120); do
    alive "$pid" || fail "SeaweedFS exited while starting" "$WEEDLOG"
    old=$(s3_curl -o /dev/null -w '%{http_code}' "$url/$BUCKET/$PROBE" 2>/dev/null) || true
    if [ "$old" = 200 ] || [ "$old" = 404 ]; then
      # curl 7.88 signs a body only when told its hash (S3 answers SignatureDoesNotMatch otherwise).
      [ "$(s3_curl -o /dev/null -w '%{http_code}' -X PUT -H "x-amz-content-sha256: $hash" -H 'content-type: text/plain' \
        --data-binary "$token" "$url/$BUCKET/$PROBE" 2>/dev/null)" = 200 ] &&
        [ "$(s3_curl "$url/$BUCKET/$PROBE" 2>/dev/null)" = "$token" ] && return 0
    fi
    [ "$i" -eq 120 ] && fail "the S3 gateway does not store objects in $BUCKET after 60 s (a probe object read back HTTP $old)" "$WEEDLOG"
    sleep 0.5
  done
}

# A server whose parent has gone may stay a zombie until something reaps it: that counts as exited.
alive() {
  local state
  state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) && [ "$state" != Z ]
}

stop_weed() {
  local pid i
  pid=$(weed_pid) || true
  if [ -n "$pid" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 60); do alive "$pid" || break; sleep 0.5; done
    if alive "$pid"; then
      echo "team-services: SeaweedFS did not stop within 30 s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$WEEDPID"
}

stop_pg() {
  pg_running || return 0
  as_pg "$PGBIN/pg_ctl" stop -D "$PGDATA" -m fast -w -t 60 >/dev/null 2>&1 ||
    fail "PostgreSQL did not stop" "$PGLOG"
}

# One command at a time per DIR: two starts at once would pick different ports for the same data. The
# servers are started with fd 9 closed, or they would hold the lock for as long as they run.
exec 9>"$DIR/.lock"
flock 9

case "$CMD" in
  start)
    check_binaries
    load_state
    if ! pg_running; then
      prepare_pg_user
      start_pg
    fi
    [ -n "$(weed_pid)" ] || start_weed
    printf 'PG_PORT=%s\nWEED_PORTS="%s"\n' "$PG_PORT" "$WEED_PORTS" >"$PORTS"
    write_env
    cat "$ENVFILE"
    ;;
  stop)
    load_state
    [ -n "$PGBIN" ] || fail "PostgreSQL is missing from $VENV: run bash scripts/install.sh"
    [ "$ONLY" = postgres ] || stop_weed
    stop_pg
    ;;
  status)
    load_state
    rc=0
    if [ -n "$PGBIN" ] && pg_running; then
      echo "postgres: running on 127.0.0.1:$PG_PORT"
    else
      echo "postgres: stopped"; rc=3
    fi
    pid=$(weed_pid) || true
    if [ -n "$pid" ]; then
      echo "s3: running on 127.0.0.1:$(echo "$WEED_PORTS" | cut -d' ' -f7) (pid $pid)"
    else
      echo "s3: stopped"; rc=3
    fi
    exit $rc
    ;;
esac
