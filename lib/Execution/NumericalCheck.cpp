//===- NumericalCheck.cpp - Judge a compiled block against float64 --------===//

#include "lib/Execution/NumericalCheck.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fmlp;
using namespace ::fmlp::numerics;

namespace {

Storage storageOf(HostElement element) {
  switch (element) {
  case HostElement::F32:
    return Storage::F32;
  case HostElement::BF16:
    return Storage::BF16;
  case HostElement::F16:
    return Storage::F16;
  }
  return Storage::F32;
}

ActivationKind activationOf(const std::string &name) {
  if (name == "gelu_tanh")
    return ActivationKind::GeluTanh;
  if (name == "relu")
    return ActivationKind::Relu;
  return ActivationKind::Silu;
}

/// A logical [in, out] weight stored as [in, out] or transposed [out, in].
HostTensor packWeight(const Matrix &logical, bool inOut, HostElement element) {
  HostTensor stored(element, inOut ? logical.rows : logical.cols,
                    inOut ? logical.cols : logical.rows);
  for (int64_t i = 0; i < logical.rows; ++i)
    for (int64_t j = 0; j < logical.cols; ++j)
      stored.set(inOut ? i * logical.cols + j : j * logical.rows + i,
                 logical(i, j));
  return stored;
}

/// A stored weight gradient back in the logical [in, out] order.
std::vector<double> unpackWeight(const HostTensor &stored, bool inOut) {
  if (inOut)
    return stored.toDoubles();
  std::vector<double> logical(stored.size());
  for (int64_t i = 0; i < stored.rows(); ++i)
    for (int64_t j = 0; j < stored.cols(); ++j)
      logical[j * stored.rows() + i] = stored.get(i * stored.cols() + j);
  return logical;
}

HostTensor pack(const Matrix &values, HostElement element) {
  HostTensor tensor(element, values.rows, values.cols);
  for (int64_t i = 0; i < tensor.size(); ++i)
    tensor.set(i, values.values[i]);
  return tensor;
}

HostTensor poisoned(HostElement element, int64_t rows, int64_t cols) {
  HostTensor tensor(element, rows, cols);
  tensor.poison();
  return tensor;
}

} // namespace

BlockSpec mlir::fmlp::getBlockSpec(const BlockDescription &block,
                                   int64_t tokens) {
  BlockSpec spec{tokens,
                 block.model,
                 block.hidden,
                 activationOf(block.activation),
                 block.gateMultiplier,
                 block.downMultiplier,
                 storageOf(block.element),
                 block.gateBias,
                 block.upBias,
                 block.downBias};
  spec.loraRank = block.loraRank;
  spec.downLoraRank = block.downLoraRank;
  return spec;
}

PackedInputs mlir::fmlp::packInputs(const BlockDescription &block,
                                    const Inputs &inputs) {
  HostElement element = block.element;
  PackedInputs packed{pack(inputs.x, element),
                      packWeight(inputs.gate, block.gateInOut, element),
                      packWeight(inputs.up, block.upInOut, element),
                      packWeight(inputs.down, block.downInOut, element),
                      pack(inputs.dy, element),
                      {}};
  auto packBias = [&](const char *name, const Matrix &bias) {
    if (bias.values.empty())
      return;
    HostTensor tensor(element, std::vector<int64_t>{bias.cols});
    for (int64_t i = 0; i < bias.cols; ++i)
      tensor.set(i, bias.values[i]);
    packed.biases.emplace(name, std::move(tensor));
  };
  packBias("gate_bias", inputs.gateBias);
  packBias("up_bias", inputs.upBias);
  packBias("down_bias", inputs.downBias);
  // Adapters are [out, in]: the transposes of the math's matrices.
  for (auto [name, adapter] :
       {std::pair("lora_a", &inputs.loraA),
        std::pair("gate_lora_b", &inputs.gateLoraB),
        std::pair("up_lora_b", &inputs.upLoraB),
        std::pair("down_lora_a", &inputs.downLoraA),
        std::pair("down_lora_b", &inputs.downLoraB)})
    if (!adapter->values.empty())
      packed.adapters.emplace(name,
                              packWeight(*adapter, /*inOut=*/false, element));
  return packed;
}

bool CheckReport::passed() const {
  return std::all_of(outputs.begin(), outputs.end(), [](const OutputCheck &o) {
    return o.comparison.passed();
  });
}

bool mlir::fmlp::checkBlock(BlockRunner &runner, const CheckOptions &options,
                            CheckReport &report, std::string &error) {
  const BlockDescription &block = runner.getBlock();
  BlockSpec spec = getBlockSpec(block, options.tokens);
  Inputs inputs = drawInputs(spec, options.seed);
  BlockSpec judged = spec;
  if (options.judgeAs)
    judged.storage = *options.judgeAs;
  Inputs judgedInputs = inputs;
  if (options.judgeOther)
    options.judgeOther(judged, judgedInputs);
  Exact exact = computeExact(judged, judgedInputs);
  Bounds bounds = computeBounds(judged, judgedInputs, exact);

  HostElement element = block.element;
  int64_t t = spec.tokens, d = spec.model;
  PackedInputs packed = packInputs(block, inputs);
  HostTensor &gate = packed.gate, &up = packed.up, &down = packed.down;
  std::map<std::string, HostTensor *> tensors = {{"x", &packed.x},
                                                 {"gate", &gate},
                                                 {"up", &up},
                                                 {"down", &down},
                                                 {"dy", &packed.dy}};
  for (auto &[name, bias] : packed.biases)
    tensors[name] = &bias;
  for (auto &[name, adapter] : packed.adapters)
    tensors[name] = &adapter;

  const EntryPoint *forward = runner.findEntry(EntryKind::forward);
  const EntryPoint *backward = runner.findEntry(EntryKind::backward);
  if (options.train && forward && backward) {
    HostTensor y = poisoned(element, t, d);
    HostTensor saved =
        poisoned(element, t, std::max<int64_t>(forward->savedColumns, 1));
    tensors["y"] = &y;
    tensors["saved"] = &saved;
    if (!runner.run(EntryKind::forward, t, tensors, error))
      return false;
    std::vector<double> computedY = y.toDoubles();
    if (options.perturbOneElement)
      computedY[0] += 2 * bounds.y.values[0] + 1e-30;
    report.outputs.push_back({"y", compare(computedY, exact.y, bounds.y)});

    HostTensor dx = poisoned(element, t, d);
    HostTensor dGate = poisoned(element, gate.rows(), gate.cols());
    HostTensor dUp = poisoned(element, up.rows(), up.cols());
    HostTensor dDown = poisoned(element, down.rows(), down.cols());
    tensors["dx"] = &dx;
    tensors["d_gate"] = &dGate;
    tensors["d_up"] = &dUp;
    tensors["d_down"] = &dDown;
    // Bias gradients, poisoned like every output.
    std::map<std::string, HostTensor> biasGradients;
    for (auto &optional : {&packed.biases, &packed.adapters})
      for (auto &[name, operand] : *optional) {
        HostTensor gradient(element, operand.shape());
        gradient.poison();
        auto [it, inserted] =
            biasGradients.emplace("d_" + name, std::move(gradient));
        tensors[it->first] = &it->second;
      }
    int runs = options.secondBackward ? 2 : 1;
    for (int run = 0; run < runs; ++run)
      if (!runner.run(EntryKind::backward, t, tensors, error))
        return false;
    int64_t chunks =
        backward->chunkTokens > 0
            ? (t + backward->chunkTokens - 1) / backward->chunkTokens
            : 1;
    report.outputs.push_back(
        {"dx", compare(dx.toDoubles(), exact.dx, bounds.dx)});
    report.outputs.push_back(
        {"d_gate", compare(unpackWeight(dGate, block.gateInOut), exact.dGate,
                           bounds.dGate, &bounds.dGateChunk, chunks)});
    report.outputs.push_back(
        {"d_up", compare(unpackWeight(dUp, block.upInOut), exact.dUp,
                         bounds.dUp, &bounds.dUpChunk, chunks)});
    report.outputs.push_back(
        {"d_down", compare(unpackWeight(dDown, block.downInOut), exact.dDown,
                           bounds.dDown, &bounds.dDownChunk, chunks)});
    // The other reductions over tokens: the bias gradients (1-D) and the
    // adapters' gradients ([out, in] like the adapters), each with its
    // exact values, base bound and bound per chunk; absent ones skipped.
    struct ReductionOutput {
      const char *name;
      const Matrix &exact, &bound, &perChunk;
      bool adapter = false;
    };
    for (const ReductionOutput &output : {
             ReductionOutput{"d_gate_bias", exact.dGateBias, bounds.dGateBias,
                             bounds.dGateBiasChunk},
             ReductionOutput{"d_up_bias", exact.dUpBias, bounds.dUpBias,
                             bounds.dUpBiasChunk},
             ReductionOutput{"d_down_bias", exact.dDownBias, bounds.dDownBias,
                             bounds.dDownBiasChunk},
             ReductionOutput{"d_lora_a", exact.dLoraA, bounds.dLoraA,
                             bounds.dLoraAChunk, true},
             ReductionOutput{"d_gate_lora_b", exact.dGateLoraB,
                             bounds.dGateLoraB, bounds.dGateLoraBChunk, true},
             ReductionOutput{"d_up_lora_b", exact.dUpLoraB, bounds.dUpLoraB,
                             bounds.dUpLoraBChunk, true},
             ReductionOutput{"d_down_lora_a", exact.dDownLoraA,
                             bounds.dDownLoraA, bounds.dDownLoraAChunk, true},
             ReductionOutput{"d_down_lora_b", exact.dDownLoraB,
                             bounds.dDownLoraB, bounds.dDownLoraBChunk,
                             true}}) {
      if (output.exact.values.empty())
        continue;
      const HostTensor &computed = *tensors.at(output.name);
      report.outputs.push_back(
          {output.name,
           compare(output.adapter ? unpackWeight(computed, /*inOut=*/false)
                                  : computed.toDoubles(),
                   output.exact, output.bound, &output.perChunk, chunks)});
    }
  }

  HostTensor yNograd = poisoned(element, t, d);
  tensors["y"] = &yNograd;
  if (!runner.run(EntryKind::forward_nograd, t, tensors, error))
    return false;
  report.outputs.push_back(
      {"y_nograd", compare(yNograd.toDoubles(), exact.y, bounds.y)});
  return true;
}
