// PTX instructions with no single HIP builtin of the same meaning, written out from the PTX ISA's own
// definitions (bfe, bfind, prmt, lop3), so each returns what the instruction returns for every input.
// hipport_bfe: PTX bfe (pos = b & 0xff, len = c & 0xff; .s types sign-extend from bit min(pos+len-1, msb)).
template <class T, bool Signed>
__device__ static inline T hipport_bfe(T a, unsigned int b, unsigned int c) {
  const unsigned int msb = sizeof(T) * 8 - 1, pos = b & 0xffu, len = c & 0xffu;
  const unsigned long long x = (unsigned long long)a;  // the bits of a (computed unsigned: no signed shifts)
  unsigned long long sbit = 0, d = 0;
  if (Signed && len != 0) sbit = (x >> (pos + len - 1 < msb ? pos + len - 1 : msb)) & 1ull;
  for (unsigned int i = 0; i <= msb; ++i)
    d |= ((i < len && pos + i <= msb) ? ((x >> (pos + i)) & 1ull) : sbit) << i;
  return (T)d;
}
// hipport_bfind: PTX bfind (the most significant non-sign bit, 0xffffffff when none; .shiftamt: msb - that).
template <class T, bool Signed, bool ShiftAmt>
__device__ static inline unsigned int hipport_bfind(T a) {
  const unsigned int msb = sizeof(T) * 8 - 1;
  unsigned long long x = (unsigned long long)a;
  if (Signed && ((x >> msb) & 1ull)) x = ~x;
  for (int i = msb; i >= 0; --i)
    if ((x >> i) & 1ull) return ShiftAmt ? msb - (unsigned int)i : (unsigned int)i;
  return 0xffffffffu;
}
// hipport_prmt: PTX prmt.b32 (default mode): byte n of the result is byte (c >> 4n) & 7 of {b, a}, replaced by
// the sign of that byte (0x00 or 0xff) when bit 3 of the selector is set.
__device__ static inline unsigned int hipport_prmt(unsigned int a, unsigned int b, unsigned int c) {
  const unsigned long long bytes = ((unsigned long long)b << 32) | a;
  unsigned int d = 0;
  for (int n = 0; n < 4; ++n) {
    const unsigned int sel = (c >> (4 * n)) & 0xfu;
    unsigned int byte = (unsigned int)(bytes >> (8 * (sel & 7u))) & 0xffu;
    if (sel & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
    d |= byte << (8 * n);
  }
  return d;
}
// hipport_lop3: PTX lop3.b32: bit k of lut is the result for a = k>>2 & 1, b = k>>1 & 1, c = k & 1.
__device__ static inline unsigned int hipport_lop3(unsigned int a, unsigned int b, unsigned int c, unsigned int lut) {
  unsigned int d = 0;
  for (unsigned int k = 0; k < 8; ++k)
    if ((lut >> k) & 1u) d |= ((k & 4u) ? a : ~a) & ((k & 2u) ? b : ~b) & ((k & 1u) ? c : ~c);
  return d;
}
