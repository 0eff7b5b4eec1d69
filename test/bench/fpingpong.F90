! Fortran ping-pong and allreduce (test/bench/fortran_pingpong.sh): the same loop as
! fpingpong.c, through one of the three Fortran interfaces, chosen when compiling:
! -DIFACE_MPIF (include 'mpif.h'), -DIFACE_MPI (use mpi) or -DIFACE_F08 (use mpi_f08);
! compile with -cpp. Two ranks. Prints one line per measurement:
!   pingpong <bytes> <microseconds for a one-way trip, median over trials>
!   allreduce <bytes> <microseconds per MPI_Allreduce of one DOUBLE PRECISION, median>
! Argument 1 (optional): trials (default 11).
program fpingpong
#if defined(IFACE_F08)
  use mpi_f08
#elif defined(IFACE_MPI)
  use mpi
#endif
  implicit none
#if defined(IFACE_MPIF)
  include 'mpif.h'
#endif
  integer, parameter :: big = 1048576
  integer :: rank, nprocs, ierr, trial, ntrials, s, iters, i, peer, nbytes
  double precision, allocatable :: buf(:)
  double precision :: t0, times(101), x, y
  character(len=16) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  ntrials = 11
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) ntrials
  end if
  ntrials = max(1, min(ntrials, 101))
  allocate(buf(big / 8))
  buf = 1.0d0
  peer = 1 - rank
  do s = 1, 2
    nbytes = merge(8, big, s == 1)
    iters = merge(2000, 50, s == 1)
    do trial = 1, ntrials
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      t0 = MPI_Wtime()
      do i = 1, iters
        if (rank == 0) then
          call MPI_Send(buf, nbytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, ierr)
          call MPI_Recv(buf, nbytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        else if (rank == 1) then
          call MPI_Recv(buf, nbytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
          call MPI_Send(buf, nbytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, ierr)
        end if
      end do
      times(trial) = (MPI_Wtime() - t0) / (2.0d0 * iters) * 1.0d6
    end do
    if (rank == 0) print '(a,i0,1x,f0.3)', 'pingpong ', nbytes, median(times(1:ntrials))
  end do
  x = rank + 1.0d0
  do trial = 1, ntrials
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = MPI_Wtime()
    do i = 1, 2000
      call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    end do
    times(trial) = (MPI_Wtime() - t0) / 2000.0d0 * 1.0d6
  end do
  if (y /= nprocs * (nprocs + 1) / 2.0d0) then
    print *, 'allreduce gave', y
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (rank == 0) print '(a,f0.3)', 'allreduce 8 ', median(times(1:ntrials))
  call MPI_Finalize(ierr)
contains
  double precision function median(v)
    double precision, intent(in) :: v(:)
    double precision :: w(size(v)), t
    integer :: a, b
    w = v
    do a = 2, size(w)
      t = w(a)
      b = a - 1
      do while (b >= 1)
        if (w(b) <= t) exit
        w(b + 1) = w(b)
        b = b - 1
      end do
      w(b + 1) = t
    end do
    median = w((size(w) + 1) / 2)
  end function median
end program fpingpong
