// Runtime parameters. Each module declares its parameters once, in one
// table (name, field, default, description, allowed range); `load_all`
// fills the fields from STMPI_<MODULE>_<NAME> environment variables at init
// and the info tool prints every table. No other code reads the environment
// for settings. A value outside what the table allows (its range and step,
// or outside the field's type when it gives no range, or a string outside its
// choices) is an init error naming the variable, the value and the allowed
// values; nothing wraps. Modules rely on that and do not check values again.
#pragma once

#include <climits>
#include <cstddef>
#include <span>
#include <string>

namespace stmpi::util {

struct Param {
  enum class Type { kInt, kSize, kBool, kString };
  // When a parameter may change (MPI_T reports it as the cvar's scope):
  //   kTable  the table's scope (ParamTable::scope);
  //   kInit   read once at init: fixed afterwards (MPI_T_SCOPE_READONLY);
  //   kLocal  read at each use: may change at any time, per process
  //           (MPI_T_SCOPE_LOCAL);
  //   kAllEq  read at each use, and every process must hold the same value
  //           (collective algorithm choices; MPI_T_SCOPE_ALL_EQ).
  enum class Scope { kTable, kInit, kLocal, kAllEq };
  const char* name;  // lower case, e.g. "eager_limit"
  Type type;
  void* field;  // int*, std::size_t*, bool* or std::string*
  const char* default_value;
  const char* description;
  // Allowed values of kInt and kSize parameters, bounds included; the
  // defaults stand for the field type's own range.
  long long min = LLONG_MIN;
  long long max = LLONG_MAX;
  Scope scope = Scope::kTable;
  // A kString parameter that takes one of these values (an enumeration in
  // MPI_T); empty for free text.
  std::span<const char* const> choices = {};
  // kInt and kSize: a value must also be a multiple of this (1: any), and a
  // power of two when power_of_two is set.
  long long multiple_of = 1;
  bool power_of_two = false;
};

// "2..1024", "256..1M", "0..2147483647": the range a parameter accepts,
// in the units its values are written in (empty for bools and strings).
std::string range_text(const Param& param);

// Everything a parameter accepts, for people: "2..1024, a power of two",
// "yes or no", "auto, yes or no" (its choices), "any text".
std::string allowed_text(const Param& param);

struct ParamTable {
  const char* module;  // lower case, e.g. "shm"
  std::span<const Param> params;
  Param::Scope scope = Param::Scope::kInit;  // of the parameters that name none
};

// The parameter's scope, kTable resolved.
Param::Scope scope_of(const ParamTable& table, const Param& param);

// The current value as the environment would spell it ("16K", "yes", "auto").
std::string value_text(const Param& param);

// Sets the parameter from text as the environment does; false (and the field
// unchanged) for a malformed value or one the table does not allow.
[[nodiscard]] bool set_from_text(const Param& param, const char* text);

// The index of the current value in `choices`, -1 when it is none of them.
int choice_index(const Param& param);

// Registers a module's table (at static-initialization time).
struct ParamRegistration {
  explicit ParamRegistration(const ParamTable* table);
};

// Sets every registered field to its default, then applies the
// environment. Returns false and fills `error` ("STMPI_X=value is not valid:
// expected <allowed_text>") for a value the table does not allow.
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
