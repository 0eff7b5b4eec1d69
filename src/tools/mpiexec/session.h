#pragma once

// The job's session: mpiexec forks a launcher that starts a session of its own (setsid) and
// runs the job there, so that all ranks share one session, one scheduler autogroup, apart from
// the user's shell. mpiexec itself stays in the caller's session and process group: it
// receives Ctrl-C and the other signals of a foreground program and forwards them, relays its
// stdin to the launcher (reading a terminal stays subject to job control), and exits with the
// launcher's status.

#include <sys/types.h>

#include "tools/mpiexec/options.h"

namespace stmpi::tools::mpiexec {

// What start_job_session() returns in the launcher: go on and run the job.
constexpr int kRunJobHere = -1;

// Forks the launcher. In the launcher (a new session, stdin the relay pipe, signal mask and
// dispositions as mpiexec inherited them, SIGTERM when mpiexec dies) it returns kRunJobHere.
// In mpiexec it serves the launcher until it ends and returns mpiexec's exit status: the
// launcher's, or 128+signal (after removing the job's /dev/shm segments) when it was killed.
// job_id: the number in the job's kvsname (kvsname_of()).
//
// With the kernel's autogroups the session is one scheduling group, which by default weighs as
// much as any one other session, however many ranks it holds (under Hydra each rank is a
// session, a group, of its own). The launcher gives the group the nice value
// options.session_nice, or by default the one whose weight is that of options.nprocs groups
// (-round(log(nprocs) / log(1.25)): each nice step is a factor of 1.25), where the kernel
// permits it (root, or RLIMIT_NICE). Where it does not and no -session-nice was given, the
// launcher sets options->session_per_rank and each rank gets a session of its own, as under
// Hydra: one group of nice 0 for a whole job loses CPU share to every other session (a 4-rank
// 8 B allreduce under other sessions' load measured 2.4-3.3x MPICH that way, a session per rank
// 0.9-1.1x; test/bench/README.md).
int start_job_session(Options* options, pid_t job_id);

// The default nice value of the job's group for nprocs ranks (see above), -20 to 0.
int session_nice_for(int nprocs);

}  // namespace stmpi::tools::mpiexec
