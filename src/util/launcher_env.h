#pragma once

namespace stmpi::util {

// Reads a variable that a process manager sets for the processes it launches (PMI_FD, PMI_RANK,
// PMI_SIZE, PMI_PORT, PMI_ID, SLURM_*). Together with the runtime-parameter table this is the only
// place in the library that reads the environment; user-tunable settings belong in that table, not
// here. Names outside the launcher prefixes (PMI_, PMIX_, SLURM_) are refused and read as unset.
// Returns nullptr when the variable is unset.
const char* launcher_env(const char* name);

}  // namespace stmpi::util
