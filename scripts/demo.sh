#!/usr/bin/env bash
# Sets up, builds the cudist tool and runs its demo on the shipped descriptors (GPU if present).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh --target cudist_cli
build/tools/cudist/cudist demo
