// hipport: <hipblas/hipblas.h> on the NVIDIA platform (see ../hipblas.h)
#include "../hipblas.h"
