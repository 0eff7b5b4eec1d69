// Error codes with messages: an error code carries its MPI error class in
// the low 8 bits (predefined classes < 128, user classes 128..255) and, above them, the slot of a detail message, so that
// MPI_Error_string can say which argument and value were wrong. Messages
// are built here, off the fast path; callers only return the code.
#pragma once

#include <cstdarg>
#include <string>

namespace stmpi::mpi::errhan {

inline constexpr int kClassMask = 0xff;
inline constexpr int kSlotShift = 8;
inline constexpr int kFirstUserClass = 128;

// Builds a code of class `error_class` whose message is printf-formatted.
[[nodiscard]] int make_error(int error_class, const char* fmt, ...)
    __attribute__((format(printf, 2, 3), cold));
[[nodiscard]] int make_error_v(int error_class, const char* fmt, va_list args);

inline int error_class_of(int code) { return code & kClassMask; }

// Text of a class ("Invalid rank") and, for a code, "class: detail".
const char* class_string(int error_class);
std::string error_string(int code);

}  // namespace stmpi::mpi::errhan
