#include "util/error.h"

#include <array>
#include <cstdio>
#include <mutex>

#include <mpi.h>

namespace stmpi::util {
namespace {

// A ring of recent detail messages. A code refers to its slot; a slot that
// was reused since reports only the class string.
constexpr int kSlots = 1024;
struct Slot {
  int code = 0;
  std::string text;
};
std::array<Slot, kSlots> g_slots;
unsigned g_next_slot = 0;
std::mutex g_slots_mutex;

}  // namespace

int make_error_v(int error_class, const char* fmt, va_list args) {
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, args);
  std::lock_guard lock(g_slots_mutex);
  const unsigned slot = g_next_slot++ % kSlots;
  const int code = error_class | static_cast<int>((slot + 1) << kSlotShift);
  g_slots[slot] = Slot{code, buf};
  return code;
}

int make_error(int error_class, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  const int code = make_error_v(error_class, fmt, args);
  va_end(args);
  return code;
}

const char* class_string(int error_class) {
  switch (error_class) {
    case MPI_SUCCESS: return "No MPI error";
    case MPI_ERR_BUFFER: return "Invalid buffer pointer";
    case MPI_ERR_COUNT: return "Invalid count";
    case MPI_ERR_TYPE: return "Invalid datatype";
    case MPI_ERR_TAG: return "Invalid tag";
    case MPI_ERR_COMM: return "Invalid communicator";
    case MPI_ERR_RANK: return "Invalid rank";
    case MPI_ERR_ROOT: return "Invalid root";
    case MPI_ERR_GROUP: return "Invalid group";
    case MPI_ERR_OP: return "Invalid operation";
    case MPI_ERR_TOPOLOGY: return "Invalid topology";
    case MPI_ERR_DIMS: return "Invalid dimension argument";
    case MPI_ERR_ARG: return "Invalid argument";
    case MPI_ERR_UNKNOWN: return "Unknown error";
    case MPI_ERR_TRUNCATE: return "Message truncated";
    case MPI_ERR_OTHER: return "Other MPI error";
    case MPI_ERR_INTERN: return "Internal MPI error";
    case MPI_ERR_IN_STATUS: return "Error code is in status";
    case MPI_ERR_PENDING: return "Pending request";
    case MPI_ERR_REQUEST: return "Invalid request";
    case MPI_ERR_ACCESS: return "Permission denied";
    case MPI_ERR_AMODE: return "Invalid access mode";
    case MPI_ERR_BAD_FILE: return "Invalid file name";
    case MPI_ERR_CONVERSION: return "Data conversion error";
    case MPI_ERR_DUP_DATAREP: return "Duplicate data representation";
    case MPI_ERR_FILE_EXISTS: return "File exists";
    case MPI_ERR_FILE_IN_USE: return "File in use";
    case MPI_ERR_FILE: return "Invalid file handle";
    case MPI_ERR_INFO: return "Invalid info object";
    case MPI_ERR_INFO_KEY: return "Invalid info key";
    case MPI_ERR_INFO_VALUE: return "Invalid info value";
    case MPI_ERR_INFO_NOKEY: return "Info key not found";
    case MPI_ERR_IO: return "I/O error";
    case MPI_ERR_NAME: return "Invalid service name";
    case MPI_ERR_NO_MEM: return "Out of memory";
    case MPI_ERR_NOT_SAME: return "Arguments differ across processes";
    case MPI_ERR_NO_SPACE: return "No space left";
    case MPI_ERR_NO_SUCH_FILE: return "No such file";
    case MPI_ERR_PORT: return "Invalid port";
    case MPI_ERR_QUOTA: return "Quota exceeded";
    case MPI_ERR_READ_ONLY: return "Read-only file";
    case MPI_ERR_SERVICE: return "Invalid service";
    case MPI_ERR_SPAWN: return "Spawn error";
    case MPI_ERR_UNSUPPORTED_DATAREP: return "Unsupported data representation";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "Unsupported operation";
    case MPI_ERR_WIN: return "Invalid window";
    case MPI_ERR_BASE: return "Invalid base address";
    case MPI_ERR_LOCKTYPE: return "Invalid lock type";
    case MPI_ERR_KEYVAL: return "Invalid keyval";
    case MPI_ERR_RMA_CONFLICT: return "Conflicting RMA accesses";
    case MPI_ERR_RMA_SYNC: return "RMA call outside a valid epoch";
    case MPI_ERR_SIZE: return "Invalid size";
    case MPI_ERR_DISP: return "Invalid displacement";
    case MPI_ERR_ASSERT: return "Invalid assert";
    case MPI_ERR_RMA_RANGE: return "RMA target range out of window";
    case MPI_ERR_RMA_ATTACH: return "Cannot attach memory to window";
    case MPI_ERR_RMA_SHARED: return "Memory cannot be shared";
    case MPI_ERR_RMA_FLAVOR: return "Wrong window flavor";
    case MPI_ERR_SESSION: return "Invalid session";
    case MPI_ERR_PROC_ABORTED: return "Process aborted";
    case MPI_ERR_VALUE_TOO_LARGE: return "Value too large for output argument";
    case MPIX_ERR_STREAM: return "Invalid stream or stream use";
    case MPI_T_ERR_MEMORY: return "Tool interface: out of memory";
    case MPI_T_ERR_NOT_INITIALIZED: return "Tool interface: not initialized";
    case MPI_T_ERR_CANNOT_INIT: return "Tool interface: cannot initialize";
    case MPI_T_ERR_INVALID_INDEX: return "Tool interface: invalid index";
    case MPI_T_ERR_INVALID_ITEM: return "Tool interface: invalid item";
    case MPI_T_ERR_INVALID_HANDLE: return "Tool interface: invalid handle";
    case MPI_T_ERR_OUT_OF_HANDLES: return "Tool interface: out of handles";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "Tool interface: out of sessions";
    case MPI_T_ERR_INVALID_SESSION: return "Tool interface: invalid session";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "Tool interface: control variable cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER: return "Tool interface: control variable can never be set";
    case MPI_T_ERR_PVAR_NO_STARTSTOP:
      return "Tool interface: performance variable cannot be started or stopped";
    case MPI_T_ERR_PVAR_NO_WRITE: return "Tool interface: performance variable cannot be written";
    case MPI_T_ERR_PVAR_NO_ATOMIC:
      return "Tool interface: performance variable cannot be read and reset atomically";
    case MPI_T_ERR_INVALID_NAME: return "Tool interface: invalid name";
    case MPI_T_ERR_INVALID: return "Tool interface: invalid use";
    case MPI_T_ERR_NOT_SUPPORTED: return "Tool interface: not supported";
    default: return "Unknown error class";
  }
}

std::string error_string(int code) {
  const int error_class = error_class_of(code);
  std::string text = class_string(error_class);
  const unsigned slot_plus_one =
      static_cast<unsigned>(code & ~(kUserClassBit | kUserCodeBit)) >> kSlotShift;
  if (slot_plus_one != 0 && slot_plus_one <= kSlots) {
    std::lock_guard lock(g_slots_mutex);
    const Slot& slot = g_slots[slot_plus_one - 1];
    if (slot.code == code) text += ": " + slot.text;
  }
  return text;
}

}  // namespace stmpi::util
