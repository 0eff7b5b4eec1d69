/* Graph topologies: MPI_Graph_create on a ring plus a hub (node 0 is
 * linked to everyone), on all processes and on fewer nodes than
 * processes; Graphdims_get, Graph_get, Graph_neighbors(_count), Graph_map
 * and Topo_test against the arrays built here; and the error paths. */
#include "mtest.h"

static int rank, size;

/* Adjacency of node i in an n-node ring with hub 0 (no self loops). */
static int adjacency(int n, int i, int *out)
{
    int k = 0;
    if (n == 1)
        return 0;
    out[k++] = (i + 1) % n;
    if (n > 2)
        out[k++] = (i + n - 1) % n;
    if (i == 0) {
        for (int j = 2; j < n - 1; j++)
            out[k++] = j;
    } else if (i != 1 && i != n - 1) {
        out[k++] = 0;
    }
    return k;
}

static void test_graph(int nnodes)
{
    int index[64], edges[1024], nedges = 0;
    for (int i = 0; i < nnodes; i++) {
        nedges += adjacency(nnodes, i, edges + nedges);
        index[i] = nedges;
    }
    MPI_Comm graph;
    CHECK_SUCCESS(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &graph));
    if (rank >= nnodes) {
        CHECK(graph == MPI_COMM_NULL, "rank %d outside the graph got a communicator", rank);
        return;
    }
    int status = -1, nn = -1, ne = -1, gsize, grank;
    MPI_Comm_size(graph, &gsize);
    MPI_Comm_rank(graph, &grank);
    CHECK_INT(gsize, nnodes);
    CHECK_INT(grank, rank);
    CHECK_SUCCESS(MPI_Topo_test(graph, &status));
    CHECK_INT(status, MPI_GRAPH);
    CHECK_SUCCESS(MPI_Graphdims_get(graph, &nn, &ne));
    CHECK_INT(nn, nnodes);
    CHECK_INT(ne, nedges);
    int gi[64], ge[1024];
    CHECK_SUCCESS(MPI_Graph_get(graph, 64, 1024, gi, ge));
    for (int i = 0; i < nnodes; i++)
        CHECK_INT(gi[i], index[i]);
    for (int i = 0; i < nedges; i++)
        CHECK_INT(ge[i], edges[i]);
    for (int r = 0; r < nnodes; r++) {
        int want[64], count = adjacency(nnodes, r, want), got = -1, nb[64];
        CHECK_SUCCESS(MPI_Graph_neighbors_count(graph, r, &got));
        CHECK_INT(got, count);
        CHECK_SUCCESS(MPI_Graph_neighbors(graph, r, 64, nb));
        for (int k = 0; k < count; k++)
            CHECK_INT(nb[k], want[k]);
    }
    int newrank = -5;
    CHECK_SUCCESS(MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &newrank));
    CHECK_INT(newrank, rank);
    /* Errors */
    int count, nb[1];
    CHECK_ERR_CLASS(MPI_Graph_neighbors_count(graph, nnodes, &count), MPI_ERR_RANK);
    CHECK_ERR_CLASS(MPI_Graph_neighbors_count(graph, -1, &count), MPI_ERR_RANK);
    if (nnodes > 1 && adjacency(nnodes, 0, ge) > 0)
        CHECK_ERR_CLASS(MPI_Graph_neighbors(graph, 0, 0, nb), MPI_ERR_ARG);
    if (nedges > 0)
        CHECK_ERR_CLASS(MPI_Graph_get(graph, nnodes, nedges - 1, gi, ge), MPI_ERR_ARG);
    int nd, src, dst;
    CHECK_ERR_CLASS(MPI_Cartdim_get(graph, &nd), MPI_ERR_TOPOLOGY);
    CHECK_ERR_CLASS(MPI_Cart_shift(graph, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);
    int indeg, outdeg, w;
    CHECK_ERR_CLASS(MPI_Dist_graph_neighbors_count(graph, &indeg, &outdeg, &w), MPI_ERR_TOPOLOGY);
    MPI_Comm dup;
    CHECK_SUCCESS(MPI_Comm_dup(graph, &dup));
    CHECK_SUCCESS(MPI_Graphdims_get(dup, &nn, &ne));
    CHECK_INT(ne, nedges);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&graph);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_graph(size);
    if (size > 1)
        test_graph(size - 1);
    { /* no nodes: everyone gets MPI_COMM_NULL */
        MPI_Comm g;
        CHECK_SUCCESS(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g));
        CHECK(g == MPI_COMM_NULL, "0-node graph gave a communicator");
    }
    /* Errors */
    MPI_Comm g = MPI_COMM_NULL;
    int index[2] = {1, 2}, edges[2] = {1, 0};
    CHECK_ERR_CLASS(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &g),
                    MPI_ERR_TOPOLOGY);
    CHECK_ERR_CLASS(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &g), MPI_ERR_ARG);
    int bad_edges[2] = {5, 0};
    CHECK_ERR_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 1, index, bad_edges, 0, &g), MPI_ERR_ARG);
    int bad_index[2] = {2, 1};
    if (size >= 2)
        CHECK_ERR_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 2, bad_index, edges, 0, &g), MPI_ERR_ARG);
    int nn, ne;
    CHECK_ERR_CLASS(MPI_Graphdims_get(MPI_COMM_WORLD, &nn, &ne), MPI_ERR_TOPOLOGY);
    return mtest_finish();
}
