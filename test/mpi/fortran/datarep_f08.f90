! MPI_Register_datarep_c through `use mpi_f08`: a representation whose large-count conversion
! functions byte-swap INTEGERs is registered (the callbacks check the datatype, their
! EXTRA_STATE and that count and position cover the buffer); each rank writes its block through
! a view in that representation and the file's raw bytes (read back in "native") are the
! swapped values, and a read through the view gives the values back. Representations with
! MPI_CONVERSION_FN_NULL_C (MPI_Register_datarep_c) and MPI_CONVERSION_FN_NULL
! (MPI_Register_datarep) write the native bytes; registering a name again fails with
! MPI_ERR_DUP_DATAREP.
module datarep_f08_conv
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
  integer, parameter :: kState = 4242
  integer :: nconv = 0, nbad = 0
contains
  integer function bswap(x)
    integer, intent(in) :: x
    bswap = 0
    call mvbits(x, 0, 8, bswap, 24)
    call mvbits(x, 8, 8, bswap, 16)
    call mvbits(x, 16, 8, bswap, 8)
    call mvbits(x, 24, 8, bswap, 0)
  end function bswap

  subroutine check(datatype, count, position, extra_state)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    if (datatype /= MPI_INTEGER .or. count < 1 .or. position < 0 .or. &
        extra_state /= kState) then
      print *, 'conversion: datatype', datatype%MPI_VAL, 'count', count, 'position', &
          position, 'extra_state', extra_state
      nbad = nbad + 1
    end if
    nconv = nconv + 1
  end subroutine check

  subroutine swap_write(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    integer, pointer :: u(:), f(:)
    integer(kind=MPI_COUNT_KIND) :: i
    call check(datatype, count, position, extra_state)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    do i = 1, count
      f(i) = bswap(u(position + i))
    end do
    ierror = MPI_SUCCESS
  end subroutine swap_write

  subroutine swap_read(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    integer, pointer :: u(:), f(:)
    integer(kind=MPI_COUNT_KIND) :: i
    call check(datatype, count, position, extra_state)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    do i = 1, count
      u(position + i) = bswap(f(i))
    end do
    ierror = MPI_SUCCESS
  end subroutine swap_read

  subroutine file_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    if (extra_state /= kState) nbad = nbad + 1
    extent = 4
    if (datatype /= MPI_INTEGER) extent = 8
    ierror = MPI_SUCCESS
  end subroutine file_extent
end module datarep_f08_conv

program datarep_f08
  use datarep_f08_conv
  implicit none
  integer, parameter :: n = 6
  integer :: rank, nprocs, ierr, errs, toterrs, i, vals(n), raw(n), back(n), eclass
  integer(kind=MPI_ADDRESS_KIND) :: state
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=256) :: fname
  type(MPI_File) :: fh
  type(MPI_Status) :: st

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  state = kState
  call MPI_Register_datarep_c('stmpi_f08_swap', swap_read, swap_write, file_extent, state, ierr)
  if (ierr /= MPI_SUCCESS) then
    print *, 'MPI_Register_datarep_c: error', ierr
    errs = errs + 1
  end if
  call MPI_Register_datarep_c('stmpi_f08_null', MPI_CONVERSION_FN_NULL_C, &
      MPI_CONVERSION_FN_NULL_C, file_extent, state, ierr)
  if (ierr /= MPI_SUCCESS) then
    print *, 'MPI_Register_datarep_c (null conversions): error', ierr
    errs = errs + 1
  end if
  ! The small-count form with the module's MPI_CONVERSION_FN_NULL (no conversion either).
  call MPI_Register_datarep('stmpi_f08_null_int', MPI_CONVERSION_FN_NULL, &
      MPI_CONVERSION_FN_NULL, file_extent, state, ierr)
  if (ierr /= MPI_SUCCESS) then
    print *, 'MPI_Register_datarep (null conversions): error', ierr
    errs = errs + 1
  end if
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN, ierr)
  call MPI_Register_datarep_c('stmpi_f08_swap', swap_read, swap_write, file_extent, state, ierr)
  call MPI_Error_class(ierr, eclass, i)
  if (eclass /= MPI_ERR_DUP_DATAREP) then
    print *, 'registering stmpi_f08_swap twice: class', eclass
    errs = errs + 1
  end if

  fname = 'stmpi_datarep_f08.dat'
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  vals = [(int(z'01020304') + 256 * rank + 17 * i, i = 1, n)]
  vals(n) = -2 - rank  ! a negative value swaps too
  off = rank * n
  call MPI_File_open(MPI_COMM_WORLD, fname, ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
      MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) then
    print *, 'MPI_File_open: error', ierr
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if

  ! Written through the swapping representation: the file holds swapped bytes.
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'stmpi_f08_swap', &
      MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call MPI_File_write_at_all(fh, off, vals, n, MPI_INTEGER, st, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', &
      MPI_INFO_NULL, ierr)
  raw = 0
  call MPI_File_read_at_all(fh, mod(rank + 1, nprocs) * n * 1_MPI_OFFSET_KIND, raw, n, &
      MPI_INTEGER, st, ierr)
  do i = 1, n
    if (raw(i) /= bswap(expected(mod(rank + 1, nprocs), i))) then
      print *, 'raw element', i, 'of rank', mod(rank + 1, nprocs), ':', raw(i), 'expected', &
          bswap(expected(mod(rank + 1, nprocs), i))
      errs = errs + 1
    end if
  end do
  ! Read through the representation: the values come back.
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'stmpi_f08_swap', &
      MPI_INFO_NULL, ierr)
  back = 0
  call MPI_File_read_at_all(fh, off, back, n, MPI_INTEGER, st, ierr)
  if (any(back /= vals)) then
    print *, 'read through stmpi_f08_swap:', back, 'expected', vals
    errs = errs + 1
  end if
  if (nconv < 2 .or. nbad /= 0) then
    print *, 'conversion calls', nconv, 'bad ones', nbad
    errs = errs + 1
  end if

  ! MPI_CONVERSION_FN_NULL_C and MPI_CONVERSION_FN_NULL: the native bytes.
  call native_through('stmpi_f08_null')
  call native_through('stmpi_f08_null_int')
  call MPI_File_close(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL, ierr)

  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (toterrs == 0) then
      print '(a)', ' No Errors'
    else
      print '(a,i0,a)', ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
contains
  subroutine native_through(rep)
    character(len=*), intent(in) :: rep
    integer :: k
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, rep, &
        MPI_INFO_NULL, ierr)
    if (ierr /= MPI_SUCCESS) errs = errs + 1
    ! Other values each time, so that an unconverted write cannot pass on old bytes.
    back = [(vals(k) + len(rep), k = 1, n)]
    call MPI_File_write_at_all(fh, off, back, n, MPI_INTEGER, st, ierr)
    call MPI_File_sync(fh, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', &
        MPI_INFO_NULL, ierr)
    raw = 0
    call MPI_File_read_at_all(fh, off, raw, n, MPI_INTEGER, st, ierr)
    if (any(raw /= back)) then
      print *, 'written through ', rep, ':', raw, 'expected', back
      errs = errs + 1
    end if
  end subroutine native_through

  integer function expected(r, i)
    integer, intent(in) :: r, i
    expected = int(z'01020304') + 256 * r + 17 * i
    if (i == n) expected = -2 - r
  end function expected
end program datarep_f08
