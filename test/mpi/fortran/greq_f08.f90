! Generalized requests with Fortran callbacks through `use mpi_f08` (TYPE(MPI_Status) in the query function): MPI_Grequest_start with query,
! free and cancel functions written in Fortran and an INTEGER(KIND=MPI_ADDRESS_KIND)
! extra_state; MPI_Test before MPI_Grequest_complete gives .false.; MPI_Wait calls the query
! function (which fills the status with MPI_Status_set_elements and MPI_Status_set_cancelled)
! and then the free function, once each; MPI_Cancel calls the cancel function with the
! completion flag; MPI_Waitall over a generalized and an ordinary request.
module greq_cb
  use mpi_f08
  implicit none
  integer :: queries = 0, frees = 0, cancels = 0, bad_extra = 0
  logical :: cancel_complete = .true.
contains
  subroutine query_fn(extra, status, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    type(MPI_Status) :: status
    integer :: ierr
    queries = queries + 1
    if (extra /= 4711) bad_extra = bad_extra + 1
    call MPI_Status_set_elements(status, MPI_INTEGER, 17, ierr)
    call MPI_Status_set_cancelled(status, .false., ierr)
    status%MPI_SOURCE = MPI_UNDEFINED
    status%MPI_TAG = 33
    ierr = MPI_SUCCESS
  end subroutine query_fn
  subroutine free_fn(extra, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    frees = frees + 1
    if (extra /= 4711) bad_extra = bad_extra + 1
    ierr = MPI_SUCCESS
  end subroutine free_fn
  subroutine cancel_fn(extra, complete, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    cancels = cancels + 1
    cancel_complete = complete
    if (extra /= 4711) bad_extra = bad_extra + 1
    ierr = MPI_SUCCESS
  end subroutine cancel_fn
end module greq_cb

program greq_f08
  use mpi_f08
  use greq_cb
  implicit none
  integer :: rank, nprocs, ierr, errs, toterrs, cnt, sbuf, rbuf
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Status) :: status, statuses(2)
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: flag

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  extra = 4711

  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call MPI_Test(req, flag, status, ierr)
  if (flag) then
    errs = errs + 1
    print *, rank, ': a generalized request completed before MPI_Grequest_complete'
  end if
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  if (queries /= 1 .or. frees /= 1 .or. cnt /= 17 .or. status%MPI_TAG /= 33 .or. req /= MPI_REQUEST_NULL) then
    errs = errs + 1
    print *, rank, ': after MPI_Wait: queries', queries, ' frees', frees, ' count', cnt, ' tag', status%MPI_TAG
  end if
  call MPI_Test_cancelled(status, flag, ierr)
  if (flag) errs = errs + 1

  ! cancel before completion: the cancel function sees complete = .false.
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call MPI_Cancel(req, ierr)
  if (cancels /= 1 .or. cancel_complete) then
    errs = errs + 1
    print *, rank, ': MPI_Cancel: cancel calls', cancels, ' complete', cancel_complete
  end if
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (frees /= 2) errs = errs + 1

  ! waitall over a generalized request and a receive
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, reqs(1), ierr)
  sbuf = rank
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 5, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Send(sbuf, 1, MPI_INTEGER, mod(rank + 1, nprocs), 5, MPI_COMM_WORLD, ierr)
  call MPI_Grequest_complete(reqs(1), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call MPI_Get_count(statuses(1), MPI_INTEGER, cnt, ierr)
  if (cnt /= 17 .or. statuses(2)%MPI_TAG /= 5 .or. rbuf /= mod(rank + nprocs - 1, nprocs) .or. frees /= 3) then
    errs = errs + 1
    print *, rank, ': waitall: count', cnt, ' tag', statuses(2)%MPI_TAG, ' value', rbuf, ' frees', frees
  end if
  if (bad_extra /= 0) errs = errs + 1

  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program greq_f08
