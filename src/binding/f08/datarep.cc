#include "binding/f08/datarep.h"

#include <array>
#include <mutex>
#include <utility>

// The mpi_f08 module's MPI_CONVERSION_FN_NULL_C (gen/mpi_f08_callbacks.f90),
// MPICH's name for it too.
extern "C" void stmpi_f08_conversion_fn_null_c() __asm__(
    "__mpi_f08_callbacks_MOD_mpi_conversion_fn_null_c");

namespace stmpi::binding::f08 {
namespace {

using ConversionFn = void(void* userbuf, MPI_Fint* datatype, MPI_Count* count, void* filebuf,
                          MPI_Offset* position, MPI_Aint* extra_state, MPI_Fint* ierror);
using ExtentFn = void(MPI_Fint* datatype, MPI_Aint* extent, MPI_Aint* extra_state,
                      MPI_Fint* ierror);

struct Slot {
  ConversionFn* read = nullptr;
  ConversionFn* write = nullptr;
  ExtentFn* extent = nullptr;
};

constexpr int kSlots = 16;
std::array<Slot, kSlots> slots{};
int used = 0;
std::mutex slots_mutex;

template <int N, bool kRead>
int convert(void* userbuf, MPI_Datatype datatype, MPI_Count count, void* filebuf,
            MPI_Offset position, void* extra_state) {
  const Slot& s = slots[N];
  MPI_Fint ftype = datatype, ierror = MPI_SUCCESS;
  (kRead ? s.read : s.write)(userbuf, &ftype, &count, filebuf, &position,
                             static_cast<MPI_Aint*>(extra_state), &ierror);
  return ierror;
}

template <int N>
int extent(MPI_Datatype datatype, MPI_Aint* file_extent, void* extra_state) {
  MPI_Fint ftype = datatype, ierror = MPI_SUCCESS;
  slots[N].extent(&ftype, file_extent, static_cast<MPI_Aint*>(extra_state), &ierror);
  return ierror;
}

struct Trampolines {
  MPI_Datarep_conversion_function_c* read;
  MPI_Datarep_conversion_function_c* write;
  MPI_Datarep_extent_function* extent;
};

template <size_t... N>
constexpr std::array<Trampolines, sizeof...(N)> make_trampolines(std::index_sequence<N...>) {
  return {Trampolines{&convert<N, true>, &convert<N, false>, &extent<N>}...};
}
constexpr auto kTrampolines = make_trampolines(std::make_index_sequence<kSlots>());

bool is_null(Procedure fn) { return fn == nullptr || fn == &stmpi_f08_conversion_fn_null_c; }

}  // namespace

int register_datarep_c(RegisterDatarepC* c_fn, const char* datarep, Procedure read_fn,
                       Procedure write_fn, Procedure extent_fn, void* extra_state) {
  std::lock_guard<std::mutex> lock(slots_mutex);
  if (used == kSlots) return MPI_ERR_INTERN;  // more representations than trampolines
  const int slot = used;
  slots[slot] = {reinterpret_cast<ConversionFn*>(read_fn),
                 reinterpret_cast<ConversionFn*>(write_fn), reinterpret_cast<ExtentFn*>(extent_fn)};
  const Trampolines& t = kTrampolines[slot];
  int err = c_fn(datarep, is_null(read_fn) ? MPI_CONVERSION_FN_NULL_C : t.read,
                 is_null(write_fn) ? MPI_CONVERSION_FN_NULL_C : t.write, t.extent, extra_state);
  if (err == MPI_SUCCESS) used++;
  return err;
}

}  // namespace stmpi::binding::f08
