/* comm_enqueue.c: variant 2, MPICH's stream-enqueued point-to-point
 * (MPIX_Stream, MPIX_Send_enqueue / MPIX_Recv_enqueue / MPIX_Waitall_enqueue). */
#include "mg.h"

const struct comm_ops mg_comm_enqueue = {
    .name = "enqueue", .missing = "this MPI has no MPIX_Stream enqueue API (mpix.h)"};
