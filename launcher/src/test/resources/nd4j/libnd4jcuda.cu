// A stand-in for ND4J's libnd4jcuda.so in Nd4jCheckTest: one kernel, machine code for sm_75 and sm_86, no PTX.
extern "C" __global__ void ddp4j_fixture_add(float* x, float y) { x[threadIdx.x] += y; }
