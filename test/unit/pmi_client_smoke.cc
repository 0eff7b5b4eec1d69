// PMI client smoke test: runs as a singleton, under our mpiexec and under Hydra.
//   pmi_client_smoke                  init, put, barrier, get every rank's keys, finalize
//   pmi_client_smoke abort RANK CODE  as above, then RANK calls abort(CODE) while the others wait
//   pmi_client_smoke kvsname          prints the kvsname of the job (rank 0)
// Prints "rank R of N: OK" per rank; exits 1 on the first failure.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pmi/client.h"

namespace {

int failures = 0;

void check(bool ok, const char* what, const stmpi::pmi::Client& pmi) {
  if (ok) return;
  std::fprintf(stderr, "rank %d: %s failed: %s\n", pmi.rank(), what, pmi.error().c_str());
  ++failures;
}

// A value that needs escaping (spaces, '%', '=', a newline, bytes >= 0x80, a leading '#') and,
// at `length` bytes, is split over several keys on servers that limit values to 1023 bytes.
std::string test_value(int rank, std::size_t length) {
  std::string value = "#rank " + std::to_string(rank) + " = 100%\n";
  for (std::size_t i = 0; value.size() < length; ++i) {
    value.push_back(static_cast<char>((i * 7 + static_cast<std::size_t>(rank)) % 256));
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  stmpi::pmi::Client& pmi = stmpi::pmi::client();
  if (pmi.init() != 0) {
    std::fprintf(stderr, "init failed: %s\n", pmi.error().c_str());
    return 1;
  }
  const int rank = pmi.rank();
  const int size = pmi.size();
  check(!pmi.kvsname().empty(), "kvsname", pmi);
  if (argc > 1 && std::strcmp(argv[1], "kvsname") == 0) {
    if (rank == 0) std::printf("%s\n", pmi.kvsname().c_str());
  }

  std::string me = std::to_string(rank);
  check(pmi.put("card-" + me, "card:" + me) == 0, "put short", pmi);
  check(pmi.put("long-" + me, test_value(rank, 2500)) == 0, "put long", pmi);
  check(pmi.put("edge-" + me, test_value(rank, 1023)) == 0, "put 1023", pmi);
  check(pmi.put("empty-" + me, "") == 0, "put empty", pmi);
  check(pmi.put("bad key", "x") != 0, "rejecting a key with a space", pmi);
  check(pmi.barrier() == 0, "barrier", pmi);

  for (int peer = 0; peer < size; ++peer) {
    std::string p = std::to_string(peer);
    std::string value;
    check(pmi.get("card-" + p, &value) == 0 && value == "card:" + p, "get short", pmi);
    check(pmi.get("long-" + p, &value) == 0 && value == test_value(peer, 2500), "get long", pmi);
    check(pmi.get("edge-" + p, &value) == 0 && value == test_value(peer, 1023), "get 1023", pmi);
    check(pmi.get("empty-" + p, &value) == 0 && value.empty(), "get empty", pmi);
  }
  std::string missing;
  check(pmi.get("no-such-key", &missing) != 0, "get of a missing key reports an error", pmi);

  if (argc > 3 && std::strcmp(argv[1], "abort") == 0) {
    if (rank == std::atoi(argv[2])) {
      pmi.abort(std::atoi(argv[3]), "smoke test abort with spaces & 100% symbols");
    }
    ::sleep(30);  // killed by the launcher long before this ends
  }

  check(pmi.barrier() == 0, "second barrier", pmi);
  check(pmi.finalize() == 0, "finalize", pmi);
  if (failures > 0) return 1;
  std::printf("rank %d of %d: OK\n", rank, size);
  return 0;
}
