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
#include <stddef.h>
#include <stdint.h>

#include "ddp4j_device.cuh"

#define THREADS 512

// Kernel parameters, passed by value: 96 + 8 x MAX_RANKS bytes that CollectiveLauncher fills (its PARAM_BYTES).
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
static_assert(sizeof(Params) == 96 + 8 * MAX_RANKS && offsetof(Params, scratch) == 96,
              "CollectiveLauncher writes 96 + 8 x MAX_RANKS parameter bytes, the scratch bases from byte 96");

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
