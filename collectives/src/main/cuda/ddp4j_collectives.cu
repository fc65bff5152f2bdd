// ddp4j reduce-scatter, all-gather and broadcast kernels: one process per GPU, pushes over NVLink into the peers'
// IPC scratch, flags in peer memory. They share the scratch, the flags and the launch sequence numbers with the
// all-reduce kernels of ddp4j_allreduce.cu (ScratchLayout.java draws the layout), so the two files must agree on
// FLAG_BYTES and the slots; the flag protocol and the reduction helpers are both files' ddp4j_device.cuh. Kept in
// their own module so that the all-reduce kernels' binary does not change with these.
//
// One pattern for the three ops ("push, then combine"), pipelined like the one-shot all-reduce: blocks
// [0, blocks) push step s of their slice to every peer's slot for this rank and then raise the step's flag in
// every rank's scratch (own included); blocks [blocks, 2 * blocks) wait for step s's flag of every rank and then
// combine what arrived into the output:
//
//   op              rank r pushes to peer q            consumer on rank r writes
//   reduce-scatter  input block q  (in + q * stride)    out = reduce(in block r, slot[p] for every peer p)
//   all-gather      its input                           out block p = slot[p]; out block r = input
//   broadcast       root only: the buffer               non-root: buffer = slot[root]
//
// Every rank raises and waits for every flag of every step even where it moves no data (broadcast), which is what
// keeps the two-halves argument of ddp4j_allreduce.cu true: a rank starts launch seq + 2 only after it saw every
// peer's flags of seq + 1, so no peer still reads the half that launch writes.
//
// Compile: scripts/build-kernels.sh collectives/src/main/cuda/ddp4j_collectives.cu
//          collectives/src/main/resources/dev/ddp4j/collectives/cuda
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define MAX_RANKS 8
#define MAX_BLOCKS 512
#define FLAG_BYTES (MAX_BLOCKS * MAX_RANKS * 8)
#define THREADS 512

// Kernel parameters, passed by value as 20 64-bit words (CollectiveLauncher fills them).
struct Params {
  const char* in;                 // this rank's input (device pointer in this process)
  char* out;                      // this rank's output
  unsigned long long count;       // elements per rank block in this launch (broadcast: of the buffer)
  unsigned long long seq;         // launch sequence number, shared with the all-reduce kernels
  unsigned long long rank;        // this rank
  unsigned long long nranks;      // ranks in the group, <= MAX_RANKS
  unsigned long long slotBytes;   // bytes of one sender slot (a multiple of 16)
  unsigned long long stepBytes;   // pipeline step per block (a multiple of 16)
  unsigned long long blocks;      // pusher blocks; the grid is twice that
  unsigned long long timeoutNs;   // a wait on a peer longer than this traps the kernel
  unsigned long long stride;      // elements between rank blocks: reduce-scatter's input, all-gather's output
  unsigned long long root;        // broadcast's root
  char* scratch[MAX_RANKS];       // every rank's scratch base as mapped in this process (own included)
};

#include "ddp4j_device.cuh"

enum { KIND_REDUCE_SCATTER = 0, KIND_ALL_GATHER = 1, KIND_BROADCAST = 2 };

// Whole block: wait until every rank's flag for block b in this rank's scratch reached `value`, own included.
__device__ __forceinline__ void waitAll(const Params& p, unsigned long long b, unsigned long long value) {
  waitPeers(p, b, value, true);
}

// out[k] = finish(fold in rank order of (r == me ? mine : slots[r])[k]).
template <typename T, int OP>
__device__ __forceinline__ void reduceRange(const Params& p, T* out, const T* mine, const T* const* slots,
                                            unsigned long long lo, unsigned long long hi, bool vec) {
  typedef typename Acc<T>::A A;
  const unsigned long long V = 16 / sizeof(T);
  const unsigned n = (unsigned)p.nranks, me = (unsigned)p.rank;
  unsigned long long i = lo;
  if (vec) {
    unsigned long long nv = (hi - lo) / V;
    for (unsigned long long k = threadIdx.x; k < nv; k += blockDim.x) {
      unsigned long long e = lo + k * V;
      A acc[16 / sizeof(T)];
      for (unsigned r = 0; r < n; r++) {
        uint4 raw = __ldcg(reinterpret_cast<const uint4*>((r == me ? mine : slots[r]) + e));
        const T* v = reinterpret_cast<const T*>(&raw);
#pragma unroll
        for (int j = 0; j < (int)(16 / sizeof(T)); j++) acc[j] = r == 0 ? toAcc<T>(v[j]) : combine<OP, A>(acc[j], toAcc<T>(v[j]));
      }
      uint4 res;
      T* rv = reinterpret_cast<T*>(&res);
#pragma unroll
      for (int j = 0; j < (int)(16 / sizeof(T)); j++) rv[j] = fromAcc<T>(finish<OP, A>(acc[j], n));
      *reinterpret_cast<uint4*>(out + e) = res;
    }
    i = lo + nv * V;
  }
  for (unsigned long long k = i + threadIdx.x; k < hi; k += blockDim.x) {
    A acc = toAcc<T>(me == 0 ? mine[k] : slots[0][k]);
    for (unsigned r = 1; r < n; r++) acc = combine<OP, A>(acc, toAcc<T>(r == me ? mine[k] : slots[r][k]));
    out[k] = fromAcc<T>(finish<OP, A>(acc, n));
  }
}

__device__ __forceinline__ unsigned long long roundUp(unsigned long long x, unsigned long long m) { return (x + m - 1) / m * m; }

template <typename T, int KIND, int OP>
__device__ void pushThenCombine(const Params& p) {
  const unsigned long long V = 16 / sizeof(T);
  const bool vec = ((reinterpret_cast<unsigned long long>(p.in) | reinterpret_cast<unsigned long long>(p.out) |
                     (p.stride * sizeof(T))) & 15) == 0;
  const bool pusher = blockIdx.x < p.blocks;
  const unsigned long long b = pusher ? blockIdx.x : blockIdx.x - p.blocks;
  const unsigned long long perSlice = roundUp((p.count + p.blocks - 1) / p.blocks, V);
  const unsigned long long lo = b * perSlice;
  const unsigned long long hi = min(p.count, lo + perSlice);
  const unsigned long long stepElems = p.stepBytes / sizeof(T);
  const unsigned long long steps = hi > lo ? (hi - lo + stepElems - 1) / stepElems : 0;
  const T* in = reinterpret_cast<const T*>(p.in);
  T* out = reinterpret_cast<T*>(p.out);
  const bool sends = KIND != KIND_BROADCAST || p.rank == p.root;
  if (pusher) {
    for (unsigned long long s = 0; s < steps; s++) {
      unsigned long long a = lo + s * stepElems, z = min(hi, a + stepElems);
      if (sends) {
        for (unsigned long long q = 0; q < p.nranks; q++) {
          if (q == p.rank) continue;
          const T* src = KIND == KIND_REDUCE_SCATTER ? in + q * p.stride : in;
          copyRange<T>(reinterpret_cast<T*>(slotOf(p, q, p.rank)), src, a, z, vec);
        }
      }
      signalPeers(p, b, (p.seq << 16) | (s + 1));
    }
    return;
  }
  const T* slots[MAX_RANKS];
  for (unsigned long long q = 0; q < p.nranks; q++) slots[q] = reinterpret_cast<const T*>(slotOf(p, p.rank, q));
  for (unsigned long long s = 0; s < steps; s++) {
    unsigned long long a = lo + s * stepElems, z = min(hi, a + stepElems);
    waitAll(p, b, (p.seq << 16) | (s + 1));
    if (KIND == KIND_REDUCE_SCATTER) {
      reduceRange<T, OP>(p, out, in + p.rank * p.stride, slots, a, z, vec);
    } else if (KIND == KIND_ALL_GATHER) {
      for (unsigned long long r = 0; r < p.nranks; r++) {
        const T* src = r == p.rank ? in : slots[r];
        T* dst = out + r * p.stride;
        if (src != dst) copyRange<T>(dst, src, a, z, vec);
      }
    } else if (p.rank != p.root) {
      copyRange<T>(out, slots[p.root], a, z, vec);
    }
  }
}

#define DEFINE_RS(TNAME, T, ONAME, OP)                                                                         \
  extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_reducescatter_##TNAME##_##ONAME(const Params p) { \
    pushThenCombine<T, KIND_REDUCE_SCATTER, OP>(p);                                                            \
  }
#define DEFINE_TYPE(TNAME, T)       \
  DEFINE_RS(TNAME, T, sum, OP_SUM)   \
  DEFINE_RS(TNAME, T, avg, OP_AVG)   \
  DEFINE_RS(TNAME, T, prod, OP_PROD) \
  DEFINE_RS(TNAME, T, min, OP_MIN)   \
  DEFINE_RS(TNAME, T, max, OP_MAX)

DEFINE_TYPE(float32, float)
DEFINE_TYPE(float64, double)
DEFINE_TYPE(float16, __half)
DEFINE_TYPE(bfloat16, __nv_bfloat16)
DEFINE_TYPE(int32, int32_t)
DEFINE_TYPE(int64, long long)
DEFINE_TYPE(int8, int8_t)
DEFINE_TYPE(uint8, uint8_t)

// All-gather and broadcast move bytes: count and stride are in bytes.
extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_allgather_bytes(const Params p) {
  pushThenCombine<uint8_t, KIND_ALL_GATHER, OP_SUM>(p);
}
extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_broadcast_bytes(const Params p) {
  pushThenCombine<uint8_t, KIND_BROADCAST, OP_SUM>(p);
}

// ---- experiment: one-shot all-reduce (fp32 sum) whose pushes go through Hopper's bulk-copy unit ----
// Measured against the one-shot kernel of ddp4j_allreduce.cu by the harness (BulkPushExperiment); not used by the
// backend. Same slots, flags and reducer blocks as that kernel; each pusher block has one thread drive the bulk-copy
// unit instead of 512 threads storing 16 bytes each: sub-chunks of BULK_SUB bytes go global -> shared
// (cp.async.bulk with an mbarrier) -> every peer's slot (cp.async.bulk.global.shared::cta), BULK_BUFS buffers in
// flight; at the end of each pipeline step the thread waits for its stores to complete, fences and raises the
// step's flag. Needs 16-byte aligned buffers and a count that is a multiple of 4 floats (the harness's sizes).
#define BULK_SUB (16 << 10)
#define BULK_BUFS 4

__device__ __forceinline__ unsigned smemAddr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ void bulkPush(const Params& p, unsigned long long b, char* smem, unsigned long long* bars) {
  const unsigned long long perSlice = roundUp((p.count + p.blocks - 1) / p.blocks, 4) * 4;  // bytes
  const unsigned long long total = p.count * 4;
  const unsigned long long lo = b * perSlice, hi = min(total, lo + perSlice);
  if (hi <= lo) return;
  const unsigned long long steps = (hi - lo + p.stepBytes - 1) / p.stepBytes;
  // Sub-chunks never straddle a step, so that a step's flag covers exactly its stores.
  const unsigned long long subsPerStep = (p.stepBytes + BULK_SUB - 1) / BULK_SUB;
  const unsigned long long subs = steps * subsPerStep;
  for (int i = 0; i < BULK_BUFS; i++) asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(smemAddr(&bars[i])));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  auto range = [&](unsigned long long k, unsigned long long& a, unsigned long long& len) {
    unsigned long long s = k / subsPerStep, stepLo = lo + s * p.stepBytes, stepHi = min(hi, stepLo + p.stepBytes);
    a = stepLo + (k % subsPerStep) * BULK_SUB;
    len = a < stepHi ? min((unsigned long long)BULK_SUB, stepHi - a) : 0;
  };
  auto load = [&](unsigned long long k) {
    unsigned long long a, len;
    range(k, a, len);
    unsigned bar = smemAddr(&bars[k % BULK_BUFS]);
    char* buf = smem + (k % BULK_BUFS) * BULK_SUB;
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(bar), "r"((unsigned)len) : "memory");
    if (len > 0)
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(smemAddr(buf)), "l"(p.in + a), "r"((unsigned)len), "r"(bar) : "memory");
  };
  for (unsigned long long k = 0; k + 1 < BULK_BUFS && k < subs; k++) load(k);
  for (unsigned long long k = 0; k < subs; k++) {
    unsigned bar = smemAddr(&bars[k % BULK_BUFS]);
    unsigned phase = (unsigned)((k / BULK_BUFS) & 1);
    unsigned done = 0;
    unsigned long long start = globalTimerNs();
    while (!done) {
      asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }"
                   : "=r"(done) : "r"(bar), "r"(phase) : "memory");
      if (!done && globalTimerNs() - start > p.timeoutNs) __trap();
    }
    unsigned long long a, len;
    range(k, a, len);
    char* buf = smem + (k % BULK_BUFS) * BULK_SUB;
    if (len > 0) {
      for (unsigned long long q = 0; q < p.nranks; q++) {
        if (q == p.rank) continue;
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     ::"l"(slotOf(p, q, p.rank) + a), "r"(smemAddr(buf)), "r"((unsigned)len) : "memory");
      }
    }
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    unsigned long long next = k + BULK_BUFS - 1;
    if (next < subs) {
      // Buffer next % BULK_BUFS was last read by the stores of sub-chunk k - 1: let them finish reading.
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
      load(next);
    }
    if ((k + 1) % subsPerStep == 0) {
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
      asm volatile("fence.proxy.async.global;" ::: "memory");
      __threadfence_system();
      unsigned long long value = (p.seq << 16) | ((k + 1) / subsPerStep);
      for (unsigned long long q = 0; q < p.nranks; q++) storeRelease(flagAt(p.scratch[q], b, p.rank), value);
    }
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_bulkoneshot_float32_sum(const Params p) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) unsigned long long bars[BULK_BUFS];
  const bool pusher = blockIdx.x < p.blocks;
  const unsigned long long b = pusher ? blockIdx.x : blockIdx.x - p.blocks;
  if (pusher) {
    if (threadIdx.x == 0) bulkPush(p, b, smem, bars);
    return;
  }
  const unsigned long long perSlice = roundUp((p.count + p.blocks - 1) / p.blocks, 4);
  const unsigned long long lo = b * perSlice, hi = min(p.count, lo + perSlice);
  const unsigned long long stepElems = p.stepBytes / 4;
  const unsigned long long steps = hi > lo ? (hi - lo + stepElems - 1) / stepElems : 0;
  const float* slots[MAX_RANKS];
  for (unsigned long long q = 0; q < p.nranks; q++) slots[q] = reinterpret_cast<const float*>(slotOf(p, p.rank, q));
  for (unsigned long long s = 0; s < steps; s++) {
    unsigned long long a = lo + s * stepElems, z = min(hi, a + stepElems);
    waitAll(p, b, (p.seq << 16) | (s + 1));
    reduceRange<float, OP_SUM>(p, reinterpret_cast<float*>(p.out), reinterpret_cast<const float*>(p.in), slots, a, z, true);
  }
}

// ---- experiment: pull instead of push (BulkPushExperiment's "pull" and "pullbcast" variants) ----
// NVLink reads measured faster than NVLink stores on the H200 machine (a naive peer-read kernel: 362 GB/s; SM
// pushes: about 330), so here each rank only copies its input into its own scratch (local, HBM speed) and raises
// the step's flag; the peers then read it from there over NVLink and reduce (all-reduce) or copy (broadcast). The
// staging area is slot 0 of the launch's half: nobody pushes into a scratch during these kernels, and the
// two-halves argument is the same as for the pushes (a rank writes its half again two launches later, after it saw
// every peer's flags of the launch in between).
__device__ __forceinline__ char* stagingOf(const Params& p, unsigned long long r) {
  return p.scratch[r] + FLAG_BYTES + (p.seq & 1ull) * (p.nranks - 1) * p.slotBytes;
}

// reduceRange with four 16-byte vectors in flight per thread and rank, to cover NVLink read latency.
template <typename T, int OP>
__device__ __forceinline__ void reduceRange4(const Params& p, T* out, const T* mine, const T* const* srcs,
                                             unsigned long long lo, unsigned long long hi) {
  typedef typename Acc<T>::A A;
  const int V = 16 / sizeof(T);
  const unsigned n = (unsigned)p.nranks, me = (unsigned)p.rank;
  // Whole groups of 4 x blockDim vectors, the same number for every thread.
  const unsigned long long groups = (hi - lo) / V / (4 * blockDim.x);
  for (unsigned long long g = 0; g < groups; g++) {
    const unsigned long long k = g * 4 * blockDim.x + threadIdx.x;
    A acc[4][V];
    for (unsigned r = 0; r < n; r++) {
      const uint4* s = reinterpret_cast<const uint4*>((r == me ? mine : srcs[r]) + lo);
      uint4 raw[4];
#pragma unroll
      for (int u = 0; u < 4; u++) raw[u] = __ldcg(s + k + u * blockDim.x);
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const T* v = reinterpret_cast<const T*>(&raw[u]);
#pragma unroll
        for (int j = 0; j < V; j++) acc[u][j] = r == 0 ? toAcc<T>(v[j]) : combine<OP, A>(acc[u][j], toAcc<T>(v[j]));
      }
    }
#pragma unroll
    for (int u = 0; u < 4; u++) {
      uint4 res;
      T* rv = reinterpret_cast<T*>(&res);
#pragma unroll
      for (int j = 0; j < V; j++) rv[j] = fromAcc<T>(finish<OP, A>(acc[u][j], n));
      reinterpret_cast<uint4*>(out + lo)[k + u * blockDim.x] = res;
    }
  }
  // The rest (fewer than 4 x blockDim vectors, then the scalar tail) the plain way.
  reduceRange<T, OP>(p, out, mine, srcs, lo + groups * 4 * blockDim.x * V, hi, true);
}

template <typename T, int OP, bool BROADCAST>
__device__ void pull(const Params& p) {
  const unsigned long long V = 16 / sizeof(T);
  const bool stager = blockIdx.x < p.blocks;
  const unsigned long long b = stager ? blockIdx.x : blockIdx.x - p.blocks;
  const unsigned long long perSlice = roundUp((p.count + p.blocks - 1) / p.blocks, V);
  const unsigned long long lo = b * perSlice, hi = min(p.count, lo + perSlice);
  const unsigned long long stepElems = p.stepBytes / sizeof(T);
  const unsigned long long steps = hi > lo ? (hi - lo + stepElems - 1) / stepElems : 0;
  const T* in = reinterpret_cast<const T*>(p.in);
  T* out = reinterpret_cast<T*>(p.out);
  if (stager) {
    const bool stages = !BROADCAST || p.rank == p.root;
    for (unsigned long long s = 0; s < steps; s++) {
      unsigned long long a = lo + s * stepElems, z = min(hi, a + stepElems);
      if (stages) copyRange<T>(reinterpret_cast<T*>(stagingOf(p, p.rank)), in, a, z, true);
      signalPeers(p, b, (p.seq << 16) | (s + 1));
    }
    return;
  }
  const T* srcs[MAX_RANKS];
  for (unsigned long long q = 0; q < p.nranks; q++) srcs[q] = reinterpret_cast<const T*>(stagingOf(p, q));
  for (unsigned long long s = 0; s < steps; s++) {
    unsigned long long a = lo + s * stepElems, z = min(hi, a + stepElems);
    waitAll(p, b, (p.seq << 16) | (s + 1));
    if (!BROADCAST) reduceRange4<T, OP>(p, out, in, srcs, a, z);
    else if (p.rank != p.root) copyRange<T>(out, srcs[p.root], a, z, true);
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_pulloneshot_float32_sum(const Params p) {
  pull<float, OP_SUM, false>(p);
}
extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_pullbroadcast_bytes(const Params p) {
  pull<uint8_t, OP_SUM, true>(p);
}
