//===- Lanes.cpp - Two streams for one entry point's launches -------------===//
//
// The plan of Lanes.h, in two passes. add(): step i on lane l, o the other
// lane, needs `need`, the latest step of lane o that i conflicts with: the
// latest writer of an argument i reads, or the latest reader or writer of
// one i writes, on lane o (lane 1 also needs lane 0's start: the caller's
// work). finish(): every needed step is marked (and the start, and lane
// 1's last step, which lane 0 joins); then in order, lane l has waited
// through covered[l], the latest marked step of lane o before l's last
// wait, and step i waits iff need > covered[l]. A step with need <=
// covered[l] is ordered after its need by lane l's own order.
//
//===----------------------------------------------------------------------===//

#include "Lanes.h"

#include <algorithm>

namespace fmlp::runtime {

void LanePlan::begin(const Entry &e, int lanes) {
  entry = &e;
  laneCount = lanes;
  plan.clear();
  lastWriter.assign(e.arguments.size(), kNone);
  lastReader.assign(e.arguments.size(), {kNone, kNone});
  sideLaneUsed = startRecorded = joined = false;
}

void LanePlan::add(const Launch &launch) {
  int64_t index = static_cast<int64_t>(plan.size());
  LaneStep step;
  step.lane = laneCount == 1 ? 0 : launch.lane;
  int other = 1 - step.lane;
  auto writes = [&](int argument) {
    return entry->arguments[argument].scratch ||
           std::binary_search(launch.writes.begin(), launch.writes.end(),
                              argument);
  };
  step.need = step.lane == 1 ? kStart : kNone;
  auto conflictsWith = [&](int64_t earlier) {
    if (earlier >= 0 && plan[earlier].lane == other)
      step.need = std::max(step.need, earlier);
  };
  for (const Param &param : launch.params) {
    if (param.kind == Param::Kind::Tokens)
      continue;
    conflictsWith(lastWriter[param.argument]);
    if (writes(param.argument))
      conflictsWith(lastReader[param.argument][other]);
  }
  for (const Param &param : launch.params) {
    if (param.kind == Param::Kind::Tokens)
      continue;
    if (writes(param.argument)) {
      lastWriter[param.argument] = index;
      lastReader[param.argument] = {kNone, kNone};
    } else {
      lastReader[param.argument][step.lane] = index;
    }
  }
  sideLaneUsed = sideLaneUsed || step.lane == 1;
  plan.push_back(step);
}

void LanePlan::finish() {
  if (!sideLaneUsed)
    return;
  int64_t lastOfSide = static_cast<int64_t>(plan.size()) - 1;
  while (plan[lastOfSide].lane != 1)
    --lastOfSide;
  plan[lastOfSide].records = true;
  for (const LaneStep &step : plan) {
    if (step.need >= 0)
      plan[step.need].records = true;
    startRecorded = startRecorded || step.need == kStart;
  }
  std::array<int64_t, 2> covered{kStart, kNone};
  std::array<int64_t, 2> lastMarked{startRecorded ? kStart : kNone, kNone};
  for (size_t i = 0; i < plan.size(); ++i) {
    LaneStep &step = plan[i];
    if (step.need > covered[step.lane]) {
      step.waits = true;
      covered[step.lane] = lastMarked[1 - step.lane];
    }
    if (step.records)
      lastMarked[step.lane] = static_cast<int64_t>(i);
  }
  joined = covered[0] < lastOfSide;
}

} // namespace fmlp::runtime
