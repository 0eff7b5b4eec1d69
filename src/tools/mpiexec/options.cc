#include "tools/mpiexec/options.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
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
      case 'K':
      case 'k': shift = 10; break;
      case 'M':
      case 'm': shift = 20; break;
      case 'G':
      case 'g': shift = 30; break;
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

// Walks the arguments; options may be spelled with one or two dashes, as Hydra allows.
class ArgumentReader {
 public:
  explicit ArgumentReader(std::vector<std::string> words) : words_(std::move(words)) {}
  bool done() const { return next_ >= words_.size(); }
  const std::string& peek() const { return words_[next_]; }
  std::string take() { return words_[next_++]; }
  bool take_value(std::string_view option, std::string* value, std::string* error) {
    if (done() || peek() == ":") {
      *error = "option '" + std::string(option) + "' needs a value";
      return false;
    }
    *value = take();
    return true;
  }
  // Inserts words to be read next (the contents of a -configfile).
  void insert(const std::vector<std::string>& words) {
    words_.insert(words_.begin() + static_cast<std::ptrdiff_t>(next_), words.begin(), words.end());
  }

 private:
  std::vector<std::string> words_;
  std::size_t next_ = 0;
};

// Hydra's -configfile: one program per line ("-n 2 ./a arg"), lines joined as if by ":";
// blank lines and lines starting with '#' are skipped. Words split at blanks; single or
// double quotes keep blanks inside a word.
bool read_configfile(const std::string& path, std::vector<std::string>* words, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read -configfile '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string line;
  int lineno = 0;
  bool first = true;
  while (std::getline(in, line)) {
    ++lineno;
    const std::size_t first_char = line.find_first_not_of(" \t\r");
    if (first_char == std::string::npos || line[first_char] == '#') continue;
    std::vector<std::string> line_words;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (char c : line) {
      if (quote != 0) {
        if (c == quote) quote = 0;
        else word += c;
      } else if (c == '\'' || c == '"') {
        quote = c;
        in_word = true;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        if (in_word) line_words.push_back(word);
        word.clear();
        in_word = false;
      } else {
        word += c;
        in_word = true;
      }
    }
    if (quote != 0) {
      *error = "-configfile '" + path + "' line " + std::to_string(lineno) + ": unclosed quote";
      return false;
    }
    if (in_word) line_words.push_back(word);
    if (line_words.empty()) continue;
    if (!first) words->push_back(":");
    first = false;
    words->insert(words->end(), line_words.begin(), line_words.end());
  }
  if (first) {
    *error = "-configfile '" + path + "' names no program";
    return false;
  }
  return true;
}

std::string quoted(std::string_view arg, std::string_view value) {
  return "'" + std::string(arg) + " " + std::string(value) + "'";
}

}  // namespace

int Options::app_of(int rank) const {
  for (std::size_t i = 0; i < apps.size(); ++i) {
    if (rank < apps[i].nprocs) return static_cast<int>(i);
    rank -= apps[i].nprocs;
  }
  return static_cast<int>(apps.size()) - 1;
}

ParseResult parse_options(int argc, char** argv, const char* env_timeout, Options* options,
                          std::string* error) {
  ArgumentReader args(std::vector<std::string>(argv + 1, argv + argc));
  int ppn = 0;
  int configfiles = 0;
  bool timeout_given = false;
  App app;
  while (true) {
    // The options before one program: local ones (-n, -env, -wdir) belong to it.
    while (!args.done()) {
      const std::string arg = args.peek();
      if (arg == "--") {
        args.take();
        break;
      }
      if (arg.size() < 2 || arg[0] != '-') break;  // the program
      args.take();
      std::string_view name = std::string_view(arg).substr(arg.starts_with("--") ? 2 : 1);
      std::string value;

      if (name == "h" || name == "help") return ParseResult::help;
      if (name == "version" || name == "V") return ParseResult::version;
      if (name == "n" || name == "np") {
        if (!args.take_value(arg, &value, error)) return ParseResult::error;
        if (!parse_count(value, 1, 1 << 20, &app.nprocs)) {
          *error = quoted(arg, value) + ": the number of processes must be a positive integer";
          return ParseResult::error;
        }
      } else if (name == "env" || name == "genv") {
        std::string env_name;
        if (!args.take_value(arg, &env_name, error)) return ParseResult::error;
        if (std::size_t eq = env_name.find('='); eq != std::string::npos) {
          value = env_name.substr(eq + 1);  // also accept NAME=VALUE as one argument
          env_name = env_name.substr(0, eq);
        } else if (!args.take_value(arg, &value, error)) {
          *error = "option '" + arg + "' needs a name and a value";
          return ParseResult::error;
        }
        if (!valid_env_name(env_name)) {
          *error = quoted(arg, env_name) + ": not a valid environment variable name";
          return ParseResult::error;
        }
        (name == "env" ? app.env : options->env).emplace_back(env_name, value);
      } else if (name == "wdir" || name == "gwdir" || name == "wd") {
        if (!args.take_value(arg, &value, error)) return ParseResult::error;
        (name == "gwdir" ? options->wdir : app.wdir) = value;
      } else if (name == "genvnone" || name == "envnone") {
        options->inherit_env = false;
      } else if (name == "genvall" || name == "envall") {
        options->inherit_env = true;
      } else if (name == "l" || name == "prepend-rank") {
        options->label = true;
      } else if (name == "print-rank-map") {
        options->print_rank_map = true;
      } else if (name == "configfile") {
        if (!args.take_value(arg, &value, error)) return ParseResult::error;
        if (++configfiles > 64) {  // a file that names itself would never end
          *error = "more than 64 -configfile options (does '" + value + "' include itself?)";
          return ParseResult::error;
        }
        std::vector<std::string> words;
        if (!read_configfile(value, &words, error)) return ParseResult::error;
        args.insert(words);
      } else if (name == "ppn") {
        if (!args.take_value(arg, &value, error)) return ParseResult::error;
        if (!parse_count(value, 1, 1 << 20, &ppn)) {
          *error = quoted(arg, value) + ": processes per node must be a positive integer";
          return ParseResult::error;
        }
      } else if (name == "bind-to" || name == "binding") {
        if (!args.take_value(arg, &value, error)) return ParseResult::error;
        if (value == "core" || value == "cores") {
          options->bind = BindPolicy::core;
        } else if (value == "hwthread" || value == "hwthreads") {
          options->bind = BindPolicy::hwthread;
        } else if (value == "none") {
          options->bind = BindPolicy::none;
        } else {
          *error = quoted(arg, value) + ": expected core, hwthread or none";
          return ParseResult::error;
        }
      } else if (name == "timeout") {
        if (!args.take_value(arg, &value, error)) return ParseResult::error;
        if (!parse_count(value, 0, 1 << 30, &options->timeout_seconds)) {
          *error = quoted(arg, value) + ": the timeout must be a number of seconds";
          return ParseResult::error;
        }
        timeout_given = true;
        options->timeout_source = "-timeout";
      } else if (name == "session-nice") {
        if (!args.take_value(arg, &value, error)) return ParseResult::error;
        int nice = 0;
        if (value == "auto") {
          options->session_nice.reset();
        } else if (parse_count(value, -20, 19, &nice)) {
          options->session_nice = nice;
        } else {
          *error = quoted(arg, value) + ": expected auto or a nice value from -20 to 19";
          return ParseResult::error;
        }
      } else if (name == "kvs-limit") {
        if (!args.take_value(arg, &value, error)) return ParseResult::error;
        if (!parse_bytes(value, &options->kvs_limit)) {
          *error = quoted(arg, value) + ": expected a byte count from 1 to 1T (suffixes K, M, G)";
          return ParseResult::error;
        }
      } else if (name == "hosts" || name == "host" || name == "H" || name == "f" ||
                 name == "hostfile" || name == "machinefile" || name == "launcher" ||
                 name == "launcher-exec" || name == "rmk") {
        // Naming hosts means a job on several nodes: that is Hydra's job, not ours.
        *error = "'" + arg +
                 "': this mpiexec starts processes on this node only and takes no hosts or "
                 "remote launcher; to run across nodes start the program with MPICH's Hydra, "
                 "e.g. mpiexec.hydra -hosts node1,node2 -n 4 ./app (the library speaks PMI-1 "
                 "to it; see docs/user/running.md)";
        return ParseResult::error;
      } else {
        *error = "unknown option '" + arg + "'";
        return ParseResult::error;
      }
    }
    if (args.done() || args.peek() == ":") {
      *error = options->apps.empty() ? "no program given"
                                     : "no program given after ':' (program " +
                                           std::to_string(options->apps.size() + 1) + ")";
      return ParseResult::error;
    }
    while (!args.done() && args.peek() != ":") app.command.push_back(args.take());
    options->apps.push_back(std::move(app));
    app = App{};
    if (args.done()) break;
    args.take();  // ":"
  }
  long long total = 0;
  for (const App& a : options->apps) total += a.nprocs;
  if (total > (1 << 20)) {
    *error = "the programs ask for " + std::to_string(total) + " processes (at most 1048576)";
    return ParseResult::error;
  }
  options->nprocs = static_cast<int>(total);
  if (ppn > 0 && ppn < options->nprocs) {
    *error = "'-ppn " + std::to_string(ppn) + "': " + std::to_string(options->nprocs) +
             " processes at " + std::to_string(ppn) + " per node need " +
             std::to_string((options->nprocs + ppn - 1) / ppn) +
             " nodes, and this mpiexec starts processes on this node only; to run across "
             "nodes use MPICH's Hydra (mpiexec.hydra -hosts node1,node2 -ppn " +
             std::to_string(ppn) + " ...)";
    return ParseResult::error;
  }
  if (!timeout_given && env_timeout != nullptr && *env_timeout != '\0') {
    if (!parse_count(env_timeout, 0, 1 << 30, &options->timeout_seconds)) {
      *error = "MPIEXEC_TIMEOUT='" + std::string(env_timeout) +
               "' is not a number of seconds (0 to 1073741824)";
      return ParseResult::error;
    }
    options->timeout_source = "MPIEXEC_TIMEOUT";
  }
  return ParseResult::run;
}

void print_usage(std::FILE* out) {
  std::fputs(
      "Usage: mpiexec [options] [-n N] program [arguments...] [: [-n N] program2 ...]\n"
      "       mpiexec [options] -configfile FILE\n"
      "Starts N processes of program on this node and serves them the PMI-1 protocol.\n"
      "Programs separated by ':' form one job (MPI_COMM_WORLD): their ranks follow\n"
      "each other and MPI_APPNUM tells each process which program it runs (0, 1, ...).\n"
      "It runs one node only: across nodes, launch with MPICH's Hydra (mpiexec.hydra\n"
      "-hosts node1,node2 ...), which the library speaks PMI-1 to.\n"
      "\n"
      "Options:\n"
      "  -n, -np N               number of processes of the program (default 1)\n"
      "  -env NAME VALUE         set an environment variable in the program's processes\n"
      "  -genv NAME VALUE        set it in every process (NAME=VALUE as one argument\n"
      "                          works too, for both)\n"
      "  -wdir DIR               run the program's processes in DIR (-gwdir DIR: every\n"
      "                          program's); a relative program path starts from DIR\n"
      "  -configfile FILE        read the programs from FILE, one per line as on the\n"
      "                          command line (-n 2 ./a args), '#' starts a comment line\n"
      "  -ppn N                  processes per node: accepted when all processes fit on\n"
      "                          this node (N >= the job's size), else an error\n"
      "  -print-rank-map         print (host:rank,rank,...) before starting the processes\n"
      "  -genvnone               pass none of mpiexec's environment, only -env variables\n"
      "  -l, -prepend-rank       prefix each output line with \"[rank] \"\n"
      "  -bind-to core|hwthread|none\n"
      "                          bind rank r to core (or hardware thread) r modulo their\n"
      "                          number, or not at all; default: core when there are\n"
      "                          2 or more ranks and no more ranks than cores, else none\n"
      "  -timeout SECONDS        kill the job when it runs longer; exit status 124\n"
      "                          (without -timeout: the MPIEXEC_TIMEOUT variable)\n"
      "  -session-nice auto|N    nice value of the job's scheduling group (its session's\n"
      "                          autogroup); auto: as much CPU weight as one group per\n"
      "                          rank, where permitted (root or RLIMIT_NICE)\n"
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
