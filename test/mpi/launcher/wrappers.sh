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
grep -q -- " -lmpich$" <<<"$show"; check "link line ends with -lmpich" $?
grep -q -- "-O2 app.c -o app" <<<"$show"; check "user arguments kept in order" $?
# Our search path comes before the user's, so a user's -L cannot pick another MPI.
ours=$(grep -o -- "-L[^ ]*" <<<"$show" | head -1)
pos_ours=$(grep -bo -- "$ours" <<<"$show" | head -1 | cut -d: -f1)
pos_user=$(grep -bo -- "app.c" <<<"$show" | head -1 | cut -d: -f1)
[ -n "$pos_ours" ] && [ "$pos_ours" -lt "$pos_user" ]; check "our -L precedes the user's arguments" $?
ci=$("$mpicc" -compile_info x.c)
! grep -q -- "-l\|-L" <<<"$ci" && grep -q -- "-I" <<<"$ci"; check "-compile_info: -I, no link flags" $?
for opt in -compile-info -show_compile_info; do
  [ "$("$mpicc" $opt x.c)" = "$ci" ]; check "$opt equals -compile_info" $?
done
li=$("$mpicc" -link_info x.o)
grep -q -- "-lmpich" <<<"$li" && grep -q -- "-L" <<<"$li"; check "-link_info: -L and -lmpich" $?
for opt in -link-info -show_link_info; do
  [ "$("$mpicc" $opt x.o)" = "$li" ]; check "$opt equals -link_info" $?
done
grep -q -- "-I" <<<"$show"; check "include directory passed" $?
first=$("$mpicc" -cc=clang -show x.c | awk '{print $1}')
[ "$first" = clang ]; check "-cc=clang picks the compiler" $?
first=$(STMPI_CC=my-cc "$mpicc" -show x.c | awk '{print $1}')
[ "$first" = my-cc ]; check "STMPI_CC picks the compiler" $?
first=$(MPICH_CC=other-cc "$mpicc" -show x.c | awk '{print $1}')
[ "$first" = other-cc ]; check "MPICH_CC picks the compiler" $?
compile_only=$("$mpicc" -show -c x.c)
! grep -q -- "-lmpich" <<<"$compile_only"; check "-c omits link flags" $?
cxx_show=$("$mpicxx" -show x.cc)
grep -q -- "-lmpich" <<<"$cxx_show"; check "mpicxx -show links -lmpich" $?
first=$(STMPI_CXX=my-cxx "$mpicxx" -show x.cc | awk '{print $1}')
[ "$first" = my-cxx ]; check "STMPI_CXX picks the C++ compiler" $?
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
cc_line=$("$mpicc" -compile_info x.c)
cc=${cc_line%% -I*}
$cc -I"$STMPI_SRCDIR/include" "$out/wrapper_hello.c" -o "$out/wrapper_hello" $STMPI_TEST_LIBS
check "program builds with the wrapper's compiler" $?
printf 'int main(void) { return sizeof(NAME) == 4 ? 0 : 1; }\n' > "$out/wrapper_space.c"
"$mpicc" -c '-DNAME="a b"' "$out/wrapper_space.c" -o "$out/wrapper_space.o"
check "an argument with spaces reaches the compiler intact" $?
"$STMPI_MPIEXEC" -n 2 "$out/wrapper_hello" </dev/null | grep -q "No Errors"; check "and runs on 2 ranks" $?
# Through the installed prefix (maint/build.sh installs): a user's
# -L/usr/lib/<triplet>, where other MPIs keep libmpi.so and libmpich.so, must
# still link ours, by the MPICH name, and run.
libdir=${ours#-L}
triplet_dir=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
if [ ! -e "$libdir/libmpich.so" ]; then
  echo "FAIL: $libdir/libmpich.so is not installed (run make install first)"; fails=$((fails + 1))
else
  "$mpicc" -L"$triplet_dir" "$out/wrapper_hello.c" -o "$out/wrapper_hello_installed"
  check "mpicc builds with a user -L$triplet_dir" $?
  # The library's soname is libmpich.so.12 (libmpi.so.12 is an alias), so the
  # binary needs libmpich.so.12 as MPICH-built ones do; it must resolve into our libdir.
  needed=$(readelf -d "$out/wrapper_hello_installed" | sed -n 's/.*NEEDED.*\[\(libmpi[a-z]*\.so[.0-9]*\)\].*/\1/p')
  [ "$needed" = libmpich.so.12 ]; check "the binary needs libmpich.so.12 ($needed)" $?
  resolved=$(ldd "$out/wrapper_hello_installed" | awk -v lib="$needed" '$1 == lib {print $3}')
  [ -n "$resolved" ] && [ "$(readlink -f "$resolved")" = "$(readlink -f "$libdir/$needed")" ]
  check "$needed resolves to ours ($resolved), not another MPI's" $?
  "$STMPI_MPIEXEC" -n 2 "$out/wrapper_hello_installed" </dev/null | grep -q "No Errors"
  check "the installed-wrapper build runs on 2 ranks" $?
  for pc in stmpi mpich; do
    flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs $pc)
    grep -q -- "-L$libdir" <<<"$flags" && grep -q -- "-lmpich" <<<"$flags" && grep -q -- "-I" <<<"$flags"
    check "pkg-config $pc: $flags" $?
  done
  gcc "$out/wrapper_hello.c" -o "$out/wrapper_hello_pc" \
    $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs mpich)
  check "a build from pkg-config's flags links" $?
fi
echo "$fails failed"
[ $fails -eq 0 ]
