//===- RuntimeLanesTest.cpp - Launches on two streams, on a fake driver ---===//
//
// runtime/Lanes.h through the launch path: the order the fake driver sees
// (launches, event records, stream waits) is replayed as a happens-before
// relation, and every pair of launches that conflict (one writes what the
// other refers to, the workspace counting as written) must be ordered by
// it; the launches that do not conflict and sit on different lanes must
// not be (else the side stream buys nothing); every launch must be ordered
// before the caller's stream goes on (the join). A log with one wait taken
// out must fail the same check (the control). Also: FMLP_SERIAL_LAUNCHES,
// one side stream per caller's stream, made once, and the failures of the
// side stream's creation and of a launch after the fork.
//
//===----------------------------------------------------------------------===//

#include "BundleDir.h"
#include "FakeCudaDriver.h"

#include "fmlp/Runtime.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

// A backward's shape of work: k3 writes saved and workspace; k6 reads the
// workspace; dX's fill z4 and GEMM k4 on lane 1 read saved and write dx and
// the split-K workspace; k5 reads saved. Arguments: 0 x, 1 dy, 2 saved,
// 3 workspace, 4 dx, 5 d_up, 6 d_down, 7 split_k_workspace.
const char *kManifest = R"({
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "m.backward", "kind": "backward", "static_tokens": 0,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "dy", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "saved", "role": "saved", "dtype": "bf16", "shape": [-1, 16], "alignment": 16, "consumed": true},
       {"name": "workspace", "role": "workspace", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "dx", "role": "output", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "d_up", "role": "output", "dtype": "bf16", "shape": [8, 8], "alignment": 16, "consumed": false},
       {"name": "d_down", "role": "output", "dtype": "bf16", "shape": [8, 8], "alignment": 16, "consumed": false},
       {"name": "split_k_workspace", "role": "workspace", "dtype": "bf16", "shape": [1024], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "k3", "grid_tokens_per_block": [64, 0, 0], "grid_fixed": [0, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 1, "offset": 0}, {"argument": 2, "offset": 0}, {"argument": 3, "offset": 0}, {"tokens": true}],
        "writes": [2, 3]},
       {"kernel": "k6", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 1, "offset": 0}, {"argument": 3, "offset": 0}, {"argument": 6, "offset": 0}, {"tokens": true}],
        "writes": [6]},
       {"kernel": "z4", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 7, "offset": 0}, {"argument": 4, "offset": 0}, {"tokens": true}],
        "writes": [4], "lane": 1},
       {"kernel": "k4", "grid_tokens_per_block": [64, 0, 0], "grid_fixed": [0, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 2, "offset": 0}, {"argument": 4, "offset": 0}, {"argument": 7, "offset": 0}, {"tokens": true}],
        "writes": [4], "lane": 1},
       {"kernel": "k5", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 0, "offset": 0}, {"argument": 2, "offset": 8}, {"argument": 5, "offset": 0}, {"tokens": true}],
        "writes": [5]}]}
  ]
})";

// A chunked backward: per chunk, c3 writes the workspace (every chunk's
// from row 0), c4 on lane 1 reads it and writes the chunk's dx rows, c5
// reads it and adds to d_up. Arguments: 0 x, 1 dx, 2 d_up, 3 workspace.
const char *kChunked = R"({
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "c.backward", "kind": "backward", "static_tokens": 0, "chunk_tokens": 4,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "dx", "role": "output", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "d_up", "role": "output", "dtype": "bf16", "shape": [8, 8], "alignment": 16, "consumed": false},
       {"name": "workspace", "role": "workspace", "dtype": "bf16", "shape": [4, 8], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "c3", "grid_tokens_per_block": [4, 0, 0], "grid_fixed": [0, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0, "per_chunk": true,
        "params": [{"argument": 0, "offset": 0, "token_stride": 8}, {"argument": 3, "offset": 0, "token_stride": 0}, {"tokens": true}],
        "writes": [3]},
       {"kernel": "c4", "grid_tokens_per_block": [4, 0, 0], "grid_fixed": [0, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0, "per_chunk": true,
        "params": [{"argument": 3, "offset": 0, "token_stride": 0}, {"argument": 1, "offset": 0, "token_stride": 8}, {"tokens": true}],
        "writes": [1], "lane": 1},
       {"kernel": "c5", "grid_tokens_per_block": [4, 0, 0], "grid_fixed": [0, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0, "per_chunk": true,
        "params": [{"argument": 3, "offset": 0, "token_stride": 0}, {"argument": 2, "offset": 0, "token_stride": 0}, {"tokens": true}],
        "writes": [2]}]}
  ]
})";

// What each kernel refers to and writes (the manifest's, with the
// split-K workspace, which no launch lists, as written), for the check.
struct Access {
  std::set<int> refers, writes;
};
const std::map<std::string, Access> kAccess = {
    {"k3", {{1, 2, 3}, {2, 3}}},    {"k6", {{1, 3, 6}, {6}}},
    {"z4", {{7, 4}, {7, 4}}},       {"k4", {{2, 4, 7}, {4, 7}}},
    {"k5", {{0, 2, 5}, {5}}},
    {"c3", {{0, 3}, {3}}},          {"c4", {{1, 3}, {1}}},
    {"c5", {{2, 3}, {2}}}};

bool conflict(const Access &a, const Access &b) {
  auto meets = [](const std::set<int> &x, const std::set<int> &y) {
    return std::any_of(x.begin(), x.end(),
                       [&](int i) { return y.count(i) != 0; });
  };
  return meets(a.writes, b.refers) || meets(a.refers, b.writes);
}

/// The log replayed: before[l] = the launches that end before launch l
/// starts (stream order; a wait orders its stream after everything before
/// the event's latest record), where -1 stands for the caller's work
/// before the call; end = those before the caller's stream's next work.
struct HappensBefore {
  std::vector<std::set<int>> before;
  std::set<int> end;
  std::string problem; // a wait on an event never recorded, if any
};

HappensBefore replay(const std::vector<fake_cuda_op> &ops, void *caller) {
  HappensBefore hb;
  std::map<void *, std::set<int>> done, recorded; // per stream, per event
  done[caller] = {-1};
  for (const fake_cuda_op &op : ops) {
    std::set<int> &frontier = done[op.stream];
    if (op.kind == FAKE_CUDA_LAUNCH) {
      if (hb.before.size() <= size_t(op.launch))
        hb.before.resize(op.launch + 1);
      hb.before[op.launch] = frontier;
      frontier.insert(op.launch);
    } else if (op.kind == FAKE_CUDA_RECORD) {
      recorded[op.event] = frontier;
    } else {
      auto it = recorded.find(op.event);
      if (it == recorded.end())
        hb.problem = "a wait on an event not recorded in this call";
      else
        frontier.insert(it->second.begin(), it->second.end());
    }
  }
  hb.end = done[caller];
  return hb;
}

std::vector<fake_cuda_op> opLog() {
  std::vector<fake_cuda_op> ops;
  for (int i = 0; i < fake_cuda_op_count(); ++i)
    ops.push_back(*fake_cuda_op_at(i));
  return ops;
}

std::vector<std::string> kernelNames() {
  std::vector<std::string> names;
  for (int i = 0; i < fake_cuda_launch_count(); ++i)
    names.push_back(fake_cuda_launch_at(i)->kernel);
  return names;
}

/// "" when every launch follows the caller's earlier work, every
/// conflicting pair is ordered and the caller's stream ends after every
/// launch; else what is not.
std::string unordered(const std::vector<fake_cuda_op> &ops, void *caller) {
  HappensBefore hb = replay(ops, caller);
  if (!hb.problem.empty())
    return hb.problem;
  std::vector<std::string> names = kernelNames();
  for (size_t j = 0; j < names.size(); ++j) {
    if (!hb.before[j].count(-1))
      return "the caller's work before " + names[j];
    for (size_t i = 0; i < j; ++i)
      if (conflict(kAccess.at(names[i]), kAccess.at(names[j])) &&
          !hb.before[j].count(int(i)))
        return names[i] + " before " + names[j];
    if (!hb.end.count(int(j)))
      return names[j] + " before the caller's next work";
  }
  return "";
}

class RuntimeLanes : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("FMLP_LIBCUDA", FMLP_FAKE_CUDA, /*overwrite=*/0);
    unsetenv("FMLP_SERIAL_LAUNCHES"); // the two lanes, whatever the caller's
    const size_t sizes[] = {8, 8, 8, 8};
    fake_cuda_reset(9, 0, sizes, 4);
  }
  static void *address(uintptr_t a) { return reinterpret_cast<void *>(a); }
  std::vector<fmlp_tensor> tensors(int64_t tokens) {
    return {fmlp::denseTensor(address(0x10000), FMLP_BF16, {tokens, 8}),
            fmlp::denseTensor(address(0x20000), FMLP_BF16, {tokens, 8}),
            fmlp::denseTensor(address(0x30000), FMLP_BF16, {tokens, 16}),
            fmlp::denseTensor(address(0x40000), FMLP_BF16, {tokens, 8}),
            fmlp::denseTensor(address(0x50000), FMLP_BF16, {tokens, 8}),
            fmlp::denseTensor(address(0x60000), FMLP_BF16, {8, 8}),
            fmlp::denseTensor(address(0x70000), FMLP_BF16, {8, 8}),
            fmlp::denseTensor(address(0x80000), FMLP_BF16, {1024})};
  }
  /// The bundle at `path`, loaded, its saved-activations check off (the
  /// backward runs without a forward here).
  static fmlp::Bundle loaded(const std::string &path) {
    fmlp::Bundle bundle(path);
    bundle.load();
    bundle.checkSaved(false);
    return bundle;
  }

  /// The control: without any one of the waits of `ops`, something is
  /// unordered (each is needed, and the check can fail).
  void expectEveryWaitNeeded(const std::vector<fake_cuda_op> &ops) {
    for (size_t w = 0; w < ops.size(); ++w) {
      if (ops[w].kind != FAKE_CUDA_WAIT)
        continue;
      std::vector<fake_cuda_op> cut = ops;
      cut.erase(cut.begin() + w);
      EXPECT_NE(unordered(cut, caller), "") << "wait " << w << " is not needed";
    }
  }

  fmlp::test::BundleDir dir{kManifest};
  void *caller = address(0x5700);
};

TEST_F(RuntimeLanes, ConflictsAreOrderedAndTheRestRunsSideBySide) {
  fmlp::Bundle bundle = loaded(dir.path());
  bundle.launch(bundle.entry("backward"), tensors(100), caller);

  ASSERT_EQ(kernelNames(),
            (std::vector<std::string>{"k3", "k6", "z4", "k4", "k5"}));
  std::vector<fake_cuda_op> ops = opLog();
  EXPECT_EQ(unordered(ops, caller), "");
  // The lanes as the manifest says: z4 and k4 on one side stream.
  void *side = fake_cuda_launch_at(2)->stream;
  EXPECT_NE(side, caller);
  EXPECT_EQ(fake_cuda_launch_at(3)->stream, side);
  for (int i : {0, 1, 4})
    EXPECT_EQ(fake_cuda_launch_at(i)->stream, caller) << i;
  // dX's GEMM overlaps both weight gradients' (they share only reads).
  HappensBefore hb = replay(ops, caller);
  for (int i : {1, 4}) {
    EXPECT_FALSE(hb.before[3].count(i)) << kernelNames()[i];
    EXPECT_FALSE(hb.before[i].count(3)) << kernelNames()[i];
  }
  expectEveryWaitNeeded(ops);
}

// Chunk c + 1's c3 writes the workspace chunk c's c4 (on the side stream)
// and c5 read: ordered after both; dx's rows of each chunk overlap the
// next chunk's c3 nowhere, but the shared workspace orders them.
TEST_F(RuntimeLanes, ChunksReuseTheWorkspaceInOrder) {
  fmlp::test::BundleDir chunked{kChunked};
  fmlp::Bundle bundle(chunked.path());
  bundle.load();
  std::vector<fmlp_tensor> t = {
      fmlp::denseTensor(address(0x10000), FMLP_BF16, {10, 8}),
      fmlp::denseTensor(address(0x20000), FMLP_BF16, {10, 8}),
      fmlp::denseTensor(address(0x30000), FMLP_BF16, {8, 8}),
      fmlp::denseTensor(address(0x40000), FMLP_BF16, {4, 8})};
  bundle.launch(bundle.entry("backward"), t, caller);
  ASSERT_EQ(fake_cuda_launch_count(), 9); // 3 chunks (4, 4, 2 tokens)
  EXPECT_EQ(unordered(opLog(), caller), "");
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(fake_cuda_launch_at(i)->stream == caller, i % 3 != 1) << i;
  expectEveryWaitNeeded(opLog());
}

// Launches that write only outputs not wanted are skipped (decideLaunch),
// out of the plan too: without dX no launch is on lane 1, nothing forks;
// without d_up, k5 is skipped and the rest still ordered.
TEST_F(RuntimeLanes, SkippedLaunchesLeaveThePlan) {
  fmlp::Bundle bundle = loaded(dir.path());
  std::vector<fmlp_tensor> t = tensors(70);
  t[4].data = nullptr; // dx
  bundle.launch(bundle.entry("backward"), t, caller);
  EXPECT_EQ(kernelNames(), (std::vector<std::string>{"k3", "k6", "k5"}));
  EXPECT_EQ(fake_cuda_op_count(), 3); // no record, no wait
  EXPECT_EQ(fake_cuda_live_streams(), 0);

  const size_t sizes[] = {8, 8, 8, 8};
  fake_cuda_reset(9, 0, sizes, 4); // forgets the kernels: a new bundle
  fmlp::Bundle again = loaded(dir.path());
  t = tensors(70);
  t[5].data = nullptr; // d_up
  again.launch(again.entry("backward"), t, caller);
  EXPECT_EQ(kernelNames(), (std::vector<std::string>{"k3", "k6", "z4", "k4"}));
  EXPECT_EQ(unordered(opLog(), caller), "");
  EXPECT_NE(fake_cuda_launch_at(3)->stream, caller);
}

// Conflicts are derived per argument: a written tensor that overlaps
// another (dx over dy) keeps every launch on the caller's stream, in the
// calls' order; overlapping inputs do not.
TEST_F(RuntimeLanes, OverlappingWrittenTensorsStayOnOneStream) {
  fmlp::Bundle bundle = loaded(dir.path());
  std::vector<fmlp_tensor> t = tensors(70);
  t[4].data = t[1].data; // dx written over dy
  bundle.launch(bundle.entry("backward"), t, caller);
  ASSERT_EQ(fake_cuda_launch_count(), 5);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(fake_cuda_launch_at(i)->stream, caller) << i;
  EXPECT_EQ(fake_cuda_op_count(), 5);

  const size_t sizes[] = {8, 8, 8, 8};
  fake_cuda_reset(9, 0, sizes, 4); // forgets the kernels: a new bundle
  fmlp::Bundle again = loaded(dir.path());
  t = tensors(70);
  t[1].data = t[0].data; // dy and x, both inputs, the same memory
  again.launch(again.entry("backward"), t, caller);
  EXPECT_NE(fake_cuda_launch_at(3)->stream, caller);
}

// The per-thread default stream (CU_STREAM_PER_THREAD) is one handle for a
// stream per thread: each thread gets its own side stream.
TEST_F(RuntimeLanes, EachThreadsDefaultStreamHasItsOwnSideStream) {
  fmlp::Bundle bundle = loaded(dir.path());
  int backward = bundle.entry("backward");
  auto call = [&](void *stream) {
    std::vector<fmlp_tensor> t = tensors(70);
    EXPECT_EQ(fmlp_launch(bundle.get(), backward, t.data(), int(t.size()),
                          stream),
              FMLP_OK);
  };
  void *perThread = address(0x2);
  std::thread first(call, perThread), second(call, perThread);
  first.join();
  second.join();
  EXPECT_EQ(fake_cuda_live_streams(), 2);
  std::thread third(call, caller), fourth(call, caller);
  third.join();
  fourth.join();
  EXPECT_EQ(fake_cuda_live_streams(), 3);
}

TEST_F(RuntimeLanes, OneSideStreamPerCallersStreamMadeOnce) {
  fmlp::Bundle bundle = loaded(dir.path());
  int backward = bundle.entry("backward");
  void *other = address(0x5800);
  bundle.launch(backward, tensors(70), caller);
  bundle.launch(backward, tensors(70), caller);
  EXPECT_EQ(fake_cuda_live_streams(), 1);
  bundle.launch(backward, tensors(70), other);
  EXPECT_EQ(fake_cuda_live_streams(), 2);
  ASSERT_EQ(fake_cuda_launch_count(), 15);
  EXPECT_EQ(fake_cuda_launch_at(3)->stream, fake_cuda_launch_at(8)->stream);
  EXPECT_NE(fake_cuda_launch_at(3)->stream, fake_cuda_launch_at(13)->stream);
}

// The side stream runs the caller's work: at the caller's stream's
// priority.
TEST_F(RuntimeLanes, TheSideStreamHasTheCallersPriority) {
  fmlp::Bundle bundle = loaded(dir.path());
  fake_cuda_set_priority(caller, -3);
  bundle.launch(bundle.entry("backward"), tensors(70), caller);
  int priority = 0;
  ASSERT_EQ(cuStreamGetPriority(fake_cuda_launch_at(3)->stream, &priority), 0);
  EXPECT_NE(fake_cuda_launch_at(3)->stream, caller);
  EXPECT_EQ(priority, -3);
}

TEST_F(RuntimeLanes, ClosingTheBundleDestroysItsSideStreams) {
  {
    fmlp::Bundle bundle = loaded(dir.path());
    bundle.launch(bundle.entry("backward"), tensors(70), caller);
    EXPECT_EQ(fake_cuda_live_streams(), 1);
  }
  EXPECT_EQ(fake_cuda_live_streams(), 0);
}

TEST_F(RuntimeLanes, SerialLaunchesStayOnTheCallersStream) {
  setenv("FMLP_SERIAL_LAUNCHES", "1", 1);
  fmlp::Bundle bundle(dir.path()); // read when the bundle is opened
  unsetenv("FMLP_SERIAL_LAUNCHES");
  bundle.load();
  bundle.checkSaved(false);
  bundle.launch(bundle.entry("backward"), tensors(70), caller);
  ASSERT_EQ(fake_cuda_launch_count(), 5);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(fake_cuda_launch_at(i)->stream, caller) << i;
  EXPECT_EQ(fake_cuda_op_count(), 5); // no record, no wait
  EXPECT_EQ(fake_cuda_live_streams(), 0);
}

TEST_F(RuntimeLanes, ALaneIsZeroOrOne) {
  for (const char *lane : {"2", "-1", "\"1\""}) {
    std::string text = kManifest;
    text.replace(text.find(R"("lane": 1)"), 9, std::string("\"lane\": ") + lane);
    fmlp::test::BundleDir bad{text};
    fmlp_bundle *bundle = nullptr;
    EXPECT_EQ(fmlp_bundle_open(bad.path().c_str(), &bundle), FMLP_ERROR_BUNDLE)
        << lane;
    EXPECT_NE(std::string(fmlp_last_error())
                  .find("manifest.entry_points[0].launches[2].lane"),
              std::string::npos)
        << fmlp_last_error();
    fmlp_bundle_close(bundle);
  }
}

TEST_F(RuntimeLanes, ASideStreamThatCannotBeMadeLaunchesNothing) {
  fmlp::Bundle bundle = loaded(dir.path());
  fake_cuda_fail("cuStreamCreate", 0);
  std::vector<fmlp_tensor> t = tensors(70);
  EXPECT_EQ(fmlp_launch(bundle.get(), bundle.entry("backward"), t.data(),
                        int(t.size()), caller),
            FMLP_ERROR_CUDA);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("cuStreamCreateWithPriority/cuEventCreate failed: "
                      "CUDA_ERROR_INVALID_VALUE (1) making the side stream "
                      "of m.backward"),
            std::string::npos)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 0);
  EXPECT_EQ(fake_cuda_live_streams(), 0);
  // The next call makes it.
  bundle.launch(bundle.entry("backward"), tensors(70), caller);
  EXPECT_EQ(fake_cuda_launch_count(), 5);
}

// A failure before lane 1 has work of the call leaves the side stream
// alone: under a capture it is not part of the caller's, and a wait on it
// would break the capture.
TEST_F(RuntimeLanes, AFailureBeforeTheSideStreamStartsLeavesItAlone) {
  fmlp::Bundle bundle = loaded(dir.path());
  std::vector<fmlp_tensor> t = tensors(70);
  int backward = bundle.entry("backward");
  bundle.launch(backward, t, caller); // the side stream made
  int before = fake_cuda_op_count();
  fake_cuda_fail("cuLaunchKernel", 0); // k3
  EXPECT_EQ(fmlp_launch(bundle.get(), backward, t.data(), int(t.size()),
                        caller),
            FMLP_ERROR_CUDA);
  std::vector<fake_cuda_op> ops = opLog();
  ASSERT_GT(int(ops.size()), before);
  for (size_t i = before; i < ops.size(); ++i)
    EXPECT_EQ(ops[i].stream, caller) << i << " " << ops[i].kind;
}

TEST_F(RuntimeLanes, AFailedLaunchStillJoinsTheSideStream) {
  fmlp::Bundle bundle = loaded(dir.path());
  // k3, k6, z4 launch; k4, on the side stream, fails.
  fake_cuda_fail("cuLaunchKernel", 3);
  std::vector<fmlp_tensor> t = tensors(70);
  EXPECT_EQ(fmlp_launch(bundle.get(), bundle.entry("backward"), t.data(),
                        int(t.size()), caller),
            FMLP_ERROR_CUDA);
  EXPECT_NE(std::string(fmlp_last_error()).find("for kernel k4 of m.backward"),
            std::string::npos)
      << fmlp_last_error();
  ASSERT_EQ(kernelNames(), (std::vector<std::string>{"k3", "k6", "z4"}));
  // The caller's stream goes on after all three (z4 on the side stream).
  EXPECT_EQ(unordered(opLog(), caller), "");
  EXPECT_EQ(opLog().back().kind, FAKE_CUDA_WAIT);
  EXPECT_EQ(opLog().back().stream, caller);
}

} // namespace
