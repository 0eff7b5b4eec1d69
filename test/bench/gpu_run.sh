#!/bin/bash
# Stream-triggered communication on CUDA streams, on one node with one GPU shared by the ranks.
# Sections (--only picks some, in this order):
#   check    correctness: test/mpi/st/st_gpu.c (ST RMA epochs on a CUDA stream) and
#            test/mpi/stream/enqueue_cuda.c (MPICH's enqueue API on device buffers)
#   mpich    MPICH's own cuda/stream.cu and cuda/stream_allred.cu, compiled with nvcc against
#            the installed mpi.h, when --mpich-cuda DIR names a folder holding them
#   enqueue  test/bench/stream_p2p_gpu.c: a ring exchange of device buffers with a synchronize
#            and MPI per step, with MPICH's host function per operation, and with the enqueue API
#   st       st_gpu's bench (ST on the CUDA stream against PSCW with a synchronize per step, and
#            the same on host streams), with the one-kernel epoch completion off
#            (STMPI_STREAM_GPU_EPOCH_BYTES=0) and on, alternating
#   faces    Faces' GPU mode (faces -G), the same alternation
# Under MPS when nvidia-cuda-mps-control can start it (the ranks' contexts otherwise time-share
# the GPU; --no-mps measures that).
#
# Usage: test/bench/gpu_run.sh [--prefix DIR] [--np "2 8"] [--rounds N] [--no-mps] [--workdir DIR]
#                              [--only "check mpich enqueue st faces"] [--mpich-cuda DIR]
#                              [--bytes "8 4096 65536"] [--steps N] [--timeout S]
#   --timeout S   at most S seconds for any one run (default: 120 to 300 by run)
# Needs: an STMPI built with its CUDA backend, a CUDA device and driver, nvcc (for the PTX).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
prefix=$src/_inst
nps="2 8"
rounds=2
mps=1
work=""
only="check mpich enqueue st faces"
mpich_cuda=""
sizes="8 4096 65536"
steps=1000
cap=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --no-mps) mps=0; shift ;;
    --workdir) work=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --mpich-cuda) mpich_cuda=$2; shift 2 ;;
    --bytes) sizes=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --timeout) cap=$2; shift 2 ;;
    -h|--help) sed -n 2,22p "$0"; exit 0 ;;
    *) echo "gpu_run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
want() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }
work=${work:-$(mktemp -d "${TMPDIR:-/tmp}/stmpi-gpu.XXXXXX")}
mkdir -p "$work"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mpicc="$prefix/bin/mpicc -O2 -I$src/test/mpi/util"
set -e
$mpicc "$src/test/mpi/st/st_gpu.c" -o "$work/st_gpu"
$mpicc "$src/test/mpi/stream/enqueue_cuda.c" -o "$work/enqueue_cuda"
$mpicc -I"$src/test/bench" "$src/test/bench/stream_p2p_gpu.c" -o "$work/stream_p2p_gpu"
if want faces; then
  $mpicc "$src/test/bench/faces.c" "$src/test/bench/faces_gpu.c" -o "$work/faces" -lm -ldl
  "$nvcc" -ptx -arch=compute_90 -o "$work/faces_kernels.ptx" "$src/test/bench/faces_kernels.cu"
fi
set +e
export STMPI_STREAM_BACKEND=cuda
mpiexec=$prefix/bin/mpiexec
status=0
run() {
  local t=$1; shift; [ "$cap" -gt 0 ] && [ "$cap" -lt "$t" ] && t=$cap
  echo "== $*" >&2; timeout -k 5 "$t" "$@"; local rc=$?
  [ $rc -eq 0 ] || { echo "FAILED (status $rc): $*" >&2; status=1; }
}
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
if want check; then
  for n in $nps; do
    run 120 "$mpiexec" -n "$n" "$work/st_gpu"
    run 120 "$mpiexec" -n "$n" "$work/enqueue_cuda"
  done
fi
if want mpich && [ -n "$mpich_cuda" ]; then
  # MPICH's programs as its test list runs them: stream (2 ranks, with and without
  # -progress-thread) and stream_allred (4 ranks).
  for t in stream stream_allred; do
    "$nvcc" -O2 -I"$prefix/include" "$mpich_cuda/$t.cu" -o "$work/mpich_$t" -L"$prefix/lib" \
      -lmpich -Xlinker -rpath -Xlinker "$prefix/lib" || { echo "FAILED: nvcc $t.cu" >&2; status=1; }
  done
  run 120 "$mpiexec" -n 2 "$work/mpich_stream"
  run 120 "$mpiexec" -n 2 "$work/mpich_stream" -progress-thread
  run 120 "$mpiexec" -n 4 "$work/mpich_stream_allred"
fi
if want enqueue; then
  for n in $nps; do
    for b in $sizes; do
      run 300 "$mpiexec" -n "$n" "$work/stream_p2p_gpu" -n "$steps" -r 5 -b "$b"
    done
  done
fi
if want st || want faces; then
  for round in $(seq 1 "$rounds"); do
    for bytes in 0 65536; do
      export STMPI_STREAM_GPU_EPOCH_BYTES=$bytes
      echo "# round $round, STMPI_STREAM_GPU_EPOCH_BYTES=$bytes"
      for n in $nps; do
        want st && run 180 "$mpiexec" -n "$n" "$work/st_gpu" bench 1000 4096
        want faces && run 300 "$mpiexec" -n "$n" "$work/faces" -G "$work/faces_kernels.ptx" -q \
          -s 8,4K,64K | grep -A5 "^== Faces"
      done
    done
  done
  unset STMPI_STREAM_GPU_EPOCH_BYTES
  want st && run 180 "$mpiexec" -n 2 "$work/st_gpu" bench 300 262144
fi
echo "# work directory: $work"
exit $status
