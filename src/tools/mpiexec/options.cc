#include "tools/mpiexec/options.h"

#include <charconv>
#include <string_view>

#include "config.h"

namespace stmpi::tools::mpiexec {

namespace {

bool parse_count(std::string_view text, int min, int max, int* out) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return false;
  }
  *out = value;
  return true;
}

// A byte count with an optional K, M or G suffix (powers of 1024).
bool parse_bytes(std::string_view text, std::size_t* out) {
  std::size_t shift = 0;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: break;
    }
  }
  if (shift != 0) text.remove_suffix(1);
  unsigned long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0 ||
      value > (std::size_t{1} << 40) >> shift) {
    return false;
  }
  *out = static_cast<std::size_t>(value) << shift;
  return true;
}

bool valid_env_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Walks argv; options may be spelled with one or two dashes, as Hydra allows.
class ArgumentReader {
 public:
  ArgumentReader(int argc, char** argv) : argc_(argc), argv_(argv) {}
  bool done() const { return next_ >= argc_; }
  std::string_view peek() const { return argv_[next_]; }
  std::string_view take() { return argv_[next_++]; }
  bool take_value(std::string_view option, std::string_view* value, std::string* error) {
    if (done()) {
      *error = "option '" + std::string(option) + "' needs a value";
      return false;
    }
    *value = take();
    return true;
  }

 private:
  int argc_;
  char** argv_;
  int next_ = 1;
};

}  // namespace

ParseResult parse_options(int argc, char** argv, Options* options, std::string* error) {
  ArgumentReader args(argc, argv);
  while (!args.done()) {
    std::string_view arg = args.peek();
    if (arg == "--") {
      args.take();
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // the program
    args.take();
    std::string_view name = arg.substr(arg.starts_with("--") ? 2 : 1);
    std::string_view value;

    if (name == "h" || name == "help") return ParseResult::help;
    if (name == "version" || name == "V") return ParseResult::version;
    if (name == "n" || name == "np") {
      if (!args.take_value(arg, &value, error)) return ParseResult::error;
      if (!parse_count(value, 1, 1 << 20, &options->nprocs)) {
        *error = "'" + std::string(arg) + " " + std::string(value) +
                 "': the number of processes must be a positive integer";
        return ParseResult::error;
      }
    } else if (name == "env" || name == "genv") {
      std::string_view env_name;
      if (!args.take_value(arg, &env_name, error)) return ParseResult::error;
      if (std::size_t eq = env_name.find('='); eq != std::string_view::npos) {
        value = env_name.substr(eq + 1);  // also accept NAME=VALUE as one argument
        env_name = env_name.substr(0, eq);
      } else if (!args.take_value(arg, &value, error)) {
        *error = "option '" + std::string(arg) + "' needs a name and a value";
        return ParseResult::error;
      }
      if (!valid_env_name(env_name)) {
        *error = "'" + std::string(arg) + " " + std::string(env_name) +
                 "': not a valid environment variable name";
        return ParseResult::error;
      }
      options->env.emplace_back(env_name, value);
    } else if (name == "genvnone" || name == "envnone") {
      options->inherit_env = false;
    } else if (name == "genvall" || name == "envall") {
      options->inherit_env = true;
    } else if (name == "l" || name == "prepend-rank") {
      options->label = true;
    } else if (name == "bind-to" || name == "binding") {
      if (!args.take_value(arg, &value, error)) return ParseResult::error;
      if (value == "core" || value == "cores") {
        options->bind = BindPolicy::core;
      } else if (value == "hwthread" || value == "hwthreads") {
        options->bind = BindPolicy::hwthread;
      } else if (value == "none") {
        options->bind = BindPolicy::none;
      } else {
        *error = "'" + std::string(arg) + " " + std::string(value) +
                 "': expected core, hwthread or none";
        return ParseResult::error;
      }
    } else if (name == "timeout") {
      if (!args.take_value(arg, &value, error)) return ParseResult::error;
      if (!parse_count(value, 0, 1 << 30, &options->timeout_seconds)) {
        *error = "'" + std::string(arg) + " " + std::string(value) +
                 "': the timeout must be a number of seconds";
        return ParseResult::error;
      }
    } else if (name == "kvs-limit") {
      if (!args.take_value(arg, &value, error)) return ParseResult::error;
      if (!parse_bytes(value, &options->kvs_limit)) {
        *error = "'" + std::string(arg) + " " + std::string(value) +
                 "': expected a byte count from 1 to 1T (suffixes K, M, G)";
        return ParseResult::error;
      }
    } else if (name == "hosts" || name == "host" || name == "H" || name == "f" ||
               name == "hostfile" || name == "machinefile" || name == "launcher" ||
               name == "launcher-exec" || name == "rmk" || name == "ppn") {
      // Naming hosts means a job on several nodes: that is Hydra's job, not ours.
      *error = "'" + std::string(arg) +
               "': this mpiexec starts processes on this node only and takes no hosts or "
               "remote launcher; to run across nodes start the program with MPICH's Hydra, "
               "e.g. mpiexec.hydra -hosts node1,node2 -n 4 ./app (the library speaks PMI-1 to "
               "it; see \"Running across nodes\" in README.md)";
      return ParseResult::error;
    } else {
      *error = "unknown option '" + std::string(arg) + "'";
      return ParseResult::error;
    }
  }
  if (args.done()) {
    *error = "no program given";
    return ParseResult::error;
  }
  while (!args.done()) options->command.emplace_back(args.take());
  return ParseResult::run;
}

void print_usage(std::FILE* out) {
  std::fputs(
      "Usage: mpiexec [options] [-n N] program [arguments...]\n"
      "Starts N processes of program on this node and serves them the PMI-1 protocol.\n"
      "It runs one node only: across nodes, launch with MPICH's Hydra (mpiexec.hydra\n"
      "-hosts node1,node2 ...), which the library speaks PMI-1 to.\n"
      "\n"
      "Options:\n"
      "  -n, -np N               number of processes (default 1)\n"
      "  -env, -genv NAME VALUE  set an environment variable in every process\n"
      "                          (NAME=VALUE as one argument works too)\n"
      "  -genvnone               pass none of mpiexec's environment, only -env variables\n"
      "  -l, -prepend-rank       prefix each output line with \"[rank] \"\n"
      "  -bind-to core|hwthread|none\n"
      "                          bind rank r to core (or hardware thread) r modulo their\n"
      "                          number, or not at all; default: core when there are\n"
      "                          2 or more ranks and no more ranks than cores, else none\n"
      "  -timeout SECONDS        kill the job when it runs longer; exit status 124\n"
      "  -kvs-limit BYTES        bytes of keys and values the job may put into the PMI\n"
      "                          key-value store (suffixes K, M, G; default 64M)\n"
      "  -h, --help              show this help\n"
      "  --version               show the version and build options\n"
      "\n"
      "Standard input goes to rank 0; the others read /dev/null. Output is forwarded\n"
      "line by line, so lines of different ranks do not mix (a last line without a\n"
      "newline gets one when there are several ranks).\n"
      "When a process exits with a non-zero status, dies from a signal, calls\n"
      "MPI_Abort, exits after MPI_Init without calling MPI_Finalize, or exits before\n"
      "MPI_Init while the others use MPI; when mpiexec receives SIGINT, SIGTERM or\n"
      "SIGHUP; or when mpiexec's stdout or stderr is closed: all processes are\n"
      "stopped (SIGTERM, then SIGKILL after 2 seconds). Programs that do not use MPI\n"
      "(mpiexec -n 2 hostname) may exit 0 at any time. Exit status: 0 on success;\n"
      "the failing process's exit code (1 for a missing MPI_Finalize); 128+N for\n"
      "signal N; the MPI_Abort error code (1 if it is 0); 141 when the output was\n"
      "closed; 124 on timeout; 127 if the program cannot be started; 2 for\n"
      "command-line errors.\n",
      out);
}

void print_version(std::FILE* out) {
  std::fprintf(out, "mpiexec (%s) %s\nbuild options: %s\n", PACKAGE_NAME, PACKAGE_VERSION,
               STMPI_BUILD_OPTIONS);
}

}  // namespace stmpi::tools::mpiexec
