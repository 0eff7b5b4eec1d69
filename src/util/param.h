// Runtime parameters. Each module declares its parameters once, in one
// table (name, field, default, description, allowed range); `load_all`
// fills the fields from STMPI_<MODULE>_<NAME> environment variables at init
// and the info tool prints every table. No other code reads the environment
// for settings. A value outside the range (or outside the field's type, when
// the table gives no range) is an init error naming the variable, the value
// and the range; nothing wraps.
#pragma once

#include <climits>
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
  // Allowed values of kInt and kSize parameters, bounds included; the
  // defaults stand for the field type's own range.
  long long min = LLONG_MIN;
  long long max = LLONG_MAX;
};

// "2..1024", "256..1M", "0..2147483647": the range a parameter accepts,
// in the units its values are written in (empty for bools and strings).
std::string range_text(const Param& param);

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
