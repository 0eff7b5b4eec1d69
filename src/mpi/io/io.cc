// File error handlers (MPI 4.1 section 9.3.3): the default one lives on
// MPI_FILE_NULL (MPI_ERRORS_RETURN unless the program sets another) and is
// given to every file opened afterwards; errors of calls without a file
// (MPI_File_open, MPI_File_delete, MPI_Register_datarep) go to it.
#include "mpi/io/io.h"

#include <mpi.h>

#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/io/file.h"
#include "mpi/io/impl_io.h"
#include "mpi/io/internal.h"
#include "mpi/io/nonblocking.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

// The default file error handler; nullptr means MPI_ERRORS_RETURN.
Errhandler* g_file_null_errhandler = nullptr;

int invoke(Errhandler* eh, MPI_File file, int code, const char* function) {
  switch (eh->kind) {
    case Errhandler::Kind::kReturn: return code;
    case Errhandler::Kind::kUserFile: {
      int error = code;
      eh->file_fn(&file, &error, function);
      return code;
    }
    default: errhan::abort_job(code, function);
  }
}

bool is_file_errhandler(const Errhandler* eh) {
  return eh != nullptr && eh->kind != Errhandler::Kind::kUserComm &&
         eh->kind != Errhandler::Kind::kUserWin && eh->kind != Errhandler::Kind::kUserSession;
}

}  // namespace

Errhandler* default_file_errhandler() {
  return g_file_null_errhandler != nullptr ? g_file_null_errhandler
                                           : errhandler_get(MPI_ERRORS_RETURN);
}

int raise_on_file_null(int code, const char* function) {
  return invoke(default_file_errhandler(), MPI_FILE_NULL, code, function);
}

int file_raise(File* file, int code, const char* function) {
  if (file == nullptr || file->errhandler() == nullptr) return raise_on_file_null(code, function);
  return invoke(file->errhandler(), file->handle(), code, function);
}

void finalize() {
  nonblocking_finalize();  // the I/O thread finishes its queue and exits
  timers_report();         // STMPI_IO_TIMERS=yes
  if (g_file_null_errhandler != nullptr) errhandler_release(g_file_null_errhandler);
  g_file_null_errhandler = nullptr;
  datarep_finalize();
}

}  // namespace stmpi::mpi::io

namespace stmpi::impl {

using mpi::Errhandler;
using mpi::errhan::make_error;

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
  Errhandler* eh = mpi::errhandler_get(errhandler);
  if (!mpi::io::is_file_errhandler(eh))
    return make_error(MPI_ERR_ARG, "errhandler=0x%x is not a file error handler",
                      static_cast<unsigned>(errhandler));
  if (file != MPI_FILE_NULL) {
    mpi::io::file_get(file)->set_errhandler(eh);
    return MPI_SUCCESS;
  }
  mpi::errhandler_retain(eh);
  if (mpi::io::g_file_null_errhandler != nullptr)
    mpi::errhandler_release(mpi::io::g_file_null_errhandler);
  mpi::io::g_file_null_errhandler = eh;
  return MPI_SUCCESS;
}

int file_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  Errhandler* eh = file == MPI_FILE_NULL ? mpi::io::default_file_errhandler()
                                         : mpi::io::file_get(file)->errhandler();
  mpi::errhandler_retain(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}

int file_call_errhandler(MPI_File fh, int errorcode) {
  (void)mpi::io::file_raise(mpi::io::file_get(fh), errorcode, "MPI_File_call_errhandler");
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
