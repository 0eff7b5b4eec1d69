! MPI_BOTTOM with absolute addresses through mpif.h (free form; MPI_BOTTOM is a COMMON block the library recognises by address): a struct datatype built from the
! addresses MPI_Get_address returns for three separate variables is sent from MPI_BOTTOM and
! received at MPI_BOTTOM into three other variables; MPI_Aint_diff/MPI_Aint_add agree with the
! addresses; a hindexed type over one array's elements by absolute address.
program bottom_mpif
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 5
  integer :: rank, nprocs, right, left, i, ierr, errs, toterrs, sendtype, recvtype, idxtype
  integer :: ivals(n), rivals(n), blens(3), types(3), status(MPI_STATUS_SIZE), cnt
  double precision :: dval, rdval
  character(len=6) :: word, rword
  integer(kind=MPI_ADDRESS_KIND) :: disps(3), a1, a2, hdisp(2)
  integer :: arr(10), rarr(10), hlen(2)
  integer(kind=MPI_ADDRESS_KIND), external :: MPI_Aint_diff, MPI_Aint_add

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  ivals = [(rank * 10 + i, i = 1, n)]
  dval = 1.5d0 + rank
  write (word, '(a,i2.2)') 'rank', rank
  rivals = 0
  rdval = 0
  rword = ' '

  blens = [n, 1, 6]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_CHARACTER]
  call MPI_Get_address(ivals, disps(1), ierr)
  call MPI_Get_address(dval, disps(2), ierr)
  call MPI_Get_address(word, disps(3), ierr)
  call MPI_Type_create_struct(3, blens, disps, types, sendtype, ierr)
  call MPI_Type_commit(sendtype, ierr)
  call MPI_Get_address(rivals, disps(1), ierr)
  call MPI_Get_address(rdval, disps(2), ierr)
  call MPI_Get_address(rword, disps(3), ierr)
  call MPI_Type_create_struct(3, blens, disps, types, recvtype, ierr)
  call MPI_Type_commit(recvtype, ierr)

  call MPI_Sendrecv(MPI_BOTTOM, 1, sendtype, right, 1, MPI_BOTTOM, 1, recvtype, left, 1, &
                    MPI_COMM_WORLD, status, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  if (any(rivals /= [(left * 10 + i, i = 1, n)])) then
    errs = errs + 1
    print *, rank, ': integers through MPI_BOTTOM', rivals
  end if
  if (rdval /= 1.5d0 + left) then
    errs = errs + 1
    print *, rank, ': double through MPI_BOTTOM', rdval
  end if
  write (word, '(a,i2.2)') 'rank', left
  if (rword /= word) then
    errs = errs + 1
    print *, rank, ': characters through MPI_BOTTOM "', rword, '"'
  end if
  call MPI_Get_count(status, recvtype, cnt, ierr)
  if (cnt /= 1) errs = errs + 1

  ! address arithmetic
  call MPI_Get_address(arr(1), a1, ierr)
  call MPI_Get_address(arr(7), a2, ierr)
  if (MPI_Aint_diff(a2, a1) /= 6 * 4 .or. MPI_Aint_add(a1, 24_MPI_ADDRESS_KIND) /= a2) then
    errs = errs + 1
    print *, rank, ': MPI_Aint_diff/MPI_Aint_add disagree with MPI_Get_address'
  end if

  ! hindexed by absolute address: elements 2..3 and 7..10 of arr
  arr = [(rank * 100 + i, i = 1, 10)]
  rarr = 0
  hlen = [2, 4]
  call MPI_Get_address(arr(2), hdisp(1), ierr)
  call MPI_Get_address(arr(7), hdisp(2), ierr)
  call MPI_Type_create_hindexed(2, hlen, hdisp, MPI_INTEGER, idxtype, ierr)
  call MPI_Type_commit(idxtype, ierr)
  call MPI_Sendrecv(MPI_BOTTOM, 1, idxtype, right, 2, rarr, 10, MPI_INTEGER, left, 2, &
                    MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  if (cnt /= 6 .or. any(rarr(1:6) /= left * 100 + [2, 3, 7, 8, 9, 10]) .or. any(rarr(7:) /= 0)) then
    errs = errs + 1
    print *, rank, ': hindexed from MPI_BOTTOM', cnt, rarr
  end if

  call MPI_Type_free(sendtype, ierr)
  call MPI_Type_free(recvtype, ierr)
  call MPI_Type_free(idxtype, ierr)
  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program bottom_mpif
