// The synthetic model of the GPU DDP bench (launcher.jar bench ddp) and of the device bucket engine's GPU
// tests: a layer's backward is a spin of a known number of nanoseconds that also writes the layer's gradient
// slice with values that sum exactly in float32 (multiples of 1/1024 below 2^13), so that the all-reduced
// gradient can be compared with a float64 host reference bit for bit.
//
// Block 0 spins on %globaltimer (nanoseconds) before writing its share, like torch.cuda._sleep it keeps one
// SM busy and leaves the others to the communication kernels; the other blocks write their share and exit.
#include <stdint.h>

__device__ __forceinline__ uint64_t ddp4j_now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// grad[i] = scale * ((i * 7 + seed) % 1009) / 1024, after block 0 spun spinNs nanoseconds.
extern "C" __global__ void __launch_bounds__(256) ddp4j_backward_spin(
    float* grad, long long n, unsigned long long spinNs, float scale, int seed) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      uint64_t start = ddp4j_now_ns();
      while (ddp4j_now_ns() - start < spinNs) {
      }
    }
    __syncthreads();
  }
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    grad[i] = scale * (float)((i * 7 + seed) % 1009) * (1.0f / 1024.0f);
  }
}

// The optimizer step: param -= lr * grad (plain SGD).
extern "C" __global__ void __launch_bounds__(256) ddp4j_sgd(
    float* param, const float* grad, long long n, float lr) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    param[i] -= lr * grad[i];
  }
}
