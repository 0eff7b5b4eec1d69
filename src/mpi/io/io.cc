// MPI-IO calls that work without files (see io.h).
#include "mpi/io/io.h"

#include <mpi.h>

#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/io/impl_io.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

// The default file error handler; nullptr means MPI_ERRORS_RETURN.
Errhandler* g_file_null_errhandler = nullptr;

Errhandler* file_null_errhandler() {
  return g_file_null_errhandler != nullptr ? g_file_null_errhandler
                                           : errhandler_get(MPI_ERRORS_RETURN);
}

int no_such_file(MPI_File file, const char* arg) {
  return make_error(MPI_ERR_FILE,
                    "%s=%p is not a file handle (MPI-IO is not provided yet; "
                    "only MPI_FILE_NULL exists)",
                    arg, static_cast<void*>(file));
}

}  // namespace

int raise_on_file_null(int code, const char* function) {
  Errhandler* eh = file_null_errhandler();
  switch (eh->kind) {
    case Errhandler::Kind::kReturn: return code;
    case Errhandler::Kind::kUserFile: {
      MPI_File file = MPI_FILE_NULL;
      int error = code;
      eh->file_fn(&file, &error, function);
      return code;
    }
    default: errhan::abort_job(code, function);
  }
}

void finalize() {
  if (g_file_null_errhandler != nullptr) errhandler_release(g_file_null_errhandler);
  g_file_null_errhandler = nullptr;
}

}  // namespace stmpi::mpi::io

namespace stmpi::impl {

using mpi::Errhandler;
using mpi::errhan::make_error;

// MPI_File is a pointer in MPICH's ABI; the only file handle is MPI_FILE_NULL,
// whose Fortran value is 0.
MPI_Fint file_c2f(MPI_File file) { return file == MPI_FILE_NULL ? 0 : -1; }
MPI_File file_f2c(MPI_Fint) { return MPI_FILE_NULL; }

int file_create_errhandler(MPI_File_errhandler_function* file_errhandler_fn,
                           MPI_Errhandler* errhandler) {
  if (file_errhandler_fn == nullptr) return make_error(MPI_ERR_ARG, "file_errhandler_fn is NULL");
  auto* eh = new Errhandler;
  eh->kind = Errhandler::Kind::kUserFile;
  eh->file_fn = file_errhandler_fn;
  eh->handle = mpi::errhandler_table().add(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}

int file_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  if (file != MPI_FILE_NULL) return mpi::io::no_such_file(file, "file");
  Errhandler* eh = mpi::errhandler_get(errhandler);
  if (eh == nullptr || eh->kind == Errhandler::Kind::kUserComm ||
      eh->kind == Errhandler::Kind::kUserWin)
    return make_error(MPI_ERR_ARG, "errhandler=0x%x is not a file error handler",
                      static_cast<unsigned>(errhandler));
  mpi::errhandler_retain(eh);
  if (mpi::io::g_file_null_errhandler != nullptr)
    mpi::errhandler_release(mpi::io::g_file_null_errhandler);
  mpi::io::g_file_null_errhandler = eh;
  return MPI_SUCCESS;
}

int file_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  if (file != MPI_FILE_NULL) return mpi::io::no_such_file(file, "file");
  Errhandler* eh = mpi::io::file_null_errhandler();
  mpi::errhandler_retain(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}

int file_call_errhandler(MPI_File fh, int errorcode) {
  if (fh != MPI_FILE_NULL) return mpi::io::no_such_file(fh, "fh");
  (void)mpi::io::raise_on_file_null(errorcode, "MPI_File_call_errhandler");
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
