! Run by errfatal.sh with one argument, the case:
!   rank   an invalid destination rank under the default error handler (MPI_ERRORS_ARE_FATAL)
!   comm   an invalid communicator, first under MPI_ERRORS_RETURN (the error class must be
!          MPI_ERR_COMM, as from C), then under MPI_ERRORS_ARE_FATAL
!   nested MPI_ALLREDUCE with a C reduction operation (errfatal_prog_c.c) that calls
!          MPI_Comm_rank on an invalid communicator: the message names the C function
! A fatal call must end the job, and its message must name the routine that failed (MPI_SEND
! for the first two).
program errfatal_prog
  use mpi
  implicit none
  integer :: nprocs, ierr, buf(1), bad, errclass, op, res(1)
  character(len=16) :: mode
  call MPI_Init(ierr)
  call get_command_argument(1, mode)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  buf = 1
  if (mode == 'comm') then
    bad = 12345
    ! An invalid communicator reports to MPI_COMM_SELF's handler (MPI_COMM_WORLD's until
    ! the program sets one on MPI_COMM_SELF).
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
    call MPI_Send(buf, 1, MPI_INTEGER, 0, 0, bad, ierr)
    call MPI_Error_class(ierr, errclass, ierr)
    if (errclass /= MPI_ERR_COMM) then
      print *, 'error class', errclass, 'expected MPI_ERR_COMM', MPI_ERR_COMM
    else
      print *, 'errors-return: class MPI_ERR_COMM'
    end if
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL, ierr)
    call MPI_Send(buf, 1, MPI_INTEGER, 0, 0, bad, ierr)
  else if (mode == 'nested') then
    call errfatal_make_op(op)
    call MPI_Allreduce(buf, res, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  else
    call MPI_Send(buf, 1, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD, ierr)
  end if
  print *, 'still running after a fatal error: ierr', ierr
  call MPI_Finalize(ierr)
end program errfatal_prog
