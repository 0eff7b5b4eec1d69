#!/bin/bash
# stmpi_info and MPI_T show the same variables: every runtime parameter that
# stmpi_info lists is a control variable of the same name and scope (init ->
# MPI_T_SCOPE_READONLY, local -> LOCAL, all_eq -> ALL_EQ), in the same
# order, and every performance variable it lists is one of MPI_T's with the
# same class; neither side has one more.
set -u
out="$STMPI_BUILDDIR/test/mpi/out"
mkdir -p "$out"
cat > "$out/tools_info_list.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
static const char *scope_text(int scope) {
  switch (scope) {
    case MPI_T_SCOPE_READONLY: return "init";
    case MPI_T_SCOPE_LOCAL: return "local";
    case MPI_T_SCOPE_ALL_EQ: return "all_eq";
    default: return "unexpected-scope";
  }
}
static const char *class_text(int cls) {
  switch (cls) {
    case MPI_T_PVAR_CLASS_LEVEL: return "level";
    case MPI_T_PVAR_CLASS_COUNTER: return "counter";
    case MPI_T_PVAR_CLASS_HIGHWATERMARK: return "highwatermark";
    default: return "unexpected-class";
  }
}
int main(void) {
  int provided, n;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return 1;
  MPI_T_cvar_get_num(&n);
  for (int i = 0; i < n; i++) {
    char name[256];
    int len = sizeof name, scope;
    MPI_T_cvar_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, &scope);
    printf("cvar %s %s\n", name, scope_text(scope));
  }
  MPI_T_pvar_get_num(&n);
  for (int i = 0; i < n; i++) {
    char name[256];
    int len = sizeof name, cls;
    MPI_T_pvar_get_info(i, name, &len, NULL, &cls, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                        NULL);
    printf("pvar %s %s\n", name, class_text(cls));
  }
  return MPI_T_finalize() != MPI_SUCCESS;
}
PROG
# shellcheck disable=SC2086
$STMPI_TEST_CC $STMPI_TEST_CFLAGS "$out/tools_info_list.c" -o "$out/tools_info_list" $STMPI_TEST_LIBS ||
  { echo "FAIL: cannot compile"; exit 1; }

mpit=$(timeout -k 5 30 "$STMPI_MPIEXEC" -n 1 "$out/tools_info_list") || { echo "FAIL: MPI_T lister: status $?"; exit 1; }
info=$(timeout -k 5 30 "$STMPI_BUILDDIR/stmpi_info") || { echo "FAIL: stmpi_info: status $?"; exit 1; }
# stmpi_info's sections: "Runtime parameters ...:" then "Performance variables ...:";
# the scope is the first of init/local/all_eq after the name (a default may be empty).
listed=$(awk '
  /^Runtime parameters/ { section = "cvar"; next }
  /^Performance variables/ { section = "pvar"; next }
  /^  [A-Za-z]/ && section == "cvar" {
    scope = "missing-scope"
    for (i = 2; i <= 5 && i <= NF; i++)
      if ($i == "init" || $i == "local" || $i == "all_eq") { scope = $i; break }
    print "cvar", $1, scope
  }
  /^  [a-z]/ && section == "pvar" { print "pvar", $1, $2 }' <<<"$info")
ncvar=$(grep -c '^cvar' <<<"$listed")
npvar=$(grep -c '^pvar' <<<"$listed")
echo "stmpi_info: $ncvar runtime parameters, $npvar performance variables"
echo "MPI_T: $(grep -c '^cvar' <<<"$mpit") control variables, $(grep -c '^pvar' <<<"$mpit") performance variables"
if [ "$ncvar" -lt 40 ] || [ "$npvar" -lt 20 ]; then
  echo "FAIL: stmpi_info lists too few variables"
  exit 1
fi
if ! diff <(echo "$listed") <(echo "$mpit"); then
  echo "FAIL: stmpi_info (<) and MPI_T (>) differ"
  exit 1
fi
echo "No Errors"
