// Two processes hand each other freshly written bytes at the same time, as the all-gather half of
// a 2-rank all-reduce does. Each round each process first writes its bytes (memcpy from a source
// buffer), then takes the peer's: either read from the peer's private buffer with process_vm_readv
// (cross-memory attach: one kernel copy, in chunks), or, the rings' way, written into a shared
// mapping and copied out of it with memcpy. Prints bytes received per second for both ways.
//
//   cc -O2 -o cma_vs_memcpy bench/cma_vs_memcpy.c && ./cma_vs_memcpy 1048576 262144
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Both processes arrive before either goes on (a spin barrier on a shared word per process).
static void barrier(volatile long *flags, int me, long round) {
  flags[me] = round;
  while (flags[1 - me] < round) {
  }
}

int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? strtoul(argv[1], 0, 10) : 1 << 20;
  size_t chunk = argc > 2 ? strtoul(argv[2], 0, 10) : 256 << 10;
  int reps = (int)((8UL << 30) / bytes / 4 + 5);
  volatile long *control = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  char *shared = mmap(0, 2 * bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pid_t child = fork();
  int me = child == 0;
  char *mine = aligned_alloc(4096, bytes);
  char *into = aligned_alloc(4096, bytes);
  memset(mine, me + 1, bytes);
  memset(into, 0, bytes);
  memset(shared + me * bytes, 0, bytes);
  control[2 + me] = (long)mine;
  control[4 + me] = getpid();
  barrier(control, me, 1);
  char *theirs = (char *)control[3 - me];
  pid_t peer = (pid_t)control[5 - me];

  char *source = aligned_alloc(4096, bytes);
  memset(source, me + 3, bytes);
  barrier(control, me, 2);
  double start = seconds();
  for (int r = 0; r < reps; r++) {
    memcpy(mine, source, bytes); // written just now: in this core's cache, as a reduce leaves it
    barrier(control, me, 6 + 4L * r);
    for (size_t at = 0; at < bytes; at += chunk) {
      size_t n = bytes - at < chunk ? bytes - at : chunk;
      struct iovec local = {into + at, n}, remote = {theirs + at, n};
      if (process_vm_readv(peer, &local, 1, &remote, 1, 0) != (ssize_t)n) {
        perror("process_vm_readv");
        return 1;
      }
    }
    barrier(control, me, 7 + 4L * r); // the peer may overwrite its buffer only after this
  }
  double cma = seconds() - start;

  long base = 8 + 4L * reps;
  barrier(control, me, base);
  start = seconds();
  for (int r = 0; r < reps; r++) {
    memcpy(shared + me * bytes, source, bytes); // written into the peer-visible mapping
    barrier(control, me, base + 1 + 2L * r);
    memcpy(into, shared + (1 - me) * bytes, bytes); // out of the peer's half
    barrier(control, me, base + 2 + 2L * r);
  }
  double copies = seconds() - start;

  printf("%s: %zu bytes, chunks of %zu: process_vm_readv %.2f GB/s, shared mapping %.2f GB/s"
         " (bytes received per second, writing them included)\n",
         me ? "child " : "parent", bytes, chunk, bytes * (double)reps / cma / 1e9,
         bytes * (double)reps / copies / 1e9);
  fflush(stdout);
  barrier(control, me, base + 3 + 2L * reps);
  if (!me) {
    waitpid(child, 0, 0);
  }
  return 0;
}
