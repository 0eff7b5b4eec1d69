// The one entry point the info tool uses to list libmpi's runtime
// parameters (defaults, environment names, scopes, descriptions) and
// performance variables. MPI_T (src/mpi/tools) shows the same two lists
// as control and performance variables.
#include <cstdio>
#include <string>

#include "config.h"
#include "util/param.h"
#include "util/pvar.h"

namespace {

const char* scope_text(stmpi::util::Param::Scope scope) {
  using Scope = stmpi::util::Param::Scope;
  switch (scope) {
    case Scope::kLocal: return "local";
    case Scope::kAllEq: return "all_eq";
    default: return "init";
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int stmpi_info_print(FILE* out) {
  fprintf(out, "STMPI %s\n", PACKAGE_VERSION);
  fprintf(out, "build options: %s\n\n", STMPI_BUILD_OPTIONS);
  fprintf(out,
          "Runtime parameters (environment variable, default, allowed range, when it may change "
          "[init: fixed at MPI_Init; local, all_eq: at any time, through MPI_T], description):\n");
  stmpi::util::for_each_table([out](const stmpi::util::ParamTable& table) {
    for (const stmpi::util::Param& param : table.params) {
      const std::string range = stmpi::util::range_text(param);
      fprintf(out, "  %-32s %-8s %-16s %-6s %s\n",
              stmpi::util::env_name(table.module, param.name).c_str(), param.default_value,
              range.empty() ? "-" : range.c_str(),
              scope_text(stmpi::util::scope_of(table, param)), param.description);
    }
  });
  fprintf(out, "\nPerformance variables (MPI_T name, class, description):\n");
  for (const stmpi::util::PvarTable* table : stmpi::util::pvar_tables()) {
    for (const stmpi::util::Pvar& pvar : table->pvars) {
      const std::string name = std::string(table->module) + "_" + pvar.name;
      fprintf(out, "  %-32s %-13s %s\n", name.c_str(),
              stmpi::util::pvar_class_name(pvar.var_class), pvar.description);
    }
  }
  return 0;
}
