// Error handlers: predefined (fatal, return, abort) and user handlers on
// communicators, and the error-string calls.
#include "mpi/errhan/errhandler.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "device/device.h"
#include "mpi/comm/comm.h"
#include "mpi/errhan/error.h"
#include "mpi/errhan/user_errors.h"
#include "mpi/init/impl_env.h"
#include "mpi/mpix/impl_mpix.h"
#include "pmi/client.h"

namespace stmpi::mpi {
namespace {

HandleTable<Errhandler, ObjectKind::kErrhandler> g_errhandlers;
Errhandler g_fatal;
Errhandler g_return;
Errhandler g_abort;

// Whether the program set MPI_COMM_SELF's error handler (see raise_on_comm).
bool g_self_errhandler_set = false;

}  // namespace

HandleTable<Errhandler, ObjectKind::kErrhandler>& errhandler_table() { return g_errhandlers; }

Errhandler* errhandler_get(int handle) { return g_errhandlers.get(handle); }

void errhandler_retain(Errhandler* eh) {
  if (!eh->predefined) eh->refs.fetch_add(1, std::memory_order_relaxed);
}

void errhandler_release(Errhandler* eh) {
  if (eh->predefined) return;
  if (eh->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    g_errhandlers.remove(eh->handle);
    delete eh;
  }
}

namespace errhan {

void init_predefined() {
  const struct {
    Errhandler* object;
    int handle;
    Errhandler::Kind kind;
  } predefined[] = {{&g_fatal, MPI_ERRORS_ARE_FATAL, Errhandler::Kind::kFatal},
                    {&g_return, MPI_ERRORS_RETURN, Errhandler::Kind::kReturn},
                    {&g_abort, MPI_ERRORS_ABORT, Errhandler::Kind::kAbort}};
  for (const auto& p : predefined) {
    p.object->handle = p.handle;
    p.object->kind = p.kind;
    p.object->predefined = true;
    g_errhandlers.add_predefined(p.handle, p.object);
  }
}

void abort_job(int code, const char* function) {
  char message[700];
  snprintf(message, sizeof message, "Fatal error in %s: %s (rank %d)", function,
           error_string(code).c_str(), dev::world_rank());
  fprintf(stderr, "%s\n", message);
  fflush(stderr);
  int exit_code = error_class_of(code);
  pmi::client().abort(exit_code == 0 ? 1 : exit_code, message);
}

int raise_on_comm(Comm* comm, int code, const char* function) {
  if (code == MPI_SUCCESS) return code;
  // An error with no communicator goes to MPI_COMM_SELF's handler (MPI 4.1
  // section 9.3). As MPICH does, for programs written before MPI 4.0 (when
  // MPI_COMM_WORLD's handler served), MPI_COMM_WORLD's handler serves while
  // the program has not set one on MPI_COMM_SELF.
  if (comm == nullptr) comm = g_self_errhandler_set ? comm_self() : comm_world();
  if (comm == nullptr) comm = comm_self();
  Errhandler* eh = comm != nullptr ? comm->errhandler : nullptr;
  if (eh == nullptr) abort_job(code, function);  // before MPI_Init completed
  switch (eh->kind) {
    case Errhandler::Kind::kReturn: return code;
    case Errhandler::Kind::kUserComm: {
      MPI_Comm handle = comm->handle;
      eh->comm_fn(&handle, &code, function);
      return code;
    }
    default: abort_job(code, function);
  }
}

}  // namespace errhan
}  // namespace stmpi::mpi

namespace stmpi::impl {

using mpi::Errhandler;

int comm_create_errhandler(MPI_Comm_errhandler_function* comm_errhandler_fn,
                           MPI_Errhandler* errhandler) {
  if (comm_errhandler_fn == nullptr)
    return mpi::errhan::make_error(MPI_ERR_ARG, "comm_errhandler_fn is NULL");
  auto* eh = new Errhandler;
  eh->kind = Errhandler::Kind::kUserComm;
  eh->comm_fn = comm_errhandler_fn;
  eh->handle = mpi::errhandler_table().add(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}

int comm_set_errhandler(mpi::Comm& comm, MPI_Errhandler errhandler) {
  Errhandler* eh = mpi::errhandler_get(errhandler);
  if (eh == nullptr || eh->kind == Errhandler::Kind::kUserWin ||
      eh->kind == Errhandler::Kind::kUserFile)
    return mpi::errhan::make_error(MPI_ERR_ARG,
                                   "errhandler=0x%x is not a communicator error handler",
                                   static_cast<unsigned>(errhandler));
  mpi::errhandler_retain(eh);
  if (comm.errhandler != nullptr) mpi::errhandler_release(comm.errhandler);
  comm.errhandler = eh;
  if (comm.handle == MPI_COMM_SELF) mpi::g_self_errhandler_set = true;
  return MPI_SUCCESS;
}

int comm_get_errhandler(mpi::Comm& comm, MPI_Errhandler* errhandler) {
  mpi::errhandler_retain(comm.errhandler);
  *errhandler = comm.errhandler->handle;
  return MPI_SUCCESS;
}

int comm_call_errhandler(mpi::Comm& comm, int errorcode) {
  (void)mpi::errhan::raise_on_comm(&comm, errorcode, "MPI_Comm_call_errhandler");
  return MPI_SUCCESS;
}

int errhandler_free(MPI_Errhandler* errhandler) {
  Errhandler* eh = mpi::errhandler_get(*errhandler);
  if (eh == nullptr)
    return mpi::errhan::make_error(MPI_ERR_ARG, "errhandler=0x%x is not a valid error handler",
                                   static_cast<unsigned>(*errhandler));
  mpi::errhandler_release(eh);
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int error_string(int errorcode, char* string, int* resultlen) {
  if (!mpi::known_code(errorcode))
    return mpi::errhan::make_error(MPI_ERR_ARG, "errorcode=%d is not a valid error code",
                                   errorcode);
  std::string text;
  auto user = mpi::user_errors().strings.find(errorcode);
  // An added class or code with no string set reads as the empty string (MPI 4.1 9.5).
  const bool added = (errorcode & (mpi::errhan::kUserClassBit | mpi::errhan::kUserCodeBit)) != 0;
  if (user != mpi::user_errors().strings.end()) text = user->second;
  else if (!added) text = mpi::errhan::error_string(errorcode);
  const std::size_t n = std::min<std::size_t>(text.size(), MPI_MAX_ERROR_STRING - 1);
  std::memcpy(string, text.data(), n);
  string[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

int error_class(int errorcode, int* errorclass) {
  if (!mpi::known_code(errorcode))
    return mpi::errhan::make_error(MPI_ERR_ARG, "errorcode=%d is not a valid error code",
                                   errorcode);
  // User-added codes carry their class in the same low bits.
  *errorclass = mpi::errhan::error_class_of(errorcode);
  return MPI_SUCCESS;
}

int add_error_class(int* errorclass) {
  if (mpi::user_errors().last_class >= mpi::errhan::kLastUserClass)
    return mpi::errhan::make_error(MPI_ERR_OTHER, "no more user error classes (limit %d)",
                                   mpi::errhan::kClassMask);
  *errorclass = ++mpi::user_errors().last_class;
  mpi::comm_set_last_used_code(*errorclass);
  return MPI_SUCCESS;
}

int add_error_code(int errorclass, int* errorcode) {
  const bool predefined = errorclass >= MPI_SUCCESS && errorclass <= MPI_ERR_VALUE_TOO_LARGE;
  const bool added = errorclass >= mpi::errhan::kFirstUserClass &&
                     errorclass <= mpi::user_errors().last_class &&
                     mpi::user_errors().deleted.count(errorclass) == 0;
  if (!predefined && !added)
    return mpi::errhan::make_error(MPI_ERR_ARG,
                                   "errorclass=%d is neither predefined nor added by "
                                   "MPI_Add_error_class",
                                   errorclass);
  if (mpi::user_errors().codes >= (mpi::errhan::kUserCodeBit >> mpi::errhan::kSlotShift) - 1)
    return mpi::errhan::make_error(MPI_ERR_OTHER, "too many user-defined error codes");
  *errorcode = errorclass | mpi::errhan::kUserCodeBit |
               (++mpi::user_errors().codes << mpi::errhan::kSlotShift);
  return MPI_SUCCESS;
}

int add_error_string(int errorcode, const char* string) {
  if (string == nullptr) return mpi::errhan::make_error(MPI_ERR_ARG, "string is NULL");
  if (!(errorcode & (mpi::errhan::kUserClassBit | mpi::errhan::kUserCodeBit)))
    return mpi::errhan::make_error(
        MPI_ERR_ARG, "errorcode=%d is predefined; its string cannot change", errorcode);
  mpi::user_errors().strings[errorcode] = string;
  return MPI_SUCCESS;
}

namespace {

bool added_code(int code) {
  return code >= 0 && (code & mpi::errhan::kUserCodeBit) != 0 && mpi::known_code(code);
}

bool added_class(int error_class) {
  return error_class >= mpi::errhan::kFirstUserClass &&
         error_class <= mpi::user_errors().last_class && mpi::known_code(error_class);
}

}  // namespace

int mpix_delete_error_class(int errorclass) {
  if (!added_class(errorclass))
    return mpi::errhan::make_error(
        MPI_ERR_ARG, "errorclass=%d is not a class added by MPI_Add_error_class", errorclass);
  mpi::user_errors().deleted.insert(errorclass);
  mpi::user_errors().strings.erase(errorclass);
  return MPI_SUCCESS;
}

int mpix_delete_error_code(int errorcode) {
  if (!added_code(errorcode))
    return mpi::errhan::make_error(
        MPI_ERR_ARG, "errorcode=%d is not a code added by MPI_Add_error_code", errorcode);
  mpi::user_errors().deleted.insert(errorcode);
  mpi::user_errors().strings.erase(errorcode);
  return MPI_SUCCESS;
}

int mpix_delete_error_string(int errorcode) {
  if (!added_code(errorcode) && !added_class(errorcode))
    return mpi::errhan::make_error(
        MPI_ERR_ARG, "errorcode=%d is not a class or code added by the program", errorcode);
  mpi::user_errors().strings.erase(errorcode);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
