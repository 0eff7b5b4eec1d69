/* examples/multigrid as one program for the cross-node runs of test/mpi/multinode/run.sh,
 * which build one source file per test: it runs the example's main (its arguments come from
 * the programs list) and prints "No Errors" when every variant it has verified. */
#define main multigrid_main
#include "../../../examples/multigrid/mg.c"
#undef main
#include "../../../examples/multigrid/comm_enqueue.c"
#include "../../../examples/multigrid/comm_mpi.c"
#include "../../../examples/multigrid/comm_persistent.c"
#include "../../../examples/multigrid/comm_strma.c"
#include "../../../examples/multigrid/cycle.c"
#include "../../../examples/multigrid/kernels.c"
#include "../../../examples/multigrid/level.c"

int main(int argc, char **argv)
{
    const int rc = multigrid_main(argc, argv);
    if (rc == 0)
        printf("No Errors\n");
    return rc;
}
