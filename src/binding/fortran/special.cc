// The f77 entry points maint/gen_fortran.py does not generate (its SPECIAL
// set): attributes and keyvals (through the libmpich hooks of mpii_hooks.h,
// as MPICH's libmpichfort does), generalized requests, file error handlers,
// string arrays (MPI_Comm_spawn*), MPI_Pcontrol (no IERROR) and
// MPI_F_sync_reg; the predefined callbacks (MPI_COMM_DUP_FN ...) with
// Fortran conventions; the sentinel COMMON blocks; the string helpers.
#include <mpi.h>

#include <array>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "binding/fortran/fortran.h"
#include "binding/fortran/mpii_hooks.h"

namespace F = stmpi::binding::fortran;

// ---- the sentinel COMMON blocks -------------------------------------------------

// Aligned at least as gfortran aligns a COMMON block (the modules' objects
// declare the same blocks; the linker keeps the larger alignment).
#define STMPI_F77_COMMON STMPI_F77_API __attribute__((aligned(32)))
extern "C" {
STMPI_F77_COMMON StmpiCommonMpifcmb5 mpifcmb5_;
STMPI_F77_COMMON StmpiCommonMpifcmb9 mpifcmb9_;
STMPI_F77_COMMON StmpiCommonMpipriv1 mpipriv1_;
STMPI_F77_COMMON StmpiCommonMpipriv2 mpipriv2_;
STMPI_F77_COMMON StmpiCommonMpiprivc mpiprivc_;

// MPICH's mpi_f08_link_constants variables (fortran.h), sized as MPICH's.
STMPI_F77_API MPI_Fint stmpi_f08_link_unweighted[1];
STMPI_F77_API MPI_Fint stmpi_f08_link_weights_empty[1];
STMPI_F77_API MPI_Fint stmpi_f08_link_errcodes_ignore[1];
STMPI_F77_API char stmpi_f08_link_argv_null[1];
STMPI_F77_API char stmpi_f08_link_argvs_null[1];
}

// ---- strings -------------------------------------------------------------------

namespace stmpi::binding::fortran {

std::string from_fortran(const char* s, size_t len) {
  size_t begin = 0;
  while (begin < len && s[begin] == ' ') begin++;
  size_t end = len;
  while (end > begin && s[end - 1] == ' ') end--;
  return std::string(s + begin, end - begin);
}

void to_fortran(const char* c, char* f, size_t len) {
  size_t n = strnlen(c, len);
  memcpy(f, c, n);
  memset(f + n, ' ', len - n);
}

}  // namespace stmpi::binding::fortran

namespace {

// The Fortran forms of the callbacks (every argument by reference).
using F90CopyFn = void(MPI_Fint* handle, MPI_Fint* keyval, MPI_Aint* extra_state, MPI_Aint* in,
                       MPI_Aint* out, MPI_Fint* flag, MPI_Fint* ierror);
using F90DeleteFn = void(MPI_Fint* handle, MPI_Fint* keyval, MPI_Aint* value, MPI_Aint* extra_state,
                         MPI_Fint* ierror);
using F77CopyFn = void(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* extra_state, MPI_Fint* in,
                       MPI_Fint* out, MPI_Fint* flag, MPI_Fint* ierror);
using F77DeleteFn = void(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* extra_state,
                         MPI_Fint* ierror);
using FileErrhandlerFn = void(MPI_Fint* file, MPI_Fint* code);

// The keyval's extra_state is the address of the program's
// INTEGER(KIND=MPI_ADDRESS_KIND) (INTEGER for MPI_KEYVAL_CREATE), as MPICH
// keeps it; the value is passed as the integer the attribute holds.
int f90_copy_proxy(MPI_Comm_copy_attr_function* user_fn, int handle, int keyval, void* extra_state,
                   int /*type*/, void* value, void** copy, int* flag) {
  MPI_Fint fhandle = handle, fkeyval = keyval, fflag = 0, ierror = MPI_SUCCESS;
  MPI_Aint in = reinterpret_cast<MPI_Aint>(value), out = 0;
  F::function_cast<F90CopyFn>(user_fn)(&fhandle, &fkeyval, static_cast<MPI_Aint*>(extra_state), &in,
                                       &out, &fflag, &ierror);
  *flag = F::from_logical(fflag);
  *copy = reinterpret_cast<void*>(out);
  return ierror;
}

int f90_delete_proxy(MPI_Comm_delete_attr_function* user_fn, int handle, int keyval, int /*type*/,
                     void* value, void* extra_state) {
  MPI_Fint fhandle = handle, fkeyval = keyval, ierror = MPI_SUCCESS;
  MPI_Aint fvalue = reinterpret_cast<MPI_Aint>(value);
  F::function_cast<F90DeleteFn>(user_fn)(&fhandle, &fkeyval, &fvalue,
                                         static_cast<MPI_Aint*>(extra_state), &ierror);
  return ierror;
}

int f77_copy_proxy(MPI_Comm_copy_attr_function* user_fn, int handle, int keyval, void* extra_state,
                   int /*type*/, void* value, void** copy, int* flag) {
  MPI_Fint fhandle = handle, fkeyval = keyval, fflag = 0, ierror = MPI_SUCCESS;
  MPI_Fint in = static_cast<MPI_Fint>(reinterpret_cast<MPI_Aint>(value)), out = 0;
  F::function_cast<F77CopyFn>(user_fn)(&fhandle, &fkeyval, static_cast<MPI_Fint*>(extra_state), &in,
                                       &out, &fflag, &ierror);
  *flag = F::from_logical(fflag);
  *copy = reinterpret_cast<void*>(static_cast<MPI_Aint>(out));
  return ierror;
}

int f77_delete_proxy(MPI_Comm_delete_attr_function* user_fn, int handle, int keyval, int /*type*/,
                     void* value, void* extra_state) {
  MPI_Fint fhandle = handle, fkeyval = keyval, ierror = MPI_SUCCESS;
  MPI_Fint fvalue = static_cast<MPI_Fint>(reinterpret_cast<MPI_Aint>(value));
  F::function_cast<F77DeleteFn>(user_fn)(&fhandle, &fkeyval, &fvalue,
                                         static_cast<MPI_Fint*>(extra_state), &ierror);
  return ierror;
}

// Reads an attribute as an integer of the caller's kind.
template <typename Get, typename Out>
void get_attr(Get get, MPI_Fint handle, MPI_Fint keyval, Out* value, MPI_Fint* flag,
              MPI_Fint* ierror, int type) {
  if (!mpii_hooks_present()) {
    *ierror = MPI_ERR_INTERN;
    return;
  }
  MPI_Aint v = 0;
  int found = 0;
  int err = get(handle, keyval, &v, &found, type);
  if (err == MPI_SUCCESS) {
    *flag = F::to_logical(found);
    if (found) *value = static_cast<Out>(v);
  }
  *ierror = err;
}

// A file error handler gets an INTEGER file handle in Fortran and an MPI_File
// pointer in C: each Fortran handler gets one of these C trampolines.
constexpr int kFileErrhandlerSlots = 32;
std::array<FileErrhandlerFn*, kFileErrhandlerSlots> file_errhandlers{};

template <int N>
void file_errhandler_trampoline(MPI_File* file, int* code, ...) {
  MPI_Fint ffile = PMPI_File_c2f(*file);
  MPI_Fint fcode = *code;
  file_errhandlers[N](&ffile, &fcode);
}

template <size_t... N>
constexpr std::array<MPI_File_errhandler_function*, sizeof...(N)> make_trampolines(
    std::index_sequence<N...>) {
  return {&file_errhandler_trampoline<N>...};
}
constexpr auto kFileTrampolines =
    make_trampolines(std::make_index_sequence<kFileErrhandlerSlots>());

// A Fortran CHARACTER*(len) array of arguments ending at a blank one; `step`
// is the distance between two arguments of one command, in strings.
std::vector<std::string> argv_of(const char* base, size_t len, size_t step) {
  std::vector<std::string> out;
  for (size_t i = 0;; i++) {
    std::string s = F::from_fortran(base + i * step * len, len);
    if (s.empty()) break;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

bool is_root(MPI_Fint comm, MPI_Fint root) {
  int rank = -1;
  if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return false;
  return rank == root;
}

}  // namespace

// ---- attributes ----------------------------------------------------------------

extern "C" STMPI_F77_API void pmpi_attr_put_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value,
                                             MPI_Fint* ierror) {
  if (!mpii_hooks_present()) {
    *ierror = MPI_ERR_INTERN;
    return;
  }
  *ierror =
      MPII_Comm_set_attr(*comm, *keyval, reinterpret_cast<void*>(MPI_Aint{*value}), kMpiiAttrInt);
}
STMPI_F77_NAMES(pmpi_attr_put_, "attr_put", "ATTR_PUT")

extern "C" STMPI_F77_API void pmpi_attr_get_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value,
                                             MPI_Fint* flag, MPI_Fint* ierror) {
  get_attr(MPII_Comm_get_attr, *comm, *keyval, value, flag, ierror, kMpiiAttrInt);
}
STMPI_F77_NAMES(pmpi_attr_get_, "attr_get", "ATTR_GET")

#define STMPI_F77_ATTR(obj, OBJ, hook_set, hook_get)                                           \
  extern "C" STMPI_F77_API void pmpi_##obj##_set_attr_(MPI_Fint* handle, MPI_Fint* keyval,     \
                                                       MPI_Aint* value, MPI_Fint* ierror) {    \
    if (!mpii_hooks_present()) {                                                               \
      *ierror = MPI_ERR_INTERN;                                                                \
      return;                                                                                  \
    }                                                                                          \
    *ierror = hook_set(*handle, *keyval, reinterpret_cast<void*>(*value), kMpiiAttrAint);      \
  }                                                                                            \
  STMPI_F77_NAMES(pmpi_##obj##_set_attr_, #obj "_set_attr", #OBJ "_SET_ATTR")                  \
  extern "C" STMPI_F77_API void pmpi_##obj##_get_attr_(                                        \
      MPI_Fint* handle, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag, MPI_Fint* ierror) { \
    get_attr(hook_get, *handle, *keyval, value, flag, ierror, kMpiiAttrAint);                  \
  }                                                                                            \
  STMPI_F77_NAMES(pmpi_##obj##_get_attr_, #obj "_get_attr", #OBJ "_GET_ATTR")                  \
  extern "C" STMPI_F77_API void pmpi_##obj##_create_keyval_(                                   \
      F90CopyFn* copy_fn, F90DeleteFn* delete_fn, MPI_Fint* keyval, MPI_Aint* extra_state,     \
      MPI_Fint* ierror) {                                                                      \
    if (!mpii_hooks_present()) {                                                               \
      *ierror = MPI_ERR_INTERN;                                                                \
      return;                                                                                  \
    }                                                                                          \
    int err = PMPI_##OBJ##_create_keyval_c(copy_fn, delete_fn, keyval, extra_state);           \
    if (err == MPI_SUCCESS) MPII_Keyval_set_proxy(*keyval, f90_copy_proxy, f90_delete_proxy);  \
    *ierror = err;                                                                             \
  }                                                                                            \
  STMPI_F77_NAMES(pmpi_##obj##_create_keyval_, #obj "_create_keyval", #OBJ "_CREATE_KEYVAL")

// PMPI_<Obj>_create_keyval with the Fortran callbacks cast to C's types (the
// proxies call them with Fortran conventions).
#define PMPI_COMM_create_keyval_c(c, d, k, e)                               \
  PMPI_Comm_create_keyval(F::function_cast<MPI_Comm_copy_attr_function>(c), \
                          F::function_cast<MPI_Comm_delete_attr_function>(d), k, e)
#define PMPI_TYPE_create_keyval_c(c, d, k, e)                               \
  PMPI_Type_create_keyval(F::function_cast<MPI_Type_copy_attr_function>(c), \
                          F::function_cast<MPI_Type_delete_attr_function>(d), k, e)
#define PMPI_WIN_create_keyval_c(c, d, k, e)                              \
  PMPI_Win_create_keyval(F::function_cast<MPI_Win_copy_attr_function>(c), \
                         F::function_cast<MPI_Win_delete_attr_function>(d), k, e)

STMPI_F77_ATTR(comm, COMM, MPII_Comm_set_attr, MPII_Comm_get_attr)
STMPI_F77_ATTR(type, TYPE, MPII_Type_set_attr, MPII_Type_get_attr)
STMPI_F77_ATTR(win, WIN, MPII_Win_set_attr, MPII_Win_get_attr)

extern "C" STMPI_F77_API void pmpi_keyval_create_(F77CopyFn* copy_fn, F77DeleteFn* delete_fn,
                                                  MPI_Fint* keyval, MPI_Fint* extra_state,
                                                  MPI_Fint* ierror) {
  if (!mpii_hooks_present()) {
    *ierror = MPI_ERR_INTERN;
    return;
  }
  int err =
      PMPI_Keyval_create(F::function_cast<MPI_Copy_function>(copy_fn),
                         F::function_cast<MPI_Delete_function>(delete_fn), keyval, extra_state);
  if (err == MPI_SUCCESS) MPII_Keyval_set_proxy(*keyval, f77_copy_proxy, f77_delete_proxy);
  *ierror = err;
}
STMPI_F77_NAMES(pmpi_keyval_create_, "keyval_create", "KEYVAL_CREATE")

// ---- predefined callbacks (Fortran conventions) ---------------------------------

// (MPICH also exports pmpi_ names for these)
#define STMPI_F77_FN_NAMES(target, lower, upper)      \
  STMPI_F77_ALIAS(target, target##a1, lower "__")     \
  STMPI_F77_ALIAS(target, target##a2, lower)          \
  STMPI_F77_ALIAS(target, target##a3, upper)          \
  STMPI_F77_ALIAS(target, target##a4, "p" lower "_")  \
  STMPI_F77_ALIAS(target, target##a5, "p" lower "__") \
  STMPI_F77_ALIAS(target, target##a6, "p" lower)      \
  STMPI_F77_ALIAS(target, target##a7, "P" upper)

#define STMPI_F77_PREDEFINED(prefix, PREFIX, Int)                                               \
  extern "C" STMPI_F77_API void mpi_##prefix##null_copy_fn_(                                    \
      MPI_Fint*, MPI_Fint*, Int*, Int*, Int*, MPI_Fint* flag, MPI_Fint* ierror) {               \
    *flag = 0;                                                                                  \
    *ierror = MPI_SUCCESS;                                                                      \
  }                                                                                             \
  STMPI_F77_FN_NAMES(mpi_##prefix##null_copy_fn_, "mpi_" #prefix "null_copy_fn",                \
                     "MPI_" #PREFIX "NULL_COPY_FN")                                             \
  extern "C" STMPI_F77_API void mpi_##prefix##dup_fn_(                                          \
      MPI_Fint*, MPI_Fint*, Int*, Int* in, Int* out, MPI_Fint* flag, MPI_Fint* ierror) {        \
    *out = *in;                                                                                 \
    *flag = 1;                                                                                  \
    *ierror = MPI_SUCCESS;                                                                      \
  }                                                                                             \
  STMPI_F77_FN_NAMES(mpi_##prefix##dup_fn_, "mpi_" #prefix "dup_fn", "MPI_" #PREFIX "DUP_FN")   \
  extern "C" STMPI_F77_API void mpi_##prefix##null_delete_fn_(MPI_Fint*, MPI_Fint*, Int*, Int*, \
                                                              MPI_Fint* ierror) {               \
    *ierror = MPI_SUCCESS;                                                                      \
  }                                                                                             \
  STMPI_F77_FN_NAMES(mpi_##prefix##null_delete_fn_, "mpi_" #prefix "null_delete_fn",            \
                     "MPI_" #PREFIX "NULL_DELETE_FN")

STMPI_F77_PREDEFINED(, , MPI_Fint)
STMPI_F77_PREDEFINED(comm_, COMM_, MPI_Aint)
STMPI_F77_PREDEFINED(type_, TYPE_, MPI_Aint)
STMPI_F77_PREDEFINED(win_, WIN_, MPI_Aint)

// MPI_CONVERSION_FN_NULL: only compared by address (MPI_REGISTER_DATAREP).
extern "C" STMPI_F77_API void mpi_conversion_fn_null_(void*, MPI_Fint*, MPI_Fint*, void*,
                                                      MPI_Offset*, MPI_Aint*, MPI_Fint* ierror) {
  *ierror = MPI_SUCCESS;
}
STMPI_F77_FN_NAMES(mpi_conversion_fn_null_, "mpi_conversion_fn_null", "MPI_CONVERSION_FN_NULL")

// ---- generalized requests, file error handlers, data representations ---------------

extern "C" STMPI_F77_API void pmpi_grequest_start_(void* query_fn, void* free_fn, void* cancel_fn,
                                                   MPI_Aint* extra_state, MPI_Fint* request,
                                                   MPI_Fint* ierror) {
  if (!mpii_hooks_present()) {
    *ierror = MPI_ERR_INTERN;
    return;
  }
  const F::FortranRoutine routine("MPI_GREQUEST_START");
  int err = PMPI_Grequest_start(F::function_cast<MPI_Grequest_query_function>(query_fn),
                                F::function_cast<MPI_Grequest_free_function>(free_fn),
                                F::function_cast<MPI_Grequest_cancel_function>(cancel_fn),
                                extra_state, request);
  if (err == MPI_SUCCESS) MPII_Grequest_set_lang_f77(*request);
  *ierror = err;
}
STMPI_F77_NAMES(pmpi_grequest_start_, "grequest_start", "GREQUEST_START")

extern "C" STMPI_F77_API void pmpi_file_create_errhandler_(FileErrhandlerFn* fn,
                                                           MPI_Fint* errhandler, MPI_Fint* ierror) {
  int slot = 0;
  while (slot < kFileErrhandlerSlots && file_errhandlers[slot] != nullptr &&
         file_errhandlers[slot] != fn)
    slot++;
  if (slot == kFileErrhandlerSlots) {
    // More distinct Fortran file error handlers than trampolines.
    *ierror = MPI_ERR_INTERN;
    return;
  }
  file_errhandlers[slot] = fn;
  const F::FortranRoutine routine("MPI_FILE_CREATE_ERRHANDLER");
  *ierror = PMPI_File_create_errhandler(kFileTrampolines[slot], errhandler);
}
STMPI_F77_NAMES(pmpi_file_create_errhandler_, "file_create_errhandler", "FILE_CREATE_ERRHANDLER")

// A data representation's callbacks get their arguments by reference in
// Fortran: each registered representation gets one slot of C trampolines
// that call the Fortran functions (MPI_CONVERSION_FN_NULL stays null).
using FConversionFn = void(void* userbuf, MPI_Fint* datatype, MPI_Fint* count, void* filebuf,
                           MPI_Offset* position, MPI_Aint* extra_state, MPI_Fint* ierror);
using FExtentFn = void(MPI_Fint* datatype, MPI_Aint* extent, MPI_Aint* extra_state,
                       MPI_Fint* ierror);

// The mpi_f08 module's MPI_CONVERSION_FN_NULL (src/binding/f08/gen/mpi_f08_callbacks.f90).
extern "C" void stmpi_f08_conversion_fn_null() __asm__(
    "__mpi_f08_callbacks_MOD_mpi_conversion_fn_null");

namespace {

struct DatarepSlot {
  FConversionFn* read = nullptr;
  FConversionFn* write = nullptr;
  FExtentFn* extent = nullptr;
};
constexpr int kDatarepSlots = 16;
std::array<DatarepSlot, kDatarepSlots> datarep_slots{};
int datarep_used = 0;

template <int N, bool kRead>
int datarep_convert(void* userbuf, MPI_Datatype datatype, int count, void* filebuf,
                    MPI_Offset position, void* extra_state) {
  MPI_Fint ftype = datatype, fcount = count, ierror = MPI_SUCCESS;
  FConversionFn* fn = kRead ? datarep_slots[N].read : datarep_slots[N].write;
  fn(userbuf, &ftype, &fcount, filebuf, &position, static_cast<MPI_Aint*>(extra_state), &ierror);
  return ierror;
}

template <int N>
int datarep_extent(MPI_Datatype datatype, MPI_Aint* extent, void* extra_state) {
  MPI_Fint ftype = datatype, ierror = MPI_SUCCESS;
  datarep_slots[N].extent(&ftype, extent, static_cast<MPI_Aint*>(extra_state), &ierror);
  return ierror;
}

struct DatarepTrampolines {
  MPI_Datarep_conversion_function* read;
  MPI_Datarep_conversion_function* write;
  MPI_Datarep_extent_function* extent;
};

template <size_t... N>
constexpr std::array<DatarepTrampolines, sizeof...(N)> make_datarep_trampolines(
    std::index_sequence<N...>) {
  return {DatarepTrampolines{&datarep_convert<N, true>, &datarep_convert<N, false>,
                             &datarep_extent<N>}...};
}
constexpr auto kDatarepTrampolines =
    make_datarep_trampolines(std::make_index_sequence<kDatarepSlots>());

bool is_conversion_null(FConversionFn* fn);

}  // namespace

extern "C" STMPI_F77_API void pmpi_register_datarep_(const char* datarep, FConversionFn* read_fn,
                                                     FConversionFn* write_fn, FExtentFn* extent_fn,
                                                     MPI_Aint* extra_state, MPI_Fint* ierror,
                                                     size_t datarep_len) {
  if (datarep_used == kDatarepSlots) {
    // More Fortran data representations than trampolines.
    *ierror = MPI_ERR_INTERN;
    return;
  }
  int slot = datarep_used;
  std::string name = F::from_fortran(datarep, datarep_len);
  datarep_slots[slot] = {read_fn, write_fn, extent_fn};
  const DatarepTrampolines& t = kDatarepTrampolines[slot];
  const F::FortranRoutine routine("MPI_REGISTER_DATAREP");
  int err = PMPI_Register_datarep(
      name.c_str(), is_conversion_null(read_fn) ? MPI_CONVERSION_FN_NULL : t.read,
      is_conversion_null(write_fn) ? MPI_CONVERSION_FN_NULL : t.write, t.extent, extra_state);
  if (err == MPI_SUCCESS) datarep_used++;
  *ierror = err;
}
STMPI_F77_NAMES(pmpi_register_datarep_, "register_datarep", "REGISTER_DATAREP")

namespace {

// MPI_CONVERSION_FN_NULL from mpif.h or the modules: this library's
// mpi_conversion_fn_null_, the mpi_f08 module's (passed on by
// MPI_Register_datarep's f08 specific) or a null procedure
bool is_conversion_null(FConversionFn* fn) {
  return fn == nullptr ||
         reinterpret_cast<void*>(fn) == reinterpret_cast<void*>(&mpi_conversion_fn_null_) ||
         reinterpret_cast<void*>(fn) == reinterpret_cast<void*>(&stmpi_f08_conversion_fn_null);
}

}  // namespace

// ---- string arrays ---------------------------------------------------------------

extern "C" STMPI_F77_API void pmpi_comm_spawn_(const char* command, const char* argv,
                                               MPI_Fint* maxprocs, MPI_Fint* info, MPI_Fint* root,
                                               MPI_Fint* comm, MPI_Fint* intercomm,
                                               MPI_Fint* errcodes, MPI_Fint* ierror,
                                               size_t command_len, size_t argv_len) {
  std::string command_c;
  std::vector<std::string> args;
  std::vector<char*> argv_c;
  char** argv_arg = MPI_ARGV_NULL;
  if (is_root(*comm, *root)) {
    command_c = F::from_fortran(command, command_len);
    if (!F::is_argv_null(argv)) {
      args = argv_of(argv, argv_len, 1);
      argv_c = pointers(args);
      argv_arg = argv_c.data();
    }
  }
  const F::FortranRoutine routine("MPI_COMM_SPAWN");
  *ierror = PMPI_Comm_spawn(command_c.c_str(), argv_arg, *maxprocs, *info, *root, *comm, intercomm,
                            F::errcodes(errcodes));
}
STMPI_F77_NAMES(pmpi_comm_spawn_, "comm_spawn", "COMM_SPAWN")

extern "C" STMPI_F77_API void pmpi_comm_spawn_multiple_(MPI_Fint* count, const char* commands,
                                                        const char* argvs, MPI_Fint* maxprocs,
                                                        MPI_Fint* infos, MPI_Fint* root,
                                                        MPI_Fint* comm, MPI_Fint* intercomm,
                                                        MPI_Fint* errcodes, MPI_Fint* ierror,
                                                        size_t commands_len, size_t argvs_len) {
  std::vector<std::string> commands_c;
  std::vector<char*> command_ptrs;
  std::vector<std::vector<std::string>> args;
  std::vector<std::vector<char*>> arg_ptrs;
  std::vector<char**> argvs_c;
  char*** argvs_arg = MPI_ARGVS_NULL;
  int n = *count > 0 ? *count : 0;
  if (is_root(*comm, *root)) {
    for (int i = 0; i < n; i++)
      commands_c.push_back(F::from_fortran(commands + i * commands_len, commands_len));
    command_ptrs = pointers(commands_c);
    if (!F::is_argvs_null(argvs)) {
      // ARRAY_OF_ARGV(COUNT, *): argument j of command i at (j * COUNT + i).
      for (int i = 0; i < n; i++)
        args.push_back(argv_of(argvs + i * argvs_len, argvs_len, static_cast<size_t>(n)));
      for (auto& a : args) arg_ptrs.push_back(pointers(a));
      for (auto& p : arg_ptrs) argvs_c.push_back(p.data());
      argvs_arg = argvs_c.data();
    }
  }
  const F::FortranRoutine routine("MPI_COMM_SPAWN_MULTIPLE");
  *ierror = PMPI_Comm_spawn_multiple(*count, command_ptrs.empty() ? nullptr : command_ptrs.data(),
                                     argvs_arg, maxprocs, infos, *root, *comm, intercomm,
                                     F::errcodes(errcodes));
}
STMPI_F77_NAMES(pmpi_comm_spawn_multiple_, "comm_spawn_multiple", "COMM_SPAWN_MULTIPLE")

// ---- no IERROR ------------------------------------------------------------------

// MPI_PCONTROL(LEVEL): no IERROR in Fortran.
extern "C" STMPI_F77_API void pmpi_pcontrol_(MPI_Fint* level) { PMPI_Pcontrol(*level); }
STMPI_F77_NAMES(pmpi_pcontrol_, "pcontrol", "PCONTROL")

// MPI_F_SYNC_REG(BUF): an external call the compiler cannot see through is
// all it takes to make it keep BUF in memory across the call.
extern "C" STMPI_F77_API void pmpi_f_sync_reg_(void* buf) { (void)buf; }
STMPI_F77_NAMES(pmpi_f_sync_reg_, "f_sync_reg", "F_SYNC_REG")
