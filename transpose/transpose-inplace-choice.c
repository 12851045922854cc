/*
 * transpose-inplace-choice.c - when FFTW's in-place MPI transposes go
 * through liballtoall_inplace (see transpose-inplace.c), kept apart from
 * the solver the way MPI libraries keep decision rules apart from the
 * algorithms.
 *
 * Our solvers take every in-place transpose of FFTW's usual layouts
 * (ONLY_TRANSPOSEDP): those of the library's symmetric algorithms (every
 * row of its table but general, AIP_Algorithm_at) the transposes whose
 * blocks are all equal, the schedules among them (mpich, lsa, hsa) also
 * the uneven ones whose every pair exchanges one size each way
 * (XM(transpose_symmetric)), the general one any.  Two inputs decide:
 *   - the planner flag FFTW_MPI_INPLACE_ALLTOALL (internal bit
 *     INPLACE_ALLTOALL): in-place transposes use only our solvers;
 *   - the environment variable FFTW_MPI_INPLACE_ALGORITHM, for programs
 *     that cannot be recompiled:
 *        a symmetric algorithm's name (AIP_ALGORITHM's names)
 *                            only that algorithm where it takes the
 *                            shape, general elsewhere, as if the flag
 *                            were set
 *        general             only the general algorithm, as if the flag
 *                            were set
 *        auto                any of ours, as if the flag were set
 *        off                 none of ours (stock FFTW)
 *        unset or empty      the flag decides; without it our solvers
 *                            compete with FFTW's under MEASURE/PATIENT.
 *        NAME-pipelined      NAME (a symmetric algorithm or auto), and the
 *        (pipelined: auto)   pipelined in-place transforms of rank >= 2
 *                            (rank-geq2-pipelined.c) wherever they apply,
 *                            their exchanges by NAME.  Unset or auto,
 *                            those compete under MEASURE/PATIENT where
 *                            the processes span nodes.
 * So a forced symmetric algorithm still gives every in-place transpose a
 * plan of ours, not FFTW's pairwise exchange.
 *
 * Planning is collective, so every process must see the same choice or the
 * planners diverge and deadlock.  The variable is therefore agreed on in one
 * MPI_Allreduce; if the processes disagree, it is ignored, with a warning.
 * The agreed choice is cached on the problem's communicator (FFTW gives
 * each problem a duplicate of the caller's), so that the solvers tried for
 * one problem share one reading and one reduction.
 * The variable is not part of FFTW's wisdom: wisdom made under one value and
 * read under another is found inapplicable and FFTW replans.
 */

#include "api/api.h"
#include "fftw3-mpi.h"
#include "mpi-transpose.h"
#include <stdio.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "rank-geq2-pipelined.h"

/* api/api.h cannot include fftw3-mpi.h (it needs mpi.h), so it repeats the
   public bit for api/mapflags.c; they must agree. */
typedef char public_flag_bits_agree[
     FFTW_MPI_INPLACE_ALLTOALL == FFTW_MPI_INPLACE_ALLTOALL_API ? 1 : -1];

#define ENV_ALGORITHM "FFTW_MPI_INPLACE_ALGORITHM"

/* A choice is an AIP_Algorithm with a solver instance (>= 0) or one of: */
enum { CHOICE_UNSET = -1, CHOICE_OFF = -2, CHOICE_ANY = -3 };

/* NAME-pipelined: NAME, and the pipelined transforms forced.  A choice
   and that suffix travel packed in one int, which one reduction agrees
   on. */
#define PIPELINED_SUFFIX "-pipelined"
#define PACK(choice, pipelined) (2 * (choice) + (pipelined))
static int unpack_choice(int packed) { return (packed - (packed & 1)) / 2; }
static int unpack_pipelined(int packed) { return packed & 1; }

/* The kind of a library algorithm, from its table. */
static int kind_of(AIP_Algorithm algorithm, AIP_Algorithm_kind *kind)
{
     AIP_Algorithm at;
     int i;
     for (i = 0; AIP_Algorithm_at(i, &at, kind) == MPI_SUCCESS; ++i)
	  if (at == algorithm) return 1;
     return 0;
}

/* This process's reading of the variable, packed, CHOICE_UNSET if it is
   unset, empty or unknown (the last with a warning from the first
   process). */
static int local_choice(MPI_Comm comm)
{
     static int warned = 0; /* planning is not thread-safe anyway */
     const char *value = getenv(ENV_ALGORITHM);
     size_t len, suffix = strlen(PIPELINED_SUFFIX);
     char name[64];
     AIP_Algorithm algorithm;
     AIP_Algorithm_kind kind;
     int rank, pipelined = 0;

     if (!value || !*value) return PACK(CHOICE_UNSET, 0);
     len = strlen(value);
     if (!strcmp(value, "pipelined")) {
	  strcpy(name, "auto");
	  pipelined = 1;
     } else if (len > suffix && len - suffix < sizeof name
		&& !strcmp(value + len - suffix, PIPELINED_SUFFIX)) {
	  memcpy(name, value, len - suffix);
	  name[len - suffix] = 0;
	  pipelined = 1;
     } else {
	  snprintf(name, sizeof name, "%s", value);
     }
     if (!strcmp(value, "off")) return PACK(CHOICE_OFF, 0);
     if (AIP_Algorithm_from_name(name, &algorithm) == MPI_SUCCESS
	 && kind_of(algorithm, &kind)
	 && !(pipelined && kind == AIP_KIND_GENERAL))
	  return PACK(kind == AIP_KIND_CHOICE ? CHOICE_ANY : (int) algorithm,
		      pipelined);

     MPI_Comm_rank(comm, &rank);
     if (rank == 0 && !warned) {
	  char names[256] = "";
	  int i;
	  for (i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; ++i)
	       if (kind != AIP_KIND_CHOICE)
		    snprintf(names + strlen(names), sizeof names - strlen(names),
			     "%s, ", AIP_Algorithm_name(algorithm));
	  fprintf(stderr, "fftw_mpi: %s='%s' is not one of %sauto, off, "
		  "nor NAME%s for a NAME of those but general and off; "
		  "ignored\n", ENV_ALGORITHM, value, names, PIPELINED_SUFFIX);
     }
     warned = 1;
     return PACK(CHOICE_UNSET, 0);
}

/* The choice all processes of comm agree on, packed (collective). */
static int agree_on_choice(MPI_Comm comm)
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
     return PACK(CHOICE_UNSET, 0);
}

static int choice_keyval = MPI_KEYVAL_INVALID;

static int free_choice(MPI_Comm comm, int keyval, void *attribute, void *extra)
{
     UNUSED(comm); UNUSED(keyval); UNUSED(extra);
     X(ifree)(attribute);
     return MPI_SUCCESS;
}

/* The keyval lives until MPI_Finalize, which deletes the attributes of
   MPI_COMM_SELF first: one there frees it (MPI frees it for good once the
   last problem communicator using it is gone). */
static int free_choice_keyval(MPI_Comm comm, int keyval, void *attribute,
			      void *extra)
{
     UNUSED(comm); UNUSED(attribute); UNUSED(extra);
     MPI_Comm_free_keyval(&choice_keyval);
     MPI_Comm_free_keyval(&keyval);
     return MPI_SUCCESS;
}

static void create_choice_keyval(void)
{
     int finalize_keyval;
     if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_choice,
				&choice_keyval, 0) != MPI_SUCCESS)
	  return;
     if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_choice_keyval,
				&finalize_keyval, 0) == MPI_SUCCESS)
	  MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, 0);
}

/* Whether comm's processes are on more than one node (collective), as
   MPI_COMM_TYPE_SHARED sees them: the same answer on every process. */
static int spans_nodes(MPI_Comm comm)
{
     MPI_Comm node;
     int size, node_size;
     MPI_Comm_size(comm, &size);
     MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
     MPI_Comm_size(node, &node_size);
     MPI_Comm_free(&node);
     return node_size < size;
}

/* What is cached on a communicator: the agreed choice, packed; whether it
   spans nodes (-1 until a pipelined solver asks); and the library's own
   choice for the last exchange asked (count items of type_size bytes with
   each process; count -1 until asked). */
typedef struct {
     int packed, spans_nodes;
     int count, type_size, library_choice;
} agreement;

/* The agreement, once per communicator (collective on its first call:
   every process of comm asks at the same points of planning). */
static agreement *agreed_on(MPI_Comm comm)
{
     agreement *cached;
     int found;
     if (choice_keyval == MPI_KEYVAL_INVALID)
	  create_choice_keyval();
     MPI_Comm_get_attr(comm, choice_keyval, &cached, &found);
     if (found) return cached;
     cached = (agreement *) MALLOC(sizeof(agreement), OTHER);
     cached->packed = agree_on_choice(comm);
     cached->spans_nodes = -1;
     cached->count = -1;
     MPI_Comm_set_attr(comm, choice_keyval, cached);
     return cached;
}

static int agreed(MPI_Comm comm)
{
     return agreed_on(comm)->packed;
}

static int agreed_choice(MPI_Comm comm)
{
     return unpack_choice(agreed(comm));
}

/* The problems our solvers take: in place, in FFTW's usual layouts. */
static int ours(const problem_mpi_transpose *p)
{
     return p->I == p->O && ONLY_TRANSPOSEDP(p->flags);
}

/* Whether every process holds exactly one block of each distribution, so
   that every pair exchanges the same amount (an MPI_Alltoall), as all the
   symmetric algorithms take. */
int XM(transpose_even)(const problem_mpi_transpose *p)
{
     int n_pes;
     MPI_Comm_size(p->comm, &n_pes);
     return p->nx == p->block * n_pes && p->ny == p->tblock * n_pes;
}

/* Whether every pair of processes exchanges one size each way, at one
   offset, so that the symmetric schedules serve though blocks differ
   (AIP_Alltoallv): b_i tblock == block bt_i for every process i, b_i and
   bt_i its rows of nx and ny.  Then b_i bt_j = b_i b_j tblock / block =
   b_j bt_i, what i sends j is what j sends i, and i's block for j starts
   at j b_i tblock = j block bt_i in both its send and its receive layout
   (transpose-inplace.c, exchange_layout): the square transposes of uneven
   blocks, and the 1D transforms' vectors cut as their rows are
   (fftw-patches/0008).  Even shapes are. */
int XM(transpose_symmetric)(const problem_mpi_transpose *p)
{
     int n_pes, pe;
     MPI_Comm_size(p->comm, &n_pes);
     for (pe = 0; pe < n_pes; ++pe)
	  if (XM(block)(p->nx, p->block, pe) * p->tblock
	      != p->block * XM(block)(p->ny, p->tblock, pe))
	       return 0;
     return 1;
}

/* Whether the symmetric instance of algorithm takes p's shape: every one
   the even shapes, the schedules also the other symmetric ones (the
   node-aware and routed exchanges are AIP_Alltoall's alone). */
static int symmetric_takes(const problem_mpi_transpose *p,
			   AIP_Algorithm algorithm)
{
     AIP_Algorithm_kind kind;
     if (XM(transpose_even)(p)) return 1;
     return kind_of(algorithm, &kind) && kind == AIP_KIND_SCHEDULE
	  && XM(transpose_symmetric)(p);
}

/* Whether the solver instance for `algorithm` may plan p (collective
   over p->comm past the shape checks, on which all processes agree). */
int XM(transpose_inplace_allowed)(const problem_mpi_transpose *p,
				  int algorithm, int general)
{
     AIP_Algorithm_kind kind;
     int choice;
     if (!ours(p)) return 0;
     if (!general && !symmetric_takes(p, (AIP_Algorithm) algorithm)) return 0;
     choice = agreed_choice(p->comm);
     if (choice == CHOICE_UNSET || choice == CHOICE_ANY
	 || choice == algorithm)
	  return 1;
     /* a forced symmetric algorithm leaves the shapes it cannot take to
	general */
     return (general && choice >= 0
	     && kind_of((AIP_Algorithm) choice, &kind)
	     && kind != AIP_KIND_GENERAL
	     && !symmetric_takes(p, (AIP_Algorithm) choice));
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

/* Whether in-place transposes on comm may go through our solvers at all:
   the bigvec layout they alone make cheap (transpose-inplace.c, "Blocks
   of the vector") is offered only then, so that
   FFTW_MPI_INPLACE_ALGORITHM=off plans exactly as stock FFTW. */
int XM(transpose_inplace_on)(MPI_Comm comm)
{
     return agreed_choice(comm) != CHOICE_OFF;
}

int XM(pipelined_forced)(MPI_Comm comm)
{
     return unpack_pipelined(agreed(comm));
}

int XM(pipelined_allowed)(MPI_Comm comm, const planner *plnr)
{
     agreement *a = agreed_on(comm);
     int choice = unpack_choice(a->packed);
     if (unpack_pipelined(a->packed))
	  return 1;
     if ((choice != CHOICE_UNSET && choice != CHOICE_ANY) || ESTIMATEP(plnr))
	  return 0;
     /* only here, where it decides: the same on every process */
     if (a->spans_nodes < 0)
	  a->spans_nodes = spans_nodes(comm);
     return a->spans_nodes;
}

AIP_Algorithm XM(pipelined_algorithm)(MPI_Comm comm)
{
     int choice = agreed_choice(comm);
     return choice >= 0 ? (AIP_Algorithm) choice : AIP_ALGORITHM_DEFAULT;
}

/* mpi-transpose.h: asked of an AUTO plan made and freed at once. */
int XM(transpose_inplace_library_choice)(MPI_Comm problem_comm, MPI_Comm comm,
					  int count, MPI_Datatype type)
{
     agreement *a = agreed_on(problem_comm);
     int type_size;
     MPI_Type_size(type, &type_size);
     if (a->count != count || a->type_size != type_size) {
	  AIP_Options options;
	  AIP_Plan plan;
	  AIP_Options_init(&options);
	  options.algorithm = AIP_ALGORITHM_AUTO;
	  a->library_choice =
	       AIP_Alltoall_init(count, type, comm, &options, &plan) == MPI_SUCCESS
	       ? (int) AIP_Plan_algorithm(plan) : -1;
	  if (a->library_choice >= 0)
	       AIP_Plan_free(&plan);
	  a->count = count;
	  a->type_size = type_size;
     }
     return a->library_choice;
}
