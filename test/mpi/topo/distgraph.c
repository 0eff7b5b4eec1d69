/* Distributed graphs: MPI_Dist_graph_create_adjacent (weighted and
 * MPI_UNWEIGHTED) and MPI_Dist_graph_create where each process names
 * edges of other processes; the adjacency each process then reports
 * (Dist_graph_neighbors(_count)) is compared, as multisets of
 * (peer, weight), with the graph computed serially here. Error paths. */
#include <stdlib.h>
#include "mtest.h"

static int rank, size;

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* Edges named by process p in the general test: p names edge
 * (p*3+k) % size -> (p*5+2k+1) % size for k < 1 + p % 3, weight 100 + p*10 + k. */
static int edges_of(int p, int *src, int *dst, int *w)
{
    int n = 1 + p % 3;
    for (int k = 0; k < n; k++) {
        src[k] = (p * 3 + k) % size;
        dst[k] = (p * 5 + 2 * k + 1) % size;
        w[k] = 100 + p * 10 + k;
    }
    return n;
}

static void compare(int count, const int *peers, const int *weights, int want_count,
                    int *want_pairs, const char *what)
{
    CHECK(count == want_count, "%s: %d neighbors, expected %d", what, count, want_count);
    if (count != want_count)
        return;
    int *got = malloc(sizeof(int) * 2 * (count + 1));
    for (int i = 0; i < count; i++) {
        got[2 * i] = peers[i];
        got[2 * i + 1] = weights ? weights[i] : 0;
    }
    qsort(got, count, 2 * sizeof(int), cmp_pair);
    qsort(want_pairs, count, 2 * sizeof(int), cmp_pair);
    for (int i = 0; i < 2 * count; i++)
        CHECK(got[i] == want_pairs[i], "%s: entry %d is %d, expected %d", what, i, got[i],
              want_pairs[i]);
    free(got);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Adjacent: sources i-1, i-2; destinations i+1, i+2 (mod size). */
    int srcs[2] = {(rank - 1 + size) % size, (rank - 2 + 2 * size) % size};
    int dsts[2] = {(rank + 1) % size, (rank + 2) % size};
    int sw[2] = {srcs[0] * 7 + rank, srcs[1] * 7 + rank};
    int dw[2] = {rank * 7 + dsts[0], rank * 7 + dsts[1]};
    for (int weighted = 0; weighted <= 1; weighted++) {
        MPI_Comm dg;
        CHECK_SUCCESS(MPI_Dist_graph_create_adjacent(
            MPI_COMM_WORLD, 2, srcs, weighted ? sw : MPI_UNWEIGHTED, 2, dsts,
            weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
        int status = -1, in = -1, out = -1, w = -1;
        CHECK_SUCCESS(MPI_Topo_test(dg, &status));
        CHECK_INT(status, MPI_DIST_GRAPH);
        CHECK_SUCCESS(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
        CHECK_INT(in, 2);
        CHECK_INT(out, 2);
        CHECK_INT(w, weighted);
        int gs[2], gsw[2], gd[2], gdw[2];
        CHECK_SUCCESS(MPI_Dist_graph_neighbors(dg, 2, gs, gsw, 2, gd, gdw));
        for (int i = 0; i < 2; i++) {
            CHECK_INT(gs[i], srcs[i]);
            CHECK_INT(gd[i], dsts[i]);
            if (weighted) {
                CHECK_INT(gsw[i], sw[i]);
                CHECK_INT(gdw[i], dw[i]);
            }
        }
        CHECK_SUCCESS(MPI_Dist_graph_neighbors(dg, 2, gs, MPI_UNWEIGHTED, 2, gd, MPI_UNWEIGHTED));
        CHECK_ERR_CLASS(MPI_Dist_graph_neighbors(dg, 1, gs, gsw, 2, gd, gdw), MPI_ERR_ARG);
        int nd;
        CHECK_ERR_CLASS(MPI_Cartdim_get(dg, &nd), MPI_ERR_TOPOLOGY);
        MPI_Comm_free(&dg);
    }
    { /* no neighbors at all, MPI_WEIGHTS_EMPTY */
        MPI_Comm dg;
        CHECK_SUCCESS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0,
                                                     NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0,
                                                     &dg));
        int in = -1, out = -1, w = -1;
        CHECK_SUCCESS(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
        CHECK_INT(in, 0);
        CHECK_INT(out, 0);
        MPI_Comm_free(&dg);
    }

    /* General: every process names edges; compare with the serial graph. */
    for (int weighted = 0; weighted <= 1; weighted++) {
        int s[3], d[3], w[3], n = edges_of(rank, s, d, w);
        int degrees[3] = {1, 1, 1};
        MPI_Comm dg;
        CHECK_SUCCESS(MPI_Dist_graph_create(MPI_COMM_WORLD, n, s, degrees, d,
                                            weighted ? w : MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &dg));
        int want_in[64], want_out[64], nin = 0, nout = 0;
        for (int p = 0; p < size; p++) {
            int ps[3], pd[3], pw[3], pn = edges_of(p, ps, pd, pw);
            for (int k = 0; k < pn; k++) {
                if (pd[k] == rank) {
                    want_in[2 * nin] = ps[k];
                    want_in[2 * nin + 1] = weighted ? pw[k] : 0;
                    nin++;
                }
                if (ps[k] == rank) {
                    want_out[2 * nout] = pd[k];
                    want_out[2 * nout + 1] = weighted ? pw[k] : 0;
                    nout++;
                }
            }
        }
        int in = -1, out = -1, wflag = -1;
        CHECK_SUCCESS(MPI_Dist_graph_neighbors_count(dg, &in, &out, &wflag));
        CHECK_INT(wflag, weighted);
        int gs[32], gsw[32], gd[32], gdw[32];
        CHECK_SUCCESS(MPI_Dist_graph_neighbors(dg, 32, gs, gsw, 32, gd, gdw));
        compare(in, gs, weighted ? gsw : NULL, nin, want_in, "sources");
        compare(out, gd, weighted ? gdw : NULL, nout, want_out, "destinations");
        MPI_Comm_free(&dg);
    }

    /* Errors */
    MPI_Comm dg = MPI_COMM_NULL;
    int bad[1] = {size};
    CHECK_ERR_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, bad, MPI_UNWEIGHTED, 0, NULL,
                                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
                    MPI_ERR_RANK);
    CHECK_ERR_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, NULL, MPI_UNWEIGHTED, 0,
                                                   NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
                    MPI_ERR_ARG);
    int negw[1] = {-3}, ok[1] = {0};
    CHECK_ERR_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, ok, negw, 0, NULL,
                                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
                    MPI_ERR_ARG);
    /* A bad edge at one process fails the collective call everywhere. */
    int s1[1] = {0}, deg1[1] = {1}, d1[1] = {rank == size - 1 ? size : 0};
    int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, s1, deg1, d1, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                   0, &dg);
    CHECK(rc != MPI_SUCCESS, "an invalid edge somewhere was accepted");
    if (rank == size - 1)
        CHECK_INT(mtest_err_class(rc), MPI_ERR_RANK);
    int in, out, w;
    CHECK_ERR_CLASS(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &w),
                    MPI_ERR_TOPOLOGY);
    return mtest_finish();
}
