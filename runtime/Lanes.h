//===- Lanes.h - Two streams for one entry point's launches -----*- C++ -*-===//
//
// An entry point's launches go to the caller's stream (lane 0) or to a side
// stream (lane 1), as the manifest's `lane` says (the compiler's choice:
// dX's GEMM beside the weight gradients' in a backward, docs/Bundle.md).
// Which launch must wait for which is the runtime's to derive, from what
// each launch refers to and writes, so that a lane in the manifest can
// only change what runs at the same time, never a result:
//
//   reads(L)  = every argument among L's params;
//   writes(L) = L's `writes`, and every scratch argument among its params
//               (a workspace no launch lists among its writes: split-K's
//               partials and counters, Argument::scratch).
//
// A later launch L' conflicts with L when one writes an argument the
// other reads (writes are reads too). The plan makes every conflict an
// order on the GPU: on one lane by the stream's order; across lanes by an
// event that the earlier launch's lane records after it and the later
// launch's lane waits for before it. Each lane has one event, recorded
// again after each launch that a launch of the other lane conflicts with
// (the lane's marked launches); a wait sees the event's latest record
// (cuStreamWaitEvent), after the latest marked launch before the waiter,
// which is at or after the one it needs. So a lane has waited through the
// other lane's latest marked launch before its last wait, and a launch
// waits only when it needs one past that. Lane 1 also waits for the
// caller's work before the call (a record on lane 0 before the first
// launch), and lane 0 for lane 1's last launch before the call returns (so
// the caller's next work, and a CUDA graph's capture, see one stream).
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_RUNTIME_LANES_H
#define FMLP_RUNTIME_LANES_H

#include "Manifest.h"

#include <array>
#include <cstdint>
#include <vector>

namespace fmlp::runtime {

/// One launch of a call, as the plan runs it.
struct LaneStep {
  int lane = 0;
  /// The latest step of the other lane it conflicts with: an index, or
  /// LanePlan::kStart (the caller's work) or LanePlan::kNone.
  int64_t need = -2;
  /// Before the launch, its lane waits for the other lane's event.
  bool waits = false;
  /// After the launch, its lane records its event (it is marked).
  bool records = false;
};

/// The plan of one call: begin(), add() each launch in the order the entry
/// point runs them, then finish(). Allocates only when a call has more
/// launches or arguments than any before it (the vectors keep their
/// capacity).
class LanePlan {
public:
  static constexpr int64_t kStart = -1, kNone = -2;

  /// Starts a call of `entry`; `lanes` 1 puts every launch on lane 0.
  void begin(const Entry &entry, int lanes);
  void add(const Launch &launch);
  void finish();

  const std::vector<LaneStep> &steps() const { return plan; }
  /// Whether lane 1 runs anything (the side stream is needed).
  bool usesSideLane() const { return sideLaneUsed; }
  /// Lane 0 records its event before the first launch (lane 1 waits for
  /// the caller's earlier work).
  bool recordsAtStart() const { return startRecorded; }
  /// Lane 0 waits for lane 1's event after the last launch.
  bool joinsAtEnd() const { return joined; }

private:
  const Entry *entry = nullptr;
  int laneCount = 2;
  std::vector<LaneStep> plan;
  // Per argument: the last step that wrote it, and per lane the last step
  // that read it since (kNone: none).
  std::vector<int64_t> lastWriter;
  std::vector<std::array<int64_t, 2>> lastReader;
  bool sideLaneUsed = false, startRecorded = false, joined = false;
};

} // namespace fmlp::runtime

#endif // FMLP_RUNTIME_LANES_H
