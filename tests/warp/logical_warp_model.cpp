// A CPU model of one 64-lane AMD wave that runs hipport's logical-warp helpers (the AMD branch of
// logical_warp.h, part DEVICE), for tests/warp/test_logical_warp_semantics.py.
//
// The test writes the DEVICE part into "hipport_logical_warp_device.h" and an empty
// <hip/hip_runtime.h> on the include path; this file supplies what the AMD branch calls.
//
// SIMT model. Each active lane is a coroutine (ucontext) with its own stack. A lane runs until it
// calls a cross-lane builtin (__shfl, __ballot, the wave barrier), then parks there. When every
// lane is parked or done, the scheduler takes the parked lanes that stand at the lowest program
// point (their call stacks, read through the frame pointers and compared outermost frame first,
// return addresses in code order: the "min-PC" reconvergence rule of SIMT hardware) and runs that
// one instruction for exactly them:
// they are the instruction's EXEC mask. Lanes of the other logical warp that took another branch,
// or left a loop earlier, are not in it, as on the GPU: a shuffle from them reads 0 (ds_bpermute)
// and a ballot has 0 in their bits. Built with -O0 -fno-omit-frame-pointer so every helper is a
// real frame and blocks are laid out in source order.
//
// Input, one case per line (whitespace separated):
//   OP TYPE WIDTH ACTIVE  MASK[64]  ARG[64]  VALUE[64]
// OP and TYPE are names (below); WIDTH an int (-1: call the helper without a width / mask argument);
// ACTIVE the 64-bit set of lanes that execute the call (hex); MASK the lane's 32-bit mask argument
// (hex); ARG the lane's int argument (decimal: source lane, delta, lane mask, predicate);
// VALUE the lane's value bits (hex, the low sizeof(TYPE) bytes are used).
// Output, one line per case: 64 tokens, "-" for a lane that did not run, else the result bits in hex
// ("FENCE" when a syncwarp did not order memory: no release fence before its barrier or no acquire
// fence after it).

#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

// ------------------------------------------------------------------------------------- the wave
namespace wave {
constexpr int kLanes = 64;
constexpr size_t kStack = 256 * 1024;

enum class State { Idle, Runnable, Parked, Done };
enum class Kind { Shfl32, Shfl64, Ballot, Barrier };

struct Lane {
  ucontext_t ctx{};
  std::vector<char> stack = std::vector<char>(kStack);
  State state = State::Idle;
  void* top = nullptr;           // frame of lane_main: where a lane's call stack starts
  std::vector<std::uintptr_t> where;  // return addresses at the parked builtin, outermost first
  Kind kind = Kind::Barrier;
  unsigned long long value = 0;  // what the lane brings to the instruction
  int src = 0;                   // __shfl: source lane argument
  int width = 64;                // __shfl: width argument
  unsigned long long result = 0; // what the instruction gives back
  std::vector<std::string> log;  // fences and barriers, in order (syncwarp check)
};

Lane lanes[kLanes];
ucontext_t scheduler;
int current = -1;
void (*body)(int) = nullptr;

void lane_main() {
  lanes[current].top = __builtin_frame_address(0);
  body(current);
  lanes[current].state = State::Done;
}  // uc_link returns to the scheduler

unsigned long long park(Kind kind, unsigned long long value, int src, int width) {
  Lane& me = lanes[current];
  // the return addresses of the frames between here and lane_main (all built with frame pointers)
  me.where.clear();
  for (void** fp = (void**)__builtin_frame_address(0); fp != nullptr && (void*)fp != me.top; fp = (void**)fp[0])
    me.where.push_back((std::uintptr_t)fp[1]);
  std::reverse(me.where.begin(), me.where.end());
  me.kind = kind;
  me.value = value;
  me.src = src;
  me.width = width;
  me.state = State::Parked;
  swapcontext(&me.ctx, &scheduler);
  return lanes[current].result;
}

// One wave instruction for the lanes in `exec`: HIP's semantics on gfx9.
void execute(const std::vector<int>& exec) {
  unsigned long long active = 0;
  for (int l : exec) active |= 1ull << l;
  const Kind kind = lanes[exec[0]].kind;
  for (int l : exec)
    if (lanes[l].kind != kind) {
      std::fprintf(stderr, "model: lanes at one program point call different builtins\n");
      std::exit(3);
    }
  if (kind == Kind::Ballot) {
    unsigned long long bits = 0;
    for (int l : exec)
      if (lanes[l].value != 0) bits |= 1ull << l;
    for (int l : exec) lanes[l].result = bits;
  } else if (kind == Kind::Shfl32 || kind == Kind::Shfl64) {
    for (int l : exec) {
      // HIP __shfl: index = src mod width inside the caller's width-segment of the wave;
      // ds_bpermute reads lane index mod 64 and gives 0 from a lane that is not active
      const int w = lanes[l].width;
      const int index = ((lanes[l].src & (w - 1)) + (l & ~(w - 1))) & 63;
      unsigned long long v = (active >> index) & 1 ? lanes[index].value : 0;
      if (kind == Kind::Shfl32) v &= 0xffffffffull;
      lanes[l].result = v;
    }
  } else {
    for (int l : exec) lanes[l].log.emplace_back("barrier");
  }
}

// Run body(lane) on every lane of `active` as one wave.
void run(unsigned long long active, void (*fn)(int)) {
  body = fn;
  for (int l = 0; l < kLanes; ++l) {
    Lane& lane = lanes[l];
    lane.log.clear();
    lane.state = State::Idle;
    if (!((active >> l) & 1)) continue;
    getcontext(&lane.ctx);
    lane.ctx.uc_stack.ss_sp = lane.stack.data();
    lane.ctx.uc_stack.ss_size = lane.stack.size();
    lane.ctx.uc_link = &scheduler;
    makecontext(&lane.ctx, lane_main, 0);
    lane.state = State::Runnable;
  }
  for (;;) {
    for (int l = 0; l < kLanes; ++l)
      if (lanes[l].state == State::Runnable) {
        current = l;
        swapcontext(&scheduler, &lanes[l].ctx);
      }
    const std::vector<std::uintptr_t>* lowest = nullptr;
    for (int l = 0; l < kLanes; ++l)
      if (lanes[l].state == State::Parked && (lowest == nullptr || lanes[l].where < *lowest))
        lowest = &lanes[l].where;
    if (lowest == nullptr) return;
    std::vector<int> exec;
    const std::vector<std::uintptr_t> at = *lowest;
    for (int l = 0; l < kLanes; ++l)
      if (lanes[l].state == State::Parked && lanes[l].where == at) exec.push_back(l);
    execute(exec);
    for (int l : exec) lanes[l].state = State::Runnable;
  }
}
}  // namespace wave

// ------------------------------------------------------------ the AMD builtins the helpers call
#define __device__
#define __forceinline__
#define __HIP_PLATFORM_AMD__ 1

__attribute__((noinline)) unsigned __lane_id() { return (unsigned)wave::current; }
__attribute__((noinline)) int __shfl(int var, int src, int width) {
  return (int)(unsigned)wave::park(wave::Kind::Shfl32, (unsigned)var, src, width);
}
__attribute__((noinline)) long long __shfl(long long var, int src, int width) {
  return (long long)wave::park(wave::Kind::Shfl64, (unsigned long long)var, src, width);
}
__attribute__((noinline)) unsigned long long __ballot(int predicate) {
  return wave::park(wave::Kind::Ballot, predicate != 0, 0, 64);
}
int __ffs(unsigned x) { return x == 0 ? 0 : __builtin_ctz(x) + 1; }
int __ffs(int x) { return __ffs((unsigned)x); }

void model_fence(int order, const char* scope) {
  const char* name = order == __ATOMIC_RELEASE ? "release"
                     : order == __ATOMIC_ACQUIRE ? "acquire"
                     : order == __ATOMIC_ACQ_REL ? "acq_rel"
                     : order == __ATOMIC_SEQ_CST ? "seq_cst"
                                                 : "relaxed";
  wave::lanes[wave::current].log.push_back(std::string(name) + ":" + scope);
}
__attribute__((noinline)) void model_wave_barrier() { wave::park(wave::Kind::Barrier, 0, 0, 64); }
#define __builtin_amdgcn_fence(order, scope) model_fence((order), (scope))
#define __builtin_amdgcn_wave_barrier() model_wave_barrier()

#include "hipport_logical_warp_device.h"

// ------------------------------------------------------------------------------------ the cases
struct Char2 { char a, b; };
struct IntFloat { int a; float b; };

struct Case {
  std::string op, type;
  int width = -1;
  unsigned long long active = 0;
  unsigned mask[64]{};
  long long arg[64]{};
  unsigned long long value[64]{};
  unsigned long long out[64]{};
  bool fence_ok[64]{};
};

Case the_case;
unsigned long long shared_slots[64];
constexpr unsigned long long kUnwritten = 0x5E5E5E5E5E5E5E5Eull;

template <class T> T from_bits(unsigned long long bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}
template <class T> unsigned long long to_bits(T v) {
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}

// syncwarp must order memory: a release fence before the wave barrier and an acquire fence after it
bool fences_ok(const std::vector<std::string>& log) {
  auto releases = [](const std::string& s) { return s.rfind("release", 0) == 0 || s.rfind("acq_rel", 0) == 0 || s.rfind("seq_cst", 0) == 0; };
  auto acquires = [](const std::string& s) { return s.rfind("acquire", 0) == 0 || s.rfind("acq_rel", 0) == 0 || s.rfind("seq_cst", 0) == 0; };
  const auto barrier = std::find(log.begin(), log.end(), "barrier");
  if (barrier == log.end()) return false;
  return std::any_of(log.begin(), barrier, releases) && std::any_of(barrier + 1, log.end(), acquires);
}

template <class T> unsigned long long shuffle_op(const std::string& op, int lane) {
  const Case& c = the_case;
  const T v = from_bits<T>(c.value[lane]);
  const unsigned m = c.mask[lane];
  const int arg = (int)c.arg[lane];
  const int w = c.width;
  const bool dflt = w == -1;
  if (op == "shfl_sync") return to_bits(dflt ? hipport_shfl_sync(m, v, arg) : hipport_shfl_sync(m, v, arg, w));
  if (op == "shfl_up_sync") return to_bits(dflt ? hipport_shfl_up_sync(m, v, (unsigned)arg) : hipport_shfl_up_sync(m, v, (unsigned)arg, w));
  if (op == "shfl_down_sync") return to_bits(dflt ? hipport_shfl_down_sync(m, v, (unsigned)arg) : hipport_shfl_down_sync(m, v, (unsigned)arg, w));
  if (op == "shfl_xor_sync") return to_bits(dflt ? hipport_shfl_xor_sync(m, v, arg) : hipport_shfl_xor_sync(m, v, arg, w));
  if (op == "shfl") return to_bits(dflt ? hipport_shfl(v, arg) : hipport_shfl(v, arg, w));
  if (op == "shfl_up") return to_bits(dflt ? hipport_shfl_up(v, (unsigned)arg) : hipport_shfl_up(v, (unsigned)arg, w));
  if (op == "shfl_down") return to_bits(dflt ? hipport_shfl_down(v, (unsigned)arg) : hipport_shfl_down(v, (unsigned)arg, w));
  if (op == "shfl_xor") return to_bits(dflt ? hipport_shfl_xor(v, arg) : hipport_shfl_xor(v, arg, w));
  if (op == "match_any_sync") return hipport_match_any_sync(m, v);
  if (op == "match_all_sync") {
    int pred = -1;
    const unsigned r = hipport_match_all_sync(m, v, &pred);
    return ((unsigned long long)(unsigned)pred << 32) | r;
  }
  if constexpr (std::is_same_v<T, int> || std::is_same_v<T, unsigned>) {  // CUDA: add/min/max on int, unsigned
    if (op == "reduce_add_sync") return to_bits(hipport_reduce_add_sync(m, v));
    if (op == "reduce_min_sync") return to_bits(hipport_reduce_min_sync(m, v));
    if (op == "reduce_max_sync") return to_bits(hipport_reduce_max_sync(m, v));
  }
  if constexpr (std::is_same_v<T, unsigned>) {  // CUDA: and/or/xor on unsigned
    if (op == "reduce_and_sync") return to_bits(hipport_reduce_and_sync(m, v));
    if (op == "reduce_or_sync") return to_bits(hipport_reduce_or_sync(m, v));
    if (op == "reduce_xor_sync") return to_bits(hipport_reduce_xor_sync(m, v));
  }
  std::fprintf(stderr, "model: unknown op %s for type %s\n", op.c_str(), the_case.type.c_str());
  std::exit(2);
}

unsigned long long lane_op(int lane) {
  const Case& c = the_case;
  const std::string& op = c.op;
  const unsigned m = c.mask[lane];
  const int arg = (int)c.arg[lane];
  if (op == "ballot_sync") return hipport_ballot_sync(m, arg);
  if (op == "ballot") return hipport_ballot(arg);
  if (op == "activemask") return hipport_activemask();
  if (op == "any_sync") return (unsigned)hipport_any_sync(m, arg);
  if (op == "all_sync") return (unsigned)hipport_all_sync(m, arg);
  if (op == "uni_sync") return (unsigned)hipport_uni_sync(m, arg);
  if (op == "any") return (unsigned)hipport_any(arg);
  if (op == "all") return (unsigned)hipport_all(arg);
  if (op == "lane_id") return hipport_lane_id();
  if (op == "lanemask_lt") return hipport_lanemask_lt();
  if (op == "lanemask_le") return hipport_lanemask_le();
  if (op == "lanemask_eq") return hipport_lanemask_eq();
  if (op == "lanemask_ge") return hipport_lanemask_ge();
  if (op == "lanemask_gt") return hipport_lanemask_gt();
  if (op == "syncwarp") {  // write my slot, __syncwarp, read the slot of logical lane (lane + arg) % 32
    shared_slots[lane] = c.value[lane];
    if (c.width == -1) hipport_syncwarp();
    else hipport_syncwarp(m);
    the_case.fence_ok[lane] = fences_ok(wave::lanes[lane].log);
    return shared_slots[(lane & 32) | ((lane + arg) & 31)];
  }
  const std::string& t = c.type;
  if (t == "i32") return shuffle_op<int>(op, lane);
  if (t == "u32") return shuffle_op<unsigned>(op, lane);
  if (t == "f32") return shuffle_op<float>(op, lane);
  if (t == "f64") return shuffle_op<double>(op, lane);
  if (t == "i64") return shuffle_op<long long>(op, lane);
  if (t == "u16") return shuffle_op<unsigned short>(op, lane);
  if (t == "c2") return shuffle_op<Char2>(op, lane);
  if (t == "s8") return shuffle_op<IntFloat>(op, lane);
  std::fprintf(stderr, "model: unknown type %s\n", t.c_str());
  std::exit(2);
}

void lane_body(int lane) { the_case.out[lane] = lane_op(lane); }

// the next whitespace-separated token of the case line
const char* next_token(char*& cursor) {
  const char* t = strtok_r(nullptr, " \t\n", &cursor);
  if (t == nullptr) {
    std::fprintf(stderr, "model: bad case line\n");
    std::exit(2);
  }
  return t;
}

int main() {
  char* line = nullptr;
  size_t capacity = 0;
  while (getline(&line, &capacity, stdin) > 0) {
    char* cursor = nullptr;
    const char* first = strtok_r(line, " \t\n", &cursor);
    if (first == nullptr) continue;
    Case& c = the_case;
    c = Case{};
    c.op = first;
    c.type = next_token(cursor);
    c.width = (int)std::strtol(next_token(cursor), nullptr, 10);
    c.active = std::strtoull(next_token(cursor), nullptr, 16);
    for (auto& m : c.mask) m = (unsigned)std::strtoul(next_token(cursor), nullptr, 16);
    for (auto& a : c.arg) a = std::strtoll(next_token(cursor), nullptr, 10);
    for (auto& v : c.value) v = std::strtoull(next_token(cursor), nullptr, 16);
    for (auto& s : shared_slots) s = kUnwritten;
    wave::run(c.active, lane_body);
    for (int l = 0; l < 64; ++l) {
      const char* sep = l == 63 ? "\n" : " ";
      if (!((c.active >> l) & 1)) std::printf("-%s", sep);
      else if (c.op == "syncwarp" && !c.fence_ok[l]) std::printf("FENCE%s", sep);
      else std::printf("%llx%s", c.out[l], sep);
    }
    std::fflush(stdout);  // a test may wait for this case's line before it sends the next
  }
  std::free(line);
  return 0;
}
