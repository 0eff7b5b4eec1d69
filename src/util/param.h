// Runtime parameters. Each module declares its parameters once, in one
// table (name, field, default, description); `load_all` fills the fields
// from STMPI_<MODULE>_<NAME> environment variables at init and the info
// tool prints every table. No other code reads the environment for
// settings.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace stmpi::util {

struct Param {
  enum class Type { kInt, kSize, kBool, kString };
  const char* name;         // lower case, e.g. "eager_limit"
  Type type;
  void* field;              // int*, std::size_t*, bool* or std::string*
  const char* default_value;
  const char* description;
};

struct ParamTable {
  const char* module;       // lower case, e.g. "shm"
  std::span<const Param> params;
};

// Registers a module's table (at static-initialization time).
struct ParamRegistration {
  explicit ParamRegistration(const ParamTable* table);
};

// Sets every registered field to its default, then applies the
// environment. Returns false and fills `error` for a malformed value.
[[nodiscard]] bool load_all(std::string* error);

// Calls fn(table) for every registered table, in registration order.
template <class Fn>
void for_each_table(Fn&& fn);

std::span<const ParamTable* const> tables();

// "STMPI_SHM_EAGER_LIMIT" for ("shm", "eager_limit"); "STMPI_NETMOD" for ("netmod", "").
std::string env_name(const char* module, const char* name);

}  // namespace stmpi::util

template <class Fn>
void stmpi::util::for_each_table(Fn&& fn) {
  for (const ParamTable* table : tables()) fn(*table);
}
