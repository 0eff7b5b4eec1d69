! Run by errfatal.sh: an invalid destination rank under the default error handler
! (MPI_ERRORS_ARE_FATAL) must end the job, and the message must name the routine that failed.
program errfatal_prog
  use mpi
  implicit none
  integer :: nprocs, ierr, buf(1)
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  buf = 1
  call MPI_Send(buf, 1, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD, ierr)
  print *, 'still running after a fatal error: ierr', ierr
  call MPI_Finalize(ierr)
end program errfatal_prog
