! Error handling through `use mpi` (C helper: errors_mpi_c.c): under MPI_ERRORS_RETURN a bad
! handle or argument passed from Fortran returns the same error class as the same call from C;
! a Fortran error handler created with MPI_Comm_create_errhandler is called with the
! communicator and the code, from a failing call and from MPI_Comm_call_errhandler; user error
! classes, codes and strings (MPI_Add_error_string's trailing blanks are not part of the text);
! MPI_Error_string gives C's text, blank-padded.
module errh_cb
  implicit none
  integer :: calls = 0, last_code = 0, last_comm = 0
contains
  subroutine handler(comm, code)
    integer :: comm, code
    calls = calls + 1
    last_code = code
    last_comm = comm
  end subroutine handler
end module errh_cb

program errors_mpi
  use mpi
  use errh_cb
  implicit none
  integer, parameter :: ncases = 8
  integer :: rank, nprocs, ierr, errs, toterrs, i, fcls, ccls, cls, dup, eh, newcls, newcode, rlen, clen
  integer :: buf(4), out(4), expected(ncases)
  integer, parameter :: badcomm = 12345, badtype = 54321
  character(len=MPI_MAX_ERROR_STRING) :: msg, cmsg

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  ! an invalid communicator's error is raised on MPI_COMM_SELF (MPI 4) or MPI_COMM_WORLD (before)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  buf = 0
  expected = [MPI_ERR_COMM, MPI_ERR_COMM, MPI_ERR_TYPE, MPI_ERR_COUNT, MPI_ERR_TAG, MPI_ERR_RANK, &
              MPI_ERR_OP, MPI_ERR_TYPE]
  do i = 1, ncases
    select case (i)
    case (1)
      call MPI_Send(buf, 1, MPI_INTEGER, 0, 0, badcomm, ierr)
    case (2)
      call MPI_Send(buf, 1, MPI_INTEGER, 0, 0, MPI_COMM_NULL, ierr)
    case (3)
      call MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, ierr)
    case (4)
      call MPI_Send(buf, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
    case (5)
      call MPI_Send(buf, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, ierr)
    case (6)
      call MPI_Send(buf, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ierr)
    case (7)
      call MPI_Allreduce(buf, out, 1, MPI_INTEGER, MPI_OP_NULL, MPI_COMM_WORLD, ierr)
    case (8)
      call MPI_Send(buf, 1, badtype, 0, 0, MPI_COMM_WORLD, ierr)
    end select
    fcls = -1
    if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, fcls, cls)
    call cerrclass(i, badcomm, badtype, ccls)
    if (ierr == MPI_SUCCESS .or. fcls /= ccls .or. fcls /= expected(i)) then
      errs = errs + 1
      print *, rank, ': bad call', i, ': ierr', ierr, ' class from Fortran', fcls, ' from C', ccls, &
        ' expected', expected(i)
    end if
  end do

  ! a Fortran error handler on a duplicate of MPI_COMM_WORLD
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_create_errhandler(handler, eh, ierr)
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Send(buf, 1, MPI_INTEGER, nprocs, 0, dup, ierr)
  cls = -1
  if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, cls, i)
  if (calls /= 1 .or. last_comm /= dup .or. cls /= MPI_ERR_RANK) then
    errs = errs + 1
    print *, rank, ': Fortran error handler: calls', calls, ' comm', last_comm, dup, ' class', cls
  end if
  call MPI_Error_class(last_code, cls, ierr)
  if (cls /= MPI_ERR_RANK) errs = errs + 1
  call MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER, ierr)
  if (calls /= 2 .or. last_code /= MPI_ERR_OTHER) then
    errs = errs + 1
    print *, rank, ': MPI_Comm_call_errhandler: calls', calls, ' code', last_code
  end if

  ! user error class, code and string
  call MPI_Add_error_class(newcls, ierr)
  call MPI_Add_error_code(newcls, newcode, ierr)
  call MPI_Add_error_string(newcode, 'the user''s own error   ', ierr)
  call MPI_Error_class(newcode, cls, ierr)
  if (cls /= newcls) errs = errs + 1
  msg = 'x'
  call MPI_Error_string(newcode, msg, rlen, ierr)
  if (rlen /= 20 .or. msg(1:rlen) /= 'the user''s own error' .or. len_trim(msg) /= 20) then
    errs = errs + 1
    print *, rank, ': user error string "', msg(1:rlen), '" length', rlen
  end if
  call MPI_Comm_call_errhandler(dup, newcode, ierr)
  if (calls /= 3 .or. last_code /= newcode) errs = errs + 1

  ! MPI_Error_string gives C's text, blank-padded
  msg = repeat('x', len(msg))
  call MPI_Error_string(MPI_ERR_RANK, msg, rlen, ierr)
  call cerrstring(MPI_ERR_RANK, cmsg, clen)
  if (rlen < 1 .or. rlen /= clen .or. msg(1:rlen) /= cmsg(1:clen) .or. msg(rlen + 1:) /= ' ') then
    errs = errs + 1
    print *, rank, ': MPI_Error_string', rlen, ' "', msg(1:rlen), '" C:', clen, ' "', cmsg(1:clen), '"'
  end if

  call MPI_Comm_free(dup, ierr)
  call MPI_Errhandler_free(eh, ierr)
  if (eh /= MPI_ERRHANDLER_NULL) errs = errs + 1
  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program errors_mpi
