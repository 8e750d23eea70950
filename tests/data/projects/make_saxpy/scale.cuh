#pragma once
__device__ float scale(float a, float x);
