/* comm_persistent.c: variant 3, persistent operations started from a stream. */
#include "mg.h"

const struct comm_ops mg_comm_persistent = {
    .name = "persistent", .missing = "this MPI has no persistent stream operations (mpix.h)"};
