// Error codes with messages (below the device, so that every layer can
// build them; src/mpi/errhan/error.h gives them their MPI-layer names): an error code carries its
// MPI error class in the low 8 bits (user-added classes also have bit 30 set) and, above them, the
// slot of a detail message, so that MPI_Error_string can say which argument and value were wrong.
// Messages are built here, off the fast path; callers only return the code.
#pragma once

#include <cstdarg>
#include <string>

namespace stmpi::util {

inline constexpr int kClassMask = 0xff;
inline constexpr int kSlotShift = 8;
// Classes added with MPI_Add_error_class lie above MPI_ERR_LASTCODE
// (0x3fffffff): bit 30 set, the class number in the low 8 bits.
inline constexpr int kUserClassBit = 0x40000000;
inline constexpr int kFirstUserClass = kUserClassBit | 1;
inline constexpr int kLastUserClass = kUserClassBit | kClassMask;
// Codes made by MPI_Add_error_code: bit 29 set, a serial number above the class.
inline constexpr int kUserCodeBit = 0x20000000;

// Builds a code of class `error_class` whose message is printf-formatted.
[[nodiscard]] int make_error(int error_class, const char* fmt, ...)
    __attribute__((format(printf, 2, 3), cold));
[[nodiscard]] int make_error_v(int error_class, const char* fmt, va_list args);

inline int error_class_of(int code) { return code & (kUserClassBit | kClassMask); }

// Text of a class ("Invalid rank") and, for a code, "class: detail".
const char* class_string(int error_class);
std::string error_string(int code);

}  // namespace stmpi::util
