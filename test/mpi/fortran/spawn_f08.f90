! The dynamic-process sentinels through `use mpi_f08`: spawning is not provided, so
! MPI_Comm_spawn and MPI_Comm_spawn_multiple fail with MPI_ERR_SPAWN (under MPI_ERRORS_RETURN)
! and write MPI_ERR_SPAWN into each entry of a real errcodes array, while MPI_ERRCODES_IGNORE is
! left as it was (an unrecognised sentinel would be written, one code per process); MPI_ARGV_NULL
! and MPI_ARGVS_NULL are accepted. Also built with MPICH's module (abi_mpich.sh), whose
! sentinels are other variables.
program spawn_f08
  use mpi_f08
  implicit none
  integer :: ierr, errs, eclass, codes(3), i, before
  type(MPI_Comm) :: inter
  character(len=8) :: cmds(2)
  integer :: nps(2)
  type(MPI_Info) :: infos(2)

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  before = MPI_ERRCODES_IGNORE(1)

  codes = -1
  call MPI_Comm_spawn('true', MPI_ARGV_NULL, 3, MPI_INFO_NULL, 0, MPI_COMM_SELF, inter, codes, &
      ierr)
  call MPI_Error_class(ierr, eclass, i)
  if (eclass /= MPI_ERR_SPAWN) then
    print *, 'MPI_Comm_spawn: class', eclass
    errs = errs + 1
  end if
  do i = 1, 3
    call MPI_Error_class(codes(i), eclass, ierr)
    if (eclass /= MPI_ERR_SPAWN) then
      print *, 'MPI_Comm_spawn: errcodes(', i, ') class', eclass
      errs = errs + 1
    end if
  end do

  call MPI_Comm_spawn('true', MPI_ARGV_NULL, 3, MPI_INFO_NULL, 0, MPI_COMM_SELF, inter, &
      MPI_ERRCODES_IGNORE, ierr)
  call MPI_Error_class(ierr, eclass, i)
  if (eclass /= MPI_ERR_SPAWN .or. MPI_ERRCODES_IGNORE(1) /= before) then
    print *, 'MPI_Comm_spawn with MPI_ERRCODES_IGNORE: class', eclass, 'sentinel', &
        MPI_ERRCODES_IGNORE(1)
    errs = errs + 1
  end if

  cmds = ['true', 'true']
  nps = [1, 2]
  infos = [MPI_INFO_NULL, MPI_INFO_NULL]
  call MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, nps, infos, 0, MPI_COMM_SELF, inter, &
      MPI_ERRCODES_IGNORE, ierr)
  call MPI_Error_class(ierr, eclass, i)
  if (eclass /= MPI_ERR_SPAWN .or. MPI_ERRCODES_IGNORE(1) /= before) then
    print *, 'MPI_Comm_spawn_multiple with MPI_ERRCODES_IGNORE: class', eclass, 'sentinel', &
        MPI_ERRCODES_IGNORE(1)
    errs = errs + 1
  end if

  if (errs == 0) then
    print '(a)', ' No Errors'
  else
    print '(a,i0,a)', ' Found ', errs, ' errors'
  end if
  call MPI_Finalize(ierr)
end program spawn_f08
