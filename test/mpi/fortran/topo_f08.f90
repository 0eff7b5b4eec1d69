! Distributed graphs through `use mpi_f08` with the weight sentinels: a ring built by
! MPI_Dist_graph_create_adjacent with MPI_UNWEIGHTED reports itself unweighted and its
! neighbours in order, and a neighbour exchange over it moves each rank's value to both
! sides; a graph where every rank has no neighbours, built with MPI_WEIGHTS_EMPTY, reports
! itself weighted with zero degrees; a weighted ring keeps its weights. Also built with
! MPICH's module (abi_mpich.sh), whose sentinels are other variables.
program topo_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, left, right, ierr, errs, toterrs
  integer :: srcs(2), dsts(2), w(2), rw(2), indeg, outdeg, sendv, recvv(2)
  integer :: nosrc(1), nodst(1)
  logical :: weighted
  type(MPI_Comm) :: ring, empty, wring

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  srcs = [left, right]
  dsts = [left, right]

  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts, &
       MPI_UNWEIGHTED, MPI_INFO_NULL, .false., ring, ierr)
  if (ierr /= MPI_SUCCESS) call fail('create_adjacent with MPI_UNWEIGHTED', ierr)
  call MPI_Dist_graph_neighbors_count(ring, indeg, outdeg, weighted, ierr)
  if (indeg /= 2 .or. outdeg /= 2 .or. weighted) then
    print *, 'unweighted ring: indeg', indeg, 'outdeg', outdeg, 'weighted', weighted
    errs = errs + 1
  end if
  srcs = -1
  dsts = -1
  call MPI_Dist_graph_neighbors(ring, 2, srcs, MPI_UNWEIGHTED, 2, dsts, MPI_UNWEIGHTED, ierr)
  if (any(srcs /= [left, right]) .or. any(dsts /= [left, right])) then
    print *, 'unweighted ring: sources', srcs, 'destinations', dsts
    errs = errs + 1
  end if
  sendv = 100 + rank
  recvv = -1
  call MPI_Neighbor_allgather(sendv, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, ring, ierr)
  if (any(recvv /= [100 + left, 100 + right])) then
    print *, 'neighbor_allgather on the ring:', recvv
    errs = errs + 1
  end if
  call MPI_Comm_free(ring, ierr)

  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, nosrc, MPI_WEIGHTS_EMPTY, 0, nodst, &
       MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, .false., empty, ierr)
  if (ierr /= MPI_SUCCESS) call fail('create_adjacent with MPI_WEIGHTS_EMPTY', ierr)
  call MPI_Dist_graph_neighbors_count(empty, indeg, outdeg, weighted, ierr)
  if (indeg /= 0 .or. outdeg /= 0 .or. .not. weighted) then
    print *, 'empty graph: indeg', indeg, 'outdeg', outdeg, 'weighted', weighted
    errs = errs + 1
  end if
  call MPI_Comm_free(empty, ierr)

  ! Real weights are not mistaken for a sentinel.
  srcs = [left, right]
  dsts = [left, right]
  w = [10 * rank + 1, 10 * rank + 2]
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, w, 2, dsts, w, MPI_INFO_NULL, &
       .false., wring, ierr)
  call MPI_Dist_graph_neighbors_count(wring, indeg, outdeg, weighted, ierr)
  rw = -1
  call MPI_Dist_graph_neighbors(wring, 2, srcs, rw, 2, dsts, w, ierr)
  if (.not. weighted .or. any(rw /= [10 * rank + 1, 10 * rank + 2])) then
    print *, 'weighted ring: weighted', weighted, 'weights', rw
    errs = errs + 1
  end if
  call MPI_Comm_free(wring, ierr)

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
  subroutine fail(what, code)
    character(len=*), intent(in) :: what
    integer, intent(in) :: code
    print *, what, ': error', code
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program topo_f08
