// The error classes, codes and strings a program adds (MPI_Add_error_class,
// MPI_Add_error_code, MPI_Add_error_string, MPIX_Delete_error_*), and the test
// of whether a code is one this library could have returned. Kept apart from
// the error handlers so that code checking a callback's return value (the
// attribute table) does not depend on communicators.
#pragma once

#include <map>
#include <set>
#include <string>

namespace stmpi::mpi {

struct UserErrors {
  int last_class = 0;  // the last class handed out (kFirstUserClass - 1: none)
  int codes = 0;       // user-defined codes handed out
  std::map<int, std::string> strings;
  std::set<int> deleted;  // classes and codes removed by MPIX_Delete_error_class/code
};

// The one registry of the process.
UserErrors& user_errors();

// Whether `code` is one this library could have returned: a predefined
// class, a code of one, or a class or code the program added (and did not
// delete).
bool known_code(int code);

}  // namespace stmpi::mpi
