! Run by errfatal.sh: an invalid communicator passed to MPI_Send through use mpi_f08 (the
! choice-buffer glue) under MPI_ERRORS_ARE_FATAL must end the job, and the message must name
! the Fortran routine (MPI_SEND).
program errfatal_f08prog
  use mpi_f08
  implicit none
  integer :: buf(4)
  type(MPI_Comm) :: bad
  call MPI_Init()
  buf = 1
  bad%MPI_VAL = 12345
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL)
  call MPI_Send(buf(1:4:2), 2, MPI_INTEGER, 0, 0, bad)
  print *, 'still running after a fatal error'
  call MPI_Finalize()
end program errfatal_f08prog
