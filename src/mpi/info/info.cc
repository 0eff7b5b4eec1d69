// MPI_Info objects (MPI 4.1 section 10).
#include "mpi/info/info.h"

#include <algorithm>
#include <cstring>

#include <mpi.h>

#include "mpi/errhan/error.h"
#include "mpi/info/impl_info.h"

namespace stmpi::mpi {
namespace {

struct InfoTable {
  HandleTable<Info, ObjectKind::kInfo> table;
  Info env;
  InfoTable() {
    env.handle = MPI_INFO_ENV;
    env.predefined = true;
    table.add_predefined(MPI_INFO_ENV, &env);
  }
};

InfoTable& infos() {
  static InfoTable* const tables = new InfoTable;  // never destroyed: handles outlive statics
  return *tables;
}

int bad_info(MPI_Info info) {
  if (info == MPI_INFO_NULL) return errhan::make_error(MPI_ERR_INFO, "info is MPI_INFO_NULL");
  return errhan::make_error(MPI_ERR_INFO, "info=0x%x is not a valid info object",
                            static_cast<unsigned>(info));
}

int check_key(const char* key) {
  if (key == nullptr) return errhan::make_error(MPI_ERR_INFO_KEY, "key is NULL");
  const std::size_t n = std::strlen(key);
  if (n == 0) return errhan::make_error(MPI_ERR_INFO_KEY, "key is empty");
  if (n > MPI_MAX_INFO_KEY)
    return errhan::make_error(MPI_ERR_INFO_KEY,
                              "key \"%.32s...\" has %zu characters (MPI_MAX_INFO_KEY is %d)", key,
                              n, MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}

// Copies `text` into `out` (room for `room` characters plus the NUL),
// truncating.
void copy_out(std::string_view text, char* out, std::size_t room) {
  const std::size_t n = std::min(text.size(), room);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

}  // namespace

std::optional<std::string_view> Info::find(std::string_view key) const {
  for (const auto& [k, v] : entries)
    if (k == key) return std::string_view(v);
  return std::nullopt;
}

void Info::set(std::string_view key, std::string_view value) {
  for (auto& [k, v] : entries) {
    if (k == key) {
      v = value;
      return;
    }
  }
  entries.emplace_back(key, value);
}

HandleTable<Info, ObjectKind::kInfo>& info_table() { return infos().table; }

Info* info_get(int handle) { return infos().table.get(handle); }

Info* info_create() {
  auto* info = new Info;
  info->handle = infos().table.add(info);
  return info;
}

}  // namespace stmpi::mpi

namespace stmpi::impl {

using mpi::Info;

int info_create(MPI_Info* info) {
  *info = mpi::info_create()->handle;
  return MPI_SUCCESS;
}

int info_set(MPI_Info info, const char* key, const char* value) {
  Info* object = mpi::info_get(info);
  if (object == nullptr) return mpi::bad_info(info);
  if (int err = mpi::check_key(key)) return err;
  if (value == nullptr) return mpi::errhan::make_error(MPI_ERR_INFO_VALUE, "value is NULL");
  if (std::strlen(value) > MPI_MAX_INFO_VAL)
    return mpi::errhan::make_error(
        MPI_ERR_INFO_VALUE, "value for key \"%s\" has %zu characters (MPI_MAX_INFO_VAL is %d)", key,
        std::strlen(value), MPI_MAX_INFO_VAL);
  if (object->predefined)
    return mpi::errhan::make_error(MPI_ERR_INFO, "MPI_INFO_ENV cannot be modified");
  object->set(key, value);
  return MPI_SUCCESS;
}

int info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  const Info* object = mpi::info_get(info);
  if (object == nullptr) return mpi::bad_info(info);
  if (int err = mpi::check_key(key)) return err;
  if (valuelen < 0)
    return mpi::errhan::make_error(MPI_ERR_ARG, "valuelen=%d must be non-negative", valuelen);
  const auto found = object->find(key);
  *flag = found.has_value();
  if (found) mpi::copy_out(*found, value, static_cast<std::size_t>(valuelen));
  return MPI_SUCCESS;
}

int info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  const Info* object = mpi::info_get(info);
  if (object == nullptr) return mpi::bad_info(info);
  if (int err = mpi::check_key(key)) return err;
  const auto found = object->find(key);
  *flag = found.has_value();
  if (!found) return MPI_SUCCESS;
  const int room = *buflen;
  *buflen = static_cast<int>(found->size()) + 1;
  if (room > 0) mpi::copy_out(*found, value, static_cast<std::size_t>(room - 1));
  return MPI_SUCCESS;
}

int info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  const Info* object = mpi::info_get(info);
  if (object == nullptr) return mpi::bad_info(info);
  if (int err = mpi::check_key(key)) return err;
  const auto found = object->find(key);
  *flag = found.has_value();
  if (found) *valuelen = static_cast<int>(found->size());
  return MPI_SUCCESS;
}

int info_get_nkeys(MPI_Info info, int* nkeys) {
  const Info* object = mpi::info_get(info);
  if (object == nullptr) return mpi::bad_info(info);
  *nkeys = static_cast<int>(object->entries.size());
  return MPI_SUCCESS;
}

int info_get_nthkey(MPI_Info info, int n, char* key) {
  const Info* object = mpi::info_get(info);
  if (object == nullptr) return mpi::bad_info(info);
  if (n < 0 || static_cast<std::size_t>(n) >= object->entries.size())
    return mpi::errhan::make_error(MPI_ERR_ARG,
                                   "n=%d is not a valid key index (the info has %zu keys)", n,
                                   object->entries.size());
  mpi::copy_out(object->entries[static_cast<std::size_t>(n)].first, key, MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}

int info_delete(MPI_Info info, const char* key) {
  Info* object = mpi::info_get(info);
  if (object == nullptr) return mpi::bad_info(info);
  if (int err = mpi::check_key(key)) return err;
  auto it = std::find_if(object->entries.begin(), object->entries.end(),
                         [key](const auto& entry) { return entry.first == key; });
  if (it == object->entries.end())
    return mpi::errhan::make_error(MPI_ERR_INFO_NOKEY, "key \"%s\" is not in the info", key);
  object->entries.erase(it);
  return MPI_SUCCESS;
}

int info_dup(MPI_Info info, MPI_Info* newinfo) {
  const Info* object = mpi::info_get(info);
  if (object == nullptr) return mpi::bad_info(info);
  Info* copy = mpi::info_create();
  copy->entries = object->entries;
  *newinfo = copy->handle;
  return MPI_SUCCESS;
}

int info_free(MPI_Info* info) {
  Info* object = mpi::info_get(*info);
  if (object == nullptr) return mpi::bad_info(*info);
  if (object->predefined)
    return mpi::errhan::make_error(MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
  mpi::info_table().remove(object->handle);
  delete object;
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
