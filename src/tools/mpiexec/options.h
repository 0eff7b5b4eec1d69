#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stmpi::tools::mpiexec {

// automatic (no -bind-to): core when the job has 2 or more ranks and no more ranks than
// cores, else none.
enum class BindPolicy { automatic, none, core, hwthread };

// One program of the job: the command line's ":"-separated sections, or the lines of a
// -configfile. Its ranks follow those of the programs before it; MPI_APPNUM is its index.
struct App {
  int nprocs = 1;
  // -env pairs of this program, applied after the global ones.
  std::vector<std::pair<std::string, std::string>> env;
  std::string wdir;                  // -wdir: working directory; empty: -gwdir or mpiexec's
  std::vector<std::string> command;  // program and its arguments
};

struct Options {
  int nprocs = 1;  // all programs together
  // -genv pairs in command-line order; later ones win.
  std::vector<std::pair<std::string, std::string>> env;
  bool inherit_env = true;  // false with -genvnone
  bool label = false;       // -l: prefix every output line with "[rank] "
  BindPolicy bind = BindPolicy::automatic;
  int timeout_seconds = 0;     // 0: no timeout
  std::string timeout_source;  // "-timeout" or "MPIEXEC_TIMEOUT", for the message
  // Bytes of keys and values the job may keep in the PMI key-value store (-kvs-limit).
  std::size_t kvs_limit = std::size_t{64} << 20;
  std::string wdir;             // -gwdir: every program's default working directory
  bool print_rank_map = false;  // -print-rank-map
  // -session-nice: the nice value of the job's scheduling group (session.h); unset (auto):
  // the weight of one group per rank.
  std::optional<int> session_nice;
  // Set by the launcher, not an option: the default weight could not be given to the job's
  // group (no privilege), so each rank gets a session of its own instead (session.h).
  bool session_per_rank = false;
  std::vector<App> apps;  // at least one after a successful parse

  // The program rank runs (its index in apps).
  int app_of(int rank) const;
};

enum class ParseResult { run, help, version, error };

// Exit status of mpiexec for command-line errors.
inline constexpr int kUsageExitCode = 2;

// Fills *options from argv; on ParseResult::error, *error names the offending argument.
// env_timeout: the value of MPIEXEC_TIMEOUT (nullptr when unset), used without -timeout.
[[nodiscard]] ParseResult parse_options(int argc, char** argv, const char* env_timeout,
                                        Options* options, std::string* error);

void print_usage(std::FILE* out);
void print_version(std::FILE* out);

}  // namespace stmpi::tools::mpiexec
