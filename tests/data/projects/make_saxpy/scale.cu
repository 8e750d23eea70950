#include "scale.cuh"

__device__ float scale(float a, float x) { return a * x; }
