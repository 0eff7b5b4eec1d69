! Collectives through mpif.h included in free-form source, with MPI_IN_PLACE wherever the standard allows it: allreduce,
! reduce at the root, allgather, gather and scatter at the root, alltoall, reduce_scatter_block,
! a nonblocking allreduce; plus bcast of a CHARACTER string and scan. Values checked on every rank.
program coll_mpif
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 8
  integer :: rank, nprocs, i, j, ierr, errs, toterrs, req, root
  integer :: a(n), expect(n), dummy(1)
  integer, allocatable :: g(:), blk(:)
  double precision :: d(n)
  character(len=16) :: word
  integer :: status(MPI_STATUS_SIZE)

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(g(n * nprocs), blk(n * nprocs))

  ! allreduce in place
  a = [(rank + i, i = 1, n)]
  call MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  expect = [(nprocs * i + nprocs * (nprocs - 1) / 2, i = 1, n)]
  if (any(a /= expect)) then
    errs = errs + 1
    print *, rank, ': allreduce in place', a
  end if

  ! reduce in place at the root (the others pass a send buffer; their receive buffer is unused)
  root = nprocs - 1
  d = [(dble(rank * i), i = 1, n)]
  if (rank == root) then
    call MPI_Reduce(MPI_IN_PLACE, d, n, MPI_DOUBLE_PRECISION, MPI_MAX, root, MPI_COMM_WORLD, ierr)
    if (any(d /= [(dble((nprocs - 1) * i), i = 1, n)])) then
      errs = errs + 1
      print *, rank, ': reduce in place', d
    end if
  else
    call MPI_Reduce(d, dummy, n, MPI_DOUBLE_PRECISION, MPI_MAX, root, MPI_COMM_WORLD, ierr)
  end if

  ! allgather in place: each rank's block is already at its place
  g = -1
  g(rank * n + 1:rank * n + n) = [(rank * 100 + i, i = 1, n)]
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do j = 0, nprocs - 1
    if (any(g(j * n + 1:j * n + n) /= [(j * 100 + i, i = 1, n)])) then
      errs = errs + 1
      print *, rank, ': allgather in place, block', j, g(j * n + 1:j * n + n)
    end if
  end do

  ! gather in place at the root
  root = 0
  if (rank == root) then
    g = -1
    g(1:n) = [(i, i = 1, n)]
    call MPI_Gather(MPI_IN_PLACE, n, MPI_INTEGER, g, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    do j = 1, nprocs - 1
      if (any(g(j * n + 1:j * n + n) /= [(j * 100 + i, i = 1, n)])) then
        errs = errs + 1
        print *, rank, ': gather in place, block', j, g(j * n + 1:j * n + n)
      end if
    end do
    if (any(g(1:n) /= [(i, i = 1, n)])) errs = errs + 1
  else
    a = [(rank * 100 + i, i = 1, n)]
    call MPI_Gather(a, n, MPI_INTEGER, dummy, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  end if

  ! scatter in place at the root: the root keeps its own block where it is
  root = mod(1, nprocs)
  if (rank == root) then
    g = [(i * 3, i = 1, n * nprocs)]
    call MPI_Scatter(g, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (any(g /= [(i * 3, i = 1, n * nprocs)])) errs = errs + 1
  else
    a = -1
    call MPI_Scatter(dummy, n, MPI_INTEGER, a, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (any(a /= [((rank * n + i) * 3, i = 1, n)])) then
      errs = errs + 1
      print *, rank, ': scatter', a
    end if
  end if

  ! alltoall in place: block j goes to rank j, block j comes back from rank j
  g = [(rank * 1000 + i, i = 1, n * nprocs)]
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do j = 0, nprocs - 1
    if (any(g(j * n + 1:j * n + n) /= [(j * 1000 + rank * n + i, i = 1, n)])) then
      errs = errs + 1
      print *, rank, ': alltoall in place, block', j
    end if
  end do

  ! reduce_scatter_block in place: block r of the sum ends at the front of rank r's buffer
  blk = [(rank + i, i = 1, n * nprocs)]
  call MPI_Reduce_scatter_block(MPI_IN_PLACE, blk, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (any(blk(1:n) /= [(nprocs * (rank * n + i) + nprocs * (nprocs - 1) / 2, i = 1, n)])) then
    errs = errs + 1
    print *, rank, ': reduce_scatter_block in place', blk(1:n)
  end if

  ! nonblocking allreduce in place
  a = rank + 1
  call MPI_Iallreduce(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, status, ierr)
  expect = 1
  do j = 1, nprocs
    expect = expect * j
  end do
  if (any(a /= expect) .or. req /= MPI_REQUEST_NULL) then
    errs = errs + 1
    print *, rank, ': iallreduce in place', a
  end if

  ! bcast of a string, scan
  word = ' '
  if (rank == 0) word = 'fortran strings'
  call MPI_Bcast(word, len(word), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  if (word /= 'fortran strings') errs = errs + 1
  i = rank + 1
  call MPI_Scan(i, j, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (j /= (rank + 1) * (rank + 2) / 2) errs = errs + 1

  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program coll_mpif
