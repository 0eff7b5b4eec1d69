/* Matching-queue depth: 8-byte ping-pong latency between ranks 0 and 1 while
 * rank 1's posted-receive queue or unexpected-message queue holds D entries
 * that never match the ping-pong. Follows the methodology of "MPI Tag Matching
 * Performance on ConnectX and ARM" (queue depth, binning collision rate,
 * transient and permanent wildcards).
 *
 * The ping-pong: rank 0 MPI_Send(8 bytes, tag 1) then MPI_Recv; rank 1
 * MPI_Recv(source 0, tag 1) then MPI_Send back; COMM_WORLD. Reported value is
 * the one-way latency, half the round trip, in microseconds (median of
 * trials, as in bench_common.h).
 *
 * Variants (one output line each: match VARIANT D MEDIAN_US MIN_US MAX_US ITERS):
 *   posted       rank 1 pre-posts D MPI_Irecv(source 0, tag t, COMM_WORLD) with
 *                consecutive tags t = 3, 4, ..., D+2 before timing; nothing
 *                sends them, so every ping's receive is posted behind D
 *                receives. With STMPI's hash, one in 1021 of these tags lands
 *                in the ping-pong's bin (32 of 32768).
 *   posted-cP    as posted, but exactly floor(D*P/100) of the D tags, spread
 *                evenly, are chosen to land in the ping-pong's bin of STMPI's
 *                hash (see stmpi_bin below) and the others in other bins.
 *                For implementations with linear queues these are simply D
 *                other tags.
 *   unexp        rank 0 first sends D 8-byte messages with tags 3 .. D+2 that
 *                rank 1 does not receive before the timing ends: each ping's
 *                MPI_Recv searches an unexpected queue of D messages. Rank 1
 *                receives them (and checks them) afterwards.
 *   unexp-cP     as unexp with the tag choice of posted-cP.
 *   wild-transient  as posted, plus: after the D receives, rank 1 posts 4
 *                MPI_Irecv(source 0, MPI_ANY_TAG) and rank 0 sends 4 messages
 *                (tag 2) that match them; all before timing. Shows whether
 *                having seen wildcards leaves matching slower afterwards.
 *   wild-perm-dup   as posted, plus one MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG)
 *                on a duplicate of COMM_WORLD, posted before the D receives
 *                and kept posted through the timing (nothing is ever sent on
 *                the duplicate). A fully wildcard receive that can never
 *                match the ping-pong (other communicator), but is older than
 *                every ping-pong receive.
 *   wild-perm-anytag  as posted, plus one MPI_Irecv(source 1 = rank 1 itself,
 *                MPI_ANY_TAG, COMM_WORLD) kept posted: a wildcard-tag receive
 *                on the ping-pong's own communicator that never matches
 *                (rank 1 never sends to itself).
 *   wild-perm-anysrc  as posted, plus one MPI_Irecv(MPI_ANY_SOURCE, tag 0,
 *                COMM_WORLD) kept posted (tag 0 is never sent).
 * At the end of each variant rank 1 cancels every pre-posted receive
 * (MPI_Cancel + MPI_Waitall) and checks with MPI_Test_cancelled that none was
 * matched; the ping-pong's data is checked after every trial.
 *
 * Usage: match_depth [-q] [-t TRIALS] [-m TRIAL_MS] [-d DEPTHS] [-c RATES] [-v FAMILIES]
 *   DEPTHS default 0,1,1024,32768; RATES (percent) default 0,1,10,100;
 *   FAMILIES: comma list of posted,unexp,coll,wild (default all).
 */
#include "bench_common.h"

#define TAG_WILD 0 /* wild-perm-anysrc's tag: never sent */
#define TAG_PING 1
#define TAG_TRANSIENT 2
#define TAG_FIRST_OTHER 3
#define MSG_BYTES 8
#define TRANSIENT_WILDCARDS 4
#define MAX_LIST 32

/* STMPI's matching bin of (context id, source, tag): the three packed into
 * 64 bits as 16 | 20 | 28 bits, the two 32-bit halves XORed, modulo 1021. */
static unsigned stmpi_bin(unsigned context_id, int source, int tag) {
  const uint64_t key = ((uint64_t)(context_id & 0xffffu) << 48) |
                       ((uint64_t)((unsigned)source & 0xfffffu) << 28) |
                       (uint64_t)((unsigned)tag & 0xfffffffu);
  return ((uint32_t)key ^ (uint32_t)(key >> 32)) % 1021u;
}
#define WORLD_CONTEXT_ID 0u

enum wild { W_NONE, W_TRANSIENT, W_PERM_DUP, W_PERM_ANYTAG, W_PERM_ANYSRC };

struct variant {
  char name[40];
  int unexpected; /* 0: posted-receive queue, 1: unexpected queue */
  int rate;       /* collision percent, or -1 for consecutive tags */
  enum wild wild;
};

struct md_ctx {
  int rank;
  char sbuf[MSG_BYTES];
  char rbuf[MSG_BYTES];
};

static double kernel_ping(void *c, long iters) {
  struct md_ctx *p = (struct md_ctx *)c;
  const double t0 = MPI_Wtime();
  if (p->rank == 0) {
    for (long i = 0; i < iters; ++i) {
      MPI_Send(p->sbuf, MSG_BYTES, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
      MPI_Recv(p->rbuf, MSG_BYTES, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (p->rank == 1) {
    for (long i = 0; i < iters; ++i) {
      MPI_Recv(p->rbuf, MSG_BYTES, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(p->rbuf, MSG_BYTES, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

static int reserved_tag(int t) { return t == TAG_WILD || t == TAG_PING || t == TAG_TRANSIENT; }

/* Next tag after t (wrapping to TAG_FIRST_OTHER past tag_ub) that is not
 * reserved and whose bin equality with the ping-pong's bin is `want_same`. */
static int next_tag(int t, int tag_ub, int want_same) {
  const unsigned ping_bin = stmpi_bin(WORLD_CONTEXT_ID, 0, TAG_PING);
  for (long step = 0; step < 4L * tag_ub + 8; ++step) {
    t = t >= tag_ub ? TAG_FIRST_OTHER : t + 1;
    if (reserved_tag(t)) continue;
    if ((stmpi_bin(WORLD_CONTEXT_ID, 0, t) == ping_bin) == want_same) return t;
  }
  bench_fail("no tag below MPI_TAG_UB=%d fits", tag_ub);
  return -1;
}

/* Fills tags[0..d) for a variant; returns how many share the ping-pong's bin. */
static long make_tags(int *tags, long d, int rate, int tag_ub) {
  const unsigned ping_bin = stmpi_bin(WORLD_CONTEXT_ID, 0, TAG_PING);
  long same = 0;
  if (rate < 0) {
    int t = TAG_FIRST_OTHER - 1;
    for (long i = 0; i < d; ++i) {
      do t = t >= tag_ub ? TAG_FIRST_OTHER : t + 1;
      while (reserved_tag(t));
      tags[i] = t;
    }
  } else {
    /* Colliding tags step by 1021 (TAG_PING + k * 1021), spread over the
     * sequence so that entry i collides when floor((i+1)P/100) > floor(iP/100). */
    int t_same = TAG_PING, t_other = TAG_FIRST_OTHER - 1;
    for (long i = 0; i < d; ++i) {
      const int collide = ((i + 1) * rate) / 100 > (i * rate) / 100;
      if (collide) {
        if ((long)t_same + 1021 <= tag_ub) t_same += 1021;
        else t_same = next_tag(TAG_FIRST_OTHER - 1, tag_ub, 1);
        tags[i] = t_same;
      } else {
        t_other = next_tag(t_other, tag_ub, 0);
        tags[i] = t_other;
      }
    }
  }
  for (long i = 0; i < d; ++i) same += stmpi_bin(WORLD_CONTEXT_ID, 0, tags[i]) == ping_bin;
  return same;
}

static const char *wild_name(enum wild w) {
  switch (w) {
    case W_TRANSIENT: return "wild-transient";
    case W_PERM_DUP: return "wild-perm-dup";
    case W_PERM_ANYTAG: return "wild-perm-anytag";
    case W_PERM_ANYSRC: return "wild-perm-anysrc";
    default: return "";
  }
}

struct state {
  int rank;
  int tag_ub;
  MPI_Comm dup;
  int *tags;
  char *dbufs; /* D receive (or send) slots of MSG_BYTES */
  MPI_Request *dreqs;
  long max_depth;
};

static void run_variant(struct state *s, const struct variant *v, long d,
                        const struct bench_opts *o) {
  struct md_ctx p;
  MPI_Request wreq = MPI_REQUEST_NULL;
  char wbuf[MSG_BYTES];
  const long same = make_tags(s->tags, d, v->rate, s->tag_ub);

  p.rank = s->rank;
  bench_fill(p.sbuf, MSG_BYTES, 8);
  memset(p.rbuf, 0, MSG_BYTES);

  /* Set-up of the queues. */
  if (s->rank == 1 && !v->unexpected) {
    if (v->wild == W_PERM_DUP)
      MPI_Irecv(wbuf, MSG_BYTES, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, s->dup, &wreq);
    else if (v->wild == W_PERM_ANYTAG)
      MPI_Irecv(wbuf, MSG_BYTES, MPI_BYTE, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &wreq);
    else if (v->wild == W_PERM_ANYSRC)
      MPI_Irecv(wbuf, MSG_BYTES, MPI_BYTE, MPI_ANY_SOURCE, TAG_WILD, MPI_COMM_WORLD, &wreq);
    for (long i = 0; i < d; ++i)
      bench_check(MPI_Irecv(s->dbufs + i * MSG_BYTES, MSG_BYTES, MPI_BYTE, 0, s->tags[i],
                            MPI_COMM_WORLD, &s->dreqs[i]),
                  "MPI_Irecv");
  }
  if (v->unexpected && s->rank == 0) {
    for (long i = 0; i < d; ++i)
      bench_check(
          MPI_Isend(p.sbuf, MSG_BYTES, MPI_BYTE, 1, s->tags[i], MPI_COMM_WORLD, &s->dreqs[i]),
          "MPI_Isend");
    MPI_Waitall((int)d, s->dreqs, MPI_STATUSES_IGNORE);
  }
  if (v->wild == W_TRANSIENT) {
    MPI_Request treq[TRANSIENT_WILDCARDS];
    MPI_Status tst[TRANSIENT_WILDCARDS];
    char tbuf[TRANSIENT_WILDCARDS][MSG_BYTES];
    if (s->rank == 1)
      for (int k = 0; k < TRANSIENT_WILDCARDS; ++k)
        MPI_Irecv(tbuf[k], MSG_BYTES, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &treq[k]);
    MPI_Barrier(MPI_COMM_WORLD); /* the wildcards are posted before the messages leave */
    if (s->rank == 0) {
      for (int k = 0; k < TRANSIENT_WILDCARDS; ++k)
        MPI_Isend(p.sbuf, MSG_BYTES, MPI_BYTE, 1, TAG_TRANSIENT, MPI_COMM_WORLD, &treq[k]);
      MPI_Waitall(TRANSIENT_WILDCARDS, treq, MPI_STATUSES_IGNORE);
    } else if (s->rank == 1) {
      MPI_Waitall(TRANSIENT_WILDCARDS, treq, tst);
      for (int k = 0; k < TRANSIENT_WILDCARDS; ++k)
        if (tst[k].MPI_TAG != TAG_TRANSIENT || tst[k].MPI_SOURCE != 0)
          bench_fail("%s D=%ld: wildcard receive %d matched tag %d source %d", v->name, d, k,
                     tst[k].MPI_TAG, tst[k].MPI_SOURCE);
    }
  }
  /* Rank 0's eager messages precede the barrier's, so they have reached rank
   * 1's queue when it leaves the barrier. */
  MPI_Barrier(MPI_COMM_WORLD);

  struct bench_result r = measure(kernel_ping, &p, o);
  if (s->rank == 0) {
    long bad = bench_verify(p.rbuf, MSG_BYTES, 8);
    if (bad >= 0) bench_fail("%s D=%ld: ping-pong echo differs at byte %ld", v->name, d, bad);
  } else if (s->rank == 1) {
    long bad = bench_verify(p.rbuf, MSG_BYTES, 8);
    if (bad >= 0) bench_fail("%s D=%ld: ping differs at byte %ld", v->name, d, bad);
  }

  /* Clean-up. */
  if (s->rank == 1 && !v->unexpected) {
    for (long i = 0; i < d; ++i) bench_check(MPI_Cancel(&s->dreqs[i]), "MPI_Cancel");
    if (wreq != MPI_REQUEST_NULL) bench_check(MPI_Cancel(&wreq), "MPI_Cancel");
    for (long i = 0; i < d; ++i) {
      MPI_Status st;
      int cancelled = 0;
      bench_check(MPI_Wait(&s->dreqs[i], &st), "MPI_Wait");
      MPI_Test_cancelled(&st, &cancelled);
      if (!cancelled)
        bench_fail("%s D=%ld: pre-posted receive %ld (tag %d) was matched (source %d tag %d)",
                   v->name, d, i, s->tags[i], st.MPI_SOURCE, st.MPI_TAG);
    }
    if (wreq != MPI_REQUEST_NULL) {
      MPI_Status st;
      int cancelled = 0;
      bench_check(MPI_Wait(&wreq, &st), "MPI_Wait");
      MPI_Test_cancelled(&st, &cancelled);
      if (!cancelled)
        bench_fail("%s D=%ld: the permanent wildcard receive was matched (source %d tag %d)",
                   v->name, d, st.MPI_SOURCE, st.MPI_TAG);
    }
  }
  if (v->unexpected && s->rank == 1) {
    for (long i = 0; i < d; ++i) {
      MPI_Status st;
      int count = -1;
      char buf[MSG_BYTES];
      bench_check(MPI_Recv(buf, MSG_BYTES, MPI_BYTE, 0, s->tags[i], MPI_COMM_WORLD, &st),
                  "MPI_Recv");
      MPI_Get_count(&st, MPI_BYTE, &count);
      if (count != MSG_BYTES || st.MPI_TAG != s->tags[i] || bench_verify(buf, MSG_BYTES, 8) >= 0)
        bench_fail("%s D=%ld: queued message %ld (tag %d) came back wrong (count %d tag %d)",
                   v->name, d, i, s->tags[i], count, st.MPI_TAG);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);

  if (s->rank == 0) {
    printf("# %s D=%ld: %ld of the %ld queued tags share the ping-pong's bin in STMPI's hash\n",
           v->name, d, same, d);
    printf("match %s %ld %.3f %.3f %.3f %ld\n", v->name, d, r.median * 0.5e6, r.min * 0.5e6,
           r.max * 0.5e6, r.iters);
    fflush(stdout);
  }
}

int main(int argc, char **argv) {
  long depths[MAX_LIST] = {0, 1, 1024, 32768}, rates[MAX_LIST] = {0, 1, 10, 100};
  int ndepths = 4, nrates = 4, nranks;
  int fam_posted = 1, fam_unexp = 1, fam_coll = 1, fam_wild = 1;
  struct bench_opts o;
  struct state s;
  int real_tag_ub;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  bench_default_opts(&o);
  for (int i = 1; i < argc; ++i) {
    if (bench_common_arg(&o, argc, argv, &i)) continue;
    if (strcmp(argv[i], "-d") == 0 && i + 1 < argc) {
      ndepths = bench_parse_list(argv[++i], depths, MAX_LIST);
    } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
      nrates = bench_parse_list(argv[++i], rates, MAX_LIST);
    } else if (strcmp(argv[i], "-v") == 0 && i + 1 < argc) {
      const char *f = argv[++i];
      fam_posted = strstr(f, "posted") != NULL;
      fam_unexp = strstr(f, "unexp") != NULL;
      fam_coll = strstr(f, "coll") != NULL;
      fam_wild = strstr(f, "wild") != NULL;
    } else {
      bench_fail("unknown argument '%s' (see the comment at the top of match_depth.c)", argv[i]);
    }
  }
  if (nranks != 2) bench_fail("run with exactly 2 ranks (got %d)", nranks);
  for (int i = 0; i < nrates; ++i)
    if (rates[i] < 0 || rates[i] > 100) bench_fail("collision rates are percentages 0..100");

  {
    int *ub = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    real_tag_ub = flag && ub ? *ub : 32767;
    s.tag_ub = real_tag_ub > 0x0fffffff ? 0x0fffffff : real_tag_ub; /* STMPI's 28-bit tags */
  }
  s.max_depth = 0;
  for (int i = 0; i < ndepths; ++i) {
    if (depths[i] < 0 || depths[i] > 1L << 24) bench_fail("depths must be 0..2^24");
    if (depths[i] > s.max_depth) s.max_depth = depths[i];
  }
  s.tags = (int *)malloc(sizeof(int) * (size_t)(s.max_depth + 1));
  s.dreqs = (MPI_Request *)malloc(sizeof(MPI_Request) * (size_t)(s.max_depth + 1));
  s.dbufs = (char *)bench_alloc((size_t)(s.max_depth + 1) * MSG_BYTES);
  MPI_Comm_dup(MPI_COMM_WORLD, &s.dup);

  if (s.rank == 0) {
    bench_print_header("match_depth", &o);
    printf(
        "# match_depth: MPI_TAG_UB %d, tags used up to %d; ping-pong tag %d is in STMPI bin %u\n",
        real_tag_ub, s.tag_ub, TAG_PING, stmpi_bin(WORLD_CONTEXT_ID, 0, TAG_PING));
    printf(
        "# match_depth: match VARIANT DEPTH median_us min_us max_us iters (8-byte one-way "
        "latency)\n");
    fflush(stdout);
  }

  struct variant v;
  for (int q = 0; q < 2; ++q) {
    const int want = q == 0 ? fam_posted : fam_unexp;
    if (!want) continue;
    for (int di = 0; di < ndepths; ++di) {
      memset(&v, 0, sizeof v);
      v.unexpected = q;
      v.rate = -1;
      snprintf(v.name, sizeof v.name, "%s", q ? "unexp" : "posted");
      run_variant(&s, &v, depths[di], &o);
    }
    if (!fam_coll) continue;
    for (int ci = 0; ci < nrates; ++ci) {
      for (int di = 0; di < ndepths; ++di) {
        if (depths[di] == 0) continue; /* nothing to collide with */
        memset(&v, 0, sizeof v);
        v.unexpected = q;
        v.rate = (int)rates[ci];
        snprintf(v.name, sizeof v.name, "%s-c%ld", q ? "unexp" : "posted", rates[ci]);
        run_variant(&s, &v, depths[di], &o);
      }
    }
  }
  if (fam_wild) {
    static const enum wild kinds[] = {W_TRANSIENT, W_PERM_DUP, W_PERM_ANYTAG, W_PERM_ANYSRC};
    for (int k = 0; k < 4; ++k) {
      for (int di = 0; di < ndepths; ++di) {
        memset(&v, 0, sizeof v);
        v.rate = -1;
        v.wild = kinds[k];
        snprintf(v.name, sizeof v.name, "%s", wild_name(kinds[k]));
        run_variant(&s, &v, depths[di], &o);
      }
    }
  }

  MPI_Comm_free(&s.dup);
  MPI_Barrier(MPI_COMM_WORLD);
  if (s.rank == 0) printf("# match_depth: done\n");
  fflush(stdout); /* seen by drivers that stop a run hung in MPI_Finalize */
  free(s.tags);
  free(s.dreqs);
  free(s.dbufs);
  MPI_Finalize();
  return 0;
}
