/* mpix.h - STMPI extensions (MPIX_*). Included by mpi.h. */
#ifndef STMPI_MPIX_H
#define STMPI_MPIX_H

#endif /* STMPI_MPIX_H */
