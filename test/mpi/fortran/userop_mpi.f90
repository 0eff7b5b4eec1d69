! User reduction operations written in Fortran, through `use mpi`: a commutative bitwise
! exclusive or on INTEGER, a non-commutative 2x2 matrix product on a derived type of 4 integers
! (MPI_Reduce and MPI_Scan must keep rank order), and an
! operation that dispatches on the datatype argument (DOUBLE PRECISION and a contiguous derived
! type); used by MPI_Allreduce, MPI_Reduce, MPI_Scan and MPI_Reduce_local. MPI_Op_commutative
! reports each operation's flag.
module userops
  use mpi
  implicit none
  integer :: pairtype = MPI_DATATYPE_NULL
contains
  subroutine xorop(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    inoutvec = ieor(inoutvec, invec)
  end subroutine xorop
  ! len 2x2 matrices, each one element of a derived type of 4 integers (column-major):
  ! inoutvec = invec * inoutvec
  subroutine matmul2(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(4, len), inoutvec(4, len)
    integer :: i, r(4)
    do i = 1, len
      r(1) = invec(1, i) * inoutvec(1, i) + invec(3, i) * inoutvec(2, i)
      r(2) = invec(2, i) * inoutvec(1, i) + invec(4, i) * inoutvec(2, i)
      r(3) = invec(1, i) * inoutvec(3, i) + invec(3, i) * inoutvec(4, i)
      r(4) = invec(2, i) * inoutvec(3, i) + invec(4, i) * inoutvec(4, i)
      inoutvec(:, i) = r
    end do
  end subroutine matmul2
  subroutine maxabs(invec, inoutvec, len, datatype)
    integer :: len, datatype
    double precision :: invec(*), inoutvec(*)
    integer :: n
    n = len
    if (datatype == pairtype) n = 2 * len
    inoutvec(1:n) = max(abs(invec(1:n)), abs(inoutvec(1:n)))
  end subroutine maxabs
end module userops

program userop_mpi
  use mpi
  use userops
  implicit none
  integer, parameter :: n = 6
  integer :: rank, nprocs, ierr, errs, toterrs, i, j, opsq, opmat, opmax, mattype
  integer :: a(n), b(n), m(4), r(4), expect(4), t(4)
  double precision :: d(n), e(n)
  logical :: commute

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Op_create(xorop, .true., opsq, ierr)
  call MPI_Op_create(matmul2, .false., opmat, ierr)
  call MPI_Op_create(maxabs, .true., opmax, ierr)
  call MPI_Op_commutative(opsq, commute, ierr)
  if (.not. commute) errs = errs + 1
  call MPI_Op_commutative(opmat, commute, ierr)
  if (commute) errs = errs + 1

  a = [(i, i = 1, n)]
  b = [(10 * i, i = 1, n)]
  call MPI_Reduce_local(a, b, n, MPI_INTEGER, opsq, ierr)
  if (any(b /= [(ieor(10 * i, i), i = 1, n)])) then
    errs = errs + 1
    print *, rank, ': MPI_Reduce_local with a Fortran op', b
  end if
  a = [(ishft(1, mod(rank + i, 30)), i = 1, n)]
  call MPI_Allreduce(a, b, n, MPI_INTEGER, opsq, MPI_COMM_WORLD, ierr)
  do i = 1, n
    expect(1) = 0
    do j = 0, nprocs - 1
      expect(1) = ieor(expect(1), ishft(1, mod(j + i, 30)))
    end do
    if (b(i) /= expect(1)) then
      errs = errs + 1
      print *, rank, ': allreduce with a Fortran op, element', i, b(i), ' expected', expect(1)
    end if
  end do

  ! non-commutative: rank r holds M_r = [[1, r+1], [r, 1 + r*(r+1)]]; the reduction is the
  ! ordered product M_0 M_1 ... M_{p-1}, the scan on rank k the product M_0 ... M_k
  call MPI_Type_contiguous(4, MPI_INTEGER, mattype, ierr)
  call MPI_Type_commit(mattype, ierr)
  m = [1, rank, rank + 1, 1 + rank * (rank + 1)]
  r = 0
  call MPI_Reduce(m, r, 1, mattype, opmat, 0, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
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
  call MPI_Scan(m, r, 1, mattype, opmat, MPI_COMM_WORLD, ierr)
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
  call MPI_Type_free(mattype, ierr)

  ! dispatch on the datatype: DOUBLE PRECISION and a derived type of two of them
  call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, pairtype, ierr)
  call MPI_Type_commit(pairtype, ierr)
  d = [(dble(i * (rank + 1)) * merge(-1, 1, mod(rank, 2) == 1), i = 1, n)]
  call MPI_Allreduce(d, e, n, MPI_DOUBLE_PRECISION, opmax, MPI_COMM_WORLD, ierr)
  if (any(e /= [(dble(i * nprocs), i = 1, n)])) then
    errs = errs + 1
    print *, rank, ': max-abs on DOUBLE PRECISION', e
  end if
  e = 0
  call MPI_Allreduce(d, e, n / 2, pairtype, opmax, MPI_COMM_WORLD, ierr)
  if (any(e /= [(dble(i * nprocs), i = 1, n)])) then
    errs = errs + 1
    print *, rank, ': max-abs on a derived type', e
  end if
  call MPI_Type_free(pairtype, ierr)

  call MPI_Op_free(opsq, ierr)
  call MPI_Op_free(opmat, ierr)
  call MPI_Op_free(opmax, ierr)
  if (opsq /= MPI_OP_NULL) errs = errs + 1
  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program userop_mpi
