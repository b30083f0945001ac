#!/usr/bin/env bash
# Fuzzes the HTTP API with schemathesis against its own /openapi.json: the real server (`lectern serve`) on
# a temporary data folder with a key, about three minutes in all. Fails on any 5xx other than a documented
# 502/503, on any status, content type or body the document does not declare, on a method the path does not
# have answering anything but 405, and on a route that answers without the key.
# Needs scripts/install.sh (the .venv with schemathesis) and the built dist/ (npm run build:node).
# FUZZ_SECONDS (default 150) bounds the fuzzing; FUZZ_SEED (default fixed) picks the examples.
set -uo pipefail
cd "$(dirname "$0")/.."

st=.venv/bin/schemathesis
if [ ! -x "$st" ]; then
  echo "fuzz-api: $st is missing: run scripts/install.sh" >&2
  exit 1
fi
if [ ! -f dist/cli.js ]; then
  echo "fuzz-api: dist/cli.js is missing: run npm run build:node" >&2
  exit 1
fi

work=$(mktemp -d -t lectern-fuzz-XXXXXX)
key=$(node -e 'process.stdout.write(require("node:crypto").randomBytes(24).toString("hex"))')
port=$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})')
mkdir -p "$work/data" "$work/documents" "$work/run"
server_pid=""

stop() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$server_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap stop EXIT

# Nothing the fuzzer sends may reach out or read this machine's files: documents only from an empty folder,
# the encyclopedia on a loopback address the guarded fetch refuses, short outbound timeouts for the rest.
# The fuzzer sends wrong and missing keys on purpose (ignored_auth): the per-client limit on them would
# soon answer everything 429 and leave the routes untested.
SERVICE_API_KEY="$key" \
LECTERN_AUTH_FAILURES_PER_MINUTE=1000000 \
LECTERN_WARM_UP_ROUNDS=0 \
LECTERN_WORKERS=1 \
LECTERN_LOG_LEVEL=warn \
LECTERN_DOCUMENT_ROOTS="$work/documents" \
LECTERN_ENCYCLOPEDIA_URL=http://127.0.0.1:9/w/api.php \
LECTERN_OUTBOUND_CONNECT_TIMEOUT_MS=2000 \
LECTERN_OUTBOUND_TIMEOUT_MS=5000 \
  node bin/lectern.js serve --data-dir "$work/data" --host 127.0.0.1 -p "$port" >"$work/server.log" 2>&1 &
server_pid=$!

url="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  curl -fsS -o /dev/null -H "X-API-Key: $key" "$url/health" 2>/dev/null && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "fuzz-api: the server did not start:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  sleep 0.5
done

# Run from the scratch folder: schemathesis writes nothing into the repository.
# One worker: Debian's Python 3.11 keeps the ast module's recursion depth per interpreter, not per thread, so
# two workers parsing hypothesis's strategy sources at once can fail the run with "AST constructor recursion
# depth mismatch" (cpython gh-106905), a fault of the fuzzer's own machinery, not of the API.
(
  cd "$work/run" &&
  timeout --kill-after=10 "$(( ${FUZZ_SECONDS:-150} + 60 ))" "$OLDPWD/$st" --config-file "$OLDPWD/scripts/fuzz-api.toml" --no-color run "$url/openapi.json" \
    -H "X-API-Key: $key" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance,unsupported_method,allow_header_conformance,ignored_auth \
    --max-time "${FUZZ_SECONDS:-150}" \
    --seed "${FUZZ_SEED:-20240611}" \
    --workers 1 \
    --request-timeout 30 \
    --generation-database none \
    --suppress-health-check all
)
status=$?

# What the server logged at warn or above (an INTERNAL error names its cause there).
if grep -q '"level":[56]0' "$work/server.log"; then
  echo "fuzz-api: the server logged errors:" >&2
  grep '"level":[56]0' "$work/server.log" | cut -c1-600 | head -n 20 >&2
fi
if [ "$status" -eq 0 ]; then echo "fuzz-api: passed"; else echo "fuzz-api: failed (schemathesis exit $status)"; fi
exit "$status"
