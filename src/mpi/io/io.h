// File error handlers: the default one lives on MPI_FILE_NULL
// (MPI_ERRORS_RETURN unless the user sets another) and errors of calls
// without a file go to it; errors on a file go to the file's (file.h,
// file_raise).
#pragma once

namespace stmpi::mpi::io {

// Applies the default file error handler (the one set on MPI_FILE_NULL) to
// `code`, as MPI does for errors of calls without a file handle (MPI_File_open,
// MPI_File_delete, MPI_Register_datarep). Returns the code to return.
int raise_on_file_null(int code, const char* function);

// Drops the reference to a user's default file error handler (MPI_Finalize).
void finalize();

}  // namespace stmpi::mpi::io
