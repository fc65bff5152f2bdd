// NCCL's all_reduce, broadcast, all_gather and reduce_scatter timed the way `launcher.jar bench --backend cuda`
// times ddp4j's: fp32 (sum), one process driving every GPU, 5 warm-up calls, then max(5, min(20000, 1 GiB / bytes))
// calls queued back to back and the wall clock until every stream finished. Sizes and bus bandwidth follow
// nccl-tests: bytes is the per-rank buffer for all_reduce and broadcast, the whole gathered / scattered buffer for
// all_gather and reduce_scatter; busbw = algbw x 2(n-1)/n, x 1, x (n-1)/n, x (n-1)/n. all_reduce and broadcast run
// in place, the other two out of place, as the launcher's bench does.
// Usage: nccl_collectives [MIN_BYTES MAX_BYTES FACTOR [OPS]]   (default 16 1073741824 4 allreduce,broadcast,...)
#include <nccl.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
#define NK(x) do { ncclResult_t r = (x); if (r != ncclSuccess) { printf("NCCL %s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r)); exit(1); } } while (0)
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
__global__ void fill(float* p, size_t n, float v) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = v; }

static int n;
static ncclComm_t comms[16];
static cudaStream_t st[16];
static float *in[16], *out[16];

static void call(const char* op, size_t count) {  // count: elements of `bytes`
  NK(ncclGroupStart());
  for (int i = 0; i < n; i++) {
    if (!strcmp(op, "allreduce")) NK(ncclAllReduce(in[i], in[i], count, ncclFloat, ncclSum, comms[i], st[i]));
    else if (!strcmp(op, "broadcast")) NK(ncclBroadcast(in[i], in[i], count, ncclFloat, 0, comms[i], st[i]));
    else if (!strcmp(op, "allgather")) NK(ncclAllGather(in[i], out[i], count / n, ncclFloat, comms[i], st[i]));
    else NK(ncclReduceScatter(in[i], out[i], count / n, ncclFloat, ncclSum, comms[i], st[i]));
  }
  NK(ncclGroupEnd());
}

int main(int argc, char** argv) {
  size_t minb = argc > 1 ? strtoull(argv[1], 0, 10) : 16, maxb = argc > 2 ? strtoull(argv[2], 0, 10) : (size_t)1 << 30;
  size_t factor = argc > 3 ? strtoull(argv[3], 0, 10) : 4;
  char ops[256];
  strncpy(ops, argc > 4 ? argv[4] : "allreduce,broadcast,allgather,reducescatter", sizeof ops - 1);
  CK(cudaGetDeviceCount(&n));
  int devs[16];
  for (int i = 0; i < n; i++) devs[i] = i;
  NK(ncclCommInitAll(comms, n, devs));
  for (int i = 0; i < n; i++) {
    CK(cudaSetDevice(i)); CK(cudaStreamCreate(&st[i])); CK(cudaMalloc(&in[i], maxb)); CK(cudaMalloc(&out[i], maxb));
  }
  int v; NK(ncclGetVersion(&v));
  for (char* op = strtok(ops, ","); op; op = strtok(0, ",")) {
    double bus = !strcmp(op, "allreduce") ? 2.0 * (n - 1) / n : !strcmp(op, "broadcast") ? 1.0 : (double)(n - 1) / n;
    printf("# NCCL %d %s float32%s, %d GPUs, one process\n%12s %12s %10s %10s %10s\n", v, op,
           !strcmp(op, "allreduce") || !strcmp(op, "reducescatter") ? " sum" : "", n, "bytes", "count", "time_us", "algbw", "busbw");
    size_t prev = 0;
    for (size_t b = minb; b <= maxb; b *= factor) {
      size_t count = (b / 4 / n > 0 ? b / 4 / n : 1) * n;
      if (count == prev) continue;
      prev = count;
      size_t bytes = count * 4;
      for (int i = 0; i < n; i++) { CK(cudaSetDevice(i)); fill<<<1024, 256, 0, st[i]>>>(in[i], count, 1.0f); }
      long iters = (long)((1ull << 30) / bytes);
      iters = iters < 5 ? 5 : iters > 20000 ? 20000 : iters;
      for (int w = 0; w < 5; w++) call(op, count);
      for (int i = 0; i < n; i++) { CK(cudaSetDevice(i)); CK(cudaStreamSynchronize(st[i])); }
      double t0 = now();
      for (long k = 0; k < iters; k++) call(op, count);
      for (int i = 0; i < n; i++) { CK(cudaSetDevice(i)); CK(cudaStreamSynchronize(st[i])); }
      double t = (now() - t0) / iters;
      double alg = bytes / t / 1e9;
      printf("%12zu %12zu %10.2f %10.2f %10.2f\n", bytes, count, t * 1e6, alg, alg * bus);
      fflush(stdout);
    }
  }
  for (int i = 0; i < n; i++) ncclCommDestroy(comms[i]);
  return 0;
}
