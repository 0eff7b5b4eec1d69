// Two processes of one test over 127.0.0.1 (ofi_test, ofi_triggered_test):
// a fork, a pair of pipes to trade byte strings, and the allgather that
// Ofi::init wants, built on them.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <mpi.h>

#include "util/error.h"

// In a function of a rank (`rank` in scope) returning std::string: returns
// the failure's text when `cond` is false.
#define CHECK(cond, what)                                                                  \
  do {                                                                                     \
    if (!(cond))                                                                           \
      return std::string("rank ") + std::to_string(rank) + ": " + (what) + " (" #cond ")"; \
  } while (0)

// The same for a call that returns an MPI error code: returns its text.
#define CHECK_OK(call)                                                       \
  do {                                                                       \
    const int rc_ = (call);                                                  \
    if (rc_ != MPI_SUCCESS)                                                  \
      return std::string("rank ") + std::to_string(rank) + ": " #call ": " + \
             stmpi::util::error_string(rc_);                                 \
  } while (0)

namespace stmpi::test {

struct Pipes {
  int to_peer = -1;
  int from_peer = -1;
};

inline bool write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n) {
    const ssize_t w = write(fd, c, n);
    if (w <= 0) return false;
    c += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

inline bool read_all(int fd, void* p, std::size_t n) {
  char* c = static_cast<char*>(p);
  while (n) {
    const ssize_t r = read(fd, c, n);
    if (r <= 0) return false;
    c += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

// Sends `mine`, returns what the peer sent.
inline std::string trade(const Pipes& pipes, const std::string& mine) {
  const uint32_t n = static_cast<uint32_t>(mine.size());
  write_all(pipes.to_peer, &n, sizeof n);
  write_all(pipes.to_peer, mine.data(), n);
  uint32_t m = 0;
  read_all(pipes.from_peer, &m, sizeof m);
  std::string theirs(m, '\0');
  read_all(pipes.from_peer, theirs.data(), m);
  return theirs;
}

// Ofi::init's allgather over the pipes of a two-rank job.
inline auto pair_allgather(int rank, const Pipes& pipes) {
  return [rank, pipes](const std::string& mine, std::vector<std::string>* all, std::string*) {
    const std::string theirs = trade(pipes, mine);
    all->assign(2, std::string());
    (*all)[rank] = mine;
    (*all)[1 - rank] = theirs;
    return 0;
  };
}

// Runs rank(0, pipes) here and rank(1, pipes) in a child; "" when both
// returned "", else the first failure.
template <class Rank>
std::string run_pair(Rank&& rank) {
  int a[2], b[2];
  if (pipe(a) != 0 || pipe(b) != 0) return "pipe failed";
  const pid_t child = fork();
  if (child == 0) {
    const std::string result = rank(1, Pipes{b[1], a[0]});
    if (!result.empty()) fprintf(stderr, "%s\n", result.c_str());
    _exit(result.empty() ? 0 : 1);
  }
  std::string result = rank(0, Pipes{a[1], b[0]});
  if (!result.empty()) kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  if (result.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
    result = "rank 1 failed (see its output)";
  close(a[0]), close(a[1]), close(b[0]), close(b[1]);
  return result;
}

}  // namespace stmpi::test
