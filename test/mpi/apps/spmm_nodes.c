/* examples/spmm as one program for the cross-node runs of test/mpi/multinode/run.sh, which
 * build one source file per test: it runs the example's main (its arguments come from the
 * programs list) and prints "No Errors" when every variant verified. */
#define main spmm_main
#include "../../../examples/spmm/spmm.c"
#undef main
#include "../../../examples/spmm/accum.c"
#include "../../../examples/spmm/async.c"
#include "../../../examples/spmm/gpu_none.c"
#include "../../../examples/spmm/matrix.c"
#include "../../../examples/spmm/summa.c"

int main(int argc, char **argv)
{
    const int rc = spmm_main(argc, argv);
    if (rc == 0)
        printf("No Errors\n");
    return rc;
}
