! User reduction operations and error handlers through `use mpi_f08`: the operation has the
! standard's MPI_User_function interface (TYPE(C_PTR) buffers, TYPE(MPI_Datatype)); a
! non-commutative 2x2 matrix product on a derived type must keep rank order in MPI_Reduce and
! MPI_Scan; the error handler gets TYPE(MPI_Comm). Bad handles from mpi_f08 return the same
! classes as from C (MPI_ERR_COMM, MPI_ERR_TYPE).
module f08_cb
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: calls = 0, last_code = 0
  type(MPI_Comm) :: last_comm
contains
  subroutine matmul2(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:, :), b(:, :)
    integer :: i, r(4)
    call c_f_pointer(invec, a, [4, len])
    call c_f_pointer(inoutvec, b, [4, len])
    do i = 1, len
      r(1) = a(1, i) * b(1, i) + a(3, i) * b(2, i)
      r(2) = a(2, i) * b(1, i) + a(4, i) * b(2, i)
      r(3) = a(1, i) * b(3, i) + a(3, i) * b(4, i)
      r(4) = a(2, i) * b(3, i) + a(4, i) * b(4, i)
      b(:, i) = r
    end do
  end subroutine matmul2
  subroutine handler(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    calls = calls + 1
    last_code = code
    last_comm = comm
  end subroutine handler
end module f08_cb

program userop_f08
  use mpi_f08
  use f08_cb
  implicit none
  integer :: rank, nprocs, ierr, errs, toterrs, j, cls, m(4), r(4), expect(4), t(4), buf(2)
  type(MPI_Op) :: opmat
  type(MPI_Datatype) :: mattype
  type(MPI_Comm) :: dup, badcomm
  type(MPI_Errhandler) :: eh
  type(MPI_Datatype) :: badtype
  logical :: commute

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Op_create(matmul2, .false., opmat)
  call MPI_Op_commutative(opmat, commute)
  if (commute) errs = errs + 1
  call MPI_Type_contiguous(4, MPI_INTEGER, mattype)
  call MPI_Type_commit(mattype)
  m = [1, rank, rank + 1, 1 + rank * (rank + 1)]
  r = 0
  call MPI_Reduce(m, r, 1, mattype, opmat, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    expect = [1, 0, 0, 1]
    do j = 0, nprocs - 1
      t = [1, j, j + 1, 1 + j * (j + 1)]
      expect = [expect(1) * t(1) + expect(3) * t(2), expect(2) * t(1) + expect(4) * t(2), &
                expect(1) * t(3) + expect(3) * t(4), expect(2) * t(3) + expect(4) * t(4)]
    end do
    if (any(r /= expect)) then
      errs = errs + 1
      print *, 'ordered product', r, ' expected', expect
    end if
  end if
  call MPI_Scan(m, r, 1, mattype, opmat, MPI_COMM_WORLD)
  expect = [1, 0, 0, 1]
  do j = 0, rank
    t = [1, j, j + 1, 1 + j * (j + 1)]
    expect = [expect(1) * t(1) + expect(3) * t(2), expect(2) * t(1) + expect(4) * t(2), &
              expect(1) * t(3) + expect(3) * t(4), expect(2) * t(3) + expect(4) * t(4)]
  end do
  if (any(r /= expect)) then
    errs = errs + 1
    print *, rank, ': scan with a non-commutative op', r, ' expected', expect
  end if
  call MPI_Type_free(mattype)
  call MPI_Op_free(opmat)
  if (opmat /= MPI_OP_NULL) errs = errs + 1

  ! error handler with TYPE(MPI_Comm)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_create_errhandler(handler, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  buf = 0
  call MPI_Send(buf, 1, MPI_INTEGER, nprocs, 0, dup, ierr)
  cls = -1
  if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, cls)
  if (calls /= 1 .or. last_comm /= dup .or. cls /= MPI_ERR_RANK) then
    errs = errs + 1
    print *, rank, ': f08 error handler: calls', calls, ' class', cls
  end if
  call MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER)
  if (calls /= 2 .or. last_code /= MPI_ERR_OTHER) errs = errs + 1

  ! bad handles: the classes C reports for the same calls
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
  badcomm%MPI_VAL = 12345
  call MPI_Send(buf, 1, MPI_INTEGER, 0, 0, badcomm, ierr)
  cls = -1
  if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_COMM) then
    errs = errs + 1
    print *, rank, ': a garbage communicator from mpi_f08 gave class', cls
  end if
  badtype%MPI_VAL = 54321
  call MPI_Send(buf, 1, badtype, 0, 0, MPI_COMM_WORLD, ierr)
  cls = -1
  if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_TYPE) then
    errs = errs + 1
    print *, rank, ': a garbage datatype from mpi_f08 gave class', cls
  end if
  call MPI_Send(buf, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  cls = -1
  if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_COUNT) errs = errs + 1

  call MPI_Comm_free(dup)
  call MPI_Errhandler_free(eh)
  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize()
end program userop_f08
