// The registry of the program's error classes, codes and strings, and known_code.
#include "mpi/errhan/user_errors.h"

#include <cstring>

#include "mpi/errhan/error.h"

namespace stmpi::mpi {

UserErrors& user_errors() {
  static UserErrors registry = [] {
    UserErrors fresh;
    fresh.last_class = errhan::kFirstUserClass - 1;
    return fresh;
  }();
  return registry;
}

bool known_code(int code) {
  if (code < 0) return false;
  const UserErrors& user = user_errors();
  const int error_class = errhan::error_class_of(code);
  if (user.deleted.count(error_class) != 0 || user.deleted.count(code) != 0) return false;
  if (error_class & errhan::kUserClassBit) {
    if (error_class < errhan::kFirstUserClass || error_class > user.last_class) return false;
  } else if (std::strcmp(errhan::class_string(error_class), "Unknown error class") == 0) {
    return false;
  }
  if (code & errhan::kUserCodeBit) {
    const int serial =
        (code & ~(errhan::kUserClassBit | errhan::kUserCodeBit)) >> errhan::kSlotShift;
    return serial >= 1 && serial <= user.codes;
  }
  return true;
}

}  // namespace stmpi::mpi
