// CUDA's directed-rounding intrinsics (__fadd_rd, __dmul_ru, __fsqrt_rz, ...), which HIP lacks (it has the _rn
// ones). Each computes the round-to-nearest result x with the GPU's default arithmetic and the sign of the exact
// error (exact - x) with an error-free transformation, then steps x once toward -inf / +inf / 0 when the exact
// value lies on that side: the IEEE-754 result of that rounding direction for every input (signed zeros, overflow
// to the largest finite value, subnormals, inf and NaN). Float operations are exact in double (a product of two
// floats always is; a sum is completed by Fast2Sum); double ones use Fast2Sum and fma residuals, scaled by powers of
// two where a residual could underflow. Exact under HIP's default floating-point options (denormals kept, no
// -ffast-math / -ffinite-math-only, which would let the compiler rewrite the error terms).
namespace hipport_rounding {
enum Mode { DOWN, UP, ZERO };

template <class T, class U> __device__ static inline T step(T x, bool up) {
  // the neighbour of x (not NaN; +-inf only toward zero) in direction `up`
  U u;
  __builtin_memcpy(&u, &x, sizeof(T));
  const U sign = (U)1 << (sizeof(T) * 8 - 1);
  if (x == 0) u = up ? (U)1 : (U)(sign | 1);
  else if ((x > 0) == up) ++u;
  else --u;
  T r;
  __builtin_memcpy(&r, &u, sizeof(T));
  return r;
}
__device__ static inline float step(float x, bool up) { return step<float, unsigned int>(x, up); }
__device__ static inline double step(double x, bool up) { return step<double, unsigned long long>(x, up); }

// x: the round-to-nearest result; err: the sign of (exact - x)
template <class T> __device__ static inline T direct(T x, int err, Mode m) {
  if (err < 0 && (m == DOWN || (m == ZERO && x > 0))) return step(x, false);
  if (err > 0 && (m == UP || (m == ZERO && x < 0))) return step(x, true);
  return x;
}
template <class T> __device__ static inline int sgn(T v) { return (v > 0) - (v < 0); }
template <class T> __device__ static inline bool finite(T v) { return v - v == 0; }

// an exact zero sum p + q (p, q the addends): -0 when both are -0, or when rounding down and the signs differ
template <class T> __device__ static inline T zero_sum(T p, T q, Mode m) {
  const bool np = __builtin_signbit(p), nq = __builtin_signbit(q);
  return (np && nq) || (np != nq && m == DOWN) ? (T)-0.0 : (T)0.0;
}

// x = round-to-nearest of the exact value v = p + q given as the double pair (s, e) with s + e exact
template <class T> __device__ static inline T from_pair(double s, double e, Mode m) {
  const T x = (T)s;
  const double xd = (double)x;
  int err = xd < s ? 1 : xd > s ? -1 : sgn(e);
  if (!finite(x) && finite(s)) err = -sgn(x);  // overflow of a finite value
  return direct(x, err, m);
}

__device__ static inline void two_sum(double a, double b, double& s, double& e) {
  // Fast2Sum on the larger addend first: s + e == a + b exactly, and no intermediate overflows where s does not
#pragma clang fp contract(off)
  const double x = __builtin_fabs(a) >= __builtin_fabs(b) ? a : b, y = __builtin_fabs(a) >= __builtin_fabs(b) ? b : a;
  s = x + y;
  e = y - (s - x);
}

// float: exact in double
__device__ static inline float fadd(float a, float b, Mode m) {
  double s, e;
  two_sum(a, b, s, e);
  if (!finite(s)) return (float)s;
  if (s == 0 && e == 0) return zero_sum(a, b, m);
  return from_pair<float>(s, e, m);
}
__device__ static inline float fmul(float a, float b, Mode m) {
  const double p = (double)a * (double)b;  // exact: 48 bits
  if (!finite(p)) return (float)p;
  return from_pair<float>(p, 0.0, m);
}
__device__ static inline float ffma(float a, float b, float c, Mode m) {
  const double p = (double)a * (double)b;  // exact
  double s, e;
  two_sum(p, c, s, e);
  if (!finite(s)) return (float)s;
  if (s == 0 && e == 0) return (float)zero_sum(p, (double)c, m);
  return from_pair<float>(s, e, m);
}
__device__ static inline float fdiv(float a, float b, Mode m) {
#pragma clang fp contract(off)
  const double q = (double)a / (double)b;
  if (!finite(q) || q == 0) return (float)q;  // inf, NaN, or a zero dividend: exact in every mode
  float x = (float)q;
  int err;
  if (!finite(x)) {
    err = -sgn(x);
  } else {
    const double r = (double)a - (double)x * (double)b;  // exact: the product is, and Sterbenz
    err = sgn(r) * sgn(b);
  }
  return direct(x, err, m);
}
__device__ static inline float fsqrt(float a, Mode m) {
#pragma clang fp contract(off)
  if (!(a > 0) || !finite(a)) return (float)__builtin_sqrt((double)a);  // 0, -0, negative (NaN), inf, NaN
  const float x = (float)__builtin_sqrt((double)a);
  const double r = (double)a - (double)x * (double)x;  // exact
  return direct(x, sgn(r), m);
}

// double
__device__ static inline double dadd(double a, double b, Mode m) {
  double s, e;
  two_sum(a, b, s, e);
  if (!finite(s)) return finite(a) && finite(b) ? direct(s, -sgn(s), m) : s;
  if (s == 0 && e == 0) return zero_sum(a, b, m);
  return direct(s, sgn(e), m);
}
__device__ static inline double dmul(double a, double b, Mode m) {
  const double p = a * b;
  if (!finite(p)) return finite(a) && finite(b) ? direct(p, -sgn(p), m) : p;
  if (a == 0 || b == 0) return p;
  double ea = a, eb = b, ep = p;
  if (__builtin_fabs(p) < 0x1p-900) {  // the residual could underflow: scale (exactly) by 2^1074 = 2^537 * 2^537
    ea = a * 0x1p537;
    eb = b * 0x1p537;
    ep = p * 0x1p537 * 0x1p537;
  }
  return direct(p, sgn(__builtin_fma(ea, eb, -ep)), m);
}
__device__ static inline double ddiv(double a, double b, Mode m) {
  const double q = a / b;
  if (!finite(q)) return finite(a) && finite(b) && b != 0 ? direct(q, -sgn(q), m) : q;
  if (q == 0) {
    if (a == 0 || !finite(b)) return q;
    return direct(q, sgn(a) * sgn(b), m);  // a nonzero quotient below half the least subnormal
  }
  double sa = a, sq = q;
  if (__builtin_fabs(q) < 0x1p-900 || __builtin_fabs(a) < 0x1p-900) {  // scale the residual out of underflow
    sa = a * 0x1p600;
    sq = q * 0x1p600;
  }
  const double r = __builtin_fma(-sq, b, sa);  // a - q*b (scaled): its sign is exact
  return direct(q, sgn(r) * sgn(b), m);
}
__device__ static inline double dsqrt(double a, Mode m) {
  if (!(a > 0) || !finite(a)) return __builtin_sqrt(a);
  double sa = a, unscale = 1;
  if (a < 0x1p-900) {  // an even power of two: the root scales by half of it, and stays normal
    sa = a * 0x1p1000;
    unscale = 0x1p-500;
  }
  const double x = __builtin_sqrt(sa);
  const double r = __builtin_fma(-x, x, sa);
  return direct(x, sgn(r), m) * unscale;
}
}  // namespace hipport_rounding

#define HIPPORT_ROUNDED(R, M)                                                                                    \
  __device__ static inline float __fadd_##R(float a, float b) { return hipport_rounding::fadd(a, b, M); }         \
  __device__ static inline float __fsub_##R(float a, float b) { return hipport_rounding::fadd(a, -b, M); }        \
  __device__ static inline float __fmul_##R(float a, float b) { return hipport_rounding::fmul(a, b, M); }         \
  __device__ static inline float __fdiv_##R(float a, float b) { return hipport_rounding::fdiv(a, b, M); }         \
  __device__ static inline float __frcp_##R(float a) { return hipport_rounding::fdiv(1.0f, a, M); }               \
  __device__ static inline float __fsqrt_##R(float a) { return hipport_rounding::fsqrt(a, M); }                   \
  __device__ static inline float __fmaf_##R(float a, float b, float c) { return hipport_rounding::ffma(a, b, c, M); } \
  __device__ static inline double __dadd_##R(double a, double b) { return hipport_rounding::dadd(a, b, M); }      \
  __device__ static inline double __dsub_##R(double a, double b) { return hipport_rounding::dadd(a, -b, M); }     \
  __device__ static inline double __dmul_##R(double a, double b) { return hipport_rounding::dmul(a, b, M); }      \
  __device__ static inline double __ddiv_##R(double a, double b) { return hipport_rounding::ddiv(a, b, M); }      \
  __device__ static inline double __drcp_##R(double a) { return hipport_rounding::ddiv(1.0, a, M); }              \
  __device__ static inline double __dsqrt_##R(double a) { return hipport_rounding::dsqrt(a, M); }
HIPPORT_ROUNDED(rd, hipport_rounding::DOWN)
HIPPORT_ROUNDED(ru, hipport_rounding::UP)
HIPPORT_ROUNDED(rz, hipport_rounding::ZERO)
#undef HIPPORT_ROUNDED
