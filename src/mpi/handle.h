// MPI handles in MPICH's encoding (the ABI): bits 31-30 say builtin (1),
// direct (2) or indirect (3); bits 29-26 name the object kind; the low bits
// index the object. Predefined objects keep MPICH's builtin/direct values;
// objects created at run time get indirect handles, so they never collide.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace stmpi::mpi {

enum class ObjectKind : unsigned {
  kComm = 0x1,
  kGroup = 0x2,
  kDatatype = 0x3,
  kFile = 0x4,
  kErrhandler = 0x5,
  kOp = 0x6,
  kInfo = 0x7,
  kWin = 0x8,
  kKeyval = 0x9,
  kAttr = 0xa,
  kRequest = 0xb,
  kSession = 0xd,
  kStream = 0xf,  // MPIX_Stream (MPICH: MPIX_STREAM_NULL is 0x3c000000)
};

inline constexpr unsigned kHandleBuiltin = 1;
inline constexpr unsigned kHandleDirect = 2;
inline constexpr unsigned kHandleIndirect = 3;

constexpr unsigned handle_kind(int handle) { return static_cast<uint32_t>(handle) >> 30; }
constexpr unsigned handle_object(int handle) { return (static_cast<uint32_t>(handle) >> 26) & 0xf; }

// Maps handles of one object kind to objects. Not owning: the object's
// chapter decides lifetime (reference counts, predefined statics). T has an
// `int handle` member holding its own handle.
template <class T, ObjectKind Kind>
class HandleTable {
 public:
  static constexpr unsigned kKind = static_cast<unsigned>(Kind);

  // Registers a predefined object under its fixed builtin or direct handle.
  void add_predefined(int handle, T* object) {
    const uint32_t index = static_cast<uint32_t>(handle) & 0xff;
    if (handle_kind(handle) == kHandleBuiltin) builtin_[index] = object;
    else direct_[index & (direct_.size() - 1)] = object;
  }

  // Stores a run-time object and returns its new indirect handle.
  int add(T* object) {
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
      objects_[index] = object;
    } else {
      index = static_cast<uint32_t>(objects_.size());
      objects_.push_back(object);
    }
    return static_cast<int>((kHandleIndirect << 30) | (kKind << 26) | index);
  }

  void remove(int handle) {
    const uint32_t index = static_cast<uint32_t>(handle) & kIndexMask;
    if (handle_kind(handle) != kHandleIndirect || index >= objects_.size()) return;
    objects_[index] = nullptr;
    free_.push_back(index);
  }

  // Calls fn(object) for every run-time object (predefined ones excluded).
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (T* object : objects_)
      if (object != nullptr) fn(*object);
  }

  // The object for a handle of this kind, or nullptr if it names none.
  T* get(int handle) const {
    if (handle_object(handle) != kKind) return nullptr;
    const uint32_t raw = static_cast<uint32_t>(handle);
    switch (handle_kind(handle)) {
      case kHandleBuiltin: {
        T* object = builtin_[raw & 0xff];
        return object != nullptr && object->handle == handle ? object : nullptr;
      }
      case kHandleDirect: {
        T* object = direct_[raw & (direct_.size() - 1)];
        return object != nullptr && object->handle == handle ? object : nullptr;
      }
      case kHandleIndirect: {
        const uint32_t index = raw & kIndexMask;
        return index < objects_.size() ? objects_[index] : nullptr;
      }
      default: return nullptr;
    }
  }

 private:
  static constexpr uint32_t kIndexMask = (1u << 26) - 1;
  std::array<T*, 256> builtin_{};
  std::array<T*, 64> direct_{};
  std::vector<T*> objects_;
  std::vector<uint32_t> free_;
};

}  // namespace stmpi::mpi
