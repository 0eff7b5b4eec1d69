! Strings through `use mpi` (C helper: strings_mpi_c.c): names set from Fortran lose their
! trailing blanks (C sees the trimmed text), names read back are blank-padded with the length
! of the text; MPI_Type_set_name/get_name; MPI_Get_processor_name and MPI_Get_library_version
! (blank-padded, same text as C); info keys and values (trailing blanks dropped) seen from C;
! an absent info key leaves the value variable (and MPI_Info_get_string's BUFLEN) as it was,
! MPI_Info_get_string's BUFLEN counts characters without a terminator, MPI_Info_get_nthkey
! blank-pads the key.
program strings_mpi
  use mpi
  implicit none
  integer :: rank, ierr, errs, toterrs, dup, rlen, clen, info, nkeys, t, vlen, buflen
  character(len=MPI_MAX_OBJECT_NAME) :: name, cname
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname, cpname
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=MPI_MAX_INFO_VAL) :: val, cval
  character(len=6) :: short
  logical :: flag

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  ! communicator names
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, rlen, ierr)
  if (name /= 'MPI_COMM_WORLD' .or. rlen /= 14) then
    errs = errs + 1
    print *, rank, ': MPI_COMM_WORLD is named "', trim(name), '"', rlen
  end if
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_name(dup, 'solver comm     ', ierr)
  name = repeat('x', len(name))
  call MPI_Comm_get_name(dup, name, rlen, ierr)
  if (rlen /= 11 .or. name(1:rlen) /= 'solver comm' .or. name(rlen + 1:) /= ' ') then
    errs = errs + 1
    print *, rank, ': name read back "', name(1:max(rlen, 1)), '" length', rlen
  end if
  call ccommname(dup, cname, clen)
  if (clen /= 11 .or. cname(1:clen) /= 'solver comm') then
    errs = errs + 1
    print *, rank, ': C sees the name "', cname(1:max(clen, 1)), '" length', clen
  end if

  ! datatype names
  call MPI_Type_contiguous(3, MPI_REAL, t, ierr)
  call MPI_Type_set_name(t, 'xyz', ierr)
  call MPI_Type_get_name(t, name, rlen, ierr)
  if (rlen /= 3 .or. name /= 'xyz') errs = errs + 1
  call MPI_Type_get_name(MPI_INTEGER, name, rlen, ierr)
  if (name /= 'MPI_INTEGER' .or. rlen /= 11) then
    errs = errs + 1
    print *, rank, ': MPI_INTEGER is named "', trim(name), '"'
  end if
  call MPI_Type_free(t, ierr)

  ! processor name and library version: blank-padded, the same text as C's
  pname = repeat('x', len(pname))
  call MPI_Get_processor_name(pname, rlen, ierr)
  call cprocname(cpname, clen)
  if (rlen < 1 .or. rlen /= clen .or. pname(1:rlen) /= cpname(1:clen) .or. pname(rlen + 1:) /= ' ') then
    errs = errs + 1
    print *, rank, ': processor name "', pname(1:max(rlen, 1)), '"', rlen, ' C: "', cpname(1:max(clen, 1)), '"'
  end if
  lib = repeat('x', len(lib))
  call MPI_Get_library_version(lib, rlen, ierr)
  if (rlen < 1 .or. lib(rlen + 1:) /= ' ') then
    errs = errs + 1
    print *, rank, ': library version not blank-padded, length', rlen
  end if

  ! info: set from Fortran, read from C and Fortran; nth key; a short value buffer
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'color   ', 'dark blue   ', ierr)
  call MPI_Info_set(info, 'size', '12', ierr)
  call cinfoget(info, cval, clen)
  if (cval(1:clen) /= 'dark blue') then
    errs = errs + 1
    print *, rank, ': C reads the info value "', cval(1:max(clen, 1)), '"'
  end if
  call MPI_Info_get(info, 'color', MPI_MAX_INFO_VAL, val, flag, ierr)
  if (.not. flag .or. val /= 'dark blue') errs = errs + 1
  call MPI_Info_get_valuelen(info, 'color', vlen, flag, ierr)
  if (.not. flag .or. vlen /= 9) errs = errs + 1
  ! an absent key: flag false, the value variable left as it was
  val = 'canary'
  flag = .true.
  call MPI_Info_get(info, 'absent', MPI_MAX_INFO_VAL, val, flag, ierr)
  if (flag .or. val /= 'canary') then
    errs = errs + 1
    print *, rank, ': MPI_Info_get of an absent key: flag', flag, ' value "', trim(val), '"'
  end if
  flag = .true.
  vlen = -7
  call MPI_Info_get_valuelen(info, 'absent', vlen, flag, ierr)
  if (flag) errs = errs + 1
  ! a value longer than VALUELEN is cut there, the rest of the variable blank
  short = 'zzzzzz'
  call MPI_Info_get(info, 'color', 4, short, flag, ierr)
  if (.not. flag .or. short(1:4) /= 'dark' .or. short(5:) /= ' ') then
    errs = errs + 1
    print *, rank, ': MPI_Info_get with valuelen 4 gave "', short, '"'
  end if
  ! MPI_Info_get_string: BUFLEN counts characters (no terminator) both ways
  val = 'canary'
  buflen = 10
  flag = .true.
  call MPI_Info_get_string(info, 'absent', buflen, val, flag, ierr)
  if (flag .or. val /= 'canary' .or. buflen /= 10) then
    errs = errs + 1
    print *, rank, ': MPI_Info_get_string of an absent key: flag', flag, ' buflen', buflen, &
      ' value "', trim(val), '"'
  end if
  buflen = 0
  call MPI_Info_get_string(info, 'color', buflen, val, flag, ierr)
  if (.not. flag .or. buflen /= 9 .or. val /= 'canary') then
    errs = errs + 1
    print *, rank, ': MPI_Info_get_string with buflen 0: buflen', buflen, ' value "', trim(val), '"'
  end if
  buflen = 4
  call MPI_Info_get_string(info, 'color', buflen, val, flag, ierr)
  if (.not. flag .or. buflen /= 9 .or. val(1:4) /= 'dark' .or. val(5:) /= ' ') then
    errs = errs + 1
    print *, rank, ': MPI_Info_get_string with buflen 4: buflen', buflen, ' value "', trim(val), '"'
  end if
  buflen = MPI_MAX_INFO_VAL
  call MPI_Info_get_string(info, 'color', buflen, val, flag, ierr)
  if (.not. flag .or. buflen /= 9 .or. val /= 'dark blue') then
    errs = errs + 1
    print *, rank, ': MPI_Info_get_string: buflen', buflen, ' value "', trim(val), '"'
  end if
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  key = repeat('x', len(key))
  call MPI_Info_get_nthkey(info, 1, key, ierr)
  if (nkeys /= 2 .or. key(1:4) /= 'size' .or. key(5:) /= ' ') then
    errs = errs + 1
    print *, rank, ': info keys', nkeys, ' "', trim(key), '"'
  end if
  call MPI_Info_free(info, ierr)

  call MPI_Comm_free(dup, ierr)
  call MPI_Allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (toterrs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', toterrs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program strings_mpi
