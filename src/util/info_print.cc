// The one entry point the info tool uses to list libmpi's runtime
// parameters (defaults, environment names, descriptions).
#include <cstdio>
#include <string>

#include "config.h"
#include "util/param.h"

extern "C" __attribute__((visibility("default"))) int stmpi_info_print(FILE* out) {
  fprintf(out, "STMPI %s\n", PACKAGE_VERSION);
  fprintf(out, "build options: %s\n\n", STMPI_BUILD_OPTIONS);
  fprintf(out, "Runtime parameters (environment variable, default, allowed range, description):\n");
  stmpi::util::for_each_table([out](const stmpi::util::ParamTable& table) {
    for (const stmpi::util::Param& param : table.params) {
      const std::string range = stmpi::util::range_text(param);
      fprintf(out, "  %-32s %-8s %-16s %s\n",
              stmpi::util::env_name(table.module, param.name).c_str(), param.default_value,
              range.empty() ? "-" : range.c_str(), param.description);
    }
  });
  return 0;
}
