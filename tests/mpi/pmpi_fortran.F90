! pmpi_fortran - MPI_ALLTOALL, MPI_ALLTOALLV and MPI_ALLTOALLW with
! MPI_IN_PLACE from Fortran, as CPMD and Quantum ESPRESSO call them, for
! tests/mpi/pmpi.sh: compiled with the MPI's mpif90, with mpif.h or (-DUSE_MPI_MODULE)
! `use mpi`, and run under the PMPI layer, whose debug output must show that
! each call ran ours.  -DWITH_PERSISTENT (MPICH, whose Fortran bindings call the
! C functions the layer defines) adds MPI_ALLTOALL_INIT in place, started and
! waited twice.  Element k of the message from rank s to rank d is
! s * 100000 + d * 1000 + k.
program pmpi_fortran
#ifdef USE_MPI_MODULE
  use mpi
#endif
  implicit none
#ifndef USE_MPI_MODULE
  include 'mpif.h'
#endif
  integer, parameter :: n = 5
  integer :: rank, p, ierr, j, k, failed
#ifdef WITH_PERSISTENT
  integer :: request, round
#endif
  integer, allocatable :: buf(:), counts(:), displs(:), types(:), bcounts(:), bdispls(:)
  integer(kind=MPI_ADDRESS_KIND) :: address(1)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  allocate(buf(n * p), counts(p), displs(p), types(p), bcounts(p), bdispls(p))
  failed = 0

  ! MPI_ALLTOALL: block j (from 0) of n elements for rank j
  call fill_blocks()
  call MPI_ALLTOALL(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf(1), n, MPI_INTEGER, &
                    MPI_COMM_WORLD, ierr)
  call check_blocks('MPI_ALLTOALL')

  ! MPI_ALLTOALLV: the same blocks, stored in reverse order
  do j = 0, p - 1
    counts(j + 1) = n
    displs(j + 1) = (p - 1 - j) * n
  end do
  call fill_blocks_reversed()
  call MPI_ALLTOALLV(MPI_IN_PLACE, counts, displs, MPI_DATATYPE_NULL, buf(1), counts, &
                     displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check_blocks_reversed('MPI_ALLTOALLV')

  ! MPI_ALLTOALLW: displacements in bytes, one datatype per peer
  do j = 0, p - 1
    displs(j + 1) = (p - 1 - j) * n * 4
    types(j + 1) = MPI_INTEGER
  end do
  call fill_blocks_reversed()
  call MPI_ALLTOALLW(MPI_IN_PLACE, counts, displs, types, buf(1), counts, displs, types, &
                     MPI_COMM_WORLD, ierr)
  call check_blocks_reversed('MPI_ALLTOALLW')

  ! MPI_ALLTOALLW over MPI_BOTTOM: each block named by a datatype of its absolute address
  ! (Open MPI's MPI_BOTTOM is a common block the layer recognises by its address)
  call fill_blocks_reversed()
  do j = 0, p - 1
    call MPI_GET_ADDRESS(buf((p - 1 - j) * n + 1), address(1), ierr)
    call MPI_TYPE_CREATE_HINDEXED(1, [n], address, MPI_INTEGER, types(j + 1), ierr)
    call MPI_TYPE_COMMIT(types(j + 1), ierr)
    bcounts(j + 1) = 1
    bdispls(j + 1) = 0
  end do
  call MPI_ALLTOALLW(MPI_IN_PLACE, bcounts, bdispls, types, MPI_BOTTOM, bcounts, bdispls, &
                     types, MPI_COMM_WORLD, ierr)
  ! buf changed behind the compiler's back: an external call that is given it makes the
  ! compiler reload it (MPI_F_SYNC_REG's purpose; MPICH 4.0's binding of it writes a
  ! second argument)
  call MPI_GET_ADDRESS(buf(1), address(1), ierr)
  call check_blocks_reversed('MPI_ALLTOALLW over MPI_BOTTOM')
  do j = 1, p
    call MPI_TYPE_FREE(types(j), ierr)
  end do

#ifdef WITH_PERSISTENT
  ! buf is bound to the request: MPI_GET_ADDRESS, an external call given it, keeps the
  ! compiler from moving its stores past MPI_START or its loads before MPI_WAIT
  call MPI_ALLTOALL_INIT(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf(1), n, MPI_INTEGER, &
                         MPI_COMM_WORLD, MPI_INFO_NULL, request, ierr)
  call check('MPI_ALLTOALL_INIT', ierr == MPI_SUCCESS)
  do round = 1, 2
    call fill_blocks()
    call MPI_GET_ADDRESS(buf(1), address(1), ierr)
    call MPI_START(request, ierr)
    call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
    call MPI_GET_ADDRESS(buf(1), address(1), ierr)
    call check_blocks('MPI_ALLTOALL_INIT, MPI_START, MPI_WAIT')
  end do
  call MPI_REQUEST_FREE(request, ierr)
#endif

  if (p > 1) call intercomm_calls()

  call MPI_ALLREDUCE(MPI_IN_PLACE, failed, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0)', 'pmpi_fortran: ranks ', p, ', failed checks ', failed
  call MPI_FINALIZE(ierr)
  if (failed /= 0) error stop 1

contains

  ! MPI_ALLTOALL, MPI_ALLTOALLV and MPI_ALLTOALLW out of place on an intercommunicator
  ! of rank 0 and the others: groups of unequal sizes, so the per-peer arrays have one
  ! entry per rank of the remote group (exactly that many here: the layer must not read
  ! past them, as it once did sizing the datatypes of MPI_ALLTOALLW by the local group).
  ! They go to MPI untouched; the message of world rank s to world rank d is as above.
  ! (sbuf(1), rbuf(1): the buffers by their first elements, scalars like MPI_IN_PLACE and
  ! MPI_BOTTOM above, for gfortran's check of implicit interfaces under mpif.h.)
  subroutine intercomm_calls()
    integer :: local, inter, rp, first_remote, m
    integer, allocatable :: sbuf(:), rbuf(:), icounts(:), idispls(:), ibytes(:), itypes(:)
    first_remote = merge(1, 0, rank == 0)
    call MPI_COMM_SPLIT(MPI_COMM_WORLD, merge(0, 1, rank == 0), rank, local, ierr)
    call MPI_INTERCOMM_CREATE(local, 0, MPI_COMM_WORLD, first_remote, 97, inter, ierr)
    call MPI_COMM_REMOTE_SIZE(inter, rp, ierr)
    allocate(sbuf(n * rp), rbuf(n * rp), icounts(rp), idispls(rp), ibytes(rp), itypes(rp))
    do j = 0, rp - 1
      icounts(j + 1) = n
      idispls(j + 1) = j * n
      ibytes(j + 1) = j * n * 4
      itypes(j + 1) = MPI_INTEGER
    end do
    do m = 1, 3
      do j = 0, rp - 1
        do k = 0, n - 1
          sbuf(j * n + k + 1) = rank * 100000 + (first_remote + j) * 1000 + k
        end do
      end do
      rbuf = -1
      if (m == 1) then
        call MPI_ALLTOALL(sbuf(1), n, MPI_INTEGER, rbuf(1), n, MPI_INTEGER, inter, ierr)
      else if (m == 2) then
        call MPI_ALLTOALLV(sbuf(1), icounts, idispls, MPI_INTEGER, rbuf(1), icounts, idispls, &
                           MPI_INTEGER, inter, ierr)
      else
        call MPI_ALLTOALLW(sbuf(1), icounts, ibytes, itypes, rbuf(1), icounts, ibytes, itypes, &
                           inter, ierr)
      end if
      call check('intercommunicator call', ierr == MPI_SUCCESS)
      do j = 0, rp - 1
        do k = 0, n - 1
          call check('intercommunicator call', &
                     rbuf(j * n + k + 1) == (first_remote + j) * 100000 + rank * 1000 + k)
        end do
      end do
    end do
    call MPI_COMM_FREE(inter, ierr)
    call MPI_COMM_FREE(local, ierr)
  end subroutine intercomm_calls

  subroutine fill_blocks()
    do j = 0, p - 1
      do k = 0, n - 1
        buf(j * n + k + 1) = rank * 100000 + j * 1000 + k
      end do
    end do
  end subroutine fill_blocks

  subroutine fill_blocks_reversed()
    do j = 0, p - 1
      do k = 0, n - 1
        buf((p - 1 - j) * n + k + 1) = rank * 100000 + j * 1000 + k
      end do
    end do
  end subroutine fill_blocks_reversed

  subroutine check_blocks(what)
    character(*), intent(in) :: what
    call check(what, ierr == MPI_SUCCESS)
    do j = 0, p - 1
      do k = 0, n - 1
        call check(what, buf(j * n + k + 1) == j * 100000 + rank * 1000 + k)
      end do
    end do
  end subroutine check_blocks

  subroutine check_blocks_reversed(what)
    character(*), intent(in) :: what
    call check(what, ierr == MPI_SUCCESS)
    do j = 0, p - 1
      do k = 0, n - 1
        call check(what, buf((p - 1 - j) * n + k + 1) == j * 100000 + rank * 1000 + k)
      end do
    end do
  end subroutine check_blocks_reversed

  subroutine check(what, ok)
    character(*), intent(in) :: what
    logical, intent(in) :: ok
    if (.not. ok) then
      if (failed == 0) print '(a,a,a,i0)', 'FAIL: ', what, ' on rank ', rank
      failed = failed + 1
    end if
  end subroutine check

end program pmpi_fortran
