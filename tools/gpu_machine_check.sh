#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (maintainers only): what the GPU side needs checked there, in order of worth,
# each step bounded so that a short lease still brings back the first ones.
#
#   bash tools/gpu_machine_check.sh OUTDIR [SECONDS] [PARTITION_MAX_LOG2]
#
# 1. the GPU's and the Python packages' versions; 2. every `gpu` / `gpu_hardware` test on the real device (no
# simulator); 3. benchmarks/gpu.py's paths table (writes docs/gpu.md); 4. its partitioner table, graphs up to
# 2^PARTITION_MAX_LOG2 vertices (default 22; rewritten after each graph); the CPU kernels compile in the
# background meanwhile. Logs and a copy of docs/gpu.md go to OUTDIR. Runs with the `python3` on the PATH and the
# repository's src/ on PYTHONPATH (no install). Seen on an H200 image with NumPy 2.5: numba-cuda 0.30.4 does not
# import there (np.row_stack is gone), so put NumPy 2.4 first on PYTHONPATH.
set -u
if [ $# -lt 1 ]; then
  echo "usage: bash tools/gpu_machine_check.sh OUTDIR [SECONDS] [PARTITION_MAX_LOG2]" >&2
  exit 2
fi
out=$1
total=${2:-540}
pmax=${3:-22}
mkdir -p "$out"
start=$(date +%s)
left() { echo $((start + total - 10 - $(date +%s))); }
log="$out/log.txt"
step() { echo "=== $(date +%T) ($(left) s left) $*" | tee -a "$log"; }
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"

step "versions"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; python3 -V
  python3 -m pip list 2>/dev/null | grep -i -E '^(numba|numpy|scipy|cupy|cuda-|llvmlite|pytest|hypothesis)'
  python3 -c "from apportion.platform.platform import Platform; print([d.describe() for d in Platform.detect().devices])"
} >> "$log" 2>&1
step "compile the CPU kernels (background)"
(timeout 300 python3 -c 'import sys; from apportion.cli.main import run; sys.argv[0] = "apportion"; sys.exit(run())' \
  compile -q > "$out/compile.txt" 2>&1) &
compiling=$!
step "gpu tests on the device"
parallel=""  # pytest-xdist, where installed, compiles the kernels of several test files at once
python3 -c "import xdist" 2>/dev/null && parallel="-n 4 --dist loadfile"
timeout $(( $(left) < 240 ? $(left) : 240 )) python3 -m pytest -q -p no:cacheprovider -o addopts="" --timeout=120 \
  $parallel -m "(gpu or gpu_hardware) and not ray" > "$out/pytest.txt" 2>&1
echo "pytest exit $?" | tee -a "$log"; tail -3 "$out/pytest.txt" >> "$log"
wait $compiling
step "benchmarks/gpu.py paths"
timeout $(( $(left) < 150 ? $(left) : 150 )) python3 benchmarks/gpu.py --only paths --threads "$(nproc)" \
  > "$out/paths.txt" 2>&1
echo "paths exit $?" | tee -a "$log"; cp docs/gpu.md "$out/gpu.md"
step "benchmarks/gpu.py partition (to 2^$pmax)"
timeout $(( $(left) > 10 ? $(left) : 10 )) python3 benchmarks/gpu.py --only partition --partition-max "$pmax" \
  > "$out/partition.txt" 2>&1
echo "partition exit $?" | tee -a "$log"; cp docs/gpu.md "$out/gpu.md"
step "end"
