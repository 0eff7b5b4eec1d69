// MPI_Datatype: a layout of data in memory, described once per instance by
// its data blocks (what pack/unpack copy) and by its basic elements (what
// MPI_Get_elements and the reduction kernels need). README.md in this folder
// explains the representation.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "mpi/comm/attr_table.h"
#include "mpi/handle.h"
#include "util/element_kind.h"

namespace stmpi::mpi {

using util::ElementKind;  // util/element_kind.h

// The groups of predefined types that decide which predefined operations
// apply (MPI 4.1, section 6.9.2). C, Fortran and multi-language integers
// form one group; MPI_CHAR and MPI_CHARACTER join it, as in MPICH.
enum class TypeClass : uint8_t { kNone, kInteger, kFloat, kComplex, kLogical, kByte, kPair };

// `count` runs of `len` bytes; run k starts `disp + k * stride` bytes after
// the start of an instance. Runs with count == 1 have stride 0.
struct DataBlock {
  MPI_Aint disp = 0;
  MPI_Aint len = 0;
  MPI_Count count = 1;
  MPI_Aint stride = 0;
  bool operator==(const DataBlock&) const = default;
};

// `count` consecutive basic elements of `size` bytes each, in pack order.
struct ElementRun {
  MPI_Aint size = 0;
  MPI_Count count = 0;
  bool operator==(const ElementRun&) const = default;
};

// `runs` repeated `repeat` times.
struct ElementGroup {
  std::vector<ElementRun> runs;
  MPI_Count repeat = 1;
};

// Everything a constructor derives from its inputs; copied by dup/resized.
struct TypeLayout {
  std::vector<DataBlock> blocks;        // one instance, in pack order, adjacent runs merged
  std::vector<ElementGroup> signature;  // basic element sizes of one instance, pack order
  MPI_Count element_count = 0;          // basic elements per instance
  MPI_Aint alignment = 1;               // strictest alignment of any basic element
  // The type map has entries (data, markers, or bounds set by resized):
  // only such types contribute to the bounds of types built from them.
  bool has_entries = false;
  bool lb_marker = false;  // holds an MPI_LB marker (sticky bound)
  bool ub_marker = false;  // holds an MPI_UB marker
  // Reductions: every element is `base_type` (a predefined type; pair types
  // count as one element), `base_count` of them per instance; 0 if mixed.
  int base_type = 0;
  MPI_Count base_count = 0;
  // An instance is `base_count` adjacent base_type values (at the base
  // type's extent) starting at true_lb, and the extent covers exactly them.
  bool base_dense = false;
};

struct Datatype;

// How the type was built, for MPI_Type_get_envelope/MPI_Type_get_contents.
// The component types are retained for as long as this type lives.
struct TypeContents {
  int combiner = MPI_COMBINER_NAMED;
  bool large_counts = false;  // built by an _c constructor: integers live in `counts`
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Count> counts;
  std::vector<Datatype*> types;
};

struct Datatype {
  int handle = 0;
  MPI_Count size = 0;           // bytes of data in one instance
  MPI_Aint lb = 0, extent = 0;  // (lb, extent) as MPI defines them, resized types included
  MPI_Aint true_lb = 0, true_extent = 0;
  bool contiguous = false;  // one instance = `size` bytes at true_lb and extent == size
  bool predefined = false;
  bool committed = false;
  std::atomic<int> refs{1};
  std::string name;

  TypeLayout layout;
  TypeContents contents;
  AttributeTable<TypeAttrs> attributes;           // user attributes (MPI_Type_set_attr)
  ElementKind element_kind = ElementKind::kNone;  // predefined types only
  TypeClass type_class = TypeClass::kNone;        // predefined types only
  // The I/O chapter's flattened file forms of this type (src/mpi/io/filetype.cc),
  // computed on first use and freed with the type; opaque here.
  std::shared_ptr<void> io_cache;

  // Copies `count` instances starting at `src` into contiguous `dst` (count*size bytes).
  void pack(const void* src, MPI_Count count, void* dst) const;
  // Inverse; `bytes` may be less than count*size (truncated or partial message):
  // unpacks only that many bytes.
  void unpack(const void* src, MPI_Count bytes, MPI_Count count, void* dst) const;
  // Bytes [offset, offset + bytes) of the packed form of `count` instances
  // at `src`, into `dst`; and the inverse. For pipelined transfers.
  void pack_range(const void* src, MPI_Count count, MPI_Count offset, MPI_Count bytes,
                  void* dst) const;
  void unpack_range(const void* src, MPI_Count offset, MPI_Count bytes, MPI_Count count,
                    void* dst) const;
  // Number of basic elements in `bytes` bytes of a message of this type
  // (MPI_Get_elements); MPI_UNDEFINED if `bytes` ends inside a basic element.
  MPI_Count elements(MPI_Count bytes) const;
};

// Constant-initialized, so lookups (on every send and receive) are inline.
extern constinit HandleTable<Datatype, ObjectKind::kDatatype> g_datatype_table;
inline HandleTable<Datatype, ObjectKind::kDatatype>& datatype_table() { return g_datatype_table; }
// nullptr for invalid handles and MPI_DATATYPE_NULL
inline Datatype* datatype_get(int handle) { return g_datatype_table.get(handle); }
// Registers every predefined type (called by MPI_Init; idempotent).
void datatype_init_predefined();
void datatype_retain(Datatype* type);
void datatype_release(Datatype* type);  // predefined types are never destroyed
const char* datatype_name(int handle);  // "MPI_INT", user name, or "derived datatype"

// Registers a new derived type (refs = 1) and returns its handle.
int datatype_register(Datatype* type);

}  // namespace stmpi::mpi
