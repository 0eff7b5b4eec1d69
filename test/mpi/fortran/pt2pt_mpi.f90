! Point-to-point through `use mpi`: probe and iprobe (LOGICAL flag), the index results of
! MPI_Waitany/MPI_Waitsome/MPI_Testany (Fortran counts from 1; MPI_UNDEFINED stays as it is),
! MPI_Test's flag, synchronous sends, and the status of each completed receive.
program pt2pt_mpi
  use mpi
  implicit none
  integer, parameter :: n = 64
  integer :: rank, nprocs, right, left, i, ierr, errs, toterrs, cnt, idx, outcount
  integer :: sbuf(n, 3), rbuf(n, 3), status(MPI_STATUS_SIZE), reqs(3)
  integer :: statuses(MPI_STATUS_SIZE, 3), indices(3)
  logical :: flag

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  do i = 1, n
    sbuf(i, :) = [rank * 100 + i, -(rank * 100 + i), rank + 7 * i]
  end do
  rbuf = -1

  ! probe: the status tells the size before the receive
  call MPI_Send(sbuf, 10, MPI_INTEGER, right, 21, MPI_COMM_WORLD, ierr)
  call MPI_Probe(left, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  if (cnt /= 10 .or. status(MPI_TAG) /= 21 .or. status(MPI_SOURCE) /= left) then
    errs = errs + 1
    print *, rank, ': probe gave count', cnt, ' tag', status(MPI_TAG), ' source', status(MPI_SOURCE)
  end if
  call MPI_Recv(rbuf, cnt, MPI_INTEGER, left, 21, MPI_COMM_WORLD, status, ierr)
  if (any(rbuf(1:10, 1) /= [(left * 100 + i, i = 1, 10)])) errs = errs + 1

  ! iprobe: nothing is pending now, so the flag is .false.
  call MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag, status, ierr)
  if (flag) then
    errs = errs + 1
    print *, rank, ': MPI_Iprobe found a message that was never sent'
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  ! a synchronous send completes only after the right neighbour's receive below matched it
  call MPI_Issend(sbuf(1, 2), 1, MPI_INTEGER, right, 99, MPI_COMM_WORLD, reqs(1), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag, status, ierr)
  end do
  if (status(MPI_SOURCE) /= left) errs = errs + 1
  call MPI_Recv(rbuf(1, 2), 1, MPI_INTEGER, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, status, ierr)
  if (rbuf(1, 2) /= -(left * 100 + 1)) errs = errs + 1
  call MPI_Wait(reqs(1), status, ierr)
  if (reqs(1) /= MPI_REQUEST_NULL) errs = errs + 1

  ! three receives with distinct tags; waitany returns indices 1..3, then MPI_UNDEFINED
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  do i = 1, 3
    call MPI_Irecv(rbuf(1, i), n, MPI_INTEGER, left, 30 + i, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  call MPI_Test(reqs(2), flag, status, ierr)
  ! nothing was sent yet on tag 32 (the sends come after the barrier)
  if (flag) then
    errs = errs + 1
    print *, rank, ': MPI_Test completed a receive before its send'
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  do i = 3, 1, -1
    call MPI_Send(sbuf(1, i), n - i, MPI_INTEGER, right, 30 + i, MPI_COMM_WORLD, ierr)
  end do
  indices = 0
  do i = 1, 3
    call MPI_Waitany(3, reqs, idx, status, ierr)
    if (idx < 1 .or. idx > 3) then
      errs = errs + 1
      print *, rank, ': MPI_Waitany index', idx
      cycle
    end if
    indices(idx) = indices(idx) + 1
    if (status(MPI_TAG) /= 30 + idx) errs = errs + 1
    call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
    if (cnt /= n - idx) errs = errs + 1
    if (reqs(idx) /= MPI_REQUEST_NULL) errs = errs + 1
  end do
  if (any(indices /= 1)) then
    errs = errs + 1
    print *, rank, ': MPI_Waitany returned the indices', indices
  end if
  call MPI_Waitany(3, reqs, idx, status, ierr)
  if (idx /= MPI_UNDEFINED) then
    errs = errs + 1
    print *, rank, ': MPI_Waitany on null requests gave', idx, ' not MPI_UNDEFINED'
  end if
  call MPI_Testany(3, reqs, idx, flag, status, ierr)
  if (.not. flag .or. idx /= MPI_UNDEFINED) then
    errs = errs + 1
    print *, rank, ': MPI_Testany on null requests gave', flag, idx
  end if
  do i = 1, 3
    if (rbuf(1, i) /= merge(left * 100 + 1, merge(-(left * 100 + 1), left + 7, i == 2), i == 1)) errs = errs + 1
  end do

  ! waitsome: the indices it returns count from 1
  call MPI_Irecv(rbuf(1, 1), n, MPI_INTEGER, left, 41, MPI_COMM_WORLD, reqs(1), ierr)
  reqs(2) = MPI_REQUEST_NULL
  call MPI_Irecv(rbuf(1, 3), n, MPI_INTEGER, left, 43, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Send(sbuf(1, 3), 2, MPI_INTEGER, right, 43, MPI_COMM_WORLD, ierr)
  call MPI_Send(sbuf(1, 1), 1, MPI_INTEGER, right, 41, MPI_COMM_WORLD, ierr)
  cnt = 0
  indices = 0
  do while (cnt < 2)
    call MPI_Waitsome(3, reqs, outcount, indices(cnt + 1:), statuses, ierr)
    if (outcount < 1 .or. outcount == MPI_UNDEFINED) then
      errs = errs + 1
      exit
    end if
    do i = 1, outcount
      if (statuses(MPI_TAG, i) /= 40 + indices(cnt + i)) errs = errs + 1
    end do
    cnt = cnt + outcount
  end do
  if (.not. ((indices(1) == 1 .and. indices(2) == 3) .or. (indices(1) == 3 .and. indices(2) == 1))) then
    errs = errs + 1
    print *, rank, ': MPI_Waitsome indices', indices(1:2)
  end if
  call MPI_Waitsome(3, reqs, outcount, indices, statuses, ierr)
  if (outcount /= MPI_UNDEFINED) then
    errs = errs + 1
    print *, rank, ': MPI_Waitsome on null requests gave outcount', outcount
  end if

  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program pt2pt_mpi
