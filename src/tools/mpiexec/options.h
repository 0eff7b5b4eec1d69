#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace stmpi::tools::mpiexec {

// automatic (no -bind-to): core when the job has 2 or more ranks and no more ranks than
// cores, else none.
enum class BindPolicy { automatic, none, core, hwthread };

struct Options {
  int nprocs = 1;
  // -env/-genv pairs in command-line order; later ones win.
  std::vector<std::pair<std::string, std::string>> env;
  bool inherit_env = true;  // false with -genvnone
  bool label = false;       // -l: prefix every output line with "[rank] "
  BindPolicy bind = BindPolicy::automatic;
  int timeout_seconds = 0;           // 0: no timeout
  // Bytes of keys and values the job may keep in the PMI key-value store (-kvs-limit).
  std::size_t kvs_limit = std::size_t{64} << 20;
  std::vector<std::string> command;  // program and its arguments
};

enum class ParseResult { run, help, version, error };

// Exit status of mpiexec for command-line errors.
inline constexpr int usage_exit_code = 2;

// Fills *options from argv; on ParseResult::error, *error names the offending argument.
[[nodiscard]] ParseResult parse_options(int argc, char** argv, Options* options,
                                        std::string* error);

void print_usage(std::FILE* out);
void print_version(std::FILE* out);

}  // namespace stmpi::tools::mpiexec
