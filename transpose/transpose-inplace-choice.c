/*
 * transpose-inplace-choice.c - when FFTW's in-place MPI transposes go
 * through liballtoall_inplace (see transpose-inplace.c), kept apart from
 * the solver the way MPI libraries keep decision rules apart from the
 * algorithms.
 *
 * Our solvers take every in-place transpose of FFTW's usual layouts
 * (ONLY_TRANSPOSEDP): the symmetric ones (hsa, lsa, mpich) those whose
 * blocks are all equal, the general one any.  sa is symmetric too.  Two inputs decide:
 *   - the planner flag FFTW_MPI_INPLACE_ALLTOALL (internal bit
 *     INPLACE_ALLTOALL): in-place transposes use only our solvers;
 *   - the environment variable FFTW_MPI_INPLACE_ALGORITHM, for programs
 *     that cannot be recompiled:
 *        hsa | lsa | mpich | sa
 *                            only that algorithm where blocks are equal,
 *                            general elsewhere, as if the flag were set
 *        general             only the general algorithm, as if the flag
 *                            were set
 *        auto                any of ours, as if the flag were set
 *        off                 none of ours (stock FFTW)
 *        unset or empty      the flag decides; without it our solvers
 *                            compete with FFTW's under MEASURE/PATIENT.
 * So a forced symmetric algorithm still gives every in-place transpose a
 * plan of ours, not FFTW's pairwise exchange.
 *
 * Planning is collective, so every process must see the same choice or the
 * planners diverge and deadlock.  The variable is therefore agreed on in one
 * MPI_Allreduce; if the processes disagree, it is ignored, with a warning.
 * The variable is not part of FFTW's wisdom: wisdom made under one value and
 * read under another is found inapplicable and FFTW replans.
 */

#include "api/api.h"
#include "fftw3-mpi.h"
#include "mpi-transpose.h"
#include <stdio.h>
#include <string.h>

#include "alltoall_inplace.h"

/* api/api.h cannot include fftw3-mpi.h (it needs mpi.h), so it repeats the
   public bit for api/mapflags.c; they must agree. */
typedef char public_flag_bits_agree[
     FFTW_MPI_INPLACE_ALLTOALL == FFTW_MPI_INPLACE_ALLTOALL_API ? 1 : -1];

#define ENV_ALGORITHM "FFTW_MPI_INPLACE_ALGORITHM"

/* A choice is an AIP_Algorithm, TRANSPOSE_INPLACE_GENERAL or one of: */
enum { CHOICE_UNSET = -1, CHOICE_OFF = -2, CHOICE_ANY = -3 };
typedef char general_is_no_other_choice[
     TRANSPOSE_INPLACE_GENERAL < CHOICE_ANY ? 1 : -1];

/* The algorithms with a solver instance of their own (transpose-inplace.c). */
static int has_instance(AIP_Algorithm algorithm)
{
     return algorithm == AIP_ALGORITHM_HSA || algorithm == AIP_ALGORITHM_LSA
	  || algorithm == AIP_ALGORITHM_MPICH || algorithm == AIP_ALGORITHM_SA;
}

/* This process's reading of the variable, or CHOICE_UNSET if it is unset,
   empty or unknown (the last with a warning from the first process). */
static int local_choice(MPI_Comm comm)
{
     static int warned = 0; /* planning is not thread-safe anyway */
     const char *value = getenv(ENV_ALGORITHM);
     AIP_Algorithm algorithm;
     int rank;

     if (!value || !*value) return CHOICE_UNSET;
     if (!strcmp(value, "off")) return CHOICE_OFF;
     if (!strcmp(value, "auto")) return CHOICE_ANY;
     if (!strcmp(value, "general")) return TRANSPOSE_INPLACE_GENERAL;
     if (AIP_Algorithm_from_name(value, &algorithm) == MPI_SUCCESS
	 && has_instance(algorithm))
	  return (int) algorithm;

     MPI_Comm_rank(comm, &rank);
     if (rank == 0 && !warned)
	  fprintf(stderr, "fftw_mpi: %s='%s' is not one of hsa, lsa, "
		  "mpich, sa, general, auto, off; ignored\n", ENV_ALGORITHM, value);
     warned = 1;
     return CHOICE_UNSET;
}

/* The choice all processes of comm agree on (collective). */
static int agreed_choice(MPI_Comm comm)
{
     static int warned = 0;
     int mine = local_choice(comm), rank;
     int bounds[2] = { mine, -mine }; /* max and -min in one reduction */

     MPI_Allreduce(MPI_IN_PLACE, bounds, 2, MPI_INT, MPI_MAX, comm);
     if (bounds[0] == -bounds[1])
	  return mine;

     MPI_Comm_rank(comm, &rank);
     if (rank == 0 && !warned)
	  fprintf(stderr, "fftw_mpi: %s differs among the processes; "
		  "ignored\n", ENV_ALGORITHM);
     warned = 1;
     return CHOICE_UNSET;
}

/* The problems our solvers take: in place, in FFTW's usual layouts. */
static int ours(const problem_mpi_transpose *p)
{
     return p->I == p->O && ONLY_TRANSPOSEDP(p->flags);
}

/* Whether every process holds exactly one block of each distribution, so
   that every pair exchanges the same amount (an MPI_Alltoall), as the
   symmetric algorithms need. */
static int even(const problem_mpi_transpose *p)
{
     int n_pes;
     MPI_Comm_size(p->comm, &n_pes);
     return p->nx == p->block * n_pes && p->ny == p->tblock * n_pes;
}

/* Whether the solver instance for `algorithm` may plan p (collective
   over p->comm past the shape checks, on which all processes agree). */
int XM(transpose_inplace_allowed)(const problem_mpi_transpose *p,
				  int algorithm)
{
     int choice;
     if (!ours(p)) return 0;
     if (algorithm != TRANSPOSE_INPLACE_GENERAL && !even(p)) return 0;
     choice = agreed_choice(p->comm);
     if (choice == CHOICE_UNSET || choice == CHOICE_ANY
	 || choice == algorithm)
	  return 1;
     /* a forced symmetric algorithm leaves uneven shapes to general */
     return (algorithm == TRANSPOSE_INPLACE_GENERAL
	     && choice >= 0 /* hsa, lsa, mpich or sa */
	     && !even(p));
}

/* Whether FFTW's own in-place transposes must leave p to our solvers:
   with the planner flag or a forcing variable, and a problem we take. */
int XM(transpose_inplace_preempts)(const problem_mpi_transpose *p,
				   const planner *plnr)
{
     int choice;
     if (!ours(p)) return 0;
     choice = agreed_choice(p->comm);
     if (choice == CHOICE_OFF) return 0;
     return choice != CHOICE_UNSET || INPLACE_ALLTOALLP(plnr);
}
