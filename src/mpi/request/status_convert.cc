// Conversions between the C status and the Fortran ones (MPI 4.1 19.3.5),
// and the objects MPI_F_STATUS(ES)_IGNORE and MPI_F08_STATUS(ES)_IGNORE.
// In MPICH's ABI all three layouts hold the same five integers in the same
// order (count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR),
// so a conversion is a copy; the IGNORE objects are distinct addresses that a
// conversion refuses, as the standard forbids passing them.
#include <mpi.h>

#include <cstring>

#include "mpi/errhan/error.h"
#include "mpi/request/impl_request.h"

static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status));

namespace {
MPI_Fint g_f_status_ignore[MPI_F_STATUS_SIZE];
MPI_Fint g_f_statuses_ignore[MPI_F_STATUS_SIZE];
MPI_F08_status g_f08_status_ignore;
MPI_F08_status g_f08_statuses_ignore;
}  // namespace

extern "C" {
__attribute__((visibility("default"))) MPI_Fint* MPI_F_STATUS_IGNORE = g_f_status_ignore;
__attribute__((visibility("default"))) MPI_Fint* MPI_F_STATUSES_IGNORE = g_f_statuses_ignore;
__attribute__((visibility("default"))) MPI_F08_status* MPI_F08_STATUS_IGNORE = &g_f08_status_ignore;
__attribute__((visibility("default"))) MPI_F08_status* MPI_F08_STATUSES_IGNORE =
    &g_f08_statuses_ignore;
}

namespace stmpi::impl {
namespace {

using mpi::errhan::make_error;

bool is_ignore(const void* status) {
  return status == MPI_STATUS_IGNORE || status == MPI_STATUSES_IGNORE ||
         status == MPI_F_STATUS_IGNORE || status == MPI_F_STATUSES_IGNORE ||
         status == MPI_F08_STATUS_IGNORE || status == MPI_F08_STATUSES_IGNORE;
}

int convert(const void* from, const char* from_arg, void* to, const char* to_arg) {
  if (is_ignore(from))
    return make_error(MPI_ERR_ARG, "%s is an IGNORE status object, which cannot be converted",
                      from_arg);
  if (is_ignore(to))
    return make_error(MPI_ERR_ARG, "%s is an IGNORE status object, which cannot be written",
                      to_arg);
  std::memcpy(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

}  // namespace

int status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  return convert(c_status, "c_status", f_status, "f_status");
}
int status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  return convert(f_status, "f_status", c_status, "c_status");
}
int status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  return convert(c_status, "c_status", f08_status, "f08_status");
}
int status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  return convert(f08_status, "f08_status", c_status, "c_status");
}
int status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  return convert(f_status, "f_status", f08_status, "f08_status");
}
int status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  return convert(f08_status, "f08_status", f_status, "f_status");
}

}  // namespace stmpi::impl
