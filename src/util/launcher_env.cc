#include "util/launcher_env.h"

#include <cstdlib>
#include <string_view>

namespace stmpi::util {

namespace {

bool is_launcher_variable(std::string_view name) {
  for (std::string_view prefix : {"PMI_", "PMIX_", "SLURM_"}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace

const char* launcher_env(const char* name) {
  if (name == nullptr || !is_launcher_variable(name)) return nullptr;
  return std::getenv(name);
}

}  // namespace stmpi::util
