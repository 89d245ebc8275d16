#!/usr/bin/env bash
# The device recipe (benchmarks/README.md, "On a lent GPU machine"): run from the checkout's root on a
# machine with a GPU that received a copy of the working tree and has no package index.
#
#   OUT=/folder/that/comes/back [BUDGET=480] bash benchmarks/device_run.sh [checklist options]
#
# 1. Wheels the machine lacks (z3-solver; the dask stack: dask, distributed, partd, locket, tblib, zict,
#    tornado) are installed from .whl/ (or $WHEELS) into a private folder, never over the image's packages.
# 2. CuPy's kernel cache goes to $CUPY_CACHE_DIR; a cache brought back from an earlier run
#    (.devcache/cupy_cache.tgz) is unpacked there first, so a second run compiles nothing it compiled before.
# 3. The checklist writes $OUT/checklist.json after every check, benchmarks/gpu.py's JSON beside it
#    ($OUT/checklist-gpu.json) and the log to $OUT/log; the kernel cache is packed into $OUT/cupy_cache.tgz.
# The exit status is the checklist's (3: the wheels did not install).
set -u -o pipefail
: "${OUT:?set OUT to the folder whose files come back}"
PY=${PYTHON:-python3}
WHEELS=${WHEELS:-.whl}
SITE=${SITE:-/tmp/isomat-site}
if compgen -G "$WHEELS/*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" "$WHEELS"/*.whl || exit 3
  export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONUNBUFFERED=1 ISOMAT_RECHECK="${ISOMAT_RECHECK:-0}" CUPY_CACHE_DIR="${CUPY_CACHE_DIR:-/tmp/isomat-cupy-cache}"
mkdir -p "$OUT" "$CUPY_CACHE_DIR"
if [ -f "${DEVCACHE:-.devcache}/cupy_cache.tgz" ]; then
  tar xzf "${DEVCACHE:-.devcache}/cupy_cache.tgz" -C "$CUPY_CACHE_DIR" --strip-components=1 || echo "device_run: the kernel cache did not unpack; compiling afresh" >&2
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$PY" benchmarks/device_checklist.py --json "$OUT/checklist.json" --budget "${BUDGET:-480}" "$@" 2>&1 | tee "$OUT/log"
rc=$?
tar czf "$OUT/cupy_cache.tgz" -C "$(dirname "$CUPY_CACHE_DIR")" "$(basename "$CUPY_CACHE_DIR")" 2>/dev/null
exit "$rc"
