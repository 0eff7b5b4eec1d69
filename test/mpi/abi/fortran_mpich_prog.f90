! Helper of fortran_mpich_lib.sh (not run on its own): built with MPICH's mpifort and mpif.h,
! run with MPICH's own libmpichfort.so.12 on top of our libmpich.so.12, so every call below goes
! through the hooks MPICH's Fortran library takes from libmpich (MPII_*_attr,
! MPII_Keyval_set_proxy, MPII_Grequest_set_lang_f77). Checks values on every rank; rank 0
! prints "No Errors" when all ranks agree.
module fortran_mpich_cb
  implicit none
  include 'mpif.h'
  integer :: copies = 0, deletes = 0, copies1 = 0, queries = 0, frees = 0
contains
  subroutine copy_fn(comm, keyval, extra, val_in, val_out, flag, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    copies = copies + 1
    val_out = val_in + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine
  subroutine delete_fn(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    ierr = MPI_SUCCESS
  end subroutine
  subroutine copy1_fn(comm, keyval, extra, val_in, val_out, flag, ierr)
    integer :: comm, keyval, extra, val_in, val_out, ierr
    logical :: flag
    copies1 = copies1 + 1
    val_out = val_in * 2
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine
  subroutine query_fn(extra, status, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    queries = queries + 1
    status(MPI_SOURCE) = int(extra)
    status(MPI_TAG) = 55
    status(MPI_ERROR) = MPI_SUCCESS
    ierr = MPI_SUCCESS
  end subroutine
  subroutine free_fn(extra, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    frees = frees + 1
    ierr = MPI_SUCCESS
  end subroutine
  subroutine cancel_fn(extra, complete, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    ierr = MPI_SUCCESS
  end subroutine
end module

program fortran_mpich_prog
  use fortran_mpich_cb
  implicit none
  integer :: ierr, rank, size, key, key1, dup, req, errs, total, ival, ckey
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: extra, aval, tagub
  logical :: flag
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  integer :: liblen

  errs = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  call MPI_GET_LIBRARY_VERSION(lib, liblen, ierr)
  if (rank == 0) print '(a,a)', 'library: ', lib(1:min(liblen, 40))

  ! MPI-2 keyval with Fortran callbacks (ADDRESS_KIND values)
  extra = 3
  call MPI_COMM_CREATE_KEYVAL(copy_fn, delete_fn, key, extra, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  aval = 1000 + rank
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, key, aval, ierr)
  aval = -1
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, key, aval, flag, ierr)
  if (.not. flag .or. aval /= 1000 + rank) then
    errs = errs + 1
    print *, rank, 'comm_get_attr', flag, aval
  end if
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  aval = -1
  call MPI_COMM_GET_ATTR(dup, key, aval, flag, ierr)
  if (copies /= 1 .or. .not. flag .or. aval /= 1003 + rank) then
    errs = errs + 1
    print *, rank, 'copy through proxy', copies, flag, aval
  end if
  call MPI_COMM_FREE(dup, ierr)
  if (deletes /= 1) then
    errs = errs + 1
    print *, rank, 'delete through proxy', deletes
  end if
  call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, key, ierr)
  call MPI_COMM_FREE_KEYVAL(key, ierr)
  if (deletes /= 2) errs = errs + 1

  ! MPI-1 keyval, INTEGER attributes
  call MPI_KEYVAL_CREATE(copy1_fn, MPI_NULL_DELETE_FN, key1, 0, ierr)
  call MPI_ATTR_PUT(MPI_COMM_WORLD, key1, 77 + rank, ierr)
  ival = -1
  call MPI_ATTR_GET(MPI_COMM_WORLD, key1, ival, flag, ierr)
  if (.not. flag .or. ival /= 77 + rank) then
    errs = errs + 1
    print *, rank, 'attr_get', flag, ival
  end if
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  ival = -1
  call MPI_ATTR_GET(dup, key1, ival, flag, ierr)
  if (copies1 /= 1 .or. .not. flag .or. ival /= 2 * (77 + rank)) then
    errs = errs + 1
    print *, rank, 'MPI-1 copy', copies1, flag, ival
  end if
  call MPI_COMM_FREE(dup, ierr)
  call MPI_ATTR_DELETE(MPI_COMM_WORLD, key1, ierr)
  call MPI_KEYVAL_FREE(key1, ierr)

  ! predefined attributes are values in Fortran
  call MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag, ierr)
  if (.not. flag .or. ival < 32767 .or. tagub /= ival) then
    errs = errs + 1
    print *, rank, 'MPI_TAG_UB', flag, ival, tagub
  end if
  ! a predefined attribute is read-only
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_ATTR_PUT(MPI_COMM_WORLD, MPI_TAG_UB, 5, ierr)
  call MPI_ERROR_CLASS(ierr, ival, ckey)
  if (ival /= MPI_ERR_KEYVAL) then
    errs = errs + 1
    print *, rank, 'put on MPI_TAG_UB: class', ival
  end if

  ! generalized request with Fortran callbacks
  extra = 40 + rank
  call MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call MPI_GREQUEST_COMPLETE(req, ierr)
  call MPI_WAIT(req, status, ierr)
  if (ierr /= MPI_SUCCESS .or. queries /= 1 .or. frees /= 1 .or. &
      status(MPI_SOURCE) /= 40 + rank .or. status(MPI_TAG) /= 55 .or. req /= MPI_REQUEST_NULL) then
    errs = errs + 1
    print *, rank, 'grequest', ierr, queries, frees, status(MPI_SOURCE), status(MPI_TAG)
  end if

  call MPI_ALLREDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', ' No Errors'
    else
      print '(a,i0,a)', ' Found ', total, ' errors'
    end if
  end if
  call MPI_FINALIZE(ierr)
end program
