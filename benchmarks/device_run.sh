#!/usr/bin/env bash
# The device recipe (benchmarks/README.md, "On a lent GPU machine"): run from the checkout's root on a
# machine with a GPU that received a copy of the working tree and has no package index.
#
#   OUT=/folder/that/comes/back [BUDGET=300] [VARIANTS_S=60] bash benchmarks/device_run.sh [checklist options]
#
# Expected: about 5 minutes (the checklist's budget, 300 s, and the kernel variants' 60 s), within a
# 10-minute call.
# 1. Wheels the machine lacks (z3-solver; the dask stack: dask, distributed, partd, locket, tblib, zict,
#    tornado, ...) are installed from .whl/ (or $WHEELS) into a private folder, never over the image's packages.
# 2. benchmarks/device_wheels.py imports z3 and (unless the options leave the dask check out) the Dask
#    stack down to a LocalCluster; anything missing is named with the `pip download` line that fetches
#    it, and the run stops (status 3) before it spends device time.
# 3. CuPy's kernel cache goes to $CUPY_CACHE_DIR; a cache brought back from an earlier run
#    (.devcache/cupy_cache.tgz) is unpacked there first, so a second run compiles nothing it compiled before.
# 4. benchmarks/kernel_variants.py (the diagonal-block product variants, each checked against CSR
#    before it is timed) writes $OUT/kernel-variants.json, killed at $VARIANTS_S seconds (0: not run).
# 5. The checklist runs --strict (a check skipped for time fails, bench holds every product to 0.4 of
#    the copy, verify wants every float claim on the device), writes $OUT/checklist.json after every
#    check, benchmarks/gpu.py's JSON beside it ($OUT/checklist-gpu.json) and the log to $OUT/log; the
#    kernel cache is packed into $OUT/cupy_cache.tgz.
# The exit status is the checklist's, 3 when the wheels did not install or do not import, or 4 when the
# checklist passed and the kernel variants failed (a mismatch, an error or the time limit).
set -u -o pipefail
: "${OUT:?set OUT to the folder whose files come back}"
PY=${PYTHON:-python3}
WHEELS=${WHEELS:-.whl}
SITE=${SITE:-/tmp/isomat-site}
if compgen -G "$WHEELS/*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" "$WHEELS"/*.whl || exit 3
  export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
fi
"$PY" benchmarks/device_wheels.py "$@" || exit 3
export PYTHONUNBUFFERED=1 ISOMAT_RECHECK="${ISOMAT_RECHECK:-0}" CUPY_CACHE_DIR="${CUPY_CACHE_DIR:-/tmp/isomat-cupy-cache}"
mkdir -p "$OUT" "$CUPY_CACHE_DIR"
if [ -f "${DEVCACHE:-.devcache}/cupy_cache.tgz" ]; then
  tar xzf "${DEVCACHE:-.devcache}/cupy_cache.tgz" -C "$CUPY_CACHE_DIR" --strip-components=1 || echo "device_run: the kernel cache did not unpack; compiling afresh" >&2
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
vrc=0
case " $* " in *" --quick "*) VQ=--quick ;; *) VQ= ;; esac  # the checklist's --quick: small variants too
if [ "${VARIANTS_S:-60}" != 0 ]; then  # VARIANTS_S=0 leaves them out
  timeout "${VARIANTS_S:-60}" "$PY" benchmarks/kernel_variants.py --json "$OUT/kernel-variants.json" $VQ 2>&1 \
    | tee "$OUT/kernel-variants.log"
  vrc=$?
fi
"$PY" benchmarks/device_checklist.py --strict --json "$OUT/checklist.json" --budget "${BUDGET:-300}" "$@" 2>&1 \
  | tee "$OUT/log"
rc=$?
tar czf "$OUT/cupy_cache.tgz" -C "$(dirname "$CUPY_CACHE_DIR")" "$(basename "$CUPY_CACHE_DIR")" 2>/dev/null
if [ "$rc" -eq 0 ] && [ "$vrc" -ne 0 ]; then
  echo "device_run: the kernel variants exited $vrc (see $OUT/kernel-variants.log)" >&2
  exit 4
fi
exit "$rc"
