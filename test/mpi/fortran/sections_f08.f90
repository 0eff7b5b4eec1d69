! Non-contiguous array sections through `use mpi_f08` (MPI_SUBARRAYS_SUPPORTED): a(1:n:2) and
! a 2-D section sent with MPI_Isend and received with MPI_Irecv into another strided section;
! the elements between the section's ones must stay untouched (a section is described to MPI,
! not copied into a temporary that the nonblocking call would lose). Also a section combined
! with a derived datatype (a vector of a section) and a blocking MPI_Sendrecv.
program sections_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 20, m = 6
  integer :: rank, nprocs, right, left, i, j, errs, toterrs, cnt
  integer, asynchronous :: a(2 * n), b(3 * n)
  real, asynchronous :: x(m, m), y(m, m)
  integer :: c(4 * n), d(4 * n)
  type(MPI_Request) :: reqs(4)
  type(MPI_Status) :: statuses(4)
  type(MPI_Datatype) :: pair

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  if (.not. MPI_SUBARRAYS_SUPPORTED) then
    errs = errs + 1
    print *, 'MPI_SUBARRAYS_SUPPORTED is .false.'
  end if

  a = [(rank * 1000 + i, i = 1, 2 * n)]
  b = -1
  do j = 1, m
    do i = 1, m
      x(i, j) = real(rank * 100 + i * 10 + j)
    end do
  end do
  y = -1.0
  ! a(1:2n:2) -> b(3:3n:3); x(2:m:2, 1:m:3) -> y(1:m/2, 2:3) (3 x 2 elements both)
  call MPI_Irecv(b(3:3 * n:3), n, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(y(1:m / 2, 2:3), (m / 2) * 2, MPI_REAL, left, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Isend(a(1:2 * n:2), n, MPI_INTEGER, right, 1, MPI_COMM_WORLD, reqs(3))
  call MPI_Isend(x(2:m:2, 1:m:3), (m / 2) * 2, MPI_REAL, right, 2, MPI_COMM_WORLD, reqs(4))
  ! the sections' storage may change only after the wait
  call MPI_Waitall(4, reqs, statuses)
  if (.not. MPI_ASYNC_PROTECTS_NONBLOCKING) call MPI_F_sync_reg(b)
  if (.not. MPI_ASYNC_PROTECTS_NONBLOCKING) call MPI_F_sync_reg(y)
  call MPI_Get_count(statuses(1), MPI_INTEGER, cnt)
  if (cnt /= n) then
    errs = errs + 1
    print *, rank, ': count of the section receive', cnt
  end if
  do i = 1, 3 * n
    if (mod(i, 3) == 0) then
      if (b(i) /= left * 1000 + 2 * (i / 3) - 1) then
        errs = errs + 1
        print *, rank, ': b(', i, ') =', b(i), ' expected', left * 1000 + 2 * (i / 3) - 1
      end if
    else if (b(i) /= -1) then
      errs = errs + 1
      print *, rank, ': b(', i, ') outside the section was written:', b(i)
    end if
  end do
  do j = 1, m
    do i = 1, m
      if (i <= m / 2 .and. (j == 2 .or. j == 3)) then
        if (y(i, j) /= real(left * 100 + (2 * i) * 10 + (1 + 3 * (j - 2)))) then
          errs = errs + 1
          print *, rank, ': y(', i, j, ') =', y(i, j)
        end if
      else if (y(i, j) /= -1.0) then
        errs = errs + 1
        print *, rank, ': y(', i, j, ') outside the section was written'
      end if
    end do
  end do

  ! a datatype over a section: pairs of consecutive elements of c(1:4n:2) (every other
  ! element), i.e. a vector of blocks of 1 with stride 2 in units of the section's elements
  call MPI_Type_vector(n / 2, 1, 2, MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  c = [(rank * 10000 + i, i = 1, 4 * n)]
  d = 0
  ! section c(1:4n:2) has elements c(1), c(3), ...; the vector picks every other one of those:
  ! c(1), c(5), c(9), ... (n/2 of them); received contiguously into d(1:n/2)
  call MPI_Sendrecv(c(1:4 * n:2), 1, pair, right, 3, d, n / 2, MPI_INTEGER, left, 3, &
                    MPI_COMM_WORLD, statuses(1))
  do i = 1, n / 2
    if (d(i) /= left * 10000 + 1 + 4 * (i - 1)) then
      errs = errs + 1
      print *, rank, ': vector over a section, d(', i, ') =', d(i)
    end if
  end do
  if (any(d(n / 2 + 1:) /= 0)) errs = errs + 1
  call MPI_Type_free(pair)

  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize()
end program sections_f08
