// Device helpers shared by ddp4j_allreduce.cu and ddp4j_collectives.cu: the scratch layout's constants, reduction
// types and operators, and the flag protocol in peer memory (system-scope release/acquire, a fence before each flag,
// a timed wait that traps the kernel when a peer never arrives). Both kernel files use one scratch and one flag
// layout (ScratchLayout.java), so the constants, the protocol, the slot addressing and the copy loop live here once.
// The includer includes this before it defines its Params struct, with rank, nranks, seq, slotBytes, timeoutNs and
// scratch[MAX_RANKS] (the helpers take Params as a template parameter). scripts/build-kernels.sh records this file's
// SHA-256 with each binary built from it.
#pragma once

// Ranks a group may have: ScratchLayout.MAX_RANKS (ScratchLayoutTest holds the two equal). It sizes the flag rows and
// the Params' peer tables; 32 ranks keep Params at 384 bytes, well inside the 4 KiB a kernel's parameters may take.
#define MAX_RANKS 32
// Flag rows: the most blocks a launch may have (ScratchLayout.MAX_BLOCKS).
#define MAX_BLOCKS 512
#define FLAG_BYTES (MAX_BLOCKS * MAX_RANKS * 8)

enum { OP_SUM = 0, OP_AVG = 1, OP_PROD = 2, OP_MIN = 3, OP_MAX = 4 };

// ---- element types: T in memory, A the type a reduction accumulates in (fp16/bf16 in fp32) ----
template <typename T> struct Acc { typedef T A; };
template <> struct Acc<__half> { typedef float A; };
template <> struct Acc<__nv_bfloat16> { typedef float A; };
template <> struct Acc<int8_t> { typedef int A; };
template <> struct Acc<uint8_t> { typedef unsigned A; };

template <typename T> __device__ __forceinline__ typename Acc<T>::A toAcc(T v) { return (typename Acc<T>::A)v; }
template <> __device__ __forceinline__ float toAcc<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float toAcc<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
// One element through L2 only (ld.global.cg), as the vector loads: CUDA 11.8's cuda_bf16.h declares
// __ldcg(const __nv_bfloat16*) (and __ushort_as_bfloat16) for sm_80 and newer only, so bf16 loads its 16 bits
// as an unsigned short.
template <typename T> __device__ __forceinline__ T loadCg(const T* p) { return __ldcg(p); }
template <> __device__ __forceinline__ __nv_bfloat16 loadCg<__nv_bfloat16>(const __nv_bfloat16* p) {
  __nv_bfloat16_raw raw;
  raw.x = __ldcg(reinterpret_cast<const unsigned short*>(p));
  return __nv_bfloat16(raw);
}
template <typename T> __device__ __forceinline__ T fromAcc(typename Acc<T>::A a) { return (T)a; }
template <> __device__ __forceinline__ __half fromAcc<__half>(float a) { return __float2half_rn(a); }
template <> __device__ __forceinline__ __nv_bfloat16 fromAcc<__nv_bfloat16>(float a) { return __float2bfloat16_rn(a); }

template <int OP, typename A> __device__ __forceinline__ A combine(A a, A b) {
  if (OP == OP_SUM || OP == OP_AVG) return a + b;
  if (OP == OP_PROD) return a * b;
  if (OP == OP_MIN) return b < a ? b : a;
  return b > a ? b : a;
}
// AVG divides once at the end; integer division truncates toward zero, as ReduceOp documents.
template <int OP, typename A> __device__ __forceinline__ A finish(A a, unsigned long long n) {
  if (OP == OP_AVG) return a / (A)n;
  return a;
}

// ---- flags ----
__device__ __forceinline__ unsigned long long* flagAt(char* scratch, unsigned long long block, unsigned long long sender) {
  return reinterpret_cast<unsigned long long*>(scratch) + block * MAX_RANKS + sender;
}
__device__ __forceinline__ void storeRelease(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long loadAcquire(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long globalTimerNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Called by the whole block after it wrote data to every peer: publishes `value` as block `b`'s flag
// in every peer's scratch. The barrier gathers the block's stores; thread 0's system-scope fence then
// makes them visible before the flag, the pattern NCCL uses. (A run with a release store alone failed
// 2 in-place int8 cases, but the test harness then had its own race, uploads not yet landed; the fence
// stays, since it cost nothing measurable: 1643 vs 1662 us at 512 MiB.)
template <typename Params>
__device__ __forceinline__ void signalPeers(const Params& p, unsigned long long b, unsigned long long value) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    // Own flag too: a one-shot reducer reads it before it overwrites an in-place input.
    for (unsigned long long q = 0; q < p.nranks; q++) storeRelease(flagAt(p.scratch[q], b, p.rank), value);
  }
}

// One thread: spins until the flag at `f` reached `value`. A peer that never raises it (dead process) traps the
// kernel after timeoutNs instead of hanging.
__device__ __forceinline__ void waitFlag(const unsigned long long* f, unsigned long long value, unsigned long long timeoutNs) {
  if (loadAcquire(f) < value) {
    unsigned long long start = globalTimerNs();
    unsigned spins = 0;
    while (loadAcquire(f) < value) {
      if ((++spins & 1023) == 0 && globalTimerNs() - start > timeoutNs) __trap();
    }
  }
}

// Called by the whole block: waits until every peer's (and with `self` this rank's own) flag for block `b` in this rank's scratch reached
// `value`.
template <typename Params>
__device__ __forceinline__ void waitPeers(const Params& p, unsigned long long b, unsigned long long value, bool self) {
  unsigned long long q = threadIdx.x;
  if (q < p.nranks && (self || q != p.rank)) waitFlag(flagAt(p.scratch[p.rank], b, q), value, p.timeoutNs);
  __syncthreads();
}

// Where `sender`'s pushes land in `holder`'s scratch (sender != holder; for sender == holder the pointer is
// never dereferenced).
template <typename Params>
__device__ __forceinline__ char* slotOf(const Params& p, unsigned long long holder, unsigned long long sender) {
  unsigned long long peerIndex = (sender + p.nranks - holder - 1) % p.nranks;
  return p.scratch[holder] + FLAG_BYTES + (p.seq & 1ull) * (p.nranks - 1) * p.slotBytes + peerIndex * p.slotBytes;
}

// ---- data movement on element ranges [lo, hi); lo is a multiple of 16 / sizeof(T) ----
template <typename T>
__device__ __forceinline__ void copyRange(T* dst, const T* src, unsigned long long lo, unsigned long long hi, bool vec) {
  const unsigned long long V = 16 / sizeof(T);
  unsigned long long i = lo;
  if (vec) {
    unsigned long long nv = (hi - lo) / V;
    const uint4* s = reinterpret_cast<const uint4*>(src + lo);
    uint4* d = reinterpret_cast<uint4*>(dst + lo);
    // Four 16-byte loads in flight per thread before the (remote) stores.
    unsigned long long k = threadIdx.x;
    for (; k + 3 * blockDim.x < nv; k += 4 * blockDim.x) {
      uint4 a = __ldcg(s + k), b = __ldcg(s + k + blockDim.x), c = __ldcg(s + k + 2 * blockDim.x), e = __ldcg(s + k + 3 * blockDim.x);
      __stcg(d + k, a);
      __stcg(d + k + blockDim.x, b);
      __stcg(d + k + 2 * blockDim.x, c);
      __stcg(d + k + 3 * blockDim.x, e);
    }
    for (; k < nv; k += blockDim.x) __stcg(d + k, __ldcg(s + k));
    i = lo + nv * V;
  }
  for (unsigned long long k = i + threadIdx.x; k < hi; k += blockDim.x) dst[k] = src[k];
}
