! Attributes with Fortran copy and delete callbacks, seen from C and back (C helper: attr_mpi_c.c):
! C reads a value Fortran set through the pointer it gets, Fortran reads a pointer C set as an
! integer; a dup made
! in C calls the Fortran copy function, a free or overwrite from C calls the Fortran delete
! function with the value C never saw as an integer; MPI-1 INTEGER attributes (MPI_Attr_put,
! MPI_Keyval_create); predefined copy functions; MPI_TAG_UB from both languages; a type
! attribute; and a copy function that fails makes MPI_Comm_dup fail under MPI_ERRORS_RETURN.
module attr_cb
  use mpi
  implicit none
  integer :: copies = 0, deletes = 0, copies1 = 0, type_copies = 0
  integer(kind=MPI_ADDRESS_KIND) :: last_deleted = -1
  integer :: bad_extra = 0
contains
  subroutine copy_fn(oldcomm, keyval, extra, valin, valout, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    copies = copies + 1
    if (extra /= 77) bad_extra = bad_extra + 1
    valout = valin + 1
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy_fn
  subroutine delete_fn(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    if (extra /= 77) bad_extra = bad_extra + 1
    last_deleted = val
    ierr = MPI_SUCCESS
  end subroutine delete_fn
  subroutine failing_copy_fn(oldcomm, keyval, extra, valin, valout, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    flag = .false.
    ierr = MPI_ERR_OTHER
  end subroutine failing_copy_fn
  ! MPI-1 callbacks: every argument is a default INTEGER
  subroutine copy1(oldcomm, keyval, extra, valin, valout, flag, ierr)
    integer :: oldcomm, keyval, extra, valin, valout, ierr
    logical :: flag
    copies1 = copies1 + 1
    if (extra /= 5) bad_extra = bad_extra + 1
    valout = valin * 2
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy1
  subroutine delete1(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, val, extra, ierr
    ierr = MPI_SUCCESS
  end subroutine delete1
  subroutine type_copy_fn(oldtype, keyval, extra, valin, valout, flag, ierr)
    integer :: oldtype, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    type_copies = type_copies + 1
    valout = valin + 100
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine type_copy_fn
end module attr_cb

program attr_mpi
  use mpi
  use attr_cb
  implicit none
  integer :: rank, ierr, errs, toterrs, key, key1, ckey, dupkey, nullkey, tkey, failkey
  integer :: c1, c2, c3, c4, cflag, ival, t1, t2
  integer(kind=MPI_ADDRESS_KIND) :: extra, val, cval
  logical :: flag

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, c1, ierr)

  extra = 77
  call MPI_Comm_create_keyval(copy_fn, delete_fn, key, extra, ierr)
  val = 12345
  call MPI_Comm_set_attr(c1, key, val, ierr)
  val = 0
  call MPI_Comm_get_attr(c1, key, val, flag, ierr)
  if (.not. flag .or. val /= 12345) then
    errs = errs + 1
    print *, rank, ': Fortran reads back', flag, val
  end if
  ! C sees the value Fortran set as the pointer value
  call cread_attr(c1, key, cval, cflag)
  if (cflag /= 1 .or. cval /= 12345) then
    errs = errs + 1
    print *, rank, ': C reads the Fortran attribute as', cflag, cval
  end if
  ! a dup made in C runs the Fortran copy function
  call cdup(c1, c2)
  call MPI_Comm_get_attr(c2, key, val, flag, ierr)
  if (copies /= 1 .or. .not. flag .or. val /= 12346) then
    errs = errs + 1
    print *, rank, ': after a dup from C: copies', copies, ' value', flag, val
  end if
  ! C overwrites: the Fortran delete function sees the old value; Fortran reads the new one
  cval = 555
  call cset_attr(c1, key, cval)
  if (deletes /= 1 .or. last_deleted /= 12345) then
    errs = errs + 1
    print *, rank, ': overwrite from C: deletes', deletes, ' deleted value', last_deleted
  end if
  call MPI_Comm_get_attr(c1, key, val, flag, ierr)
  if (.not. flag .or. val /= 555) then
    errs = errs + 1
    print *, rank, ': Fortran reads the C attribute as', flag, val
  end if
  ! a free from C runs the Fortran delete function
  call cfree(c2)
  if (deletes /= 2 .or. last_deleted /= 12346 .or. c2 /= MPI_COMM_NULL) then
    errs = errs + 1
    print *, rank, ': free from C: deletes', deletes, ' deleted value', last_deleted
  end if
  call MPI_Comm_delete_attr(c1, key, ierr)
  if (deletes /= 3 .or. last_deleted /= 555) errs = errs + 1
  call MPI_Comm_get_attr(c1, key, val, flag, ierr)
  if (flag) errs = errs + 1

  ! MPI-1 INTEGER attributes
  call MPI_Keyval_create(copy1, delete1, key1, 5, ierr)
  call MPI_Attr_put(c1, key1, 21, ierr)
  ival = 0
  call MPI_Attr_get(c1, key1, ival, flag, ierr)
  if (.not. flag .or. ival /= 21) errs = errs + 1
  call cread_attr1(c1, key1, cval, cflag)
  if (cflag /= 1 .or. cval /= 21) then
    errs = errs + 1
    print *, rank, ': C reads the MPI_Attr_put value as', cflag, cval
  end if
  call MPI_Comm_dup(c1, c3, ierr)
  call MPI_Attr_get(c3, key1, ival, flag, ierr)
  if (copies1 /= 1 .or. .not. flag .or. ival /= 42) then
    errs = errs + 1
    print *, rank, ': MPI-1 copy function: calls', copies1, ' value', flag, ival
  end if
  call MPI_Comm_free(c3, ierr)

  ! a keyval made in C with MPI_COMM_DUP_FN and a pointer set from C, copied by a dup from
  ! Fortran; Fortran keyvals with the predefined MPI_COMM_DUP_FN and the null functions
  call ckeyval(ckey)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dupkey, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, nullkey, extra, ierr)
  cval = 4242
  call cset_attr(c1, ckey, cval)
  val = 99
  call MPI_Comm_set_attr(c1, dupkey, val, ierr)
  call MPI_Comm_set_attr(c1, nullkey, val, ierr)
  call MPI_Comm_dup(c1, c3, ierr)
  call MPI_Comm_get_attr(c3, ckey, val, flag, ierr)
  if (.not. flag .or. val /= 4242) then
    errs = errs + 1
    print *, rank, ': a C attribute copied by MPI_COMM_DUP_FN reads', flag, val
  end if
  call MPI_Comm_get_attr(c3, dupkey, val, flag, ierr)
  if (.not. flag .or. val /= 99) then
    errs = errs + 1
    print *, rank, ': Fortran MPI_COMM_DUP_FN copied', flag, val
  end if
  call MPI_Comm_get_attr(c3, nullkey, val, flag, ierr)
  if (flag) then
    errs = errs + 1
    print *, rank, ': MPI_COMM_NULL_COPY_FN copied the attribute'
  end if
  call MPI_Comm_free(c3, ierr)
  call MPI_Comm_delete_attr(c1, ckey, ierr)
  call MPI_Comm_free_keyval(ckey, ierr)
  call MPI_Comm_free_keyval(dupkey, ierr)
  call MPI_Comm_free_keyval(nullkey, ierr)
  if (ckey /= MPI_KEYVAL_INVALID .or. nullkey /= MPI_KEYVAL_INVALID) errs = errs + 1

  ! predefined attribute, from both languages
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call ctagub(cval)
  if (.not. flag .or. val < 32767 .or. val /= cval) then
    errs = errs + 1
    print *, rank, ': MPI_TAG_UB', flag, val, ' from C', cval
  end if
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
  if (.not. flag .or. ival /= cval) errs = errs + 1

  ! a datatype attribute copied by MPI_Type_dup
  call MPI_Type_contiguous(2, MPI_INTEGER, t1, ierr)
  call MPI_Type_create_keyval(type_copy_fn, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
  val = 7
  call MPI_Type_set_attr(t1, tkey, val, ierr)
  call MPI_Type_dup(t1, t2, ierr)
  call MPI_Type_get_attr(t2, tkey, val, flag, ierr)
  if (type_copies /= 1 .or. .not. flag .or. val /= 107) then
    errs = errs + 1
    print *, rank, ': type attribute after MPI_Type_dup', type_copies, flag, val
  end if
  call MPI_Type_free(t1, ierr)
  call MPI_Type_free(t2, ierr)
  call MPI_Type_free_keyval(tkey, ierr)

  ! a copy function that returns an error makes the dup fail (errors return on c1)
  call MPI_Comm_set_errhandler(c1, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_create_keyval(failing_copy_fn, MPI_COMM_NULL_DELETE_FN, failkey, extra, ierr)
  call MPI_Comm_set_attr(c1, failkey, val, ierr)
  c4 = MPI_COMM_NULL
  call MPI_Comm_dup(c1, c4, ierr)
  if (ierr == MPI_SUCCESS) then
    errs = errs + 1
    print *, rank, ': MPI_Comm_dup succeeded although the copy function failed'
    if (c4 /= MPI_COMM_NULL) call MPI_Comm_free(c4, ierr)
  end if
  call MPI_Comm_delete_attr(c1, failkey, ierr)
  call MPI_Comm_free_keyval(failkey, ierr)

  call MPI_Comm_free(c1, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Keyval_free(key1, ierr)
  if (bad_extra /= 0) then
    errs = errs + 1
    print *, rank, ': callbacks got a wrong extra_state', bad_extra, ' times'
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
end program attr_mpi
