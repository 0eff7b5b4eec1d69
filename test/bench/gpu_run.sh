#!/bin/bash
# Stream-triggered RMA on CUDA streams, on one node with one GPU shared by the ranks: builds
# test/mpi/st/st_gpu.c and faces (GPU mode) against the installed STMPI, checks st_gpu's values,
# then prints st_gpu's bench (ST on the CUDA stream, PSCW with the fill on the GPU and a
# synchronize per step, ST and PSCW on host streams, in the same run) and Faces' GPU table, each
# with the one-kernel epoch completion off (STMPI_STREAM_GPU_EPOCH_BYTES=0) and on, alternating.
# Under MPS when nvidia-cuda-mps-control can start it (the ranks' contexts otherwise time-share
# the GPU; --no-mps measures that).
#
# Usage: test/bench/gpu_run.sh [--prefix DIR] [--np "2 8"] [--rounds N] [--no-mps] [--workdir DIR]
# Needs: an STMPI built with its CUDA backend, a CUDA device and driver, nvcc (for the PTX).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
prefix=$src/_inst
nps="2 8"
rounds=2
mps=1
work=""
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --no-mps) mps=0; shift ;;
    --workdir) work=$2; shift 2 ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *) echo "gpu_run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
work=${work:-$(mktemp -d "${TMPDIR:-/tmp}/stmpi-gpu.XXXXXX")}
mkdir -p "$work"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
set -e
"$prefix/bin/mpicc" -O2 -I"$src/test/mpi/util" "$src/test/mpi/st/st_gpu.c" -o "$work/st_gpu"
"$prefix/bin/mpicc" -O2 -I"$src/test/mpi/util" "$src/test/bench/faces.c" "$src/test/bench/faces_gpu.c" \
  -o "$work/faces" -lm -ldl
"$nvcc" -ptx -arch=compute_90 -o "$work/faces_kernels.ptx" "$src/test/bench/faces_kernels.cu"
set +e
export STMPI_STREAM_BACKEND=cuda
mpiexec=$prefix/bin/mpiexec
run() { local t=$1; shift; echo "== $*" >&2; timeout -k 5 "$t" "$@"; local rc=$?; [ $rc -eq 0 ] || echo "FAILED (status $rc): $*" >&2; }
if [ $mps -eq 1 ]; then
  export CUDA_MPS_PIPE_DIRECTORY=$work/mps CUDA_MPS_LOG_DIRECTORY=$work/mpslog
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if timeout 20 nvidia-cuda-mps-control -d; then
    echo "# MPS started"
    trap 'echo quit | timeout 20 nvidia-cuda-mps-control' EXIT
  else
    echo "# MPS could not start: the ranks time-share the GPU"
  fi
fi
for n in $nps; do run 120 "$mpiexec" -n "$n" "$work/st_gpu"; done
for round in $(seq 1 "$rounds"); do
  for bytes in 0 65536; do
    export STMPI_STREAM_GPU_EPOCH_BYTES=$bytes
    echo "# round $round, STMPI_STREAM_GPU_EPOCH_BYTES=$bytes"
    for n in $nps; do
      run 180 "$mpiexec" -n "$n" "$work/st_gpu" bench 1000 4096
      run 300 "$mpiexec" -n "$n" "$work/faces" -G "$work/faces_kernels.ptx" -q -s 8,4K,64K | grep -A5 "^== Faces"
    done
  done
done
unset STMPI_STREAM_GPU_EPOCH_BYTES
run 180 "$mpiexec" -n 2 "$work/st_gpu" bench 300 262144
echo "# work directory: $work"
