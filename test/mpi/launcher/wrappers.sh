#!/bin/bash
# The compiler wrappers: -show, compiler overrides (-cc=, STMPI_CC, MPICH_CC),
# compile-only commands without link flags, and a real build + run against
# the build tree's library.
set -u
fails=0
check() {  # check NAME CONDITION-STATUS
  if [ "$2" -eq 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
mpicc="$STMPI_BUILDDIR/src/tools/mpicc"
mpicxx="$STMPI_BUILDDIR/src/tools/mpicxx"
show=$("$mpicc" -show -O2 app.c -o app)
echo "mpicc -show: $show"
grep -q -- "-lmpi" <<<"$show"; check "link line names -lmpi" $?
grep -q -- "-O2 app.c -o app" <<<"$show"; check "user arguments kept in order" $?
grep -q -- "-I" <<<"$show"; check "include directory passed" $?
first=$("$mpicc" -cc=clang -show x.c | awk '{print $1}')
[ "$first" = clang ]; check "-cc=clang picks the compiler" $?
first=$(STMPI_CC=my-cc "$mpicc" -show x.c | awk '{print $1}')
[ "$first" = my-cc ]; check "STMPI_CC picks the compiler" $?
first=$(MPICH_CC=other-cc "$mpicc" -show x.c | awk '{print $1}')
[ "$first" = other-cc ]; check "MPICH_CC picks the compiler" $?
compile_only=$("$mpicc" -show -c x.c)
! grep -q -- "-lmpi" <<<"$compile_only"; check "-c omits link flags" $?
cxx_show=$("$mpicxx" -show x.cc)
grep -q -- "-lmpi" <<<"$cxx_show"; check "mpicxx -show links -lmpi" $?
# A real build with the wrapper's compiler and flags, pointed at the build tree.
out="$STMPI_BUILDDIR/test/mpi/out"
mkdir -p "$out"
cat > "$out/wrapper_hello.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(sum == size * (size - 1) / 2 ? "No Errors\n" : "Found 1 errors\n");
  MPI_Finalize();
  return 0;
}
PROG
cc=$("$mpicc" -show x.c | awk '{print $1}')
$cc -I"$STMPI_SRCDIR/include" "$out/wrapper_hello.c" -o "$out/wrapper_hello" $STMPI_TEST_LIBS
check "program builds with the wrapper's compiler" $?
printf 'int main(void) { return sizeof(NAME) == 4 ? 0 : 1; }\n' > "$out/wrapper_space.c"
"$mpicc" -c '-DNAME="a b"' "$out/wrapper_space.c" -o "$out/wrapper_space.o"
check "an argument with spaces reaches the compiler intact" $?
"$STMPI_MPIEXEC" -n 2 "$out/wrapper_hello" </dev/null | grep -q "No Errors"; check "and runs on 2 ranks" $?
echo "$fails failed"
[ $fails -eq 0 ]
