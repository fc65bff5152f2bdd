// ddp4j all-reduce kernels: one process per GPU, every rank's scratch buffer mapped into every other
// rank through CUDA IPC. Data moves by remote stores over NVLink ("push"); ranks synchronise through
// sequence-numbered flags in peer memory, with system-scope release/acquire, so there is no host round
// trip per step. The scratch layout (see ScratchLayout.java for the same picture):
//
//   rank q's scratch
//   +---------------------------------------------+ 0
//   | flags[MAX_BLOCKS][MAX_RANKS]  u64           |  flags[b][p] is written only by rank p: the
//   |                                             |  newest (seq << 16 | step) its block b finished
//   +---------------------------------------------+ FLAG_BYTES
//   | half 0: slot[0] | slot[1] | ... slot[n-2]   |  slot[(p - q - 1) mod n] holds what peer p
//   +---------------------------------------------+  FLAG_BYTES + (n-1) * slotBytes  pushed to q
//   | half 1: slot[0] | slot[1] | ... slot[n-2]   |  call seq uses half seq % 2
//   +---------------------------------------------+  FLAG_BYTES + 2 * (n-1) * slotBytes
//   | LL half 0: ll[0] .. ll[n-2] | LL half 1: .. |  LL_SLOT_BYTES each, written only by the LL kernel
//   +---------------------------------------------+  (its flags are inside the data, so no other
//                                                      algorithm's bytes may ever land there)
//
// Why two halves are enough: a rank writes half h again only at call seq + 2. Its kernel for seq + 2
// starts after its kernel for seq + 1 ended (one stream per group, ordered by the host), which waited for
// flags of every peer's kernel seq + 1, which started only after that peer's kernel seq had ended, so
// nobody still reads half h. Flags only grow, so they are never reset.
//
// Compile: scripts/build-kernels.sh (sm_70-sm_90 machine code + compute_90 PTX in one fat binary); the binary ships as a
// resource and KernelBinaryTest checks that it was built from this file and the headers it includes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp4j_device.cuh"

#define THREADS 512
#define LL_SLOT_BYTES (512 << 10)

// Ring orders the ring kernels take: block b follows order b % nrings (the plan's ring channels, each its own).
#define MAX_RING_ORDERS 16

// Kernel parameters, passed by value: 872 bytes that AllReduceLauncher fills (its PARAM_BYTES and offsets). The
// first 96 + 8 x MAX_RANKS bytes are ddp4j_collectives.cu's Params word for word; the ring orders follow.
struct Params {
  const char* in;                 // this rank's input (device pointer in this process)
  char* out;                      // this rank's output (may equal in)
  unsigned long long count;       // elements in this launch
  unsigned long long seq;         // call sequence number, >= 1, the same on every rank
  unsigned long long rank;        // this rank
  unsigned long long nranks;      // ranks in the group, <= MAX_RANKS
  unsigned long long slotBytes;   // bytes of one sender slot (a multiple of 16)
  unsigned long long stepBytes;   // pipeline step per block for one-shot (a multiple of 16)
  unsigned long long blocks;      // one-shot: pusher blocks (the grid is twice that); two-shot: the grid
  unsigned long long timeoutNs;   // a wait on a peer longer than this traps the kernel
  unsigned long long stride;      // ring reduce-scatter / all-gather: elements between rank blocks of the whole buffer
  unsigned long long root;        // ring broadcast: the root rank
  char* scratch[MAX_RANKS];       // every rank's scratch base as mapped in this process (own included)
  unsigned long long nrings;      // ring kernels: orders in rings, 1 .. MAX_RING_ORDERS
  unsigned char rings[MAX_RING_ORDERS][MAX_RANKS];  // rings[o][k]: the rank at position k of order o (k < nranks)
};
static_assert(sizeof(Params) == 96 + 8 * MAX_RANKS + 8 + MAX_RING_ORDERS * MAX_RANKS,
              "AllReduceLauncher writes 96 + 8 x MAX_RANKS + 8 + MAX_RING_ORDERS x MAX_RANKS parameter bytes");
static_assert(offsetof(Params, scratch) == 96 && offsetof(Params, nrings) == 96 + 8 * MAX_RANKS &&
                  offsetof(Params, rings) == 104 + 8 * MAX_RANKS,
              "AllReduceLauncher's SCRATCH_OFFSET, NRINGS_OFFSET and RINGS_OFFSET");
static_assert(sizeof(Params) <= 1024, "kernel parameters: at most 4 KiB, kept to a quarter of that");

// out[k] = finish(fold over ranks in rank order of (rank == me ? in : slot[rank])[k]), rank order so that
// every rank computes bit-identical results.
template <typename T, int OP>
__device__ __forceinline__ void reduceRange(const Params& p, T* out, const T* in, const T* const* slots,
                                            unsigned long long lo, unsigned long long hi, bool vec) {
  typedef typename Acc<T>::A A;
  const unsigned long long V = 16 / sizeof(T);
  const unsigned n = (unsigned)p.nranks, me = (unsigned)p.rank;
  unsigned long long i = lo;
  if (vec && n == 2) {
    // Two ranks: no loop over a local-memory pointer array; two vectors in flight per thread.
    const T* s0 = me == 0 ? in : slots[0];
    const T* s1 = me == 1 ? in : slots[1];
    unsigned long long nv = (hi - lo) / V;
    for (unsigned long long k = threadIdx.x; k < nv; k += blockDim.x) {
      unsigned long long e = lo + k * V;
      uint4 x = __ldcg(reinterpret_cast<const uint4*>(s0 + e)), y = __ldcg(reinterpret_cast<const uint4*>(s1 + e));
      const T* xv = reinterpret_cast<const T*>(&x);
      const T* yv = reinterpret_cast<const T*>(&y);
      uint4 res;
      T* rv = reinterpret_cast<T*>(&res);
#pragma unroll
      for (int j = 0; j < (int)(16 / sizeof(T)); j++) rv[j] = fromAcc<T>(finish<OP, A>(combine<OP, A>(toAcc<T>(xv[j]), toAcc<T>(yv[j])), 2));
      *reinterpret_cast<uint4*>(out + e) = res;
    }
    i = lo + nv * V;
  } else if (vec) {
    unsigned long long nv = (hi - lo) / V;
    for (unsigned long long k = threadIdx.x; k < nv; k += blockDim.x) {
      unsigned long long e = lo + k * V;
      A acc[16 / sizeof(T)];
      for (unsigned r = 0; r < n; r++) {
        const T* src = r == me ? in : slots[r];
        uint4 raw = r == me ? *reinterpret_cast<const uint4*>(src + e) : __ldcg(reinterpret_cast<const uint4*>(src + e));
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
    A acc = toAcc<T>(me == 0 ? in[k] : slots[0][k]);
    for (unsigned r = 1; r < n; r++) acc = combine<OP, A>(acc, toAcc<T>(r == me ? in[k] : slots[r][k]));
    out[k] = fromAcc<T>(finish<OP, A>(acc, n));
  }
}

__device__ __forceinline__ unsigned long long roundUp(unsigned long long x, unsigned long long m) { return (x + m - 1) / m * m; }

// One-shot: every rank pushes its whole input to every peer, then reduces all inputs locally.
// Blocks [0, blocks) push slice b in steps and flag each step; blocks [blocks, 2 * blocks) wait for
// step flags of slice b from every peer and reduce that step, so NVLink stores and local reduction overlap.
template <typename T, int OP>
__device__ void oneshot(const Params& p) {
  const unsigned long long V = 16 / sizeof(T);
  const bool vec = ((reinterpret_cast<unsigned long long>(p.in) | reinterpret_cast<unsigned long long>(p.out)) & 15) == 0;
  const bool pusher = blockIdx.x < p.blocks;
  const unsigned long long b = pusher ? blockIdx.x : blockIdx.x - p.blocks;
  const unsigned long long perSlice = roundUp((p.count + p.blocks - 1) / p.blocks, V);
  const unsigned long long lo = b * perSlice;
  const unsigned long long hi = min(p.count, lo + perSlice);
  const unsigned long long stepElems = p.stepBytes / sizeof(T);
  const unsigned long long steps = hi > lo ? (hi - lo + stepElems - 1) / stepElems : 0;
  const T* in = reinterpret_cast<const T*>(p.in);
  if (pusher) {
    for (unsigned long long s = 0; s < steps; s++) {
      unsigned long long a = lo + s * stepElems, z = min(hi, a + stepElems);
      for (unsigned long long q = 0; q < p.nranks; q++) {
        if (q != p.rank) copyRange<T>(reinterpret_cast<T*>(slotOf(p, q, p.rank)), in, a, z, vec);
      }
      signalPeers(p, b, (p.seq << 16) | (s + 1));
    }
    return;
  }
  const T* slots[MAX_RANKS];
  for (unsigned long long q = 0; q < p.nranks; q++) slots[q] = reinterpret_cast<const T*>(slotOf(p, p.rank, q));
  for (unsigned long long s = 0; s < steps; s++) {
    unsigned long long a = lo + s * stepElems, z = min(hi, a + stepElems);
    waitPeers(p, b, (p.seq << 16) | (s + 1), true);
    reduceRange<T, OP>(p, reinterpret_cast<T*>(p.out), in, slots, a, z, vec);
  }
}

// Two-shot: reduce-scatter then all-gather, both by pushes. Rank r owns chunk r; block b handles slice b
// of every chunk. Phase 1 pushes chunk q to rank q; phase 2 reduces chunk r, writes it to out and pushes
// it to every peer; phase 3 copies the peers' reduced chunks from the local slots into out.
template <typename T, int OP>
__device__ void twoshot(const Params& p) {
  const unsigned long long V = 16 / sizeof(T);
  const bool vec = ((reinterpret_cast<unsigned long long>(p.in) | reinterpret_cast<unsigned long long>(p.out)) & 15) == 0;
  const unsigned long long b = blockIdx.x;
  const unsigned long long chunk = roundUp((p.count + p.nranks - 1) / p.nranks, V);
  const unsigned long long perSlice = roundUp((chunk + p.blocks - 1) / p.blocks, V);
  const T* in = reinterpret_cast<const T*>(p.in);
  T* out = reinterpret_cast<T*>(p.out);
  for (unsigned long long q = 0; q < p.nranks; q++) {
    if (q == p.rank) continue;
    unsigned long long c0 = q * chunk, c1 = min(p.count, c0 + chunk);
    unsigned long long a = min(c1, c0 + b * perSlice), z = min(c1, a + perSlice);
    copyRange<T>(reinterpret_cast<T*>(slotOf(p, q, p.rank)), in, a, z, vec);
  }
  signalPeers(p, b, (p.seq << 16) | 1);
  waitPeers(p, b, (p.seq << 16) | 1, false);
  const T* slots[MAX_RANKS];
  for (unsigned long long q = 0; q < p.nranks; q++) slots[q] = reinterpret_cast<const T*>(slotOf(p, p.rank, q));
  {
    unsigned long long c0 = p.rank * chunk, c1 = min(p.count, c0 + chunk);
    unsigned long long a = min(c1, c0 + b * perSlice), z = min(c1, a + perSlice);
    reduceRange<T, OP>(p, out, in, slots, a, z, vec);
    __syncthreads();
    for (unsigned long long q = 0; q < p.nranks; q++) {
      if (q != p.rank) copyRange<T>(reinterpret_cast<T*>(slotOf(p, q, p.rank)), out, a, z, vec);
    }
  }
  signalPeers(p, b, (p.seq << 16) | 2);
  waitPeers(p, b, (p.seq << 16) | 2, false);
  for (unsigned long long q = 0; q < p.nranks; q++) {
    if (q == p.rank) continue;
    unsigned long long c0 = q * chunk, c1 = min(p.count, c0 + chunk);
    unsigned long long a = min(c1, c0 + b * perSlice), z = min(c1, a + perSlice);
    copyRange<T>(out, slots[q], a, z, vec);
  }
}

// Copy-engine one-shot, reduce side: the host already queued, on its copy stream, copies of this rank's
// input into every peer's slot in chunks of stepBytes, each followed by a stream write of the chunk's flag
// (seq << 16 | chunk + 1) into flags[CE_FLAG_BLOCK][rank] of every rank, itself included. Every block
// reduces its share of chunk c once every rank's flag says chunk c arrived (its own flag: its copy engine
// no longer reads an in-place input it is about to overwrite).
#define CE_FLAG_BLOCK (MAX_BLOCKS - 1)
template <typename T, int OP>
__device__ void cereduce(const Params& p) {
  const unsigned long long V = 16 / sizeof(T);
  const bool vec = ((reinterpret_cast<unsigned long long>(p.in) | reinterpret_cast<unsigned long long>(p.out)) & 15) == 0;
  const unsigned long long chunkElems = p.stepBytes / sizeof(T);
  const unsigned long long chunks = (p.count + chunkElems - 1) / chunkElems;
  const T* slots[MAX_RANKS];
  for (unsigned long long q = 0; q < p.nranks; q++) slots[q] = reinterpret_cast<const T*>(slotOf(p, p.rank, q));
  for (unsigned long long c = 0; c < chunks; c++) {
    unsigned long long lo = c * chunkElems, hi = min(p.count, lo + chunkElems);
    unsigned long long per = roundUp((hi - lo + gridDim.x - 1) / gridDim.x, V);
    unsigned long long a = min(hi, lo + blockIdx.x * per), z = min(hi, a + per);
    waitPeers(p, CE_FLAG_BLOCK, (p.seq << 16) | (c + 1), true);
    reduceRange<T, OP>(p, reinterpret_cast<T*>(p.out), reinterpret_cast<const T*>(p.in), slots, a, z, vec);
  }
}

// LL ("low latency") one-shot for small messages: no fence and no separate flag. The payload travels in
// 8-byte words that carry 4 bytes of data and the low 32 bits of seq; NVLink delivers an aligned 8-byte store
// whole, so a word whose flag equals seq holds this call's data. Each thread pushes 8 payload bytes (two words,
// one 16-byte store) to every peer, then polls its own LL slot for the peers' words and reduces. One NVLink
// trip of latency instead of data, fence, flag. An LL slot holds 2 x the payload: at most 256 KiB per launch.
__device__ __forceinline__ void storeLL(char* slot, unsigned long long u, unsigned lo, unsigned hi, unsigned flag) {
  unsigned long long w0 = ((unsigned long long)flag << 32) | lo, w1 = ((unsigned long long)flag << 32) | hi;
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(slot + 16 * u), "l"(w0), "l"(w1) : "memory");
}
__device__ __forceinline__ unsigned long long loadLL(const Params& p, const char* slot, unsigned long long u, unsigned flag) {
  unsigned long long w0, w1;
  unsigned long long start = 0;
  unsigned spins = 0;
  while (true) {
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(w0), "=l"(w1) : "l"(slot + 16 * u) : "memory");
    if ((unsigned)(w0 >> 32) == flag && (unsigned)(w1 >> 32) == flag) break;
    if ((++spins & 1023) == 0) {
      if (start == 0) start = globalTimerNs();
      else if (globalTimerNs() - start > p.timeoutNs) __trap();
    }
  }
  return (w0 & 0xffffffffull) | (w1 << 32);
}

__device__ __forceinline__ char* llSlotOf(const Params& p, unsigned long long holder, unsigned long long sender) {
  unsigned long long peerIndex = (sender + p.nranks - holder - 1) % p.nranks;
  return p.scratch[holder] + FLAG_BYTES + 2 * (p.nranks - 1) * p.slotBytes +
         ((p.seq & 1ull) * (p.nranks - 1) + peerIndex) * LL_SLOT_BYTES;
}

template <typename T, int OP>
__device__ void ll(const Params& p) {
  typedef typename Acc<T>::A A;
  const unsigned E = 8 / sizeof(T);  // elements per 8-byte unit
  const unsigned flag = (unsigned)p.seq;
  const unsigned long long units = (p.count + E - 1) / E;
  const unsigned n = (unsigned)p.nranks, me = (unsigned)p.rank;
  const bool aligned = ((reinterpret_cast<unsigned long long>(p.in) | reinterpret_cast<unsigned long long>(p.out)) & 7) == 0;
  for (unsigned long long u = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; u < units;
       u += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned valid = (unsigned)min((unsigned long long)E, p.count - u * E);
    unsigned long long mine = 0;
    if (aligned && valid == E) {
      mine = *reinterpret_cast<const unsigned long long*>(p.in + 8 * u);
    } else {
      const T* src = reinterpret_cast<const T*>(p.in) + u * E;
      T* dst = reinterpret_cast<T*>(&mine);
      for (unsigned j = 0; j < valid; j++) dst[j] = src[j];
    }
    for (unsigned q = 0; q < n; q++) {
      if (q != me) storeLL(llSlotOf(p, q, me), u, (unsigned)mine, (unsigned)(mine >> 32), flag);
    }
    A acc[8 / sizeof(T)];
    for (unsigned r = 0; r < n; r++) {
      unsigned long long v = r == me ? mine : loadLL(p, llSlotOf(p, me, r), u, flag);
      const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
      for (int j = 0; j < (int)(8 / sizeof(T)); j++) acc[j] = r == 0 ? toAcc<T>(e[j]) : combine<OP, A>(acc[j], toAcc<T>(e[j]));
    }
    unsigned long long res = 0;
    T* rv = reinterpret_cast<T*>(&res);
#pragma unroll
    for (int j = 0; j < (int)(8 / sizeof(T)); j++) rv[j] = fromAcc<T>(finish<OP, A>(acc[j], n));
    if (aligned && valid == E) {
      *reinterpret_cast<unsigned long long*>(p.out + 8 * u) = res;
    } else {
      T* dst = reinterpret_cast<T*>(p.out) + u * E;
      for (unsigned j = 0; j < valid; j++) dst[j] = rv[j];
    }
  }
}

// ---- ring: reduce-scatter then all-gather around a ring order, each rank pushing only to its successor ----
//
// Chunk c of the data is [c * C, (c + 1) * C) with C = count / n rounded up to 16 bytes. At step s (0 .. 2n-3) the
// rank at ring position `pos` sends chunk (pos - s) mod n into region s of its successor's receive area; before
// that (s > 0) it waits for region s - 1 from its predecessor, which holds the same chunk:
//
//   s = 0            push in[chunk]                               (reduce-scatter starts)
//   0 < s < n - 1    push combine(region s-1, in[chunk])           (partial, in T, like NCCL's ring)
//   s = n - 1        out[chunk] = finish(combine(region s-1, in))  and push it (the chunk is fully reduced here)
//   s > n - 1        out[chunk] = region s-1                       and push it (all-gather)
//   after the loop   out[chunk (pos + 2) mod n] = region 2n-3
//
// Every chunk is reduced once, at one rank, and then copied, so every rank holds bit-identical results.
//
//   receive area of a rank (the slot half seq % 2 of ScratchLayout, (n - 1) x slotBytes, used as one block):
//   +----------+----------+-- ... --+------------+
//   | region 0 | region 1 |         | region 2n-3|   region s = C elements; 2(n-1) x C <= (n-1) x slotBytes
//   +----------+----------+-- ... --+------------+   as long as a launch has at most slotBytes - 64 bytes
//
// Block b owns slice b (S = C / blocks elements, rounded to 16 bytes) of every chunk and region, cut into pieces of
// stepBytes; piece j of step s is flagged (seq << 16) | (s * pieces + j + 1) in flags[b][rank] of the successor, so the
// successor starts on piece j while this block still pushes piece j + 1. Every block waits for and raises every flag
// even where its piece is empty, which keeps the two-halves argument above true: a rank's last region holds data
// that passed through every rank's launch seq, so when launch seq ends every rank has started it (and ended seq - 1).
// A rank touches only its successor's scratch, so only that pair needs peer access.
//
// Block b follows ring order b % nrings (the plan's channels, each with its own order, as NCCL's rings): its slices of
// every chunk go around that order only, flags are per block and sender, so blocks of different orders share
// nothing but the receive area, where their slices are disjoint; the argument above holds block by block. With
// several orders every successor of this rank in any of them needs its scratch mapped (AllReduceLauncher passes one
// order where only the first ring's successor is).
__device__ __forceinline__ unsigned ringRankAt(const Params& p, unsigned long long b, unsigned pos) {
  return p.rings[b % p.nrings][pos];
}

// Whole block: waits until `sender`'s flag for block b in this rank's scratch reached `value`.
__device__ __forceinline__ void waitPeer(const Params& p, unsigned long long b, unsigned long long sender, unsigned long long value) {
  if (threadIdx.x == 0) waitFlag(flagAt(p.scratch[p.rank], b, sender), value, p.timeoutNs);
  __syncthreads();
}

// Whole block, after its stores: publishes `value` as block b's flag in `holder`'s scratch (fence first, as signalPeers).
__device__ __forceinline__ void signalPeer(const Params& p, unsigned long long b, unsigned long long holder, unsigned long long value) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    storeRelease(flagAt(p.scratch[holder], b, p.rank), value);
  }
}

// What one piece of a ring step does: where it reads (input, the received region, or both combined), whether it
// writes the output, and whether it pushes to the successor.
enum {
  RING_PUSH = 0,         // in -> successor
  RING_PARTIAL = 1,      // combine(region, in) -> successor
  RING_FINAL = 2,        // finish(combine(region, in)) -> out and successor
  RING_FORWARD = 3,      // region -> out and successor
  RING_LAST = 4,         // region -> out
  RING_FINAL_LOCAL = 5,  // finish(combine(region, in)) -> out (reduce-scatter's last step)
  RING_PUSH_KEEP = 6     // in -> out and successor (all-gather's first step)
};

// One piece of one step over `len` elements; every pointer already points at the piece's first element.
template <typename T, int OP, int MODE>
__device__ __forceinline__ void ringPiece(T* out, T* send, const T* in, const T* recv, unsigned long long len, bool vec, unsigned n) {
  typedef typename Acc<T>::A A;
  constexpr bool fromIn = MODE == RING_PUSH || MODE == RING_PUSH_KEEP;
  constexpr bool fromRecv = MODE == RING_FORWARD || MODE == RING_LAST;
  constexpr bool isFinal = MODE == RING_FINAL || MODE == RING_FINAL_LOCAL;
  constexpr bool toOut = MODE != RING_PUSH && MODE != RING_PARTIAL;
  constexpr bool toSend = MODE != RING_LAST && MODE != RING_FINAL_LOCAL;
  const unsigned long long V = 16 / sizeof(T);
  const unsigned long long nv = vec ? len / V : 0;
  for (unsigned long long k = threadIdx.x; k < nv; k += blockDim.x) {
    uint4 res;
    if (fromIn) {
      res = __ldcg(reinterpret_cast<const uint4*>(in) + k);
    } else if (fromRecv) {
      res = __ldcg(reinterpret_cast<const uint4*>(recv) + k);
    } else {
      uint4 x = __ldcg(reinterpret_cast<const uint4*>(recv) + k), y = __ldcg(reinterpret_cast<const uint4*>(in) + k);
      const T* xv = reinterpret_cast<const T*>(&x);
      const T* yv = reinterpret_cast<const T*>(&y);
      T* rv = reinterpret_cast<T*>(&res);
#pragma unroll
      for (int j = 0; j < (int)(16 / sizeof(T)); j++) {
        A a = combine<OP, A>(toAcc<T>(xv[j]), toAcc<T>(yv[j]));
        rv[j] = fromAcc<T>(isFinal ? finish<OP, A>(a, n) : a);
      }
    }
    if (toOut) reinterpret_cast<uint4*>(out)[k] = res;
    if (toSend) __stcg(reinterpret_cast<uint4*>(send) + k, res);
  }
  for (unsigned long long k = nv * V + threadIdx.x; k < len; k += blockDim.x) {
    T v;
    if (fromIn) {
      v = in[k];
    } else if (fromRecv) {
      v = loadCg(recv + k);
    } else {
      A a = combine<OP, A>(toAcc<T>(loadCg(recv + k)), toAcc<T>(in[k]));
      v = fromAcc<T>(isFinal ? finish<OP, A>(a, n) : a);
    }
    if (toOut) out[k] = v;
    if (toSend) send[k] = v;
  }
}

enum { RING_ALL_REDUCE = 0, RING_REDUCE_SCATTER = 1, RING_ALL_GATHER = 2 };

// KIND picks the steps: all-reduce runs s = 0 .. 2n-2, reduce-scatter the first half (s = 0 .. n-1, the last step
// keeping its fully reduced chunk), all-gather the second (s = n-1 .. 2n-2). For reduce-scatter and all-gather the
// chunks are the ranks' blocks (count elements each, p.stride apart in the whole buffer): chunk c is the block of the
// rank at ring position c - 1, which is where a reduce-scatter's chunk ends fully reduced and where an all-gather's
// starts. Regions are counted from the kernel's first step; their stride is the chunk rounded up to 16 bytes.
// Why a launch ends only after the successor started it (the two-halves argument above): a rank's last region
// holds a chunk that started at its successor (all-gather) or passed through it (reduce-scatter, all-reduce).
template <typename T, int OP, int KIND>
__device__ void ring(const Params& p) {
  const unsigned long long V = 16 / sizeof(T);
  const unsigned n = (unsigned)p.nranks;
  const bool vec = ((reinterpret_cast<unsigned long long>(p.in) | reinterpret_cast<unsigned long long>(p.out)) & 15) == 0 &&
                   (KIND == RING_ALL_REDUCE || (p.stride * sizeof(T)) % 16 == 0);
  const unsigned long long b = blockIdx.x;
  unsigned pos = 0;
  while (pos + 1 < n && ringRankAt(p, b, pos) != p.rank) pos++;
  const unsigned long long next = ringRankAt(p, b, (pos + 1) % n), prev = ringRankAt(p, b, (pos + n - 1) % n);
  const unsigned long long C = KIND == RING_ALL_REDUCE ? roundUp((p.count + n - 1) / n, V) : p.count;
  const unsigned long long R = roundUp(C, V);
  const unsigned long long S = roundUp((C + gridDim.x - 1) / gridDim.x, V);
  const unsigned long long stepElems = p.stepBytes / sizeof(T);
  const unsigned long long pieces = S == 0 ? 1 : (S + stepElems - 1) / stepElems;
  const unsigned long long area = FLAG_BYTES + (p.seq & 1ull) * (n - 1) * p.slotBytes;
  const T* recvArea = reinterpret_cast<const T*>(p.scratch[p.rank] + area);
  T* sendArea = reinterpret_cast<T*>(p.scratch[next] + area);
  const T* in = reinterpret_cast<const T*>(p.in);
  T* out = reinterpret_cast<T*>(p.out);
  const unsigned long long first = KIND == RING_ALL_GATHER ? n - 1 : 0;
  const unsigned long long last = KIND == RING_REDUCE_SCATTER ? n - 1 : 2ull * (n - 1);
  for (unsigned long long s = first; s <= last; s++) {
    const unsigned long long c = (pos + 2ull * n - s) % n;
    unsigned long long inBase, outBase, len;
    if (KIND == RING_ALL_REDUCE) {
      inBase = outBase = c * C;
      len = inBase < p.count ? min(C, p.count - inBase) : 0;
    } else {
      const unsigned long long block = ringRankAt(p, b, (unsigned)((c + n - 1) % n));
      inBase = KIND == RING_REDUCE_SCATTER ? block * p.stride : 0;
      outBase = KIND == RING_ALL_GATHER ? block * p.stride : 0;
      len = C;
    }
    const unsigned long long region = s - first;
    for (unsigned long long j = 0; j < pieces; j++) {
      // Piece j of slice b of the chunk, clamped to it; off = its offset inside the chunk (and inside a region).
      const unsigned long long off = b * S + j * stepElems;
      const unsigned long long a = min(len, off), z = min(min(len, b * S + S), a + stepElems);
      const unsigned long long m = z > a ? z - a : 0;
      if (s > first) waitPeer(p, b, prev, (p.seq << 16) | ((region - 1) * pieces + j + 1));
      const T* recv = recvArea + (region > 0 ? (region - 1) * R : 0) + a;
      T* send = sendArea + region * R + a;
      T* o = out + outBase + a;
      const T* i = in + inBase + a;
      if (KIND == RING_ALL_GATHER && s == first) {
        ringPiece<T, OP, RING_PUSH_KEEP>(o, send, i, recv, m, vec, n);
      } else if (s == 0) {
        ringPiece<T, OP, RING_PUSH>(o, send, i, recv, m, vec, n);
      } else if (s < n - 1) {
        ringPiece<T, OP, RING_PARTIAL>(o, send, i, recv, m, vec, n);
      } else if (s == n - 1 && KIND == RING_REDUCE_SCATTER) {
        ringPiece<T, OP, RING_FINAL_LOCAL>(o, send, i, recv, m, vec, n);
      } else if (s == n - 1) {
        ringPiece<T, OP, RING_FINAL>(o, send, i, recv, m, vec, n);
      } else if (s < last) {
        ringPiece<T, OP, RING_FORWARD>(o, send, i, recv, m, vec, n);
      } else {
        ringPiece<T, OP, RING_LAST>(o, send, i, recv, m, vec, n);
      }
      if (s < last) signalPeer(p, b, next, (p.seq << 16) | (region * pieces + j + 1));
    }
  }
}

// Ring broadcast: a chain from the root along the ring (root -> next -> ... -> the rank before the root), bytes in
// pieces, each rank copying what arrives into its buffer and pushing it on; region 0 of the receive area holds the
// whole launch. A chain alone would let a rank finish without its successor having started (nothing flows back), so
// the last rank then sends a done token to the root (its successor), which passes it on up to the second-to-last:
// every rank's launch ends only after every rank received everything, which keeps the two-halves argument true.
// Flag values: (seq << 16) | (piece + 1) for data, (seq << 16) | (pieces + 1) for the token (same flag word).
__device__ void ringBroadcast(const Params& p) {
  typedef uint8_t T;
  const unsigned long long V = 16;
  const unsigned n = (unsigned)p.nranks;
  const bool vec = (reinterpret_cast<unsigned long long>(p.out) & 15) == 0;
  const unsigned long long b = blockIdx.x;
  unsigned pos = 0, rootPos = 0;
  while (pos + 1 < n && ringRankAt(p, b, pos) != p.rank) pos++;
  while (rootPos + 1 < n && ringRankAt(p, b, rootPos) != p.root) rootPos++;
  const unsigned d = (pos + n - rootPos) % n;  // hops from the root
  const unsigned long long next = ringRankAt(p, b, (pos + 1) % n), prev = ringRankAt(p, b, (pos + n - 1) % n);
  const unsigned long long C = p.count;
  const unsigned long long S = roundUp((C + gridDim.x - 1) / gridDim.x, V);
  const unsigned long long stepElems = p.stepBytes;
  const unsigned long long pieces = S == 0 ? 1 : (S + stepElems - 1) / stepElems;
  const unsigned long long area = FLAG_BYTES + (p.seq & 1ull) * (n - 1) * p.slotBytes;
  const T* recvArea = reinterpret_cast<const T*>(p.scratch[p.rank] + area);
  T* sendArea = reinterpret_cast<T*>(p.scratch[next] + area);
  T* buf = reinterpret_cast<T*>(p.out);
  for (unsigned long long j = 0; j < pieces; j++) {
    const unsigned long long off = b * S + j * stepElems;
    const unsigned long long a = min(C, off), z = min(min(C, b * S + S), a + stepElems);
    const unsigned long long m = z > a ? z - a : 0;
    if (d > 0) waitPeer(p, b, prev, (p.seq << 16) | (j + 1));
    if (d == 0) {
      ringPiece<T, OP_SUM, RING_PUSH>(buf + a, sendArea + a, buf + a, recvArea + a, m, vec, n);
    } else if (d < n - 1) {
      ringPiece<T, OP_SUM, RING_FORWARD>(buf + a, sendArea + a, buf + a, recvArea + a, m, vec, n);
    } else {
      ringPiece<T, OP_SUM, RING_LAST>(buf + a, sendArea + a, buf + a, recvArea + a, m, vec, n);
    }
    if (d < n - 1) signalPeer(p, b, next, (p.seq << 16) | (j + 1));
  }
  const unsigned long long done = (p.seq << 16) | (pieces + 1);
  if (d == n - 1) {
    signalPeer(p, b, next, done);
  } else {
    waitPeer(p, b, prev, done);
    if (d + 2 < n) signalPeer(p, b, next, done);
  }
}

#define DEFINE_KERNELS(TNAME, T, ONAME, OP)                                                              \
  extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_oneshot_##TNAME##_##ONAME(const Params p) { \
    oneshot<T, OP>(p);                                                                                   \
  }                                                                                                      \
  extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_twoshot_##TNAME##_##ONAME(const Params p) { \
    twoshot<T, OP>(p);                                                                                   \
  }                                                                                                      \
  extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_cereduce_##TNAME##_##ONAME(const Params p) { \
    cereduce<T, OP>(p);                                                                                  \
  }                                                                                                      \
  extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_ll_##TNAME##_##ONAME(const Params p) {       \
    ll<T, OP>(p);                                                                                        \
  }                                                                                                      \
  extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_ring_##TNAME##_##ONAME(const Params p) {     \
    ring<T, OP, RING_ALL_REDUCE>(p);                                                                     \
  }                                                                                                      \
  extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_ringreducescatter_##TNAME##_##ONAME(        \
      const Params p) {                                                                                  \
    ring<T, OP, RING_REDUCE_SCATTER>(p);                                                                 \
  }

#define DEFINE_TYPE(TNAME, T)             \
  DEFINE_KERNELS(TNAME, T, sum, OP_SUM)   \
  DEFINE_KERNELS(TNAME, T, avg, OP_AVG)   \
  DEFINE_KERNELS(TNAME, T, prod, OP_PROD) \
  DEFINE_KERNELS(TNAME, T, min, OP_MIN)   \
  DEFINE_KERNELS(TNAME, T, max, OP_MAX)

DEFINE_TYPE(float32, float)
DEFINE_TYPE(float64, double)
DEFINE_TYPE(float16, __half)
DEFINE_TYPE(bfloat16, __nv_bfloat16)
DEFINE_TYPE(int32, int32_t)
DEFINE_TYPE(int64, long long)
DEFINE_TYPE(int8, int8_t)
DEFINE_TYPE(uint8, uint8_t)

// Ring all-gather moves bytes: count and stride in bytes.
extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_ringallgather_bytes(const Params p) {
  ring<uint8_t, OP_SUM, RING_ALL_GATHER>(p);
}

// Ring broadcast moves bytes: count in bytes, p.out the buffer on every rank.
extern "C" __global__ void __launch_bounds__(THREADS) ddp4j_ringbroadcast_bytes(const Params p) {
  ringBroadcast(p);
}
