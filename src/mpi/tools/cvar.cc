// Control variables: the runtime parameters of every module's table
// (util/param.h), under their environment names. How each parameter type
// appears:
//   int                 MPI_INT
//   size in bytes       MPI_UNSIGNED_LONG (size_t)
//   yes/no              MPI_INT, 0 or 1
//   one of a few words  MPI_INT with an enumeration (MPI_T_enum_*): the
//                       index of the word, e.g. coll algorithm choices (-1
//                       for an environment value that is none of them,
//                       which the collective then reports)
//   free text           MPI_CHAR, kStringCount characters with the NUL
// Scopes: parameters read once at init are MPI_T_SCOPE_READONLY (a write is
// MPI_T_ERR_CVAR_SET_NEVER); parameters read at each use are LOCAL or
// ALL_EQ and may be written while the library is up (before MPI_Init and
// after MPI_Finalize a write is MPI_T_ERR_CVAR_SET_NOT_NOW: MPI_Init would
// replace it with the default or the environment).
#include <cstring>
#include <memory>
#include <string>
#include <unordered_set>

#include "mpi/init/state.h"
#include "mpi/tools/impl_tools.h"
#include "mpi/tools/tools.h"

struct STMPI_T_cvar_handle_s {
  int index;
};
// An enumeration is the control variable it describes.
struct STMPI_T_enum_s {
  int cvar;
};

namespace stmpi::mpi::tools {
namespace {

constexpr int kStringCount = 256;

using util::Param;

std::unordered_set<MPI_T_cvar_handle>& cvar_handles() {
  static std::unordered_set<MPI_T_cvar_handle> handles;
  return handles;
}

// One enumeration per control variable that has choices, by cvar index.
std::vector<std::unique_ptr<STMPI_T_enum_s>>& enums() {
  static std::vector<std::unique_ptr<STMPI_T_enum_s>> all = [] {
    std::vector<std::unique_ptr<STMPI_T_enum_s>> built(cvars().size());
    for (std::size_t i = 0; i < built.size(); ++i)
      if (!cvars()[i].param->choices.empty())
        built[i] = std::make_unique<STMPI_T_enum_s>(STMPI_T_enum_s{static_cast<int>(i)});
    return built;
  }();
  return all;
}

const Cvar* cvar_at(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= cvars().size()) return nullptr;
  return &cvars()[static_cast<std::size_t>(index)];
}

const Cvar* cvar_of(MPI_T_cvar_handle handle) {
  if (handle == nullptr || !cvar_handles().contains(handle)) return nullptr;
  return cvar_at(handle->index);
}

const Cvar* cvar_of(MPI_T_enum enumtype) {
  for (const std::unique_ptr<STMPI_T_enum_s>& e : enums())
    if (e.get() == enumtype && enumtype != nullptr) return cvar_at(enumtype->cvar);
  return nullptr;
}

MPI_Datatype datatype_of(const Param& param) {
  switch (param.type) {
    case Param::Type::kInt:
    case Param::Type::kBool: return MPI_INT;
    case Param::Type::kSize: return MPI_UNSIGNED_LONG;
    case Param::Type::kString: return param.choices.empty() ? MPI_CHAR : MPI_INT;
  }
  return MPI_DATATYPE_NULL;
}

int count_of(const Param& param) {
  return param.type == Param::Type::kString && param.choices.empty() ? kStringCount : 1;
}

int scope_of(const Cvar& cvar) {
  switch (util::scope_of(*cvar.table, *cvar.param)) {
    case Param::Scope::kLocal: return MPI_T_SCOPE_LOCAL;
    case Param::Scope::kAllEq: return MPI_T_SCOPE_ALL_EQ;
    default: return MPI_T_SCOPE_READONLY;
  }
}

// Tuning choices are for tuners, what to print for users, the rest is
// detail fixed at init.
int verbosity_of(const Cvar& cvar) {
  switch (scope_of(cvar)) {
    case MPI_T_SCOPE_ALL_EQ: return MPI_T_VERBOSITY_TUNER_BASIC;
    case MPI_T_SCOPE_LOCAL: return MPI_T_VERBOSITY_USER_BASIC;
    default: return MPI_T_VERBOSITY_TUNER_DETAIL;
  }
}

void read_value(const Param& param, void* buf) {
  switch (param.type) {
    case Param::Type::kInt: *static_cast<int*>(buf) = *static_cast<const int*>(param.field); return;
    case Param::Type::kBool:
      *static_cast<int*>(buf) = *static_cast<const bool*>(param.field) ? 1 : 0;
      return;
    case Param::Type::kSize:
      *static_cast<unsigned long*>(buf) = *static_cast<const std::size_t*>(param.field);
      return;
    case Param::Type::kString:
      if (!param.choices.empty()) {
        *static_cast<int*>(buf) = util::choice_index(param);
        return;
      }
      int length = kStringCount;
      copy_string(*static_cast<const std::string*>(param.field), static_cast<char*>(buf), &length);
      return;
  }
}

// The value in `buf` as the environment would spell it; false when it is
// not a value of this parameter's type.
bool value_text(const Param& param, const void* buf, std::string* text) {
  switch (param.type) {
    case Param::Type::kInt: *text = std::to_string(*static_cast<const int*>(buf)); return true;
    case Param::Type::kBool: {
      const int value = *static_cast<const int*>(buf);
      if (value != 0 && value != 1) return false;
      *text = value ? "yes" : "no";
      return true;
    }
    case Param::Type::kSize:
      *text = std::to_string(*static_cast<const unsigned long*>(buf));
      return true;
    case Param::Type::kString: {
      if (!param.choices.empty()) {
        const int index = *static_cast<const int*>(buf);
        if (index < 0 || static_cast<std::size_t>(index) >= param.choices.size()) return false;
        *text = param.choices[static_cast<std::size_t>(index)];
        return true;
      }
      const char* value = static_cast<const char*>(buf);
      if (strnlen(value, kStringCount) == kStringCount) return false;  // no NUL in count
      *text = value;
      return true;
    }
  }
  return false;
}

}  // namespace

void free_cvar_handles() {
  for (MPI_T_cvar_handle handle : cvar_handles()) delete handle;
  cvar_handles().clear();
}

}  // namespace stmpi::mpi::tools

namespace stmpi::impl {

using mpi::tools::initialized;
using mpi::tools::mutex;
namespace tools = mpi::tools;

int t_cvar_get_num(int* num_cvar) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (num_cvar == nullptr) return MPI_T_ERR_INVALID;
  *num_cvar = static_cast<int>(tools::cvars().size());
  return MPI_SUCCESS;
}

int t_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity,
                    MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len,
                    int* bind, int* scope) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const tools::Cvar* cvar = tools::cvar_at(cvar_index);
  if (cvar == nullptr) return MPI_T_ERR_INVALID_INDEX;
  tools::copy_string(cvar->name, name, name_len);
  if (verbosity != nullptr) *verbosity = tools::verbosity_of(*cvar);
  if (datatype != nullptr) *datatype = tools::datatype_of(*cvar->param);
  if (enumtype != nullptr) {
    STMPI_T_enum_s* e = tools::enums()[static_cast<std::size_t>(cvar_index)].get();
    *enumtype = e != nullptr ? e : MPI_T_ENUM_NULL;
  }
  tools::copy_string(cvar->param->description, desc, desc_len);
  if (bind != nullptr) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope != nullptr) *scope = tools::scope_of(*cvar);
  return MPI_SUCCESS;
}

int t_cvar_get_index(const char* name, int* cvar_index) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (name == nullptr || cvar_index == nullptr) return MPI_T_ERR_INVALID;
  const std::vector<tools::Cvar>& all = tools::cvars();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == name) {
      *cvar_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int t_cvar_handle_alloc(int cvar_index, void* /*obj_handle: no cvar is bound to an object*/,
                        MPI_T_cvar_handle* handle, int* count) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const tools::Cvar* cvar = tools::cvar_at(cvar_index);
  if (cvar == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
  auto* created = new (std::nothrow) STMPI_T_cvar_handle_s{cvar_index};
  if (created == nullptr) return MPI_T_ERR_MEMORY;
  tools::cvar_handles().insert(created);
  *handle = created;
  *count = tools::count_of(*cvar->param);
  return MPI_SUCCESS;
}

int t_cvar_handle_free(MPI_T_cvar_handle* handle) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (handle == nullptr) return MPI_T_ERR_INVALID;
  if (tools::cvar_of(*handle) == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  tools::cvar_handles().erase(*handle);
  delete *handle;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int t_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const tools::Cvar* cvar = tools::cvar_of(handle);
  if (cvar == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  tools::read_value(*cvar->param, buf);
  return MPI_SUCCESS;
}

int t_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const tools::Cvar* cvar = tools::cvar_of(handle);
  if (cvar == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  if (tools::scope_of(*cvar) == MPI_T_SCOPE_READONLY) return MPI_T_ERR_CVAR_SET_NEVER;
  if (!mpi::g_process_state.library_up) return MPI_T_ERR_CVAR_SET_NOT_NOW;
  std::string text;
  if (!tools::value_text(*cvar->param, buf, &text) ||
      !util::set_from_text(*cvar->param, text.c_str()))
    return MPI_T_ERR_INVALID;
  return MPI_SUCCESS;
}

int t_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const tools::Cvar* cvar = tools::cvar_of(enumtype);
  if (cvar == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (num == nullptr) return MPI_T_ERR_INVALID;
  *num = static_cast<int>(cvar->param->choices.size());
  tools::copy_string(cvar->name, name, name_len);
  return MPI_SUCCESS;
}

int t_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const tools::Cvar* cvar = tools::cvar_of(enumtype);
  if (cvar == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (index < 0 || static_cast<std::size_t>(index) >= cvar->param->choices.size())
    return MPI_T_ERR_INVALID_INDEX;
  if (value == nullptr) return MPI_T_ERR_INVALID;
  *value = index;
  tools::copy_string(cvar->param->choices[static_cast<std::size_t>(index)], name, name_len);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
