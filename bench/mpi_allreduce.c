/*
 * The reference for `launcher.jar bench`: MPI_Allreduce of floats with MPI_SUM, in place, timed the
 * way the ddp4j bench times its all-reduce (same sizes, same iteration counts, the slowest rank's
 * mean). Prints one line per size: bytes count time_us algbw_GBps busbw_GBps.
 *
 *   mpicc -O2 -o mpi_allreduce mpi_allreduce.c
 *   mpirun --allow-run-as-root --oversubscribe -np 2 ./mpi_allreduce [min_bytes] [max_bytes]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Same rule as dev.ddp4j.launcher.bench.BenchSizes.iterations. */
static int iterations(long bytes) {
  long it = (1L << 30) / (bytes > 0 ? bytes : 1);
  if (it > 20000) it = 20000;
  if (it < 5) it = 5;
  return (int)it;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  long minBytes = argc > 1 ? atol(argv[1]) : 8;
  long maxBytes = argc > 2 ? atol(argv[2]) : 256L << 20;
  float *buf = malloc(maxBytes);
  if (rank == 0) printf("# bytes count time_us algbw_GBps busbw_GBps\n");
  for (long bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
    long count = bytes / 4;
    for (long i = 0; i < count; i++) buf[i] = 1.0f;
    int iters = iterations(bytes);
    for (int w = 0; w < 5; w++) MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double mine = (MPI_Wtime() - t0) / iters, slowest;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double algbw = bytes / slowest / 1e9;
      printf("%ld %ld %.2f %.3f %.3f\n", bytes, count, slowest * 1e6, algbw, algbw * 2.0 * (n - 1) / n);
      fflush(stdout);
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
