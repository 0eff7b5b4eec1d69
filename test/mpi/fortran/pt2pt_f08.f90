! Point-to-point through `use mpi_f08`: TYPE(MPI_Status) with its public fields, handle types
! compared with == and /=, ierror left out, nonblocking calls with ASYNCHRONOUS buffers, the
! index of MPI_Waitany (from 1; MPI_UNDEFINED kept), and the large-count (_c) forms reached
! through the same generic names with INTEGER(MPI_COUNT_KIND) counts.
program pt2pt_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 50
  integer :: rank, nprocs, right, left, i, errs, toterrs, cnt, idx
  integer, asynchronous :: sbuf(n), rbuf(n)
  real(kind(1.0d0)) :: dbuf(n), dsrc(n)
  integer(kind=MPI_COUNT_KIND) :: bigcnt
  type(MPI_Status) :: status
  type(MPI_Status) :: statuses(2)
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: dup
  integer :: ierr

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  sbuf = [(rank * 1000 + i, i = 1, n)]
  rbuf = -1
  dsrc = [(rank + i * 0.25d0, i = 1, n)]
  dbuf = 0

  ! handle comparison
  if (MPI_COMM_WORLD == MPI_COMM_NULL .or. .not. (MPI_COMM_WORLD /= MPI_COMM_NULL)) then
    errs = errs + 1
    print *, rank, ': MPI_COMM_WORLD compares equal to MPI_COMM_NULL'
  end if
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  if (ierr /= MPI_SUCCESS .or. dup == MPI_COMM_WORLD .or. dup == MPI_COMM_NULL) errs = errs + 1

  ! nonblocking receive and send, statuses array
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 5, dup, reqs(1))
  call MPI_Isend(sbuf, n - 3, MPI_INTEGER, right, 5, dup, reqs(2))
  ! MPI_Waitall writes MPI_ERROR only when it returns MPI_ERR_IN_STATUS: the field keeps what
  ! was there, so it starts as MPI_SUCCESS here.
  statuses(1)%MPI_ERROR = MPI_SUCCESS
  statuses(2)%MPI_ERROR = MPI_SUCCESS
  call MPI_Waitall(2, reqs, statuses)
  if (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL) errs = errs + 1
  if (statuses(1)%MPI_SOURCE /= left .or. statuses(1)%MPI_TAG /= 5 .or. statuses(1)%MPI_ERROR /= MPI_SUCCESS) then
    errs = errs + 1
    print *, rank, ': status fields', statuses(1)%MPI_SOURCE, statuses(1)%MPI_TAG, statuses(1)%MPI_ERROR
  end if
  call MPI_Get_count(statuses(1), MPI_INTEGER, cnt)
  if (cnt /= n - 3) then
    errs = errs + 1
    print *, rank, ': count', cnt
  end if
  if (any(rbuf(1:n - 3) /= [(left * 1000 + i, i = 1, n - 3)]) .or. any(rbuf(n - 2:) /= -1)) errs = errs + 1

  ! blocking with wildcards; MPI_STATUS_IGNORE
  call MPI_Sendrecv(dsrc, n, MPI_DOUBLE_PRECISION, right, 6, dbuf, n, MPI_DOUBLE_PRECISION, &
                    MPI_ANY_SOURCE, MPI_ANY_TAG, dup, status)
  if (status%MPI_SOURCE /= left .or. status%MPI_TAG /= 6) errs = errs + 1
  if (any(dbuf /= [(left + i * 0.25d0, i = 1, n)])) errs = errs + 1
  call MPI_Sendrecv(sbuf, 1, MPI_INTEGER, right, 7, rbuf, 1, MPI_INTEGER, left, 7, dup, MPI_STATUS_IGNORE)
  if (rbuf(1) /= left * 1000 + 1) errs = errs + 1

  ! large-count forms: INTEGER(MPI_COUNT_KIND) counts pick MPI_Send_c/MPI_Recv_c
  bigcnt = 4
  call MPI_Send(sbuf, bigcnt, MPI_INTEGER, right, 8, dup)
  call MPI_Recv(rbuf, bigcnt + 1, MPI_INTEGER, left, 8, dup, status)
  call MPI_Get_count(status, MPI_INTEGER, bigcnt)
  if (bigcnt /= 4) then
    errs = errs + 1
    print *, rank, ': large count', bigcnt
  end if

  ! waitany: index from 1, then MPI_UNDEFINED once all are null
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 9, dup, reqs(2))
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Send(sbuf, 2, MPI_INTEGER, right, 9, dup)
  call MPI_Waitany(2, reqs, idx, status)
  if (idx /= 2 .or. status%MPI_TAG /= 9) then
    errs = errs + 1
    print *, rank, ': MPI_Waitany index', idx, ' tag', status%MPI_TAG
  end if
  call MPI_Waitany(2, reqs, idx, status)
  if (idx /= MPI_UNDEFINED) then
    errs = errs + 1
    print *, rank, ': MPI_Waitany on null requests gave', idx
  end if

  call MPI_Comm_free(dup)
  if (dup /= MPI_COMM_NULL) errs = errs + 1
  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize()
end program pt2pt_f08
