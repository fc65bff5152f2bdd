/*
 * A stand-in for libnccl.so.2 for ddp4j's CI, which has no GPU and no NCCL: it exports the entry points the nccl
 * backend binds, with just the behaviour its tests need (this is not NCCL). NcclLibraryProcessTest builds it with
 * `gcc -shared -fPIC` where gcc exists.
 *
 * Environment: FAKE_NCCL_VERSION   the code ncclGetVersion reports (default 22803, i.e. 2.28.3)
 *              FAKE_NCCL_NEVER_READY=1  the communicator stays ncclInProgress forever
 *              FAKE_NCCL_LOG       a file each call appends one line to
 *              FAKE_NCCL_FAIL_RANK=R   the communicators of rank R report ncclSystemError while connecting
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { char internal[128]; } fake_unique_id;

/* The 2.14 layout of ncclConfig_t that ddp4j passes (NcclConfig.java). */
typedef struct {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int blocking;
  int cga_cluster_size;
  int min_ctas;
  int max_ctas;
  const char *net_name;
} fake_config;

struct fake_comm { int nranks, rank, polls; };

static void note(const char *fmt, ...) {
  const char *path = getenv("FAKE_NCCL_LOG");
  if (!path) return;
  FILE *f = fopen(path, "a");
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(f, "pid %d: ", (int)getpid());
  vfprintf(f, fmt, ap);
  fputc('\n', f);
  va_end(ap);
  fclose(f);
}

int ncclGetVersion(int *version) {
  const char *v = getenv("FAKE_NCCL_VERSION");
  *version = v ? atoi(v) : 22803;
  return 0;
}

/* Bytes 0-3: the maker's pid (so a rank can tell it got rank 0's id); the rest: i ^ 0x5a. */
int ncclGetUniqueId(fake_unique_id *id) {
  int pid = (int)getpid();
  for (int i = 0; i < 128; i++) id->internal[i] = (char)(i ^ 0x5a);
  memcpy(id->internal, &pid, sizeof pid);
  note("getUniqueId");
  return 0;
}

int ncclCommInitRankConfig(void **comm, int nranks, fake_unique_id id, int rank, fake_config *config) {
  int maker;
  memcpy(&maker, id.internal, sizeof maker);
  for (int i = 4; i < 128; i++) {
    if (id.internal[i] != (char)(i ^ 0x5a)) {
      note("init: id byte %d is wrong", i);
      *comm = NULL;
      return 4; /* ncclInvalidArgument */
    }
  }
  if (config->size != sizeof(fake_config) || config->magic != 0xcafebeef || config->version != 21400 ||
      config->blocking != 0 || config->net_name != NULL) {
    note("init: config size %zu magic %x version %u blocking %d", config->size, config->magic, config->version,
         config->blocking);
    *comm = NULL;
    return 4;
  }
  struct fake_comm *c = calloc(1, sizeof *c);
  c->nranks = nranks;
  c->rank = rank;
  *comm = c;
  note("init nranks %d rank %d id from pid %d", nranks, rank, maker);
  return 7; /* ncclInProgress: the caller polls ncclCommGetAsyncError */
}

int ncclCommGetAsyncError(void *comm, int *result) {
  struct fake_comm *c = comm;
  const char *fail = getenv("FAKE_NCCL_FAIL_RANK");
  if (fail && atoi(fail) == c->rank) {
    *result = 2; /* ncclSystemError */
    return 0;
  }
  *result = getenv("FAKE_NCCL_NEVER_READY") || c->polls++ < 3 ? 7 : 0;
  return 0;
}

int ncclCommAbort(void *comm) {
  note("abort rank %d", ((struct fake_comm *)comm)->rank);
  free(comm);
  return 0;
}

int ncclCommFinalize(void *comm) { return 0; }

int ncclCommDestroy(void *comm) {
  note("destroy rank %d", ((struct fake_comm *)comm)->rank);
  free(comm);
  return 0;
}

const char *ncclGetErrorString(int result) { return "fake NCCL error string"; }

const char *ncclGetLastError(void *comm) { return "fake NCCL last error"; }

/* Collectives: bound by the backend, never run here (no GPU). */
int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *comm, void *stream) { return 5; }
int ncclBroadcast(const void *s, void *r, size_t n, int t, int root, void *comm, void *stream) { return 5; }
int ncclAllGather(const void *s, void *r, size_t n, int t, void *comm, void *stream) { return 5; }
int ncclReduceScatter(const void *s, void *r, size_t n, int t, int op, void *comm, void *stream) { return 5; }
int ncclReduce(const void *s, void *r, size_t n, int t, int op, int root, void *comm, void *stream) { return 5; }
int ncclSend(const void *s, size_t n, int t, int peer, void *comm, void *stream) { return 5; }
int ncclRecv(void *r, size_t n, int t, int peer, void *comm, void *stream) { return 5; }
int ncclGroupStart(void) { return 0; }
int ncclGroupEnd(void) { return 0; }
