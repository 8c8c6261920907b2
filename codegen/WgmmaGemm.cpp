//===- WgmmaGemm.cpp - The GEMM skeleton on Hopper tensor cores -----------===//
//
// buildWgmmaGemm (KernelBuilder.h). Block of 384 threads:
//
//   warpgroup 0      producer: one elected thread of warp 0 waits for a free
//                    stage (empty[s]), arms full[s] with the stage's byte
//                    count and issues the TMA loads of A and every B_j (an
//                    A whose rows are T in boxes of WgmmaOperand::rowsPerBox
//                    rows, those wholly past T neither loaded nor counted:
//                    the consumers' rows there multiply stale shared
//                    memory, and no epilogue stores a row past T).
//   warpgroups 1, 2  consumers, 64 rows of the 128-row tile each: wait for
//                    full[s], issue 4 WGMMAs (k16 each, k8 on tf32) per
//                    accumulator as one group, wait until only that group
//                    is pending and release the previous step's stage
//                    (one arrival per warpgroup on empty[s - 1]); the last
//                    stage once all are done.
//
// Dynamic shared memory: [0, 1024) the mbarriers (full[s] at 8 s, empty[s]
// at 8 (stages + s), the epilogue's of consumer c at 8 (2 stages + c),
// landing[l] at 8 (2 stages + 2 + l)), then `stages` stages of A (128 rows)
// and B_j (tileN rows), each row 128 bytes of k (64 16-bit elements, 32
// fp32 ones: wgmmaTileK), 128-byte swizzled, 1024-byte aligned; then the
// landing slots of transposed operands, if any (below).
//
// fp32 operands stored MN-major (the backward's K3..K6: Wd and [Wg Wu] with
// their rows indexing k, and the activations of the weight gradients,
// whose k is T) under --fmlp-tf32-wgmma-mn-major: tf32 WGMMA reads K-major
// operands only, so their tiles land first. After the ring, landing slots
// (2, or --fmlp-tf32-landing-slots) each hold one k-step's MN-major tiles
// of those operands (A's first), as TMA stores them: boxes of 32 k rows x
// 32 m/n (128 bytes a row, 128-byte swizzled), landing[l] (an mbarrier
// after the epilogue's) counting their bytes. The whole producer warpgroup
// then runs the loop: thread 0 fills a later step's slot (L - 1 steps
// ahead of L slots) and loads the other operands into the stage directly
// (arrive.expect_tx on full[s], as before); every thread waits for the
// stage to be free and this step's slot to land, writes the slot's tiles
// K-major into the stage (transposeTile: the layout TMA gives a K-major
// box), fences its writes for the async proxy and meets the others on a
// named barrier; thread 0 then arrives on full[s], which completes on these
// two arrivals (one where no operand is loaded directly). The consumers'
// WGMMAs read the transposed operands K-major.
//
// An MN-major A that the consumers read into registers anyway (tf32x3's
// split, tf32's rounding: readsMnMajorAInRegisters, by default tf32x3's)
// is not transposed: TMA loads it into the stage as stored, and each
// consumer loads its fragment from that layout (aFragment).
//
// Or (--fmlp-tf32-transpose=cp-async, an A/B against the landing slots,
// whose moves through shared memory bound the transposing kernels: bench/
// NOTES.md item 74) no slots: each of the producer's 128 threads copies its
// elements of the k-step's MN-major tiles from global memory to their
// K-major places in the stage by cp.async of 4 bytes (copyTransposed), then
// cp.async.mbarrier.arrive.noinc on full[s], which completes on those 128
// arrivals and thread 0's expect_tx for the K-major operands; the copies
// hold no registers, so every stage of the ring may be in flight. The
// stage is written through the generic proxy: each consumer fences it for
// the async proxy (fence.proxy.async) after its wait on full[s], before
// its WGMMAs read it.
//
// tf32x3 (WgmmaGemmSpec::tf32x3; the splitting producer): a stage holds a
// high part (A's 128 rows, then each B_j's) and a low part of the same
// layout lowPartOffset further (B_j's alone where A is split in registers:
// its low part would never be read). K-major operands arrive in the high
// part by TMA as for tf32; MN-major ones are split as the transposing
// producer writes them (below), or, under --fmlp-tf32x3-transpose=copy,
// copied there by cp.async (but an A read into registers as stored). The
// producer's splitters (warps 1..3 while thread 0 issues the TMA loads; all
// 128 threads, splitLag() k-steps behind their own loads, where they copy
// MN-major operands) wait for full[s], rewrite each word x of B (and of A
// where A is not split in registers) as hi = rna(x) and write lo = rna(x -
// hi) at the same place in the low part, fence for the async proxy and
// arrive on ready[s] (one arrival a splitter; ready[s] at 8 (2 stages + 2
// + s), where the landing slots' barriers would be). The consumers wait on
// ready[s] and, per group of g k8s (WgmmaGemmSpec::tf32x3GroupK8s), sum
// each k8's lo hi' + hi lo' + hi hi' from zero in one WGMMA group, wait for
// it and add the sums to the accumulators in fp32. By default
// each consumer loads its own fragment of A's raw tile and splits it in
// registers (register-sourced WGMMA), and then every consumer thread arrives
// on empty[s] (2 x 128 arrivals), so that its loads are released with it;
// the two consumers issue their k8 groups in turn (named barriers 7 and 8:
// the consumers' ping-pong, --fmlp-ping-pong).
//
// Where every word to split is transposed (splitsAsTransposed: K4's and
// K6's MN-major B, the default --fmlp-tf32x3-transpose=landing), no
// splitting producer: the MN-major operands land by TMA in the landing slots as
// for tf32, and the transposing producer writes each element x K-major and
// split in one pass (transposeTile): hi = rna(x) at its place in the high
// part, lo = rna(x - hi) lowPartOffset further (a transposed A that the
// consumers split in registers is moved raw: splitsInShared). Its threads
// fence their writes for the async proxy and meet, then thread 0 arrives
// on full[s], which completes on that arrival and the leader's expect_tx
// for what TMA loads into the stage as stored (A, split in registers); the
// consumers wait on full[s] (no ready[s]: landing[l] lies where it would).
//
// tf32 rounding (WgmmaGemmSpec::roundsTf32): the tensor core reads an fp32
// operand's bits as they are and keeps tf32's (truncation, toward zero:
// bench/NOTES.md item 80), so where the operands must be rounded to
// nearest, as PyTorch's TF32 and the mma_sync kernels' cvt.rna round them,
// each consumer loads its fragment of A's tile (as tf32x3 does), rounds it
// and passes it to register-sourced WGMMAs (every consumer thread then
// arrives on empty[s], after a proxy fence: its loads are released with
// it); the landing producer rounds the elements it transposes; a K-major
// B_j comes rounded from global memory (fmlp-round-tf32-weights), or
// (WgmmaGemmSpec::roundsBInStages, no operand transposed) as stored, and
// the splitting producer rewrites each word x of B's tiles as rna(x) in
// place, in tf32's one-part stages (no low part), and arrives on ready[s]
// as for tf32x3; the consumers wait on ready[s], A rounded in registers.
//
// Ring invariant: k-step i uses stage s = i mod stages in round r = i div
// stages; full[s] completes its phase r when the stage's bytes arrive, and
// empty[s] its phase r once both consumers are done with it, so a waiter
// on round r waits on parity r mod 2 (the producer on empty's previous
// round: parity (r + 1) mod 2, which passes at once in round 0).
//
// Split-K (spec.splitK = S > 1): the grid's z is the slice s of the K
// tiles, k-steps [first(s), first(s + 1)) with first(s) = floor(s Kt / S)
// of Kt = ceil(K / tileK). These ranges are contiguous and cover [0, Kt) in
// order (first(0) = 0, first(S) = Kt), and none is empty when S <= Kt:
// first(s + 1) - first(s) = floor(s Kt / S + Kt / S) - floor(s Kt / S)
// >= floor(Kt / S) >= 1, since floor(x + y) >= floor(x) + floor(y); each
// slice has floor(Kt / S) or ceil(Kt / S) k-steps. The ring's rounds count
// the slice's own k-steps from 0. Each tile's blocks meet in the workspace
// (SplitKWorkspace), the last to arrive reducing, so no block ever waits
// for another (no deadlock whatever the scheduling):
//   1. every block stores its fp32 partial tile at [tile][slice] (the
//      rows below M: a consumer whose 64 rows lie past M stores and sums
//      nothing, its sums unread), each
//      thread fences (fence.acq_rel.gpu); after a barrier of both
//      consumers, one thread adds 1 to the tile's counter (a relaxed
//      atom.add between two fence.acq_rel.gpu: release, then acquire) and
//      tells the others what it read;
//   2. the block that reads S - 1 is the tile's last: every other block's
//      partial is then in memory (each fenced before its own add), so after
//      a fence (acquire) it sums the partials in slice order 0, 1, .., S - 1
//      (its own from registers, the same bits it stored): the sum is the
//      same whatever order the blocks arrived in, deterministic;
//   3. the last block sets the counter back to 0 and runs the epilogue;
//      the others exit. Every tile's counter takes S adds per launch, so
//      each launch leaves every counter as it found it: zero, given zero
//      before the first (the lowering zeroes them before each launch, a
//      fill kernel, convert-fmlp-to-nvvm).
// The producer then only loads (no hand-off to it, no prefetched epilogue
// blocks: those would need to know the last block before it is known).
//
//===----------------------------------------------------------------------===//

#include "codegen/CheckedOption.h"
#include "codegen/KernelBuilder.h"
#include "codegen/StagedEpilogue.h"
#include "codegen/TileSelection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace mlir::fmlp;

// fp32 operands stored MN-major (the backward's K3..K6) transposed in
// shared memory by the producer warpgroup, so that tf32 WGMMA takes them
// (the file comment); off (an A/B knob): they take mma_sync. Judged and
// timed on the H200 in bench/NOTES.md item 73: the training step 0.69-0.70x
// the mma_sync backward's time.
static llvm::cl::opt<bool> tf32WgmmaMnMajor(
    "fmlp-tf32-wgmma-mn-major", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("sm_90a: fp32 operands stored MN-major take tf32 WGMMA, "
                   "transposed in shared memory (else mma_sync)"));

namespace {
/// How the producer warpgroup brings an MN-major fp32 operand's tiles into
/// a stage K-major (the file comment).
enum class Fp32Transpose { landing, cpAsync };
} // namespace

// For A/B runs until one is measured the better: TMA into landing slots,
// then 16-byte shared-memory moves (landing), or cp.async of each element
// to its K-major place (cp-async).
static llvm::cl::opt<Fp32Transpose> fp32Transpose(
    "fmlp-tf32-transpose", llvm::cl::Hidden,
    llvm::cl::init(Fp32Transpose::landing),
    llvm::cl::desc("sm_90a: how MN-major fp32 operands are transposed into "
                   "the stages"),
    llvm::cl::values(
        clEnumValN(Fp32Transpose::landing, "landing",
                   "TMA into landing slots, then moved by the producer"),
        clEnumValN(Fp32Transpose::cpAsync, "cp-async",
                   "each element copied to its place by cp.async")));

namespace {
/// How tf32x3's producer brings an MN-major fp32 operand's tiles into a
/// stage K-major and split (the file comment).
enum class Tf32x3Transpose { copy, landing };
} // namespace

// TMA into landing slots, then the transposing producer's 16-byte moves,
// which write each element's hi and lo K-major in one pass (landing, the
// default: the weight gradients 0.89-0.95x the time of the copies on an
// H100, tf32x3's and highest's, the same bits: bench/NOTES.md items 92 and
// 93); or, for A/B runs, 4-byte cp.async copies into the high part, then
// the splitting producer's pass over the stage (copy).
static llvm::cl::opt<Tf32x3Transpose> tf32x3Transpose(
    "fmlp-tf32x3-transpose", llvm::cl::Hidden,
    llvm::cl::init(Tf32x3Transpose::landing),
    llvm::cl::desc("sm_90a: how tf32x3's MN-major fp32 operands come into "
                   "the stages K-major and split"),
    llvm::cl::values(
        clEnumValN(Tf32x3Transpose::copy, "copy",
                   "each element copied to its place by cp.async, then "
                   "split in place"),
        clEnumValN(Tf32x3Transpose::landing, "landing",
                   "TMA into landing slots, then moved and split by the "
                   "producer")));

// tf32x3's A operand taken from registers (true, the default): each
// consumer loads its fragment of the raw tile, splits it and passes it to
// register-sourced WGMMAs, so the producer splits B alone; or split by the
// producer in shared memory like B (false, for A/B runs). Measured on the
// H100 (bench/NOTES.md item 78): the training step 0.93-0.94x the time.
static llvm::cl::opt<bool> tf32x3RegisterA(
    "fmlp-tf32x3-register-a", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("sm_90a: tf32x3's A operand split in registers by the "
                   "consumers (else in shared memory by the producer)"));

// tf32x3's stages without A's low part where the consumers split A in
// registers (it is never read there; true, the default): B's low parts
// follow the high parts directly, and a stage of 128 + 128 rows takes 48
// KiB, not 64 (4 stages fit where 3 did). Measured on the H100 (bench/
// NOTES.md item 83): the training step 0.98x the time; false for A/B runs.
static llvm::cl::opt<bool> tf32x3CompactStages(
    "fmlp-tf32x3-compact-stages", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("sm_90a: tf32x3's stages keep no low part of A where A "
                   "is split in registers"));

/// Which of the kernels whose consumers read A into registers (tf32x3
/// splitting it there, tf32 rounding it there) a measured choice applies
/// to: none, tf32x3's, or every one.
enum class RegisterAKernels { none, tf32x3, all };

static auto registerAKernelValues() {
  return llvm::cl::values(
      clEnumValN(RegisterAKernels::none, "none", "no kernel"),
      clEnumValN(RegisterAKernels::tf32x3, "tf32x3", "tf32x3's kernels"),
      clEnumValN(RegisterAKernels::all, "all", "tf32x3's and tf32's kernels"));
}

// An MN-major fp32 A (the weight gradients' dy and [dG dU]) loaded by TMA
// into the stage as stored, each consumer reading its fragment from there
// into registers, so that the producer transposes (or copies) B alone; in
// the other kernels A is transposed into the stage like B (the landing
// producer) or copied there K-major (cp.async). Measured on an H100 at T =
// 8192 (bench/NOTES.md item 89): tf32x3's weight gradients 0.87-0.92x the
// time, the step 0.93-0.97x; tf32's 0.99-1.04x (its consumers then wait
// for each k-step's group before loading A, where the landing producer's
// K-major A lets them keep one group in flight): tf32x3's by default.
static llvm::cl::opt<RegisterAKernels> mnMajorAInRegisters(
    "fmlp-mn-major-a-in-registers", llvm::cl::Hidden,
    llvm::cl::init(RegisterAKernels::tf32x3),
    llvm::cl::desc("sm_90a: the kernels whose MN-major fp32 A the consumers "
                   "read as stored (the others' A transposed in the stage)"),
    registerAKernelValues());

// The consumers of the kernels that read A into registers take turns
// issuing their WGMMA groups (tf32x3's of each k8, tf32's of each k-step):
// consumer c waits for its turn (a named barrier the other arrives on once
// its group is issued), issues its WGMMAs and passes the turn on, so that
// one consumer's group runs on the tensor cores while the other waits for
// its own and adds its step sums or loads its next A; in the other kernels
// each issues as soon as its stage is ready. Measured on an H100 at T =
// 8192 (bench/NOTES.md item 89): tf32x3's no-grad forward 0.97x the time
// at both Llama shapes (K1 0.96-0.98x, K2 0.97-0.99x), the step 0.99-
// 1.00x; tf32's step 0.98-1.00x, its no-grad forward 0.99-1.01x (and 0.99-
// 1.02x at T = 256 and 1024): tf32x3's by default.
static llvm::cl::opt<RegisterAKernels> pingPongKernels(
    "fmlp-ping-pong", llvm::cl::Hidden,
    llvm::cl::init(RegisterAKernels::tf32x3),
    llvm::cl::desc("sm_90a: the kernels whose two consumers issue their "
                   "WGMMA groups in turn"),
    registerAKernelValues());

/// Whether `kernels` takes in a kernel of tf32x3 products (else tf32's).
static bool applies(RegisterAKernels kernels, bool tf32x3) {
  return kernels == RegisterAKernels::all ||
         (kernels == RegisterAKernels::tf32x3 && tf32x3);
}

namespace {
struct LandingSlots {
  static bool accepts(int n) { return n >= 2 && n <= 4; }
  static constexpr const char *expected = "2 to 4";
};
} // namespace

// For A/B runs: the landing slots of the transposed operands. With L slots
// the producer loads a k-step's tiles L - 1 steps before it transposes
// them: more slots hide more of TMA's latency, fewer leave room for ring
// stages (tile selection counts them).
static llvm::cl::opt<int, false, CheckedIntParser<LandingSlots>>
    landingSlotCount(
        "fmlp-tf32-landing-slots", llvm::cl::Hidden, llvm::cl::init(2),
        llvm::cl::desc("fp32 operands transposed in shared memory: the "
                       "landing slots, 2 to 4"));

namespace {

constexpr int64_t kBarrierBytes = 1024;
/// Split-K: where the consumers' counter reader leaves what it read (the
/// last word of the barrier area, past every mbarrier: 8 (2 stages + 2 +
/// landing slots) bytes; buildWgmmaGemm asserts it).
constexpr int64_t kArrivalWord = kBarrierBytes - 4;
constexpr int64_t kRowBytes = kWgmmaRowBytes;
/// Each consumer warpgroup holds one part of the staged epilogue.
constexpr int64_t kConsumerRows = kEpiloguePartRows;
/// Named barriers: 0 the block, 1 both consumers, 2 + c consumer c, 4 the
/// producer warpgroup, 5 + c consumer c's hand-off to the producer, 7 + c
/// consumer c's turn (the consumers' ping-pong).
constexpr int64_t kProducerBarrier = 4, kHandoffBarrier = 5, kTurnBarrier = 7;

/// Registers per thread after setmaxnreg: the producer warpgroup gives up
/// what the two consumer warpgroups take. setmaxnreg.inc only draws on what
/// the block's setmaxnreg.dec released (the block holds 384 x
/// kWgmmaMaxRegisters), so more than that leaves the consumers waiting
/// forever.
struct RegisterSplit {
  int32_t producer, consumer;
};
constexpr RegisterSplit kLoadsOnly{40, 232};
/// The producer also runs elements (StagingPlan::handedOffBoxes).
constexpr RegisterSplit kWithHandoff{120, 192};
constexpr bool fitsBlock(RegisterSplit split) {
  return 128 * split.producer + 256 * split.consumer <=
             kWgmmaThreads * kWgmmaMaxRegisters &&
         split.producer % 8 == 0 && split.consumer % 8 == 0;
}
/// The producer warpgroup transposes fp32 operands (the file comment): its
/// 128 threads each hold eight 16-byte pieces (a round's and the next's
/// loads: transposeTile) and their addresses (the block's whole file:
/// 128 x 88 + 256 x 208 = 384 x 168).
constexpr RegisterSplit kTransposing{88, 208};
/// tf32x3: the producer copies and splits (its addresses and a piece's
/// words, parts); a consumer holds 128 columns of accumulators and step
/// sums.
constexpr RegisterSplit kSplitting{56, 216};
/// tf32x3 split as transposed (splitsAsTransposed): the transposing
/// producer's pieces, addresses and a piece's parts; the consumers as in
/// kSplitting (the block's whole file: 128 x 72 + 256 x 216 = 384 x 168).
constexpr RegisterSplit kSplittingTransposed{72, 216};
static_assert(fitsBlock(kLoadsOnly) && fitsBlock(kWithHandoff) &&
              fitsBlock(kTransposing) && fitsBlock(kSplitting) &&
              fitsBlock(kSplittingTransposed));

/// One part of a stage: A's 128 rows and each B_j's tileN, a row of k
/// each.
int64_t stagePartBytes(const WgmmaGemmSpec &spec) {
  return (kWgmmaTileM + spec.b.size() * spec.tileN) * kRowBytes;
}
/// Whether tf32x3's consumers split A in registers
/// (--fmlp-tf32x3-register-a): A's tile then stays raw in the stage.
bool splitsTf32x3AInRegisters(const WgmmaGemmSpec &spec) {
  return spec.tf32x3 && tf32x3RegisterA;
}
/// tf32x3: bytes from a word of a stage's high part to its low part: one
/// part further, or (--fmlp-tf32x3-compact-stages, A split in registers)
/// B's words only, the low part starting with B_0's rows at the part's end.
int64_t lowPartOffset(const WgmmaGemmSpec &spec) {
  bool keepsALow = !(tf32x3CompactStages && splitsTf32x3AInRegisters(spec));
  return stagePartBytes(spec) - (keepsALow ? 0 : kWgmmaTileM * kRowBytes);
}
/// A stage: one part, or (tf32x3) the high parts, then the low parts at
/// lowPartOffset further.
int64_t stageBytes(const WgmmaGemmSpec &spec) {
  return stagePartBytes(spec) + (spec.tf32x3 ? lowPartOffset(spec) : 0);
}

/// MN-major tiles (16-bit only: wgmmaTakesMnMajor): a row is one k of 64
/// m/n, and the 64-wide blocks of a tile (64 k rows each) lie this many
/// bytes apart.
constexpr int64_t kMnBlockBytes = 64 * kRowBytes;
static_assert(kRowBytes == 64 * 2, "an MN-major row is 64 16-bit m/n");

/// Whether the consumers load an MN-major fp32 A from the stage as TMA
/// stores it, each its own fragment (rounded or split in registers, for
/// register-sourced WGMMAs), so that the producer transposes B alone
/// (--fmlp-mn-major-a-in-registers).
bool readsMnMajorAInRegisters(const WgmmaGemmSpec &spec) {
  bool registersA = spec.tf32x3 ? tf32x3RegisterA.getValue() : spec.roundsTf32;
  return !spec.a.kMajor && spec.element && spec.element.isF32() && registersA &&
         applies(mnMajorAInRegisters, spec.tf32x3);
}

/// Whether `op` is MN-major in memory but K-major in the stage: fp32 data,
/// which WGMMA does not transpose, transposed by the producer warpgroup
/// (A only where the consumers do not read it into registers as stored).
bool transposedInShared(const WgmmaGemmSpec &spec, const WgmmaOperand &op) {
  // `op` is one of spec's own operands: A is told by its address.
  assert((&op == &spec.a ||
          llvm::any_of(spec.b,
                       [&](const WgmmaOperand &b) { return &op == &b; })) &&
         "an operand of the spec itself");
  bool registersA = &op == &spec.a && readsMnMajorAInRegisters(spec);
  return !op.kMajor && !wgmmaTakesMnMajor(spec.element) && !registersA;
}

/// Rows (m of A, n of B_j) of a k-step's tiles that the producer transposes.
int64_t transposedRows(const WgmmaGemmSpec &spec) {
  assert(spec.element && "the element decides what is transposed");
  int64_t rows = transposedInShared(spec, spec.a) ? kWgmmaTileM : 0;
  for (const WgmmaOperand &b : spec.b)
    if (transposedInShared(spec, b))
      rows += spec.tileN;
  return rows;
}

/// Bytes of a stage the producer writes by transposing (the rest TMA
/// loads as it is).
int64_t transposedBytes(const WgmmaGemmSpec &spec) {
  return transposedRows(spec) * kRowBytes;
}
/// Whether tf32x3's transposing producer splits what it transposes
/// (--fmlp-tf32x3-transpose=landing): each element's hi and lo written
/// K-major in one pass, no splitting producer. Only where every word to be
/// split is transposed: each B_j MN-major, and A split in registers by the
/// consumers or transposed too (a K-major operand loaded into the stage as
/// it is would be left raw). It reads only what wgmmaFootprint sets (the
/// element, the layouts, tf32x3), so that tile selection counts the landing
/// slots the kernel takes (landingSlotBytes).
bool splitsAsTransposed(const WgmmaGemmSpec &spec) {
  if (!spec.tf32x3 || tf32x3Transpose != Tf32x3Transpose::landing)
    return false;
  bool everyB = llvm::all_of(spec.b, [&](const WgmmaOperand &b) {
    return transposedInShared(spec, b);
  });
  return everyB && !spec.b.empty() &&
         (splitsTf32x3AInRegisters(spec) || transposedInShared(spec, spec.a));
}
/// Whether cp.async copies the transposed operands into the stages: under
/// --fmlp-tf32-transpose=cp-async (tf32), and for tf32x3 wherever its
/// transposing producer does not split (splitsAsTransposed; then the
/// splitting producer splits the copies in place).
bool copiesTransposed(const WgmmaGemmSpec &spec) {
  if (spec.tf32x3)
    return !splitsAsTransposed(spec);
  return fp32Transpose == Fp32Transpose::cpAsync;
}
/// A landing slot: the transposed operands' MN-major tiles of one k-step,
/// A's first, each in boxes of 32 k rows x 32 m/n (4 KiB); none where
/// cp.async copies them.
int64_t landingSlotBytes(const WgmmaGemmSpec &spec) {
  return copiesTransposed(spec) ? 0 : transposedBytes(spec);
}
/// The landing slots of a kernel that transposes (--fmlp-tf32-landing-
/// slots).
int64_t landingSlots() { return landingSlotCount; }

/// The accumulator fragment of m64nNk16 and m64nNk8 (fp32) in a
/// warpgroup: register r of thread (warp w, lane l) holds row 16 w + l / 4
/// + 8 ((r mod 4) / 2), column 8 (r / 4) + 2 (l mod 4) + r mod 2; a
/// 64-column box is 32 registers.
AccumulatorFragment wgmmaFragment() {
  AccumulatorFragment fragment;
  fragment.threadRow = [](KernelBuilder &kb, Value tid, Value thread) {
    Value lane = kb.urem(tid, 32), warp = kb.udiv(thread, 32);
    return kb.add(kb.mul(warp, kb.i32(16)), kb.udiv(lane, 4));
  };
  fragment.threadCol = [](KernelBuilder &kb, Value tid) {
    return kb.mul(kb.urem(kb.urem(tid, 32), 4), kb.i32(2));
  };
  fragment.rowOffset = [](int64_t r) { return 8 * ((r % 4) / 2); };
  fragment.colOffset = [](int64_t r) { return 8 * (r / 4) + r % 2; };
  fragment.registersPerBox = kWgmmaOutputBox / 8 * 4;
  return fragment;
}

struct Wgmma : EpilogueHost {
  KernelBuilder &kb;
  const WgmmaGemmSpec &spec;
  StagedEpilogueSpec epilogueSpec;
  Value shared; // ptr<3>, 1024-aligned
  Type i32, i64, ptr3;

  Wgmma(KernelBuilder &kb, const WgmmaGemmSpec &spec)
      : kb(kb), spec(spec), i32(kb.b.getI32Type()), i64(kb.b.getI64Type()),
        ptr3(LLVM::LLVMPointerType::get(kb.b.getContext(), 3)) {
    shared = kb.dynamicShared();
    epilogueSpec.m = spec.m;
    epilogueSpec.n = spec.n;
    epilogueSpec.tileN = spec.tileN;
    epilogueSpec.element = spec.element;
    epilogueSpec.epilogue = spec.epilogue;
    epilogueSpec.fragment = wgmmaFragment();
    epilogueSpec.outputMaps = spec.outputMaps;
  }

  OpBuilder &b() { return kb.b; }
  Value c32(int64_t v) { return kb.i32(static_cast<int32_t>(v)); }
  Value at(Value byteOffset) { // ptr<3> + bytes (i32)
    return LLVM::GEPOp::create(b(), kb.loc, ptr3, b().getI8Type(), shared,
                               ValueRange{byteOffset});
  }
  Value udiv(Value x, int64_t y) { return kb.udiv(x, y); }
  Value urem(Value x, int64_t y) { return kb.urem(x, y); }
  Value eq(Value x, int64_t y) { return kb.eq(x, y); }

  // The staged epilogue's host: each consumer (and the producer warpgroup
  // for the handed-off boxes) runs one part.
  Value sharedAt(Value byteOffset) override { return at(byteOffset); }
  void syncAllParts() override { namedBarrier(c32(1), 2 * 128); }
  void syncPart(const EpiloguePart &which, Value consumer) override {
    namedBarrier(which.byOtherThreads() ? c32(kProducerBarrier)
                                        : kb.add(c32(2), consumer),
                 128);
  }
  void waitPrefetched(Value consumer) override {
    kb.waitParity(epilogueBarrier(consumer), c32(0));
  }
  Value full(Value stage) { return at(kb.mul(stage, c32(8))); }
  Value empty(Value stage) {
    return at(kb.add(kb.mul(stage, c32(8)), c32(8 * spec.stages)));
  }
  /// Byte offset of stage `stage`'s A tile; B_j follows at + 128 rows etc.
  Value stageOffset(Value stage) {
    return kb.add(c32(kBarrierBytes), kb.mul(stage, c32(stageBytes(spec))));
  }
  Value bOffset(unsigned j) {
    return c32((kWgmmaTileM + j * spec.tileN) * kRowBytes);
  }

  /// A WGMMA shared-memory descriptor of a 128-byte swizzled tile at
  /// `address`: start >> 4 (bits 0-13), leading byte offset >> 4 (bits
  /// 16-29), stride byte offset >> 4 (bits 32-45), swizzle 128 B (bits
  /// 62-63 = 1). Both layouts repeat 8 rows of 128 B every 1024 B (the
  /// stride offset). K-major: a row is one m/n, the leading offset unused
  /// (1). MN-major: a row is one k, and the 64-wide m/n blocks are
  /// kMnBlockBytes apart (the leading offset).
  Value descriptor(Value address, bool kMajor) {
    Value a = LLVM::PtrToIntOp::create(b(), kb.loc, i64, address);
    a = arith::AndIOp::create(b(), kb.loc, a, kb.i64(0x3FFFF));
    a = arith::ShRUIOp::create(b(), kb.loc, a, kb.i64(4));
    int64_t leading = kMajor ? 1 : kMnBlockBytes >> 4;
    int64_t high =
        (int64_t(1) << 62) | (int64_t(1024 >> 4) << 32) | (leading << 16);
    return arith::OrIOp::create(b(), kb.loc, a, kb.i64(high));
  }
  /// Whether `op`'s tile is K-major in a stage (as stored, or transposed
  /// by the producer).
  bool stagedKMajor(const WgmmaOperand &op) const {
    return op.kMajor || transposedInShared(spec, op);
  }
  /// Bytes from one instruction's k to the next in a tile: along a row
  /// (K-major), or that many k rows (MN-major, 16-bit: k16).
  static int64_t kStepBytes(bool kMajor) {
    return kMajor ? kWgmmaInstructionKBytes
                  : kWgmmaInstructionKBytes / 2 * kRowBytes;
  }
  /// The k-tile in elements, and one instruction's.
  int64_t tileK() const { return wgmmaTileK(spec.element); }
  int64_t instructionK() const {
    return kWgmmaInstructionKBytes * 8 / spec.element.getIntOrFloatBitWidth();
  }

  /// TMA: the box of `map` at (inner, outer) into shared memory at byte
  /// `offset`, its bytes counted on `barrier`.
  void tmaLoad(unsigned map, Value offset, Value inner, Value outer,
               Value barrier) {
    kb.tmaLoad(map, at(offset), inner, outer, barrier);
  }
  /// The epilogue's mbarrier of consumer `consumer` (its blocks loaded by
  /// TMA), after the ring's.
  Value epilogueBarrier(Value consumer) {
    return at(kb.add(kb.mul(consumer, c32(8)), c32(16 * spec.stages)));
  }

  static bool handsOff(const std::optional<StagingPlan> &staging) {
    return staging && staging->handedOffBoxes;
  }
  RegisterSplit
  registerSplit(const std::optional<StagingPlan> &staging) const {
    if (rewritesStages())
      return kSplitting;
    if (transposes() && !copiesTransposed(spec))
      return spec.tf32x3 ? kSplittingTransposed : kTransposing;
    return handsOff(staging) ? kWithHandoff : kLoadsOnly;
  }

  /// The producer's wait before filling k-step `step`'s stage: until the
  /// consumers have released it in the previous round.
  void waitFree(Value step) {
    Value round = udiv(step, spec.stages);
    Value parity = arith::XOrIOp::create(
        b(), kb.loc, arith::AndIOp::create(b(), kb.loc, round, c32(1)), c32(1));
    kb.waitParity(empty(urem(step, spec.stages)), parity);
  }

  /// After the main loop's loads: each consumer's blocks of the views read
  /// through a tensor map (StagingPlan::prefetched), by TMA into their
  /// slots, counted on its epilogue mbarrier. A slot's box lies in ring stage
  /// s, free once the consumers release the main loop's last k-step on s; the
  /// producer waits for it as it would for the next one on s, virtual step
  /// kSteps + ((s - kSteps) mod stages) (a stage the main loop never used
  /// passes at once). A stage (rows of 128 bytes: 128 of A, tileN of each B,
  /// tileN a multiple of 64) is a whole number of boxes, so no box straddles
  /// two stages.
  void prefetchStaged(const StagingPlan &plan, Value kSteps, Value m0,
                      Value n0) {
    ArrayRef<std::pair<unsigned, unsigned>> read = plan.prefetched;
    for (int64_t c = 0; c < 2; ++c)
      kb.expectBytes(epilogueBarrier(c32(c)),
                     c32(read.size() * plan.slotBytes));
    SmallVector<SmallVector<StagingPlan::PrefetchedBox>> byStage =
        plan.prefetchedByStage(epilogueSpec, kBarrierBytes, stageBytes(spec),
                               spec.stages);
    Value pastLast = urem(kSteps, spec.stages);
    for (auto [s, boxes] : llvm::enumerate(byStage)) {
      if (boxes.empty())
        continue;
      Value ahead = arith::SubIOp::create(
          b(), kb.loc, c32(int64_t(s) + spec.stages), pastLast);
      waitFree(kb.add(kSteps, urem(ahead, spec.stages)));
      for (const StagingPlan::PrefetchedBox &box : boxes)
        tmaLoad(box.map, c32(box.offset), kb.add(n0, c32(box.column)),
                kb.add(m0, c32(box.part * kConsumerRows)),
                epilogueBarrier(c32(box.part)));
    }
  }

  /// The boxes of A loaded directly into a stage, and the bytes they and
  /// the B_j so loaded bring: A (K-major, rows T) in boxes of rowsPerBox
  /// rows, those holding rows below M (aBoxes; null: the whole tile), and
  /// the stage's bytes without the others' and without the transposed
  /// operands' (which arrive in a landing slot).
  std::pair<Value, Value> directLoads(Value m0) {
    assert((!spec.a.rowsPerBox || spec.a.kMajor) &&
           "A in boxes of rows below T is loaded directly, K-major");
    Value aBoxes,
        arrivingBytes = c32(stagePartBytes(spec) - transposedBytes(spec));
    if (spec.a.rowsPerBox) {
      TmaBoxesBelow below = tmaBoxesBelow(kb, spec.a, spec.m, m0, kWgmmaTileM);
      aBoxes = below.boxes;
      arrivingBytes =
          arith::SubIOp::create(b(), kb.loc, arrivingBytes, below.skippedBytes);
    }
    return {aBoxes, arrivingBytes};
  }

  /// One operand's tile (loadTmaTile) of k-tile `kc` into shared memory at
  /// byte `base` + `offset`.
  void loadOperand(const WgmmaOperand &op, Value base, Value offset,
                   Value row0, int64_t rows, Value kc, Value aBoxes,
                   function_ref<Value()> barrier) {
    loadTmaTile(kb, op, shared, base, offset, row0, rows, kc, tileK(), aBoxes,
                barrier);
  }

  /// The operands of k-tile `kc` that TMA loads into stage `stage` as they
  /// are (all but those transposed in shared memory), counted on full[s]
  /// after an arrival that expects their `bytes` (directLoads).
  void loadStage(Value stage, Value kc, Value m0, Value n0, Value aBoxes,
                 Value bytes) {
    kb.expectBytes(full(stage), bytes);
    Value base = stageOffset(stage);
    auto barrier = [&] { return full(stage); };
    if (!transposedInShared(spec, spec.a))
      loadOperand(spec.a, base, c32(0), m0, kWgmmaTileM, kc, aBoxes, barrier);
    for (unsigned j = 0; j < spec.b.size(); ++j)
      if (!transposedInShared(spec, spec.b[j]))
        loadOperand(spec.b[j], base, bOffset(j), n0, spec.tileN, kc, aBoxes,
                    barrier);
  }

  /// `body` for the k-steps 0 .. steps - 1 (an scf.for over i32; `body`
  /// builds at the loop body's start).
  void forEachStep(Value steps, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b(), kb.loc, c32(0), steps, c32(1));
    OpBuilder::InsertionGuard guard(b());
    b().setInsertionPointToStart(loop.getBody());
    body(loop.getInductionVar());
  }

  /// The first k of k-step `step` of those from k-tile `kFirst`.
  Value kTile(Value kFirst, Value step) {
    return kb.mul(kb.add(kFirst, step), c32(tileK()));
  }
  /// By one thread: waits for k-step `step`'s stage to be free, then loads
  /// the operands TMA brings into it as they are (loadStage).
  void loadWhenFree(Value step, Value kFirst, Value m0, Value n0, Value aBoxes,
                    Value bytes) {
    Value stage = urem(step, spec.stages);
    waitFree(step);
    loadStage(stage, kTile(kFirst, step), m0, n0, aBoxes, bytes);
  }

  /// Loads k-steps [kFirst, kFirst + kSteps) (kSteps >= 1) into the ring,
  /// the first in round 0 of stage 0.
  void producer(Value kFirst, Value kSteps, Value m0, Value n0,
                const EpilogueViews &views,
                const std::optional<StagingPlan> &staging) {
    if (rewritesStages())
      return splittingProducer(kFirst, kSteps, m0, n0);
    if (transposes())
      return copiesTransposed(spec) ? copyingProducer(kFirst, kSteps, m0, n0)
                                : transposingProducer(kFirst, kSteps, m0, n0);
    bool handoff = handsOff(staging);
    NVVM::SetMaxRegisterOp::create(b(), kb.loc, registerSplit(staging).producer,
                                   NVVM::SetMaxRegisterAction::decrease);
    Value tid = kb.threadIdX();
    kb.ifThen(eq(udiv(tid, 32), 0), [&] {
      Value elected =
          NVVM::ElectSyncOp::create(b(), kb.loc, b().getI1Type(), Value());
      kb.ifThen(elected, [&] {
        auto [aBoxes, arrivingBytes] = directLoads(m0);
        forEachStep(kSteps, [&](Value step) {
          loadWhenFree(step, kFirst, m0, n0, aBoxes, arrivingBytes);
        });
      });
      if (staging && !staging->prefetched.empty())
        kb.ifThen(elected, [&] { prefetchStaged(*staging, kSteps, m0, n0); });
      // Warp 0 whole again before the hand-off's aligned barriers.
      if (handoff)
        NVVM::SyncWarpOp::create(b(), kb.loc, c32(-1));
    });
    if (!handoff)
      return;
    // Each consumer's handed-off boxes, once it has left their accumulators.
    for (int64_t c = 0; c < 2; ++c) {
      namedBarrier(c32(kHandoffBarrier + c), 2 * 128);
      EpiloguePart part;
      part.handoff = staging->handoffAt(c);
      part.begin = staging->firstHandedOff(epilogueSpec);
      part.end = spec.tileN / 2;
      epilogue(views, staging, c32(c), part, kb.toI64(m0), kb.toI64(n0));
    }
  }

  // The transposing producer (fp32 operands stored MN-major; the file
  // comment). Landing slot l (k-step i uses l = i mod L in round i div L)
  // holds the transposed operands' tiles of one k-step as TMA stores them;
  // landing[l] completes its phase for round r when they have arrived.

  bool transposes() const { return transposedBytes(spec) > 0; }
  Value landing(Value slot) {
    return kb.add(c32(kBarrierBytes + spec.stages * stageBytes(spec)),
                  kb.mul(slot, c32(landingSlotBytes(spec))));
  }
  Value landingBarrier(Value slot) { return barrierPastEpilogue(slot); }
  /// The i-th mbarrier after the epilogue's: landing[i] (the landing
  /// producer) or ready[i] (tf32x3's splitting producer; never both).
  Value barrierPastEpilogue(Value i) {
    return at(kb.add(kb.mul(i, c32(8)), c32(8 * (2 * spec.stages + 2))));
  }
  /// The parity of k-step `step`'s round on its stage's barriers.
  Value roundParity(Value step) {
    return arith::AndIOp::create(b(), kb.loc, udiv(step, spec.stages), c32(1));
  }
  /// Whether some operand is loaded by TMA straight into the stages (the
  /// leader's expect_tx is one of full[s]'s arrivals).
  bool loadsDirectly() const {
    return stagePartBytes(spec) > transposedBytes(spec);
  }
  /// Arrivals that complete full[s]'s phase: the leader's expect_tx for
  /// the operands TMA loads into the stage directly (if any), and the
  /// transposing producer's once its writes are done (one; each of its
  /// 128 threads' where cp.async copies).
  int64_t fullArrivals() const {
    if (!transposes())
      return 1;
    return (loadsDirectly() ? 1 : 0) + (copiesTransposed(spec) ? 128 : 1);
  }

  /// Every thread of warpgroup 0, for each k-step: thread 0 issues a later
  /// step's landing loads and direct ones (directAhead), all wait for this
  /// step's landing slot, write its tiles K-major into the stage (tf32x3:
  /// split into both parts, transposeTile), fence them for WGMMA (the
  /// async proxy) and meet; thread 0 then arrives on full[s], the barrier
  /// the consumers wait on (complete).
  void transposingProducer(Value kFirst, Value kSteps, Value m0, Value n0) {
    NVVM::SetMaxRegisterOp::create(b(), kb.loc, registerSplit({}).producer,
                                   NVVM::SetMaxRegisterAction::decrease);
    Value thread = kb.threadIdX(); // 0 .. 127 in warpgroup 0
    Value leader = eq(thread, 0);
    auto [aBoxes, arrivingBytes] = directLoads(m0);
    // The transposed operands' tiles, in their landing order.
    struct Transposed {
      const WgmmaOperand *op;
      Value row0;
      int64_t rows, landingAt, stageAt; // byte offsets in a slot, a stage
    };
    SmallVector<Transposed> transposed;
    int64_t landed = 0;
    auto add = [&](const WgmmaOperand &op, Value row0, int64_t rows,
                   int64_t stageAt) {
      if (!transposedInShared(spec, op))
        return;
      transposed.push_back({&op, row0, rows, landed, stageAt});
      landed += rows * kRowBytes;
    };
    add(spec.a, m0, kWgmmaTileM, 0);
    for (unsigned j = 0; j < spec.b.size(); ++j)
      add(spec.b[j], n0, spec.tileN, (kWgmmaTileM + j * spec.tileN) * kRowBytes);
    auto fillLanding = [&](Value step) {
      Value slot = urem(step, landingSlots());
      auto barrier = [&] { return landingBarrier(slot); };
      kb.expectBytes(barrier(), c32(landingSlotBytes(spec)));
      for (const Transposed &t : transposed)
        loadOperand(*t.op, landing(slot), c32(t.landingAt), t.row0, t.rows,
                    kTile(kFirst, step), aBoxes, barrier);
    };
    // The operands loaded into the stages as they are: step i + D in step
    // i, once its stage is free. The consumers release step j once they
    // start step j + 1, which the producer makes full in its iteration j +
    // 1, so thread 0's wait in iteration i (for step i + D - stages) ends
    // while D <= stages - 2; meanwhile the warpgroup's transposition of
    // step i waits for it. D = 1 (as the landing loads of 2 slots) for an
    // A read into registers as stored (measured with it, bench/NOTES.md
    // item 89); 0 for the K-major operands of K3's and K5's variants
    // that transpose their weights (measured so, item 86).
    int64_t ahead = landingSlots() - 1;
    int64_t directAhead = loadsDirectly() && readsMnMajorAInRegisters(spec)
                              ? std::min<int64_t>(ahead, spec.stages - 2)
                              : 0;
    auto firstSteps = [&](int64_t count, function_ref<void(Value)> fill) {
      for (int64_t first = 0; first < count; ++first) // kSteps >= 1
        kb.ifThen(first == 0 ? leader
                             : kb.both(leader, kb.lessThan(c32(first), kSteps)),
                  [&] { fill(c32(first)); });
    };
    auto loadAhead = [&](Value step) {
      loadWhenFree(step, kFirst, m0, n0, aBoxes, arrivingBytes);
    };
    // Steps 0 .. L - 2's landing loads and 0 .. D - 1's direct ones before
    // the loop; step i + L - 1's and i + D's in step i.
    firstSteps(ahead, fillLanding);
    firstSteps(directAhead, loadAhead);
    forEachStep(kSteps, [&](Value step) {
      Value stage = urem(step, spec.stages);
      Value next = kb.add(step, c32(ahead));
      // That step's slot held step - 1's tiles, which every thread has read
      // (the barrier at the end of the previous step).
      kb.ifThen(kb.both(leader, kb.lessThan(next, kSteps)),
                [&] { fillLanding(next); });
      if (directAhead > 0) {
        Value later = kb.add(step, c32(directAhead));
        kb.ifThen(kb.both(leader, kb.lessThan(later, kSteps)),
                  [&] { loadAhead(later); });
        // Warp 0 whole again after thread 0's wait, before the aligned
        // barriers below.
        NVVM::SyncWarpOp::create(b(), kb.loc, c32(-1));
      }
      waitFree(step);
      if (loadsDirectly() && directAhead == 0)
        kb.ifThen(leader, [&] {
          loadStage(stage, kTile(kFirst, step), m0, n0, aBoxes, arrivingBytes);
        });
      Value slot = urem(step, landingSlots());
      kb.waitParity(landingBarrier(slot),
                    arith::AndIOp::create(b(), kb.loc,
                                          udiv(step, landingSlots()), c32(1)));
      Value base = stageOffset(stage);
      for (const Transposed &t : transposed)
        transposeTile(kb.add(landing(slot), c32(t.landingAt)),
                      kb.add(base, c32(t.stageAt)), t.rows, thread,
                      splitsInShared(*t.op));
      // This thread's writes, for the WGMMAs that read them (async proxy);
      // its reads of the slot, before the TMA that next fills it.
      kb.fenceProxyAsync();
      namedBarrier(c32(kProducerBarrier), 128);
      kb.ifThen(leader, [&] {
        NVVM::MBarrierArriveOp::create(b(), kb.loc, /*res=*/Type(), full(stage),
                                       /*count=*/Value());
      });
    });
  }

  // The copying producer (--fmlp-tf32-transpose=cp-async): no landing
  // slots; each element of a transposed operand's tile goes from global
  // memory straight to its K-major place in the stage, by a cp.async of 4
  // bytes, which needs no registers to hold it: as many k-steps are in
  // flight as the ring has stages.

  /// Every thread of warpgroup 0, for each k-step: waits for the stage to
  /// be free, copies its share of the transposed tiles into it
  /// (copyTransposed) and has full[s] count their completion
  /// (cp.async.mbarrier.arrive.noinc: one of the 128 arrivals the barrier
  /// expects from them); thread 0 also loads the K-major operands by TMA
  /// (arrive.expect_tx, the one arrival more). The consumers fence the
  /// stage for the async proxy once it is full (mmaStep).
  void copyingProducer(Value kFirst, Value kSteps, Value m0, Value n0) {
    NVVM::SetMaxRegisterOp::create(b(), kb.loc, registerSplit({}).producer,
                                   NVVM::SetMaxRegisterAction::decrease);
    Value thread = kb.threadIdX(); // 0 .. 127 in warpgroup 0
    auto [aBoxes, arrivingBytes] = directLoads(m0);
    forEachStep(kSteps, [&](Value step) {
      loadStep(step, kFirst, m0, n0, aBoxes, arrivingBytes, thread);
    });
    // The last copies land before the block's shared memory may go.
    NVVM::CpAsyncCommitGroupOp::create(b(), kb.loc);
    NVVM::CpAsyncWaitGroupOp::create(b(), kb.loc, 0);
  }

  // The splitting producer (tf32x3, the file comment): the operands arrive
  // in the high part of a stage as in tf32 (TMA, the copies of transposed
  // ones), and the producer's threads then split B's elements x there (A's
  // too where the consumers do not split A in registers): hi = rna(x)
  // written back in place, lo = rna(x - hi) at the same place in the low
  // part (both exact tf32 values, so the tensor core's truncation of its
  // operands changes neither), fence their writes for the async proxy and
  // arrive on ready[s] (one arrival a splitter), which the consumers wait
  // on. Measured on an H100 (bench/NOTES.md item 87): the splitters apart
  // from the loads take 0.94-0.99x the no-grad forward's time of one loop
  // doing both at T = 256 .. 1024 (tf32's variants rounding in their
  // stages); at T = 8192, where only tf32x3 (and the A/B bound -1) splits,
  // 1.00-1.03x.

  /// Whether the producer writes the stages through the generic proxy
  /// (the copies, the split): the consumers' WGMMAs (async proxy) then
  /// fence their reads before releasing a stage.
  bool writesStagesGeneric() const {
    return rewritesStages() || (transposes() && copiesTransposed(spec));
  }
  /// Whether the splitting producer rewrites the stages once they arrive
  /// (tf32x3's split, but where the transposing producer splits:
  /// splitsAsTransposed; or roundsBInStages' rounding), the consumers
  /// waiting on ready[s].
  bool rewritesStages() const {
    return (spec.tf32x3 && !splitsAsTransposed(spec)) || spec.roundsBInStages;
  }
  /// The rewritten stage's mbarrier, after the epilogue's.
  Value ready(Value stage) { return barrierPastEpilogue(stage); }
  /// The mbarrier whose phase r tells the consumers that their stage's
  /// round r is complete: ready[s] where the splitting producer rewrites
  /// it, else full[s] (TMA's bytes, and the transposing producer's arrival
  /// once its writes, split or not, are fenced: fullArrivals).
  Value complete(Value stage) {
    return rewritesStages() ? ready(stage) : full(stage);
  }
  /// Whether the splitting producer's warp 0 only loads and its warps 1..3
  /// only split (every operand arrives by TMA: one thread issues a step's
  /// loads), so that the loads run as far ahead as the ring allows; else
  /// (the cp.async copies of transposed operands, which take all 128
  /// threads) every thread loads and splits in one loop, splitLag() steps
  /// apart.
  bool splitsApart() const { return !transposes(); }
  /// The threads that split a stage and arrive on ready[s].
  int64_t splitters() const { return splitsApart() ? 96 : 128; }
  /// How many k-steps the loads run ahead of the split in the one loop.
  /// The producer loads step i once step i - stages is released, which the
  /// consumers do once they start step i - stages + 1, split in the
  /// producer's iteration i - stages + 1 + lag: before iteration i (no
  /// deadlock) while lag <= stages - 2.
  int64_t splitLag() const { return spec.stages - 2; }

  /// Warpgroup 0. Apart (splitsApart): thread 0 loads k-steps 0, 1, .. as
  /// the copying producer does (each once its stage is free), warps 1..3
  /// split them in order (each once it has arrived). The loads wait only
  /// for the consumers' releases, the splits only for the loads, and the
  /// consumers for the splits: no cycle. In one loop: iteration i loads
  /// k-step i (if any), then splits k-step i - splitLag() (if any).
  void splittingProducer(Value kFirst, Value kSteps, Value m0, Value n0) {
    NVVM::SetMaxRegisterOp::create(b(), kb.loc, registerSplit({}).producer,
                                   NVVM::SetMaxRegisterAction::decrease);
    Value thread = kb.threadIdX(); // 0 .. 127 in warpgroup 0
    auto [aBoxes, arrivingBytes] = directLoads(m0);
    if (splitsApart()) {
      auto roles = scf::IfOp::create(b(), kb.loc, kb.lessThan(thread, c32(32)),
                                     /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(roles.thenBlock());
      // Thread 0 alone waits for each stage's release and issues its loads
      // (lanes that only waited could fall a phase behind: nothing they do
      // holds thread 0 back).
      kb.ifThen(eq(thread, 0), [&] {
        forEachStep(kSteps, [&](Value step) {
          loadStep(step, kFirst, m0, n0, aBoxes, arrivingBytes, thread);
        });
      });
      b().setInsertionPointToStart(roles.elseBlock());
      forEachStep(kSteps, [&](Value step) {
        splitStage(step, kb.add(thread, c32(-32)));
      });
      return;
    }
    int64_t lag = splitLag();
    forEachStep(kb.add(kSteps, c32(lag)), [&](Value step) {
      kb.ifThen(kb.lessThan(step, kSteps), [&] {
        loadStep(step, kFirst, m0, n0, aBoxes, arrivingBytes, thread);
      });
      if (lag == 0) {
        splitStage(step, thread);
      } else {
        Value splitStep = kb.add(step, c32(-lag));
        kb.ifThen(arith::CmpIOp::create(b(), kb.loc, arith::CmpIPredicate::sge,
                                        splitStep, c32(0)),
                  [&] { splitStage(splitStep, thread); });
      }
    });
    NVVM::CpAsyncCommitGroupOp::create(b(), kb.loc);
    NVVM::CpAsyncWaitGroupOp::create(b(), kb.loc, 0);
  }

  /// Once k-step `step`'s operands are in the high part of its stage
  /// (full[s]): splits each of its words x into hi = rna(x) in place and
  /// (tf32x3) lo = rna(x - hi) in the low part (x - hi is exact in fp32),
  /// fences the writes for the WGMMAs and arrives on ready[s]. Splitter
  /// `splitter` (0 .. splitters() - 1) takes the 16-byte pieces splitter +
  /// splitters() r (consecutive threads consecutive pieces: no bank hit
  /// twice), each read and written by one thread (lo = rna(x - rna(x))
  /// needs the raw x: the split is not idempotent).
  void splitStage(Value step, Value splitter) {
    Value stage = urem(step, spec.stages);
    Value parity = roundParity(step);
    kb.waitParity(full(stage), parity);
    // Where the consumers split or round A in registers, its tile stays
    // raw: B's alone.
    constexpr int64_t kPieceBytes = 16;
    int64_t from = readsAInRegisters() ? kWgmmaTileM * kRowBytes : 0;
    int64_t pieces = (stagePartBytes(spec) - from) / kPieceBytes;
    int64_t threads = splitters();
    Value first = kb.add(stageOffset(stage),
                         kb.add(c32(from), kb.mul(splitter, c32(kPieceBytes))));
    auto quad = VectorType::get({4}, b().getF32Type());
    auto words = VectorType::get({4}, i32);
    auto offsetOf = [&](int64_t r) {
      return kb.add(first, c32(r * threads * kPieceBytes));
    };
    auto rewrite = [&](Value offset) {
      Value x = LLVM::LoadOp::create(b(), kb.loc, quad, at(offset), 16);
      Value hi = LLVM::UndefOp::create(b(), kb.loc, words);
      Value lo = hi;
      for (int64_t e = 0; e < 4; ++e) {
        Value element = LLVM::ExtractElementOp::create(b(), kb.loc, x, c32(e));
        auto [high, low] = spec.tf32x3
                               ? kb.tf32Parts(element)
                               : std::pair(kb.roundToTf32(element), Value());
        hi = LLVM::InsertElementOp::create(b(), kb.loc, hi, high, c32(e));
        if (low)
          lo = LLVM::InsertElementOp::create(b(), kb.loc, lo, low, c32(e));
      }
      LLVM::StoreOp::create(b(), kb.loc, hi, at(offset), 16);
      if (spec.tf32x3)
        LLVM::StoreOp::create(b(), kb.loc, lo,
                              at(kb.add(offset, c32(lowPartOffset(spec)))), 16);
    };
    // Whole rounds, then the last round's pieces where the splitters do not
    // divide them (96 splitters: 2,048 pieces of a 256-column B).
    int64_t rounds = pieces / threads;
    for (int64_t r = 0; r < rounds; ++r)
      rewrite(offsetOf(r));
    if (int64_t rest = pieces % threads)
      kb.ifThen(kb.lessThan(splitter, c32(rest)),
                [&] { rewrite(offsetOf(rounds)); });
    kb.fenceProxyAsync();
    NVVM::MBarrierArriveOp::create(b(), kb.loc, /*res=*/Type(), ready(stage),
                                   /*count=*/Value());
  }

  bool splitsAInRegisters() const { return splitsTf32x3AInRegisters(spec); }
  /// Whether the landing producer writes A's tiles into the stages (and
  /// rounds them there, roundsTf32).
  bool landsA() const {
    return transposedInShared(spec, spec.a) && !copiesTransposed(spec);
  }
  /// Whether tf32's consumers round A in registers (roundsTf32): wherever
  /// the landing producer does not.
  bool roundsAInRegisters() const {
    return spec.roundsTf32 && !spec.tf32x3 && !landsA();
  }
  /// Whether the consumers read A with loads of their own.
  bool readsAInRegisters() const {
    return splitsAInRegisters() || roundsAInRegisters();
  }

  /// K-step `step`'s operands into its stage, by every thread of warpgroup
  /// 0 once the stage is free: thread 0's TMA loads of the K-major ones
  /// (arming full[s] with `bytes`, directLoads), and every thread's copies
  /// of the transposed ones, whose completion full[s] counts
  /// (cp.async.mbarrier.arrive.noinc).
  void loadStep(Value step, Value kFirst, Value m0, Value n0, Value aBoxes,
                Value bytes, Value thread) {
    Value stage = urem(step, spec.stages);
    Value kc = kTile(kFirst, step);
    waitFree(step);
    if (loadsDirectly())
      kb.ifThen(eq(thread, 0),
                [&] { loadStage(stage, kc, m0, n0, aBoxes, bytes); });
    if (!transposes())
      return;
    copyTransposedOperands(stage, kc, m0, n0, thread);
    NVVM::CpAsyncMBarrierArriveOp::create(b(), kb.loc, full(stage),
                                          /*noinc=*/true);
  }

  /// Copies the transposed operands' tiles of k-tile `kc` into stage
  /// `stage` (copyTransposed).
  void copyTransposedOperands(Value stage, Value kc, Value m0, Value n0,
                              Value thread) {
    Value base = stageOffset(stage);
    if (transposedInShared(spec, spec.a))
      copyTransposed(spec.aView, m0, spec.m, kWgmmaTileM, kc, spec.k, base,
                     thread);
    for (unsigned j = 0; j < spec.b.size(); ++j)
      if (transposedInShared(spec, spec.b[j]))
        copyTransposed(spec.bViews[j].transposed(), n0, spec.n, spec.tileN, kc,
                       spec.k, kb.add(base, bOffset(j)), thread);
  }

  /// Copies the tile of `rows` r from `r0` and tileK k from `k0` of `view`
  /// (element (r, k), r contiguous: an MN-major operand, A's r its m, B's
  /// its n) into the stage's tile at byte `to`, K-major as TMA stores a
  /// K-major box: element (r, k) at byte 128 r + 16 ((k div 4) ^ (r mod
  /// 8)) + 4 (k mod 4). Elements past `rExtent` or `kExtent` are zero
  /// (src-size 0: nothing read). Lane l of warp w copies element (8 i + l
  /// mod 8, 4 (w + 4 j) + l div 8) of each 8 x 4 block (i, j) (j = 0, 1):
  /// a warp reads 4 runs of 32 bytes (one sector each) and writes one word
  /// to each bank, 16 (l mod 8 ^ (w + 4 j)) + 4 (l div 8) taking 32
  /// distinct values. A tile lies in one part of a view concatenated
  /// along k (the parts start at multiples of the k-tile: TmaPlanner);
  /// parts along r are adjacent columns of one buffer (the same), read
  /// from the first.
  void copyTransposed(const MatrixView &view, Value r0, Extent rExtent,
                      int64_t rows, Value k0, Extent kExtent, Value to,
                      Value thread) {
    assert(view.rowStride == 1 && "an MN-major fp32 view, r contiguous");
    Value lane = urem(thread, 32), warp = udiv(thread, 32);
    Value rIn = urem(lane, 8), kIn = udiv(lane, 8);
    // The shared bytes of blocks (0, 0) and (0, 1); block (i, j) lies
    // 1024 i further.
    SmallVector<Value, 2> firstTo;
    for (int64_t j = 0; j < 2; ++j) {
      Value piece = arith::XOrIOp::create(b(), kb.loc,
                                          kb.add(warp, c32(4 * j)), rIn);
      firstTo.push_back(kb.add(
          kb.add(to, kb.mul(rIn, c32(kRowBytes))),
          kb.add(kb.mul(piece, c32(16)), kb.mul(kIn, c32(4)))));
    }
    Value r = kb.toI64(kb.add(r0, rIn));
    Value k = kb.toI64(kb.add(k0, kb.add(kb.mul(warp, c32(4)), kIn)));
    // This thread's elements left along r and k (from block (0, 0)).
    Value rLeft = arith::SubIOp::create(b(), kb.loc, kb.extent(rExtent), r);
    Value kLeft = arith::SubIOp::create(b(), kb.loc, kb.extent(kExtent), k);
    // In 64 bits, so that LLVM sees a static extent below `rows` leave no
    // whole tile.
    Value whole = kb.both(
        kb.lessThan(kb.add(kb.toI64(r0), kb.i64(rows)),
                    kb.add(kb.extent(rExtent), kb.i64(1))),
        kb.lessThan(kb.add(kb.toI64(k0), kb.i64(tileK())),
                    kb.add(kb.extent(kExtent), kb.i64(1))));
    // One part's copies: its elements at base[r + (k - start) kStride].
    auto copyPart = [&](Value base, int64_t kStride, int64_t start) {
      Value first = LLVM::GEPOp::create(
          b(), kb.loc, base.getType(), view.element, base,
          ValueRange{kb.add(r, kb.mul(kb.add(k, kb.i64(-start)),
                                      kb.i64(kStride)))});
      auto issue = [&](bool edge) {
        for (int64_t i = 0; i < rows / 8; ++i)
          for (int64_t j = 0; j < 2; ++j) {
            Value source = LLVM::GEPOp::create(
                b(), kb.loc, base.getType(), view.element, first,
                ValueRange{kb.i64(8 * i + 16 * j * kStride)});
            Value target = at(kb.add(firstTo[j], c32(1024 * i)));
            if (!edge) {
              NVVM::CpAsyncOp::create(b(), kb.loc, target, source, 4,
                                      NVVM::LoadCacheModifierKind::CA,
                                      Value());
              continue;
            }
            Value inside =
                kb.both(kb.lessThan(kb.i64(8 * i), rLeft),
                        kb.lessThan(kb.i64(16 * j), kLeft));
            // Outside: nothing read, from the part's first element.
            NVVM::CpAsyncOp::create(
                b(), kb.loc, target, kb.select(inside, source, base), 4,
                NVVM::LoadCacheModifierKind::CA,
                kb.select(inside, c32(4), c32(0)));
          }
      };
      auto branch = scf::IfOp::create(b(), kb.loc, whole, true);
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPoint(branch.thenBlock()->getTerminator());
      issue(false);
      b().setInsertionPoint(branch.elseBlock()->getTerminator());
      issue(true);
    };
    if (!view.splitCols || view.further.empty())
      return copyPart(view.base, view.colStride, 0);
    // Parts along k: a chain of scf.if on k0 below each further part's
    // start.
    OpBuilder::InsertionGuard guard(b());
    Value base = view.base;
    int64_t kStride = view.colStride, start = 0;
    for (const MatrixView::Part &next : view.further) {
      assert(next.rowStride == 1 && "an MN-major fp32 part, r contiguous");
      auto branch = scf::IfOp::create(
          b(), kb.loc, kb.lessThan(k0, c32(next.start)), true);
      b().setInsertionPoint(branch.thenBlock()->getTerminator());
      copyPart(base, kStride, start);
      b().setInsertionPoint(branch.elseBlock()->getTerminator());
      base = next.base;
      kStride = next.colStride;
      start = next.start;
    }
    copyPart(base, kStride, start);
  }

  /// Writes a landing tile of `rows` m/n (at byte `from`: rows / 32 boxes
  /// of 4 KiB, box b's row k holding m = 32 b + 4 c .. + 3 in its 16-byte
  /// piece at position c ^ (k mod 8)) into a stage's tile at byte `to`,
  /// K-major as TMA would have stored it (row m at 128 m, k = 4 q .. + 3
  /// in its piece at position q ^ (m mod 8)). Thread t moves 4 x 4 blocks
  /// (m chunk c, k chunk q) of boxes 2 p + t div 64 in round p: u = t mod
  /// 64, c = u mod 8, q = (c + u div 8) mod 8. Its four loads of rows k =
  /// 4 q + j and four stores of rows m = 32 b + 4 c + r are 16 bytes each;
  /// the 8 threads of a quarter warp (one u div 8 = s, c = 0 .. 7) then
  /// touch 8 distinct piece positions in each, so no bank is hit twice:
  /// loads at c ^ (4 ((c + s) mod 2) + j), stores at ((c + s) mod 8) ^
  /// (4 (c mod 2) + r), each a bijection of c (bit 0 of c decides the flip
  /// of bit 2; the sum mod 8 keeps distinct c distinct). Each element is
  /// written rounded to tf32 where the kernel rounds its operands
  /// (roundsTf32), or, where `split` (splitsInShared), split: x's hi =
  /// rna(x) at its K-major place in the high part and lo = rna(x - hi) at
  /// the same place lowPartOffset further, the same 16-byte pieces.
  void transposeTile(Value from, Value to, int64_t rows, Value thread,
                     bool split) {
    assert(rows % 64 == 0 && "a round of 128 threads moves two 32-row boxes");
    auto quad = VectorType::get({4}, b().getF32Type());
    auto xorI = [&](Value x, Value y) {
      return arith::XOrIOp::create(b(), kb.loc, x, y).getResult();
    };
    Value u = urem(thread, 64);
    Value c = urem(u, 8);
    Value q = urem(kb.add(c, udiv(u, 8)), 8);
    constexpr int64_t kBoxBytes = 32 * kRowBytes;
    int64_t rounds = rows / 64;
    auto boxOf = [&](int64_t p) {
      return kb.add(c32(2 * p), udiv(thread, 64));
    };
    // Round p's four rows k = 4 q + j (m = 32 box + 4 c .. + 3).
    auto loadRound = [&](int64_t p) {
      Value fromBox = kb.add(from, kb.mul(boxOf(p), c32(kBoxBytes)));
      SmallVector<Value, 4> kRows;
      for (int64_t j = 0; j < 4; ++j) {
        Value k = kb.add(kb.mul(q, c32(4)), c32(j));
        Value piece = kb.add(
            kb.add(fromBox, kb.mul(k, c32(kRowBytes))),
            kb.mul(xorI(c, urem(k, 8)), c32(16)));
        kRows.push_back(LLVM::LoadOp::create(b(), kb.loc, quad, at(piece), 16));
      }
      return kRows;
    };
    // Round p + 1's loads are issued before round p's stores (which they
    // may alias for all the compiler knows, so it would not move them
    // there: the landing slot and the stage never overlap), so that their
    // latency overlaps round p's rounding or splitting and stores instead
    // of following them.
    SmallVector<Value, 4> nextRows = loadRound(0);
    for (int64_t p = 0; p < rounds; ++p) {
      Value box = boxOf(p);
      SmallVector<Value, 4> kRows = nextRows;
      if (p + 1 < rounds)
        nextRows = loadRound(p + 1);
      auto asF32 = [&](Value word) {
        return LLVM::BitcastOp::create(b(), kb.loc, b().getF32Type(), word)
            .getResult();
      };
      for (int64_t r = 0; r < 4; ++r) {
        Value m = kb.add(kb.add(kb.mul(box, c32(32)), kb.mul(c, c32(4))),
                         c32(r));
        Value piece = LLVM::UndefOp::create(b(), kb.loc, quad);
        Value low = split ? piece : Value(); // the lo words
        for (int64_t j = 0; j < 4; ++j) {
          Value x =
              LLVM::ExtractElementOp::create(b(), kb.loc, kRows[j], c32(r));
          if (split) {
            auto [xHigh, xLow] = kb.tf32Parts(x);
            x = asF32(xHigh);
            low = LLVM::InsertElementOp::create(b(), kb.loc, low, asF32(xLow),
                                                c32(j));
          } else if (spec.roundsTf32) {
            x = asF32(kb.roundToTf32(x));
          }
          piece = LLVM::InsertElementOp::create(b(), kb.loc, piece, x, c32(j));
        }
        Value address = kb.add(kb.add(to, kb.mul(m, c32(kRowBytes))),
                               kb.mul(xorI(q, urem(m, 8)), c32(16)));
        LLVM::StoreOp::create(b(), kb.loc, piece, at(address), 16);
        if (low)
          LLVM::StoreOp::create(b(), kb.loc, low,
                                at(kb.add(address, c32(lowPartOffset(spec)))),
                                16);
      }
    }
  }

  /// Whether the transposing producer writes `op`'s words split into the
  /// stage's two parts (tf32x3, splitsAsTransposed): each B_j's, and A's
  /// unless the consumers split A's raw tile in registers (A then has no
  /// low part where the stages are compact: lowPartOffset).
  bool splitsInShared(const WgmmaOperand &op) const {
    return spec.tf32x3 && !(&op == &spec.a && splitsAInRegisters());
  }

  LLVM::LLVMStructType accumulatorType() {
    SmallVector<Type> fields(spec.tileN / 2, b().getF32Type());
    return LLVM::LLVMStructType::getLiteral(b().getContext(), fields);
  }

  /// k-step `step` of this consumer: wait for its stage, add its tileK k to
  /// `acc` (the first step overwrites it: scale-out zero), and release the
  /// previous step's stage once only this step's group is pending (it
  /// stays in flight while the next step is issued). Where A comes from
  /// registers (roundsAInRegisters), the previous step's group is waited
  /// for before A's registers are written again: a WGMMA's A registers
  /// must not change until a wait_group covers it (PTX ISA), a loop body
  /// writes the same registers every iteration, and ptxas serializes the
  /// WGMMAs where anything defines their A registers while a group is in
  /// flight (C7513, even with two register sets: bench/NOTES.md item 82);
  /// the other consumer's WGMMAs keep the tensor core busy meanwhile.
  SmallVector<Value> mmaStep(Value step, Value consumer, ValueRange acc,
                             bool first) {
    Value stage = urem(step, spec.stages);
    Value parity = roundParity(step);
    kb.waitParity(complete(stage), parity);
    // Elements cp.async copied in (or rounded in place) are written by the
    // generic proxy, which the WGMMAs (async proxy) see after this thread's
    // proxy fence: the barrier's completion ordered the writes before it.
    if (writesStagesGeneric())
      kb.fenceProxyAsync();
    Value base = stageOffset(stage);
    // Each consumer's 64 rows of A: 64 rows on (K-major) or the next
    // 64-wide block (MN-major), 8 KiB on either way.
    Value aBase =
        kb.add(base, kb.mul(consumer, c32(kConsumerRows * kRowBytes)));
    int64_t instructions = tileK() / instructionK();
    // roundsAInRegisters: every k8's fragment of A, rounded, written before
    // the fence (aFragment's loads, from A as staged), once the
    // previous step's WGMMAs (which read the same registers) are done.
    SmallVector<SmallVector<Value>> aRounded;
    if (roundsAInRegisters()) {
      if (!first) {
        NVVM::WgmmaWaitGroupSyncOp::create(b(), kb.loc, 0);
        releaseBefore(step);
      }
      for (int64_t kk = 0; kk < instructions; ++kk) {
        SmallVector<Value> &words = aRounded.emplace_back();
        aFragment(aBase, kk,
                  [&](Value x) { words.push_back(kb.roundToTf32(x)); });
      }
    }
    if (pingPong())
      namedBarrier(turn(consumer), 2 * 128);
    NVVM::WgmmaFenceAlignedOp::create(b(), kb.loc);
    SmallVector<Value> sums(acc);
    for (int64_t kk = 0; kk < instructions; ++kk) {
      bool aK = stagedKMajor(spec.a);
      Value dA = descriptor(at(kb.add(aBase, c32(kStepBytes(aK) * kk))), aK);
      for (unsigned j = 0; j < spec.b.size(); ++j) {
        bool bK = stagedKMajor(spec.b[j]);
        Value dB = descriptor(
            at(kb.add(kb.add(base, bOffset(j)), c32(kStepBytes(bK) * kk))), bK);
        bool accumulate = !(first && kk == 0);
        sums[j] = aRounded.empty()
                      ? sharedWgmma(sums[j], dA, aK, dB, bK, accumulate)
                      : registerWgmma(sums[j], aRounded[kk], dB, accumulate);
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b(), kb.loc);
    if (pingPong())
      passTurn(consumer);
    if (aRounded.empty()) {
      NVVM::WgmmaWaitGroupSyncOp::create(b(), kb.loc, 1);
      releaseBefore(step);
    }
    return sums;
  }

  // tf32x3's k-step (the splitting producer's stages): for each group of
  // spec.tf32x3GroupK8s k8s of the k-tile, each k8's lo hi' + hi lo' + hi
  // hi' (the small products first) into step sums from zero, one WGMMA
  // group, then, once it is done, the step sums added to the accumulators
  // in fp32, rounded to nearest (a tensor core truncates its sums: lib/
  // Numerics' tf32x3 bound, BlockSpec::tf32x3GroupK8s; mma_sync's k8 steps
  // are groups of one). The wait is for the whole group (wait_group 0):
  // ptxas serializes every WGMMA of a kernel where other instructions read
  // a WGMMA's accumulators while any group is pending (C7514), so the
  // tensor core is kept busy by the other consumer while this one adds.
  // The loop carries the accumulators (zero before k-step 0), then the
  // step sums (J values each).

  SmallVector<Value> mmaStepTf32x3(Value step, Value consumer,
                                   ValueRange state) {
    int64_t parts = spec.b.size();
    SmallVector<Value> acc(state.take_front(parts));
    SmallVector<Value> sums(state.slice(parts, parts));
    Value stage = urem(step, spec.stages);
    Value parity = roundParity(step);
    kb.waitParity(complete(stage), parity);
    Value hi = stageOffset(stage);
    Value lo = kb.add(hi, c32(lowPartOffset(spec)));
    Value aOffset = kb.mul(consumer, c32(kConsumerRows * kRowBytes));
    auto operand = [&](Value part, Value offset, int64_t kk) {
      return descriptor(
          at(kb.add(kb.add(part, offset), c32(kWgmmaInstructionKBytes * kk))),
          /*kMajor=*/true);
    };
    int64_t k8s = tileK() / instructionK(), group = spec.tf32x3GroupK8s;
    assert(k8s % group == 0 && "groups of k8s tile the k-step");
    for (int64_t first = 0; first < k8s; first += group) {
      // A's parts of the group's k8s in registers (splitsAInRegisters),
      // before the fence: a k8's high and low parts, four words each.
      SmallVector<std::pair<SmallVector<Value>, SmallVector<Value>>> aParts;
      if (splitsAInRegisters()) {
        for (int64_t kk = first; kk < first + group; ++kk) {
          auto &[high, low] = aParts.emplace_back();
          aFragment(kb.add(hi, aOffset), kk, [&](Value x) {
            auto [xHigh, xLow] = kb.tf32Parts(x);
            high.push_back(xHigh);
            low.push_back(xLow);
          });
        }
      }
      if (pingPong())
        namedBarrier(turn(consumer), 2 * 128);
      // The step sums were last read by the adds below (registers: a fence
      // before the WGMMAs write them again), A's parts just written.
      NVVM::WgmmaFenceAlignedOp::create(b(), kb.loc);
      for (int64_t kk = first; kk < first + group; ++kk) {
        // The group's first product starts its sums from zero.
        bool fromZero = kk == first;
        for (int64_t j = 0; j < parts; ++j) {
          Value bOff = bOffset(j);
          if (!aParts.empty()) {
            auto &[high, low] = aParts[kk - first];
            sums[j] = registerWgmma(sums[j], low, operand(hi, bOff, kk),
                                    /*accumulate=*/!fromZero);
            sums[j] = registerWgmma(sums[j], high, operand(lo, bOff, kk),
                                    /*accumulate=*/true);
            sums[j] = registerWgmma(sums[j], high, operand(hi, bOff, kk),
                                    /*accumulate=*/true);
            continue;
          }
          std::pair<Value, Value> products[] = {
              {operand(lo, aOffset, kk), operand(hi, bOff, kk)},
              {operand(hi, aOffset, kk), operand(lo, bOff, kk)},
              {operand(hi, aOffset, kk), operand(hi, bOff, kk)}};
          for (auto [i, product] : llvm::enumerate(products))
            sums[j] = sharedWgmma(sums[j], product.first, /*aK=*/true,
                                  product.second, /*bK=*/true,
                                  /*accumulate=*/!fromZero || i > 0);
        }
      }
      NVVM::WgmmaGroupSyncAlignedOp::create(b(), kb.loc);
      if (pingPong())
        passTurn(consumer);
      NVVM::WgmmaWaitGroupSyncOp::create(b(), kb.loc, 0);
      // Every group before this one is done, the previous k-step's too.
      if (first == 0)
        releaseBefore(step);
      for (int64_t j = 0; j < parts; ++j)
        acc[j] = addSums(acc[j], sums[j]);
    }
    SmallVector<Value> next(acc);
    next.append(sums);
    return next;
  }

  // The consumers' ping-pong (--fmlp-ping-pong): turn[c] (a named barrier
  // of both consumers' 256 threads) completes once consumer c waits on it
  // and the other has arrived, after issuing its group. Consumer 1 arrives
  // on turn[0] before the main loop, so consumer 0 issues first; each then
  // waits for its turn before every group (tf32x3's of a k8, tf32's of a
  // k-step) and passes it on after: the groups alternate 0, 1, 0, 1, ..
  // A consumer cannot arrive twice on one phase: its next arrival follows
  // its next wait, which the other's arrival after its own wait completes.
  // Both issue the same groups, so consumer 1's last arrival on turn[0] is
  // left, which consumer 0 meets after the main loop: every phase
  // completes.

  bool pingPong() const {
    return readsAInRegisters() && applies(pingPongKernels, spec.tf32x3);
  }
  Value turn(Value consumer) { return kb.add(c32(kTurnBarrier), consumer); }
  /// Arrives on the other consumer's turn.
  void passTurn(Value consumer) {
    Value other = arith::SubIOp::create(b(), kb.loc, c32(1), consumer);
    NVVM::BarrierArriveOp::create(b(), kb.loc, turn(other), c32(2 * 128));
  }

  /// This thread's fragment of k8 `kk` of the consumer's 64 rows of A (the
  /// raw tile at byte `tile`, as staged): `each` takes its four fp32 words
  /// in register order, each as it is loaded. Register v of thread (warp w,
  /// lane l) holds row 16 w + l / 4 + 8 (v mod 2), k 8 kk + l mod 4 + 4 (v
  /// div 2) (the wgmma register layout of A for 32-bit types).
  ///
  /// K-major (the 128-byte swizzled tile): at byte 128 row + 16 ((k div 4)
  /// ^ (row mod 8)) + 4 (k mod 4). A warp's 32 loads touch 32 distinct
  /// banks: 4 ((2 kk + v div 2) ^ (l / 4)) + l mod 4.
  ///
  /// MN-major (readsMnMajorAInRegisters: as TMA stores it, boxes of 32 k
  /// rows x 32 m, 4 KiB, row k of box m div 32 holding m mod 32 = 4 c .. +
  /// 3 in its 16-byte piece at position c ^ (k mod 8)): at byte 4096 (row
  /// div 32) + 128 k + 16 (((row mod 32) div 4) ^ (k mod 8)) + 4 (row mod
  /// 4), k mod 8 = l mod 4 + 4 (v div 2). Bank 4 ((4 (w mod 2) + 2 (v mod
  /// 2) + (l / 4) div 4) ^ (k mod 8)) + (l / 4) mod 4: lanes whose (l / 4)
  /// div 4 and bit 0 of l mod 4 both differ (bit 1 equal) meet, so each
  /// load takes two wavefronts.
  void aFragment(Value tile, int64_t kk, function_ref<void(Value)> each) {
    Value thread = urem(kb.threadIdX(), 128);
    Value lane = urem(thread, 32), warp = udiv(thread, 32);
    Value group = udiv(lane, 4), quad = urem(lane, 4);
    auto xorI = [&](Value x, Value y) {
      return arith::XOrIOp::create(b(), kb.loc, x, y).getResult();
    };
    for (int64_t v = 0; v < 4; ++v) {
      Value row = kb.add(kb.add(kb.mul(warp, c32(16)), group), c32(8 * (v % 2)));
      Value byte;
      if (stagedKMajor(spec.a)) {
        Value piece = xorI(c32(2 * kk + v / 2), group);
        byte = kb.add(kb.add(tile, kb.mul(row, c32(kRowBytes))),
                      kb.add(kb.mul(piece, c32(16)), kb.mul(quad, c32(4))));
      } else {
        Value k = kb.add(quad, c32(8 * kk + 4 * (v / 2)));
        Value m = urem(row, 32);
        Value piece = xorI(udiv(m, 4), urem(k, 8));
        byte = kb.add(
            kb.add(tile, kb.add(kb.mul(udiv(row, 32), c32(32 * kRowBytes)),
                                kb.mul(k, c32(kRowBytes)))),
            kb.add(kb.mul(piece, c32(16)), kb.mul(urem(m, 4), c32(4))));
      }
      each(LLVM::LoadOp::create(b(), kb.loc, b().getF32Type(), at(byte), 4));
    }
  }

  /// sums + A B (or A B alone, `accumulate` false) on m64 x tileN x one
  /// instruction's k, both from shared memory by descriptors (`dA`, `dB`),
  /// each K-major (`aK`, `bK`) or MN-major as staged. fp32 operands are
  /// multiplied as tf32: the tensor core reads their bits as they are (the
  /// file comment of KernelBuilder.h's WGMMA part).
  Value sharedWgmma(Value sums, Value dA, bool aK, Value dB, bool bK,
                    bool accumulate) {
    NVVM::WGMMATypes type = spec.element.isBF16()  ? NVVM::WGMMATypes::bf16
                            : spec.element.isF16() ? NVVM::WGMMATypes::f16
                                                   : NVVM::WGMMATypes::tf32;
    auto shape = NVVM::MMAShapeAttr::get(b().getContext(), 64,
                                         static_cast<int>(spec.tileN),
                                         static_cast<int>(instructionK()));
    return NVVM::WgmmaMmaAsyncOp::create(
        b(), kb.loc, sums.getType(), sums, dA, dB, shape, type, type,
        NVVM::WGMMATypes::f32,
        accumulate ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        // A: row = K-major; B: col = K-major.
        aK ? NVVM::MMALayout::row : NVVM::MMALayout::col,
        bK ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::MMAIntOverflowAttr());
  }

  /// sums + A B (or A B alone, `accumulate` false) on m64 x tileN x k8
  /// tf32: A's four words a thread from registers (aFragment's layout),
  /// B K-major in shared memory (`bDescriptor`). Inline PTX: the NVVM op
  /// takes A by descriptor only.
  Value registerWgmma(Value sums, ArrayRef<Value> a, Value bDescriptor,
                      bool accumulate) {
    int64_t n = spec.tileN / 2; // accumulators a thread
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, " +
                       std::to_string(accumulate ? 1 : 0) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                       std::to_string(spec.tileN) + "k8.f32.tf32.tf32 {";
    std::string constraints;
    SmallVector<Value> operands;
    for (int64_t r = 0; r < n; ++r) {
      text += (r ? ", $" : "$") + std::to_string(r);
      constraints += (r ? ",=f" : "=f");
    }
    for (int64_t r = 0; r < n; ++r) {
      operands.push_back(LLVM::ExtractValueOp::create(b(), kb.loc, sums, r));
      constraints += "," + std::to_string(r);
    }
    text += "}, {";
    for (int64_t v = 0; v < 4; ++v) {
      text += (v ? ", $" : "$") + std::to_string(2 * n + v);
      operands.push_back(a[v]);
      constraints += ",r";
    }
    text += "}, $" + std::to_string(2 * n + 4) + ", p, 1, 1;\n}";
    operands.push_back(bDescriptor);
    constraints += ",l";
    return LLVM::InlineAsmOp::create(
               b(), kb.loc, sums.getType(), operands, text, constraints,
               /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
               ArrayAttr())
        .getResult(0);
  }

  /// The accumulators `a` + `b`, element by element (fp32, rounded to
  /// nearest).
  Value addSums(Value a, Value b) {
    Value sum = LLVM::UndefOp::create(this->b(), kb.loc, a.getType());
    for (int64_t r = 0; r < spec.tileN / 2; ++r)
      sum = LLVM::InsertValueOp::create(
          this->b(), kb.loc, sum,
          arith::AddFOp::create(
              this->b(), kb.loc,
              LLVM::ExtractValueOp::create(this->b(), kb.loc, a, r),
              LLVM::ExtractValueOp::create(this->b(), kb.loc, b, r)),
          r);
    return sum;
  }

  /// The main loop, k-step 0 peeled: its WGMMAs start the sums from
  /// nothing (undefined registers, no zeroing moves: ptxas serializes the
  /// WGMMAs of a loop whose accumulators other instructions define).
  void consumer(Value kSteps, Value m0Index, Value n0Index, Value tile,
                const EpilogueViews &views,
                const std::optional<StagingPlan> &staging) {
    NVVM::SetMaxRegisterOp::create(b(), kb.loc, registerSplit(staging).consumer,
                                   NVVM::SetMaxRegisterAction::increase);
    Value consumer = kb.add(udiv(kb.threadIdX(), 128), c32(-1)); // 0 or 1
    Value undefined = LLVM::UndefOp::create(b(), kb.loc, accumulatorType());
    if (pingPong()) // consumer 0 issues first
      kb.ifThen(eq(consumer, 1), [&] { passTurn(consumer); });
    scf::ForOp loop;
    if (spec.tf32x3) {
      // Not peeled: each k8 starts its sums from zero anyway, and the
      // accumulators start from zero (no WGMMA writes them).
      SmallVector<Value> state(
          spec.b.size(), LLVM::ZeroOp::create(b(), kb.loc, accumulatorType()));
      state.append(spec.b.size(), undefined);
      loop = scf::ForOp::create(b(), kb.loc, c32(0), kSteps, c32(1), state);
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(loop.getBody());
      scf::YieldOp::create(b(), kb.loc,
                           mmaStepTf32x3(loop.getInductionVar(), consumer,
                                         loop.getRegionIterArgs()));
    } else {
      SmallVector<Value> acc =
          mmaStep(c32(0), consumer,
                  SmallVector<Value>(spec.b.size(), undefined),
                  /*first=*/true);
      loop = scf::ForOp::create(b(), kb.loc, c32(1), kSteps, c32(1), acc);
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(loop.getBody());
      scf::YieldOp::create(b(), kb.loc,
                           mmaStep(loop.getInductionVar(), consumer,
                                   loop.getRegionIterArgs(), /*first=*/false));
    }
    if (pingPong()) // consumer 1's last turn passed
      kb.ifThen(eq(consumer, 0),
                [&] { namedBarrier(turn(consumer), 2 * 128); });
    NVVM::WgmmaWaitGroupSyncOp::create(b(), kb.loc, 0);
    releaseBefore(kSteps);
    SmallVector<Value> results(loop.getResults().take_front(spec.b.size()));

    auto finish = [&](ValueRange sums) {
      EpiloguePart part;
      part.accumulators = sums;
      part.end = spec.tileN / 2;
      if (handsOff(staging)) {
        part.end = staging->firstHandedOff(epilogueSpec);
        handOff(*staging, consumer, sums[0], part.end);
      }
      epilogue(views, staging, consumer, part, m0Index, n0Index);
    };
    if (spec.splitK == 1)
      return finish(results);
    // A consumer whose 64 rows all lie past M (the upper half of a last
    // row tile at T mod 128 in 1 .. 64, as at T <= 64) neither stores
    // its partial nor sums the others': the epilogue writes none of its
    // rows, so its sums are never read. The barriers stay unconditional.
    Value hasRows = arith::CmpIOp::create(
        b(), kb.loc, arith::CmpIPredicate::slt,
        kb.add(m0Index, kb.toI64(kb.mul(consumer, c32(kConsumerRows)))),
        kb.extent(spec.m));
    kb.ifThen(hasRows, [&] { storePartial(tile, consumer, results); });
    Value last = arriveLast(tile);
    auto branch = scf::IfOp::create(b(), kb.loc, last, false);
    OpBuilder::InsertionGuard guard(b());
    b().setInsertionPoint(branch.thenBlock()->getTerminator());
    // The epilogue in each branch (its barriers are by ID and count, the
    // same from either): a merge of the sums would keep both sets live
    // (ptxas spilled the tf32 transposing input_grad's).
    auto summed = scf::IfOp::create(b(), kb.loc, hasRows, /*withElseRegion=*/true);
    b().setInsertionPoint(summed.thenBlock()->getTerminator());
    finish(sumSlices(tile, consumer, results));
    b().setInsertionPoint(summed.elseBlock()->getTerminator());
    finish(results);
  }

  // Split-K (the file comment). A block's partial tile: consumer c's
  // accumulator j, register r of its thread t (r < R = tileN / 2), as
  // 16-byte pieces of 4 registers: the f32 at index
  // ((c J + j) R / 4 + r / 4) 512 + 4 t + r mod 4 of the tile's
  // [tile][slice] area, so a warp moves 512 contiguous bytes at once.

  SplitKWorkspace splitKLayout() const {
    return splitKWorkspace(spec.splitKRows, spec.n.value, spec.tileN,
                           spec.b.size(), spec.splitK);
  }
  /// This thread's first f32 in slice `slice`'s partial of `tile` (ptr<1>).
  Value partialAt(Value tile, Value slice, Value consumer) {
    SplitKWorkspace layout = splitKLayout();
    Value area = kb.add(kb.mul(kb.toI64(tile), kb.i64(spec.splitK)),
                        kb.toI64(slice));
    Value byte = kb.add(
        kb.add(kb.i64(layout.partialsOffset),
               kb.mul(area, kb.i64(layout.partialBytes))),
        kb.add(kb.mul(kb.toI64(consumer), kb.i64(layout.partialBytes / 2)),
               kb.toI64(kb.mul(urem(kb.threadIdX(), 128), c32(16)))));
    return LLVM::GEPOp::create(b(), kb.loc, spec.splitKWorkspace.getType(),
                               b().getI8Type(), spec.splitKWorkspace,
                               ValueRange{byte});
  }
  /// Register r's 16-byte piece (r a multiple of 4) of accumulator j, from
  /// this thread's first (partialAt): the part's threads' pieces lie side
  /// by side.
  Value pieceAt(Value first, unsigned j, int64_t r) {
    int64_t piece = (j * spec.tileN / 2 + r) / 4;
    int32_t bytes = piece * kEpiloguePartThreads * 16;
    return LLVM::GEPOp::create(b(), kb.loc, first.getType(), b().getI8Type(),
                               first, ArrayRef<LLVM::GEPArg>{bytes});
  }
  Value slice() {
    return NVVM::BlockIdZOp::create(b(), kb.loc, i32);
  }

  void storePartial(Value tile, Value consumer, ValueRange sums) {
    Value first = partialAt(tile, slice(), consumer);
    auto quad = VectorType::get({4}, b().getF32Type());
    for (auto [j, sum] : llvm::enumerate(sums))
      for (int64_t r = 0; r < spec.tileN / 2; r += 4) {
        Value piece = LLVM::UndefOp::create(b(), kb.loc, quad);
        for (int64_t i = 0; i < 4; ++i)
          piece = LLVM::InsertElementOp::create(
              b(), kb.loc, piece,
              LLVM::ExtractValueOp::create(b(), kb.loc, sum, r + i), c32(i));
        LLVM::StoreOp::create(b(), kb.loc, piece, pieceAt(first, j, r), 16);
      }
  }

  /// fence.acq_rel.gpu: this thread's accesses before it are ordered
  /// before its accesses after it for every thread of the GPU.
  void fenceGpu() {
    LLVM::FenceOp::create(b(), kb.loc, LLVM::AtomicOrdering::acq_rel,
                          "device");
  }

  /// Step 1 and 2 of the file comment: whether this block is the last of
  /// `tile`'s to arrive (the same i1 in every consumer thread); the last
  /// sets the counter back to 0.
  ///
  /// The PTX memory model's patterns: each thread's stores, then its
  /// fence.acq_rel.gpu, then the barrier (bar.sync orders them before the
  /// counting thread's next steps); the counting thread's fence then releases
  /// all of them (fences are cumulative) to the relaxed atom.add that follows
  /// it, and its fence after the atom.add acquires every earlier block's
  /// released partials; the second barrier passes that on to the block.
  Value arriveLast(Value tile) {
    fenceGpu(); // this thread's partial, before the barrier
    syncAllParts();
    Value word = at(c32(kArrivalWord));
    kb.ifThen(eq(kb.threadIdX(), 128), [&] {
      Value counter = LLVM::GEPOp::create(
          b(), kb.loc, spec.splitKWorkspace.getType(), b().getI32Type(),
          spec.splitKWorkspace, ValueRange{kb.toI64(tile)});
      fenceGpu(); // release: the block's partials before the add
      Value before = LLVM::AtomicRMWOp::create(
          b(), kb.loc, LLVM::AtomicBinOp::add, counter, c32(1),
          LLVM::AtomicOrdering::monotonic, "device");
      fenceGpu(); // acquire: the earlier blocks' partials after it
      Value last = eq(before, spec.splitK - 1);
      // No other block adds to it again this launch: all S have.
      kb.ifThen(last, [&] {
        LLVM::StoreOp::create(b(), kb.loc, c32(0), counter, 4);
      });
      LLVM::StoreOp::create(
          b(), kb.loc, arith::ExtUIOp::create(b(), kb.loc, i32, last), word,
          4);
    });
    syncAllParts();
    Value last = eq(LLVM::LoadOp::create(b(), kb.loc, i32, word, 4), 1);
    return last;
  }

  /// Step 2's sum, in the last block: the partials of slices 0 .. S - 1 in
  /// that order, this block's own from `own`.
  SmallVector<Value> sumSlices(Value tile, Value consumer, ValueRange own) {
    fenceGpu(); // every thread's loads after the counting thread's acquire
    Value mine = slice();
    auto quad = VectorType::get({4}, b().getF32Type());
    SmallVector<Value> totals;
    for (auto [j, ownSum] : llvm::enumerate(own)) {
      Value total = LLVM::UndefOp::create(b(), kb.loc, ownSum.getType());
      for (int64_t r = 0; r < spec.tileN / 2; r += 4) {
        SmallVector<Value> sum(4);
        for (int64_t s = 0; s < spec.splitK; ++s) {
          Value piece = LLVM::LoadOp::create(
              b(), kb.loc, quad,
              pieceAt(partialAt(tile, c32(s), consumer), j, r), 16);
          Value isMine = eq(mine, s);
          for (int64_t i = 0; i < 4; ++i) {
            Value value = kb.select(
                isMine,
                LLVM::ExtractValueOp::create(b(), kb.loc, ownSum, r + i),
                LLVM::ExtractElementOp::create(b(), kb.loc, piece, c32(i)));
            sum[i] = s == 0 ? value
                            : arith::AddFOp::create(b(), kb.loc, sum[i], value)
                                  .getResult();
          }
        }
        for (int64_t i = 0; i < 4; ++i)
          total = LLVM::InsertValueOp::create(b(), kb.loc, total, sum[i],
                                              r + i);
      }
      totals.push_back(total);
    }
    return totals;
  }

  /// Consumer `consumer`'s accumulator registers from `first` on, into its
  /// hand-off area (StagingPlan::handedOffBoxes), then its arrival on the
  /// hand-off barrier the producer waits on.
  void handOff(const StagingPlan &plan, Value consumer, Value accumulator,
               int64_t first) {
    Value thread = urem(kb.threadIdX(), 128);
    Value base = kb.add(
        kb.add(c32(plan.handoffAt(0)),
               kb.mul(consumer, c32(plan.handoffAt(1) - plan.handoffAt(0)))),
        kb.mul(thread, c32(16)));
    auto quad = VectorType::get({4}, b().getF32Type());
    for (int64_t r = first; r < spec.tileN / 2; r += 4) {
      Value piece = LLVM::UndefOp::create(b(), kb.loc, quad);
      for (int64_t i = 0; i < 4; ++i)
        piece = LLVM::InsertElementOp::create(
            b(), kb.loc, piece,
            LLVM::ExtractValueOp::create(b(), kb.loc, accumulator, r + i),
            c32(i));
      LLVM::StoreOp::create(
          b(), kb.loc, piece,
          at(kb.add(base, c32(StagingPlan::handedOffAt(r - first)))), 16);
    }
    NVVM::BarrierArriveOp::create(
        b(), kb.loc, kb.add(c32(kHandoffBarrier), consumer), c32(2 * 128));
  }

  /// Arrivals of one consumer warpgroup that release a stage: its leader's,
  /// or every thread's where they read the stage with loads of their own
  /// (readsAInRegisters), so that each read is ordered before its
  /// thread's arrival (with one arrival a warp, racecheck saw the other 31
  /// lanes' reads race the next round's copies: bench/NOTES.md item 78).
  int64_t releasesPerConsumer() const { return readsAInRegisters() ? 128 : 1; }

  /// One consumer's arrival on the empty barrier of k-step `step` - 1, if
  /// any (its WGMMAs on that stage are done).
  void releaseBefore(Value step) {
    // Where the consumers read A with loads of their own (A in registers),
    // each thread's reads are released by its own arrival.
    Value leader = eq(urem(kb.threadIdX(), 128 / releasesPerConsumer()), 0);
    Value after = arith::CmpIOp::create(b(), kb.loc, arith::CmpIPredicate::ugt,
                                        step, c32(0));
    kb.ifThen(kb.both(leader, after), [&] {
      // The WGMMAs' reads (async proxy) before the producer's copies into
      // the stage (generic proxy), and this thread's loads (generic proxy)
      // before the next round's TMA writes (async proxy), which this
      // arrival releases.
      if (writesStagesGeneric() || readsAInRegisters())
        kb.fenceProxyAsync();
      NVVM::MBarrierArriveOp::create(
          b(), kb.loc, /*res=*/Type(),
          empty(urem(kb.add(step, c32(-1)), spec.stages)), /*count=*/Value());
    });
  }

  void epilogue(const EpilogueViews &views,
                const std::optional<StagingPlan> &staging, Value consumer,
                const EpiloguePart &part, Value m0, Value n0) {
    buildStagedEpilogue(kb, epilogueSpec, *this, views, staging, consumer,
                        part, m0, n0);
  }
  void namedBarrier(Value id, int64_t threads) {
    NVVM::BarrierOp::create(b(), kb.loc, TypeRange{}, id, c32(threads),
                            NVVM::BarrierReductionAttr(), Value());
  }
};

} // namespace

SplitKWorkspace mlir::fmlp::splitKWorkspace(int64_t rows, int64_t cols,
                                            int64_t tileN,
                                            unsigned accumulators,
                                            int64_t splitK) {
  SplitKWorkspace layout;
  layout.counters = llvm::divideCeil(rows, kWgmmaTileM) *
                    llvm::divideCeil(cols, tileN);
  layout.partialsOffset = llvm::alignTo(4 * layout.counters, 128);
  layout.partialBytes = kWgmmaTileM * tileN * accumulators * 4;
  layout.bytes = layout.partialsOffset +
                 layout.counters * splitK * layout.partialBytes;
  return layout;
}

int64_t mlir::fmlp::wgmmaTileK(Type element) {
  return kWgmmaRowBytes * 8 / element.getIntOrFloatBitWidth();
}

bool mlir::fmlp::wgmmaTakesMnMajor(Type element) {
  return element.getIntOrFloatBitWidth() == 16;
}

bool mlir::fmlp::wgmmaReadsMnMajor(Type element) {
  return wgmmaTakesMnMajor(element) || wgmmaTransposesFp32();
}

bool mlir::fmlp::wgmmaTransposesFp32() { return tf32WgmmaMnMajor; }

bool mlir::fmlp::wgmmaRoundsTransposedFp32() {
  return fp32Transpose == Fp32Transpose::landing;
}

int64_t mlir::fmlp::wgmmaSharedBytes(const WgmmaGemmSpec &spec) {
  return kBarrierBytes + spec.stages * stageBytes(spec) +
         landingSlots() * landingSlotBytes(spec);
}

void mlir::fmlp::buildWgmmaGemm(KernelBuilder &kb, const WgmmaGemmSpec &spec) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  Wgmma w(kb, spec);
  EpilogueViews views =
      EpilogueViews::discover(kb, spec.epilogue, spec.b.size());
  assert((wgmmaTakesMnMajor(spec.element) || wgmmaTransposesFp32() ||
          (spec.a.kMajor && llvm::all_of(spec.b, [](const WgmmaOperand &b) {
             return b.kMajor;
           }))) &&
         "WGMMA transposes 16-bit operands only: MN-major tf32 ones need "
         "--fmlp-tf32-wgmma-mn-major");
  assert(!w.transposes() || 8 * (2 * spec.stages + 2 + landingSlots()) <=
                                kArrivalWord &&
                                "the landing mbarriers overlap the arrival "
                                "word");
  assert((!spec.tf32x3 ||
          (spec.element.isF32() && 8 * (3 * spec.stages + 2) <= kArrivalWord &&
           spec.tileN * int64_t(spec.b.size()) <= kWgmmaTf32x3Columns)) &&
         "tf32x3: fp32 operands, tiles of at most 128 columns, and the "
         "ready mbarriers below the arrival word");
  assert((!spec.roundsTf32 || (spec.element.isF32() && !spec.tf32x3 &&
                               (!w.transposes() || !copiesTransposed(spec)))) &&
         "tf32 rounding: fp32 operands as tf32, MN-major ones through the "
         "landing slots (the cp.async copies cannot round)");
  assert((!readsMnMajorAInRegisters(spec) || w.readsAInRegisters()) &&
         "an MN-major A read as stored is read into registers: WGMMA takes "
         "a shared-memory tf32 A K-major only");
  assert((!spec.roundsBInStages ||
          (spec.roundsTf32 && !w.transposes() && spec.stages >= 2 &&
           8 * (3 * spec.stages + 2) <= kArrivalWord)) &&
         "tf32 rounding in the stages: tf32 rounding, no operand transposed, "
         "and the ready mbarriers below the arrival word");
  // The epilogue's slots lie in the ring, free once the main loop is done.
  // 16-bit views only: fp32 ones (tf32 kernels) take the epilogue's direct
  // stores. A thread's column pair is then 8 bytes and a warp's store 8
  // rows x 32 bytes, whole 32-byte sectors, where a 16-bit pair's warp
  // store fills half sectors: staging would add a round trip through
  // shared memory and its barriers for no sector saved (and TMA's output
  // boxes, 64 columns of 16 bits, are planned for 16-bit views only).
  std::optional<StagingPlan> staging =
      spec.element.getIntOrFloatBitWidth() == 16
          ? StagingPlan::of(w.epilogueSpec, views, kBarrierBytes,
                            spec.stages * stageBytes(spec))
          : std::nullopt;
  // With every staged block prefetched and one accumulator, the producer
  // warpgroup takes one box of each consumer's elements, where the
  // hand-off area fits past the ring.
  // Split-K: the producer only loads (the file comment): views read
  // through a tensor map are copied in by the consumers' threads instead.
  if (staging && spec.splitK > 1) {
    for (auto [slot, map] : staging->prefetched)
      staging->maps[slot] = std::nullopt;
    staging->prefetched.clear();
  }
  if (staging) {
    staging->handoffBase = wgmmaSharedBytes(spec);
    if (spec.splitK == 1 && staging->allPrefetched() && spec.b.size() == 1 &&
        spec.tileN / kWgmmaOutputBox >= 2) {
      staging->handedOffBoxes = 1;
      if (staging->handoffBase + staging->handoffBytes() >
          spec.sharedBytesLimit)
        staging->handedOffBoxes = 0;
    }
  }
  Value tid = kb.threadIdX();
  // This block's tile and k-steps.
  struct Work {
    Value m0, n0, kFirst, kSteps, tile;
  };
  auto work = [&] {
    Work at;
    auto [mTile, nTile] = kb.tileOfBlockGrouped();
    at.m0 = kb.mul(mTile, w.c32(kWgmmaTileM));
    at.n0 = kb.mul(nTile, w.c32(spec.tileN));
    // ceil(K / tileK) k-steps; the tensor maps zero-fill past K.
    Value kExtent = arith::TruncIOp::create(b, loc, w.i32, kb.extent(spec.k));
    // At least one (k-step 0 is peeled; T >= 1 reaches a kernel anyway).
    at.kSteps = arith::MaxUIOp::create(
        b, loc, arith::CeilDivUIOp::create(b, loc, kExtent, w.c32(w.tileK())),
        w.c32(1));
    // Split-K: this slice's k-steps [kFirst, first(s + 1)) (the file
    // comment; the lowering checks S <= the k-steps, K static).
    at.kFirst = w.c32(0);
    if (spec.splitK > 1) {
      assert(!spec.k.tokens && !spec.n.tokens && spec.splitKWorkspace &&
             "split-K needs static K and N and a workspace");
      assert(8 * (2 * spec.stages + 2) <= kArrivalWord &&
             "the mbarriers overlap the arrival word");
      Value slice = w.slice();
      auto first = [&](Value s) {
        return arith::DivUIOp::create(b, loc, kb.mul(s, at.kSteps),
                                      w.c32(spec.splitK));
      };
      at.kFirst = first(slice);
      at.kSteps = arith::SubIOp::create(
          b, loc, first(kb.add(slice, w.c32(1))), at.kFirst);
      Value nTiles = NVVM::GridDimYOp::create(b, loc, w.i32);
      at.tile = kb.add(kb.mul(mTile, nTiles), nTile);
    }
    return at;
  };
  // tf32x3 computes it in each role: shared, ptxas spilled the tile's n
  // across the roles' setmaxnreg (8 B in the copying kernels K4 and K6).
  std::optional<Work> shared;
  if (!spec.tf32x3)
    shared = work();

  kb.initBarriers(tid, [&] {
    for (int64_t s = 0; s < spec.stages; ++s) {
      kb.initBarrier(w.full(w.c32(s)), w.fullArrivals());
      kb.initBarrier(w.empty(w.c32(s)), 2 * w.releasesPerConsumer());
    }
    if (w.rewritesStages())
      for (int64_t s = 0; s < spec.stages; ++s)
        kb.initBarrier(w.ready(w.c32(s)), w.splitters());
    else if (w.transposes())
      for (int64_t l = 0; l < landingSlots(); ++l)
        kb.initBarrier(w.landingBarrier(w.c32(l)), 1);
    if (!spec.outputMaps.empty())
      for (int64_t c = 0; c < 2; ++c)
        kb.initBarrier(w.epilogueBarrier(w.c32(c)), 1);
  });

  Value isProducer = w.eq(w.udiv(tid, 128), 0);
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(roles.thenBlock()->getTerminator());
    Work at = shared ? *shared : work();
    w.producer(at.kFirst, at.kSteps, at.m0, at.n0, views, staging);
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    at = shared ? *shared : work();
    w.consumer(at.kSteps, kb.toI64(at.m0), kb.toI64(at.n0), at.tile, views,
               staging);
  }

  LaunchGeometry geometry;
  geometry.block = {kWgmmaThreads, 1, 1};
  geometry.tile(0, spec.m, kWgmmaTileM);
  geometry.tile(1, spec.n, spec.tileN);
  geometry.fixed[2] = spec.splitK;
  geometry.dynamicSharedBytes =
      wgmmaSharedBytes(spec) + (staging ? staging->handoffBytes() : 0);
  geometry.maxRegisters = kWgmmaMaxRegisters;
  kb.finish(geometry);
}
