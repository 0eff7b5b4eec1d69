C     Point-to-point through mpif.h (fixed form): blocking and
C     nonblocking sends with statuses, MPI_ANY_SOURCE/MPI_ANY_TAG,
C     MPI_Get_count, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, sendrecv.
C     Every rank sends to its right neighbour and checks what came
C     from its left one.
      program pt2pt_f77
      implicit none
      include 'mpif.h'
      integer n
      parameter (n = 100)
      integer rank, size, right, left, i, ierr, errs, toterrs, cnt
      integer sbuf(n), rbuf(n), status(MPI_STATUS_SIZE)
      integer reqs(2), statuses(MPI_STATUS_SIZE, 2)
      double precision dsbuf(n), drbuf(n)
      errs = 0
      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, size, ierr)
      right = mod(rank + 1, size)
      left = mod(rank + size - 1, size)
      do i = 1, n
         sbuf(i) = rank * 1000 + i
         rbuf(i) = -1
         dsbuf(i) = rank + i * 0.5d0
         drbuf(i) = -1.0d0
      enddo
C     blocking, wildcard receive: the status names the sender and tag
      if (mod(rank, 2) .eq. 0) then
         call mpi_send(sbuf, n, MPI_INTEGER, right, 7, MPI_COMM_WORLD,
     &        ierr)
         call mpi_recv(rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE,
     &        MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
      else
         call mpi_recv(rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE,
     &        MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
         call mpi_send(sbuf, n, MPI_INTEGER, right, 7, MPI_COMM_WORLD,
     &        ierr)
      endif
      if (ierr .ne. MPI_SUCCESS) errs = errs + 1
      if (status(MPI_SOURCE) .ne. left) then
         errs = errs + 1
         print *, rank, ': MPI_SOURCE is ', status(MPI_SOURCE),
     &        ' expected ', left
      endif
      if (status(MPI_TAG) .ne. 7) then
         errs = errs + 1
         print *, rank, ': MPI_TAG is ', status(MPI_TAG)
      endif
      call mpi_get_count(status, MPI_INTEGER, cnt, ierr)
      if (cnt .ne. n) then
         errs = errs + 1
         print *, rank, ': count is ', cnt, ' expected ', n
      endif
      do i = 1, n
         if (rbuf(i) .ne. left * 1000 + i) errs = errs + 1
      enddo
C     nonblocking, double precision, statuses array
      call mpi_irecv(drbuf, n, MPI_DOUBLE_PRECISION, left, 9,
     &     MPI_COMM_WORLD, reqs(1), ierr)
      call mpi_isend(dsbuf, n - 1, MPI_DOUBLE_PRECISION, right, 9,
     &     MPI_COMM_WORLD, reqs(2), ierr)
      call mpi_waitall(2, reqs, statuses, ierr)
      if (reqs(1) .ne. MPI_REQUEST_NULL .or.
     &    reqs(2) .ne. MPI_REQUEST_NULL) then
         errs = errs + 1
         print *, rank, ': requests not set to MPI_REQUEST_NULL'
      endif
      if (statuses(MPI_SOURCE, 1) .ne. left .or.
     &    statuses(MPI_TAG, 1) .ne. 9) then
         errs = errs + 1
         print *, rank, ': irecv status ', statuses(MPI_SOURCE, 1),
     &        statuses(MPI_TAG, 1)
      endif
      call mpi_get_count(statuses(1, 1), MPI_DOUBLE_PRECISION, cnt,
     &     ierr)
      if (cnt .ne. n - 1) then
         errs = errs + 1
         print *, rank, ': double count is ', cnt
      endif
      do i = 1, n - 1
         if (drbuf(i) .ne. left + i * 0.5d0) errs = errs + 1
      enddo
      if (drbuf(n) .ne. -1.0d0) errs = errs + 1
C     sendrecv with MPI_STATUS_IGNORE, then waitall with
C     MPI_STATUSES_IGNORE
      call mpi_sendrecv(sbuf, 3, MPI_INTEGER, right, 11, rbuf, n,
     &     MPI_INTEGER, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     ierr)
      if (rbuf(3) .ne. left * 1000 + 3) errs = errs + 1
      call mpi_irecv(rbuf, n, MPI_INTEGER, left, 12, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call mpi_isend(sbuf(2), 1, MPI_INTEGER, right, 12,
     &     MPI_COMM_WORLD, reqs(2), ierr)
      call mpi_waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
      if (rbuf(1) .ne. left * 1000 + 2) errs = errs + 1
      call mpi_allreduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
         if (toterrs .eq. 0) then
            print *, ' No Errors'
         else
            print *, ' Found ', toterrs, ' errors'
         endif
      endif
      call mpi_finalize(ierr)
      end
