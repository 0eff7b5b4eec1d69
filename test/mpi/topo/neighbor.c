/* Neighborhood collectives (blocking, nonblocking, persistent) on Cartesian (1-d periodic, 2-d with
 * one periodic dimension, 1-d of size 2 periodic where both neighbors are
 * one process), graph and distributed-graph communicators:
 * Neighbor_allgather(v), Neighbor_alltoall(v,w) and Neighbor_alltoall_c, their
 * MPI_I* forms (compared with the blocking results) and persistent
 * Neighbor_alltoall_init / Neighbor_allgather_init started several times.
 * Every received block is compared with what its sender must have sent,
 * computed here from the sender's neighbor lists. */
#include <string.h>
#include "mtest.h"

#define MAXN 64
static int rank, size;

/* Neighbor lists of process p in communicator `comm`'s topology, computed
 * through the topology queries (all processes can be asked). */
static void lists_of(MPI_Comm comm, int p, int *nin, int *in, int *nout, int *out)
{
    int status;
    MPI_Topo_test(comm, &status);
    if (status == MPI_CART) {
        int nd, dims[8], per[8], c[8];
        MPI_Cartdim_get(comm, &nd);
        MPI_Cart_get(comm, 8, dims, per, c);
        MPI_Cart_coords(comm, p, 8, c);
        *nin = *nout = 2 * nd;
        for (int d = 0; d < nd; d++)
            for (int s = 0; s < 2; s++) {
                int cc[8];
                memcpy(cc, c, sizeof cc);
                int pos = cc[d] + (s ? 1 : -1), r;
                if (pos < 0 || pos >= dims[d]) {
                    if (!per[d]) {
                        in[2 * d + s] = out[2 * d + s] = MPI_PROC_NULL;
                        continue;
                    }
                    pos = (pos + dims[d]) % dims[d];
                }
                cc[d] = pos;
                MPI_Cart_rank(comm, cc, &r);
                in[2 * d + s] = out[2 * d + s] = r;
            }
    } else if (status == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, p, nin);
        MPI_Graph_neighbors(comm, p, MAXN, in);
        *nout = *nin;
        memcpy(out, in, sizeof(int) * *nin);
    } else { /* the adjacent ring of main(): sources p-1, p-2, p+3; dests p+1, p+2, p-3 */
        *nin = *nout = 3;
        in[0] = (p - 1 + size) % size;
        in[1] = (p - 2 + 2 * size) % size;
        in[2] = (p + 3) % size;
        out[0] = (p + 1) % size;
        out[1] = (p + 2) % size;
        out[2] = (p - 3 + 3 * size) % size;
    }
}

/* Which send slot of `sender` delivers into my receive slot `slot`. */
static int sender_slot(MPI_Comm comm, int slot, const int *in)
{
    int status;
    MPI_Topo_test(comm, &status);
    if (status == MPI_CART)
        return slot ^ 1;
    int s = in[slot], occurrence = 0;
    for (int i = 0; i < slot; i++)
        occurrence += in[i] == s;
    int snin, sin[MAXN], snout, sout[MAXN];
    lists_of(comm, s, &snin, sin, &snout, sout);
    for (int j = 0; j < snout; j++)
        if (sout[j] == rank && occurrence-- == 0)
            return j;
    return -1;
}

static int count_for(int sender, int j) { return 1 + (sender + j) % 3; }
static int value(int sender, int j, int e) { return sender * 1000 + j * 10 + e; }

static void run(MPI_Comm comm, const char *name)
{
    int nin, in[MAXN], nout, out[MAXN];
    lists_of(comm, rank, &nin, in, &nout, out);
    int sbuf[MAXN * 4], rbuf[MAXN * 4];

    /* allgather: everyone sends {rank, rank+1} */
    int mine[2] = {rank, rank + 1};
    for (int i = 0; i < MAXN * 2; i++)
        rbuf[i] = -7;
    CHECK_SUCCESS(MPI_Neighbor_allgather(mine, 2, MPI_INT, rbuf, 2, MPI_INT, comm));
    for (int i = 0; i < nin; i++) {
        int want0 = in[i] == MPI_PROC_NULL ? -7 : in[i],
            want1 = in[i] == MPI_PROC_NULL ? -7 : in[i] + 1;
        CHECK(rbuf[2 * i] == want0 && rbuf[2 * i + 1] == want1, "%s allgather slot %d: %d %d", name,
              i, rbuf[2 * i], rbuf[2 * i + 1]);
    }

    /* allgatherv: slot i lands at displs[i] = 3*(nin-1-i) (reversed), count 2 */
    int rc[MAXN], dis[MAXN];
    for (int i = 0; i < nin; i++) {
        rc[i] = 2;
        dis[i] = 3 * (nin - 1 - i);
    }
    for (int i = 0; i < MAXN * 4; i++)
        rbuf[i] = -7;
    CHECK_SUCCESS(MPI_Neighbor_allgatherv(mine, 2, MPI_INT, rbuf, rc, dis, MPI_INT, comm));
    for (int i = 0; i < nin; i++)
        if (in[i] != MPI_PROC_NULL)
            CHECK(rbuf[dis[i]] == in[i] && rbuf[dis[i] + 1] == in[i] + 1, "%s allgatherv slot %d",
                  name, i);

    /* alltoall: block j of 2 ints to destination j */
    for (int j = 0; j < nout; j++)
        for (int e = 0; e < 2; e++)
            sbuf[2 * j + e] = value(rank, j, e);
    for (int i = 0; i < MAXN * 4; i++)
        rbuf[i] = -7;
    CHECK_SUCCESS(MPI_Neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, comm));
    for (int i = 0; i < nin; i++) {
        if (in[i] == MPI_PROC_NULL)
            continue;
        int j = sender_slot(comm, i, in);
        for (int e = 0; e < 2; e++)
            CHECK(rbuf[2 * i + e] == value(in[i], j, e), "%s alltoall slot %d elem %d: %d, want %d",
                  name, i, e, rbuf[2 * i + e], value(in[i], j, e));
    }
    /* the large-count form */
    for (int i = 0; i < MAXN * 4; i++)
        rbuf[i] = -7;
    CHECK_SUCCESS(MPI_Neighbor_alltoall_c(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, comm));
    for (int i = 0; i < nin; i++)
        if (in[i] != MPI_PROC_NULL)
            CHECK(rbuf[2 * i] == value(in[i], sender_slot(comm, i, in), 0), "%s alltoall_c", name);

    /* alltoallv: block j has count_for(rank, j) ints, packed */
    int sc[MAXN], sd[MAXN], rcv[MAXN], rd[MAXN], off = 0;
    for (int j = 0; j < nout; j++) {
        sc[j] = count_for(rank, j);
        sd[j] = off;
        for (int e = 0; e < sc[j]; e++)
            sbuf[off + e] = value(rank, j, e);
        off += sc[j];
    }
    off = 0;
    for (int i = 0; i < nin; i++) {
        int j = in[i] == MPI_PROC_NULL ? 0 : sender_slot(comm, i, in);
        rcv[i] = in[i] == MPI_PROC_NULL ? 0 : count_for(in[i], j);
        rd[i] = off;
        off += rcv[i];
    }
    for (int i = 0; i < MAXN * 4; i++)
        rbuf[i] = -7;
    CHECK_SUCCESS(MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rcv, rd, MPI_INT, comm));
    for (int i = 0; i < nin; i++)
        for (int e = 0; e < rcv[i]; e++)
            CHECK(rbuf[rd[i] + e] == value(in[i], sender_slot(comm, i, in), e),
                  "%s alltoallv slot %d elem %d", name, i, e);

    /* alltoallw: same layout with byte displacements, MPI_INT per block */
    MPI_Aint sdb[MAXN], rdb[MAXN];
    MPI_Datatype st[MAXN], rt[MAXN];
    for (int j = 0; j < nout; j++) {
        sdb[j] = sd[j] * (MPI_Aint)sizeof(int);
        st[j] = MPI_INT;
    }
    for (int i = 0; i < nin; i++) {
        rdb[i] = rd[i] * (MPI_Aint)sizeof(int);
        rt[i] = MPI_INT;
    }
    for (int i = 0; i < MAXN * 4; i++)
        rbuf[i] = -7;
    CHECK_SUCCESS(MPI_Neighbor_alltoallw(sbuf, sc, sdb, st, rbuf, rcv, rdb, rt, comm));
    for (int i = 0; i < nin; i++)
        for (int e = 0; e < rcv[i]; e++)
            CHECK(rbuf[rd[i] + e] == value(in[i], sender_slot(comm, i, in), e),
                  "%s alltoallw slot %d elem %d", name, i, e);
    /* Nonblocking forms give the blocking results. */
    {
        int nb[MAXN * 4];
        MPI_Request req;
        for (int i = 0; i < MAXN * 4; i++)
            nb[i] = -7;
        CHECK_SUCCESS(MPI_Ineighbor_alltoallw(sbuf, sc, sdb, st, nb, rcv, rdb, rt, comm, &req));
        int flag = 0;
        while (!flag)
            CHECK_SUCCESS(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(memcmp(nb, rbuf, sizeof nb) == 0, "%s ineighbor_alltoallw differs", name);
        for (int i = 0; i < MAXN * 4; i++)
            nb[i] = rbuf[i] = -7;
        MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rcv, rd, MPI_INT, comm);
        CHECK_SUCCESS(
            MPI_Ineighbor_alltoallv(sbuf, sc, sd, MPI_INT, nb, rcv, rd, MPI_INT, comm, &req));
        CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(memcmp(nb, rbuf, sizeof nb) == 0, "%s ineighbor_alltoallv differs", name);
        for (int i = 0; i < MAXN * 4; i++)
            nb[i] = rbuf[i] = -7;
        MPI_Neighbor_allgatherv(mine, 2, MPI_INT, rbuf, rc, dis, MPI_INT, comm);
        CHECK_SUCCESS(MPI_Ineighbor_allgatherv(mine, 2, MPI_INT, nb, rc, dis, MPI_INT, comm, &req));
        CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(memcmp(nb, rbuf, sizeof nb) == 0, "%s ineighbor_allgatherv differs", name);
        for (int i = 0; i < MAXN * 4; i++)
            nb[i] = rbuf[i] = -7;
        MPI_Neighbor_allgather(mine, 2, MPI_INT, rbuf, 2, MPI_INT, comm);
        CHECK_SUCCESS(MPI_Ineighbor_allgather_c(mine, 2, MPI_INT, nb, 2, MPI_INT, comm, &req));
        CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(memcmp(nb, rbuf, sizeof nb) == 0, "%s ineighbor_allgather_c differs", name);
    }
    /* Persistent alltoall: built once, started three times with new data. */
    {
        MPI_Request req;
        for (int j = 0; j < nout; j++)
            sbuf[j] = 0;
        CHECK_SUCCESS(MPI_Neighbor_alltoall_init(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, comm,
                                                 MPI_INFO_NULL, &req));
        for (int epoch = 0; epoch < 3; epoch++) {
            for (int j = 0; j < nout; j++)
                sbuf[j] = value(rank, j, epoch);
            for (int i = 0; i < nin; i++)
                rbuf[i] = -7;
            CHECK_SUCCESS(MPI_Start(&req));
            CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < nin; i++)
                if (in[i] != MPI_PROC_NULL)
                    CHECK(rbuf[i] == value(in[i], sender_slot(comm, i, in), epoch),
                          "%s persistent alltoall epoch %d slot %d: %d", name, epoch, i, rbuf[i]);
        }
        CHECK_SUCCESS(MPI_Request_free(&req));
        /* and a nonblocking alltoall overlapping a persistent allgather */
        MPI_Request reqs[2];
        int ag[MAXN];
        CHECK_SUCCESS(MPI_Neighbor_allgather_init(mine, 1, MPI_INT, ag, 1, MPI_INT, comm,
                                                  MPI_INFO_NULL, &reqs[0]));
        CHECK_SUCCESS(MPI_Start(&reqs[0]));
        CHECK_SUCCESS(MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, comm, &reqs[1]));
        CHECK_SUCCESS(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        for (int i = 0; i < nin; i++)
            if (in[i] != MPI_PROC_NULL) {
                CHECK(ag[i] == in[i], "%s persistent allgather slot %d", name, i);
                CHECK(rbuf[i] == value(in[i], sender_slot(comm, i, in), 2), "%s ialltoall", name);
            }
        MPI_Request_free(&reqs[0]);
    }
    /* a bad datatype in the w form */
    if (nout > 0) {
        st[0] = MPI_DATATYPE_NULL;
        CHECK_ERR_CLASS(MPI_Neighbor_alltoallw(sbuf, sc, sdb, st, rbuf, rcv, rdb, rt, comm),
                        MPI_ERR_TYPE);
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm;
    int dims[2] = {size, 0}, per[2] = {1, 0};

    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &comm);
    run(comm, "cart-1d-periodic");
    MPI_Comm_free(&comm);

    dims[0] = dims[1] = 0;
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &comm);
    run(comm, "cart-2d");
    MPI_Comm_free(&comm);

    if (size >= 2) { /* periodic dimension of size 2: both neighbors are one process */
        int d2[2] = {2, size / 2}, p2[2] = {1, 1};
        MPI_Cart_create(MPI_COMM_WORLD, 2, d2, p2, 0, &comm);
        if (comm != MPI_COMM_NULL) {
            run(comm, "cart-2x");
            MPI_Comm_free(&comm);
        }
    }

    { /* ring graph plus hub (node 0 linked to everyone) */
        int index[MAXN], edges[MAXN * 4], ne = 0;
        /* symmetric, as neighborhood collectives on graphs require */
        for (int i = 0; i < size; i++) {
            if (size > 1)
                edges[ne++] = (i + 1) % size;
            if (size > 2)
                edges[ne++] = (i + size - 1) % size;
            if (i == 0)
                for (int j = 2; j < size - 1; j++)
                    edges[ne++] = j;
            else if (i != 1 && i != size - 1)
                edges[ne++] = 0;
            index[i] = ne;
        }
        MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &comm);
        run(comm, "graph");
        MPI_Comm_free(&comm);
    }

    { /* distributed graph, duplicate edges between a pair at small sizes */
        int in[3] = {(rank - 1 + size) % size, (rank - 2 + 2 * size) % size, (rank + 3) % size};
        int out[3] = {(rank + 1) % size, (rank + 2) % size, (rank - 3 + 3 * size) % size};
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, MPI_UNWEIGHTED, 3, out,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
        run(comm, "dist-graph");
        MPI_Comm_free(&comm);
    }

    /* No topology: MPI_ERR_TOPOLOGY */
    int x = 0, y[64];
    CHECK_ERR_CLASS(MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD),
                    MPI_ERR_TOPOLOGY);
    CHECK_ERR_CLASS(MPI_Neighbor_alltoall(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD),
                    MPI_ERR_TOPOLOGY);
    return mtest_finish();
}
