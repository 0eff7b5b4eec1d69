// Performance variables: the statistics modules already keep, declared once
// per module in a table (name, class, description, a function that reads
// the process-wide value), like the runtime parameters of param.h. MPI_T
// (src/mpi/tools) exposes them as performance variables and the info tool
// lists them. A module registers its table at static-initialization time.
// A read function may run at any time, also before MPI_Init and after
// MPI_Finalize (MPI_T works then), so it reads objects that always exist.
#pragma once

#include <cstdint>
#include <span>

namespace stmpi::util {

struct Pvar {
  // kLevel: a current amount (queue depth); kCounter: events so far, only
  // grows; kHighwatermark: the largest amount seen so far.
  enum class Class { kLevel, kCounter, kHighwatermark };
  const char* name;  // lower case, e.g. "unexpected_messages"
  Class var_class;
  uint64_t (*read)();  // the process-wide value now
  const char* description;
};

struct PvarTable {
  const char* module;  // lower case, e.g. "match"; MPI_T names it <module>_<name>
  std::span<const Pvar> pvars;
};

// Registers a module's table (at static-initialization time).
struct PvarRegistration {
  explicit PvarRegistration(const PvarTable* table);
};

std::span<const PvarTable* const> pvar_tables();

const char* pvar_class_name(Pvar::Class var_class);

}  // namespace stmpi::util
