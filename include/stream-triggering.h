/* stream-triggering.h - the header name MPI Advance's stream-triggering library
 * installs; STMPI provides its calls in libmpich (see mpis.h). */
#include "mpis.h"
