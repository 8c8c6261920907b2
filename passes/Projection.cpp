//===- Projection.cpp - Linear projections in linalg and TOSA IR ----------===//
//
// Implements matchProjection for the forms importers emit:
//
//   linalg:  [cast] [bias add] [cast] <- contraction(input, [transpose] W)
//            with a zero init, where the contraction is any linalg op that
//            is a contraction of input[m..., k] with W[k, n] or W[n, k] into
//            out[m..., n] (linalg.matmul, with or without indexing maps, or
//            a linalg.generic, e.g. over [B, S, D]), or a batched one
//            (linalg.batch_matmul) whose weight is a 2-D weight broadcast
//            along the batch dimensions (linalg.broadcast, or a generic
//            that copies with a map dropping them) or expanded with unit
//            batch dimensions (tensor.expand_shape); the bias add is any
//            two-input linalg op whose payload computes a sum, with the
//            bias read through a broadcast indexing map or a broadcast
//            (named or generic); the casts are elementwise extf/truncf.
//   TOSA:    [tosa.add bias] [tosa.reshape] [tosa.cast]
//              <- tosa.matmul([tosa.reshape] input,
//              tosa.reshape([tosa.transpose] W))
//
//===----------------------------------------------------------------------===//

#include "passes/Projection.h"
#include "passes/ElementwiseFunction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>

#include <optional>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

LogicalResult fail(std::string &reason, const Twine &why) {
  reason = why.str();
  return failure();
}

WeightLayout transposed(WeightLayout layout) {
  return layout == WeightLayout::in_out ? WeightLayout::out_in
                                        : WeightLayout::in_out;
}

bool isZeroConstant(Value value) {
  std::optional<double> constant = getSplatFloatValue(value);
  return constant && *constant == 0.0;
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// A shape without its unit dimensions: two shapes with the same such
/// shape hold their elements in the same order.
SmallVector<int64_t> dropUnitDims(ArrayRef<int64_t> shape) {
  return llvm::to_vector(
      llvm::make_filter_range(shape, [](int64_t d) { return d != 1; }));
}

/// The loop dimensions an indexing map reads, if it reads plain dimensions.
std::optional<SmallVector<unsigned>> getDimPositions(AffineMap map) {
  SmallVector<unsigned> positions;
  for (AffineExpr result : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim)
      return std::nullopt;
    positions.push_back(dim.getPosition());
  }
  return positions;
}

/// True if `op` copies its only input to its output with the two dimensions
/// of a 2-D tensor swapped (linalg.transpose, or the equivalent generic).
bool isTranspose2D(Operation *op) {
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op))
    return transpose.getPermutation() == ArrayRef<int64_t>{1, 0};
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 2 ||
      generic.getNumParallelLoops() != 2)
    return false;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  auto yield = cast<linalg::YieldOp>(generic.getBlock()->getTerminator());
  return maps[0].isPermutation() && !maps[0].isIdentity() &&
         maps[1].isIdentity() && yield.getValues().size() == 1 &&
         yield.getValues()[0] == generic.getBlock()->getArgument(0);
}

/// Looks through transposed views of `weight`, updating `layout` to read the
/// stored tensor.
Value lookThroughTransposes(Value weight, WeightLayout &layout,
                            SmallVector<Operation *> &preparation) {
  while (Operation *def = weight.getDefiningOp()) {
    if (!isTranspose2D(def))
      break;
    preparation.push_back(def);
    layout = transposed(layout);
    weight = def->getOperand(0);
  }
  return weight;
}

//===----------------------------------------------------------------------===//
// linalg
//===----------------------------------------------------------------------===//

/// True if `add`'s payload computes in0 + in1 (casts taken as exact): the
/// sum is read by its values, so addf with an extf'd operand, or a sum
/// written as a - (-b), are all a bias add.
bool computesSum(linalg::LinalgOp add) {
  constexpr std::pair<double, double> samples[] = {
      {1.5, -0.25}, {-3.0, 2.0}, {0.5, 7.0}, {0.0, -1.75}};
  return llvm::all_of(samples, [&](auto sample) {
    std::optional<double> sum =
        evaluatePayload(add, {sample.first, sample.second});
    return sum && *sum == sample.first + sample.second;
  });
}

/// Matches `value = product + broadcast(bias)`; returns the product.
std::optional<Value> matchLinalgBiasAdd(Value value, Projection &projection) {
  auto add = value.getDefiningOp<linalg::LinalgOp>();
  if (!add || add.getNumDpsInputs() != 2 || add.getNumDpsInits() != 1 ||
      add->getNumResults() != 1 ||
      add.getNumLoops() != add.getNumParallelLoops() || !computesSum(add))
    return std::nullopt;

  SmallVector<AffineMap> maps = add.getIndexingMapsArray();
  unsigned rank = add.getNumLoops();
  for (unsigned product = 0; product < 2; ++product) {
    unsigned other = 1 - product;
    Value bias = add.getDpsInputs()[other];
    // A generic that broadcasts a 1-D bias along all but the last dimension.
    bool broadcastMap = maps[other].getNumResults() == 1 &&
                        maps[other].getResult(0) ==
                            getAffineDimExpr(rank - 1, add.getContext());
    // An elementwise add of a 1-D bias broadcast along all but the last
    // dimension, in one step or several (linalg.broadcast or broadcasting
    // generics, as StableHLO's lowering writes it: [N] -> [1, N] -> [T, N]).
    SmallVector<Operation *> broadcasts;
    Value source = bias;
    while (std::optional<BroadcastView> broadcast =
               getBroadcastSource(source)) {
      int64_t last = int64_t(shapeOf(source).size()) - 1;
      if (llvm::is_contained(broadcast->addedDimensions, last))
        break;
      broadcasts.push_back(broadcast->op);
      source = broadcast->source;
    }
    bool broadcastOp = maps[other].isIdentity() && !broadcasts.empty() &&
                       shapeOf(source).size() == 1;
    if (!maps[product].isIdentity() || !maps[2].isIdentity() ||
        !(broadcastMap || broadcastOp))
      continue;
    projection.dataPath.push_back(add);
    if (broadcastOp) {
      llvm::append_range(projection.operandPreparation, broadcasts);
      bias = source;
    }
    projection.bias = bias;
    return add.getDpsInputs()[product];
  }
  return std::nullopt;
}

/// The 2-D weight that `weight`, an operand of a contraction with
/// `batchCount` leading batch dimensions, repeats along them: a broadcast
/// (named or generic) that adds exactly the batch dimensions, or a
/// tensor.expand_shape that adds unit batch dimensions (tosa.matmul lowered
/// to linalg.batch_matmul of batch 1).
std::optional<Value> getBatchedWeightSource(Value weight, unsigned batchCount,
                                            Projection &projection) {
  SmallVector<int64_t> batchDims =
      llvm::to_vector(llvm::seq<int64_t>(0, int64_t(batchCount)));
  if (std::optional<BroadcastView> broadcast = getBroadcastSource(weight);
      broadcast && broadcast->addedDimensions == batchDims &&
      shapeOf(broadcast->source).size() == 2) {
    projection.operandPreparation.push_back(broadcast->op);
    return broadcast->source;
  }
  if (auto expand = weight.getDefiningOp<tensor::ExpandShapeOp>()) {
    ArrayRef<int64_t> shape = shapeOf(weight);
    if (shapeOf(expand.getSrc()).size() == 2 &&
        llvm::all_of(shape.take_front(batchCount),
                     [](int64_t d) { return d == 1; })) {
      projection.operandPreparation.push_back(expand);
      return expand.getSrc();
    }
  }
  return std::nullopt;
}

LogicalResult matchLinalgContraction(linalg::LinalgOp op,
                                     Projection &projection,
                                     std::string &reason) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return fail(reason, op->getName().getStringRef() +
                            " is not a contraction of two operands");
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return fail(reason, "the contraction is not [..., K] x [K, N]: it has "
                        "several N or K dimensions");
  // Batch dimensions (linalg.batch_matmul) lead the input and the output;
  // the weight must then be one 2-D weight broadcast along them.
  unsigned n = dims->n.front(), k = dims->k.front();
  SmallVector<unsigned> batch(dims->batch.begin(), dims->batch.end());
  SmallVector<unsigned> inputDims = batch;
  llvm::append_range(inputDims, dims->m);
  SmallVector<unsigned> outputDims = inputDims;
  inputDims.push_back(k);
  outputDims.push_back(n);
  auto weightDims = [&](unsigned first, unsigned second) {
    SmallVector<unsigned> positions = batch;
    positions.append({first, second});
    return positions;
  };

  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (getDimPositions(maps[2]) != outputDims)
    return fail(reason, "the contraction's output is not indexed [..., N]");
  std::optional<unsigned> inputIndex, weightIndex;
  WeightLayout layout = WeightLayout::in_out;
  for (unsigned i = 0; i < 2; ++i) {
    std::optional<SmallVector<unsigned>> positions = getDimPositions(maps[i]);
    if (positions == inputDims) {
      inputIndex = i;
    } else if (positions == weightDims(k, n)) {
      weightIndex = i;
      layout = WeightLayout::in_out;
    } else if (positions == weightDims(n, k)) {
      weightIndex = i;
      layout = WeightLayout::out_in;
    }
  }
  if (!inputIndex || !weightIndex)
    return fail(reason, "the contraction does not read a [..., K] tensor and "
                        "a 2-D [K, N] or [N, K] weight");

  Value weight = op.getDpsInputs()[*weightIndex];
  if (!batch.empty()) {
    std::optional<Value> source =
        getBatchedWeightSource(weight, batch.size(), projection);
    if (!source)
      return fail(reason, "the batched contraction's weight is not one 2-D "
                          "weight broadcast along the batch dimensions");
    weight = *source;
  }

  Value init = op.getDpsInits().front();
  if (!isZeroConstant(init))
    return fail(reason, "the contraction does not start from zero");
  if (Operation *initDef = init.getDefiningOp())
    projection.operandPreparation.push_back(initDef);

  projection.dataPath.push_back(op);
  projection.input = op.getDpsInputs()[*inputIndex];
  projection.weight =
      lookThroughTransposes(weight, layout, projection.operandPreparation);
  projection.layout = layout;
  return success();
}

LogicalResult matchLinalgProjection(Value result, Projection &projection,
                                    std::string &reason) {
  // Peel, outermost first, at most one bias add, one tensor.expand_shape
  // (torch-mlir's [B*S, N] -> [B, S, N] after a 2-D matmul) and two
  // elementwise casts (a contraction accumulated in f32 and narrowed to
  // bf16 before or after its bias add, and the bias add's own widening).
  Value product = result;
  tensor::ExpandShapeOp expand;
  tensor::CollapseShapeOp collapse;
  bool peeledBias = false;
  unsigned peeledCasts = 0;
  while (true) {
    if (Operation *def = product.getDefiningOp();
        peeledCasts < 2 && isElementwiseCast(def)) {
      ++peeledCasts;
      projection.dataPath.push_back(def);
      product = def->getOperand(0);
      continue;
    }
    if (auto op = product.getDefiningOp<tensor::ExpandShapeOp>();
        op && !expand && !collapse) {
      expand = op;
      projection.dataPath.push_back(op);
      product = op.getSrc();
      continue;
    }
    // tosa.matmul lowered to linalg: [1, T, N] collapsed to [T, N].
    if (auto op = product.getDefiningOp<tensor::CollapseShapeOp>();
        op && !expand && !collapse &&
        dropUnitDims(shapeOf(op.getSrc())) == dropUnitDims(shapeOf(op))) {
      collapse = op;
      projection.dataPath.push_back(op);
      product = op.getSrc();
      continue;
    }
    if (std::optional<Value> inner;
        !peeledBias && (inner = matchLinalgBiasAdd(product, projection))) {
      peeledBias = true;
      product = *inner;
      continue;
    }
    break;
  }
  auto contraction = product.getDefiningOp<linalg::LinalgOp>();
  if (!contraction)
    return fail(reason, "not computed by a linalg contraction");
  if (failed(matchLinalgContraction(contraction, projection, reason)))
    return failure();
  if (collapse) {
    // Collapsed back from unit dimensions: the projection reads the tensor
    // before its expansion to them.
    auto inputExpand =
        projection.input.getDefiningOp<tensor::ExpandShapeOp>();
    if (!inputExpand ||
        shapeOf(inputExpand.getSrc()).drop_back() !=
            shapeOf(result).drop_back())
      return fail(reason, "the projection's result is collapsed from unit "
                          "dimensions its input is not expanded with");
    projection.inputViews.push_back(inputExpand);
    projection.input = inputExpand.getSrc();
    return success();
  }
  if (!expand)
    return success();
  // Expanded back: the projection reads the tensor before its collapse, so
  // that input and result keep the same leading dimensions.
  auto inputCollapse =
      projection.input.getDefiningOp<tensor::CollapseShapeOp>();
  if (!inputCollapse ||
      shapeOf(inputCollapse.getSrc()).drop_back() !=
          shapeOf(result).drop_back())
    return fail(reason, "the projection's result is expanded back to "
                        "leading dimensions its input does not have");
  projection.inputViews.push_back(inputCollapse);
  projection.input = inputCollapse.getSrc();
  return success();
}

//===----------------------------------------------------------------------===//
// TOSA
//===----------------------------------------------------------------------===//

/// The 1-D tensor that `value` reshapes to [1, ..., 1, N], if it does.
std::optional<Value> getReshapedBias(Value value, Projection &projection) {
  auto reshape = value.getDefiningOp<tosa::ReshapeOp>();
  if (!reshape || shapeOf(reshape.getInput1()).size() != 1)
    return std::nullopt;
  ArrayRef<int64_t> shape = shapeOf(value);
  if (!llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; }))
    return std::nullopt;
  projection.operandPreparation.push_back(reshape);
  return reshape.getInput1();
}

LogicalResult matchTosaProjection(Value result, Projection &projection,
                                  std::string &reason) {
  // Peel, outermost first, at most one bias add, one reshape and one cast.
  Value value = result;
  bool peeledReshape = false, peeledCast = false;
  while (Operation *def = value.getDefiningOp()) {
    if (auto add = dyn_cast<tosa::AddOp>(def); add && !projection.bias) {
      std::optional<Value> bias;
      unsigned product = 0;
      for (; product < 2 && !bias; ++product)
        bias = getReshapedBias(add->getOperand(1 - product), projection);
      if (!bias)
        break;
      projection.bias = *bias;
      projection.dataPath.push_back(add);
      value = add->getOperand(product - 1);
      continue;
    }
    if (auto reshape = dyn_cast<tosa::ReshapeOp>(def);
        reshape && !peeledReshape) {
      peeledReshape = true;
      projection.dataPath.push_back(reshape);
      value = reshape.getInput1();
      continue;
    }
    if (auto castOp = dyn_cast<tosa::CastOp>(def); castOp && !peeledCast) {
      peeledCast = true;
      projection.dataPath.push_back(castOp);
      value = castOp.getInput();
      continue;
    }
    break;
  }

  auto matmul = value.getDefiningOp<tosa::MatMulOp>();
  if (!matmul)
    return fail(reason, "not computed by tosa.matmul");
  if (!isZeroConstant(matmul.getAZp()) || !isZeroConstant(matmul.getBZp()))
    return fail(reason, "tosa.matmul has non-zero zero points");
  projection.dataPath.push_back(matmul);

  Value input = matmul.getA();
  if (auto reshape = input.getDefiningOp<tosa::ReshapeOp>()) {
    projection.inputViews.push_back(reshape);
    input = reshape.getInput1();
  }
  if (shapeOf(input).back() != shapeOf(matmul.getA()).back())
    return fail(reason, "tosa.matmul's left operand is a reshape that "
                        "changes the feature dimension");
  projection.input = input;

  auto weightReshape = matmul.getB().getDefiningOp<tosa::ReshapeOp>();
  if (!weightReshape || shapeOf(weightReshape.getInput1()).size() != 2 ||
      shapeOf(matmul.getB()).front() != 1)
    return fail(reason, "tosa.matmul's right operand is not a 2-D weight "
                        "reshaped to [1, K, N]");
  projection.operandPreparation.push_back(weightReshape);
  Value weight = weightReshape.getInput1();
  WeightLayout layout = WeightLayout::in_out;
  if (auto transpose = weight.getDefiningOp<tosa::TransposeOp>();
      transpose && transpose.getPerms() == ArrayRef<int32_t>{1, 0}) {
    projection.operandPreparation.push_back(transpose);
    layout = WeightLayout::out_in;
    weight = transpose.getInput1();
  }
  projection.weight = weight;
  projection.layout = layout;

  // The projection maps [..., K] to [..., N] with the same leading
  // dimensions: x before its reshape when the result is reshaped back,
  // else the 3-D operand itself.
  if (shapeOf(input).drop_back() != shapeOf(result).drop_back()) {
    input = matmul.getA();
    projection.inputViews.clear();
  }
  if (shapeOf(input).drop_back() != shapeOf(result).drop_back())
    return fail(reason, "the projection's input and result have different "
                        "leading dimensions");
  projection.input = input;
  return success();
}

} // namespace

FailureOr<Projection> mlir::fmlp::matchProjection(Value result,
                                                  std::string &reason) {
  Projection projection;
  projection.result = result;
  Operation *def = result.getDefiningOp();
  if (!def)
    return fail(reason, "not computed by an operation");
  LogicalResult matched =
      isa<tosa::TosaDialect>(def->getDialect())
          ? matchTosaProjection(result, projection, reason)
          : matchLinalgProjection(result, projection, reason);
  if (failed(matched))
    return failure();
  return projection;
}

//===----------------------------------------------------------------------===//
// Halves of one projection (Phi3's fused gate_up_proj)
//===----------------------------------------------------------------------===//

namespace {

/// The columns [offset, offset + size) of the last dimension that `slice`
/// takes, if it keeps the rank, has unit strides, and takes all of every
/// other dimension: statically, or as `tensor.dim` of a tensor in
/// `sameLeadingExtents` (its source, and the projection's input, whose
/// leading dimensions are the projection's). The `tensor.dim`s of the
/// source are added to `sourceDims`: they belong to the block, since the
/// source does not outlive it.
std::optional<std::pair<int64_t, int64_t>>
getLastDimensionColumns(tensor::ExtractSliceOp slice,
                        ArrayRef<Value> sameLeadingExtents,
                        SmallVector<Operation *> &sourceDims) {
  Value source = slice.getSource();
  ArrayRef<int64_t> sourceShape = shapeOf(source);
  unsigned rank = sourceShape.size();
  if (shapeOf(slice.getResult()).size() != rank || rank == 0 ||
      !slice.hasUnitStride())
    return std::nullopt;
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
  for (unsigned i = 0; i + 1 < rank; ++i) {
    if (getConstantIntValue(offsets[i]) != 0)
      return std::nullopt;
    if (std::optional<int64_t> size = getConstantIntValue(sizes[i])) {
      if (*size != sourceShape[i])
        return std::nullopt;
      continue;
    }
    auto sizeValue = dyn_cast<Value>(sizes[i]);
    auto dim = sizeValue ? sizeValue.getDefiningOp<tensor::DimOp>()
                         : tensor::DimOp();
    if (!dim || !llvm::is_contained(sameLeadingExtents, dim.getSource()) ||
        dim.getConstantIndex() != std::optional<int64_t>(i))
      return std::nullopt;
    if (dim.getSource() == source)
      sourceDims.push_back(dim);
  }
  std::optional<int64_t> offset = getConstantIntValue(offsets.back());
  std::optional<int64_t> size = getConstantIntValue(sizes.back());
  if (!offset || !size)
    return std::nullopt;
  return std::make_pair(*offset, *size);
}

/// `value` restricted to [offset, offset + size) along `dim`: a view.
Value sliceAlong(OpBuilder &builder, Location loc, Value value, unsigned dim,
                 int64_t offset, int64_t size) {
  unsigned rank = shapeOf(value).size();
  SmallVector<OpFoldResult> offsets(rank, builder.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, builder.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, value);
  offsets[dim] = builder.getIndexAttr(offset);
  sizes[dim] = builder.getIndexAttr(size);
  return tensor::ExtractSliceOp::create(builder, loc, value, offsets, sizes,
                                        strides);
}

} // namespace

FailureOr<std::pair<Projection, Projection>>
mlir::fmlp::matchProjectionHalves(Value first, Value second,
                                  std::string &reason) {
  auto slices = std::array{first.getDefiningOp<tensor::ExtractSliceOp>(),
                           second.getDefiningOp<tensor::ExtractSliceOp>()};
  if (!slices[0] || !slices[1])
    return fail(reason, "not both computed by tensor.extract_slice");
  Value source = slices[0].getSource();
  if (slices[1].getSource() != source)
    return fail(reason, "the two slices are of different tensors");
  std::string why;
  FailureOr<Projection> whole = matchProjection(source, why);
  if (failed(whole))
    return fail(reason, "the sliced tensor is not a projection: " + why);
  std::optional<std::pair<int64_t, int64_t>> columns[2];
  SmallVector<Operation *> sourceDims[2];
  for (unsigned i = 0; i < 2; ++i)
    if (!(columns[i] = getLastDimensionColumns(
              slices[i], {source, whole->input}, sourceDims[i])))
      return fail(reason, "slice " + Twine(i) +
                              " does not take a range of the last dimension "
                              "(with unit strides, all of every other one)");
  // The halves [0, H) and [H, 2H) of [..., 2H], in either order.
  int64_t width = shapeOf(source).back();
  int64_t half = width / 2;
  auto [offset0, size0] = *columns[0];
  auto [offset1, size1] = *columns[1];
  bool halves = !ShapedType::isDynamic(width) && width % 2 == 0 &&
                size0 == half && size1 == half &&
                std::min(offset0, offset1) == 0 &&
                std::max(offset0, offset1) == half;
  if (!halves)
    return fail(reason,
                llvm::formatv("the slices take columns [{0}, {1}) and [{2}, "
                              "{3}) of {4}, not the halves [0, W/2) and "
                              "[W/2, W) of a static even width W",
                              offset0, offset0 + size0, offset1,
                              offset1 + size1,
                              ShapedType::isDynamic(width)
                                  ? std::string("a dynamic width")
                                  : llvm::formatv("width {0}", width).str())
                    .str());

  auto makeHalf = [&](unsigned i) {
    Projection projection = *whole;
    projection.result = i == 0 ? first : second;
    // The slice and the tensor.dims it reads precede the whole projection's
    // path, which ends at its contraction.
    projection.dataPath.insert(projection.dataPath.begin(),
                               sourceDims[i].begin(), sourceDims[i].end());
    projection.dataPath.insert(projection.dataPath.begin(), slices[i]);
    projection.outputSlice = columns[i];
    return projection;
  };
  return std::make_pair(makeHalf(0), makeHalf(1));
}

Value mlir::fmlp::getWeightOperand(OpBuilder &builder, Location loc,
                                   const Projection &projection) {
  if (!projection.outputSlice)
    return projection.weight;
  // Output features are the rows of an out_in [N, K] weight and the
  // columns of an in_out [K, N] one.
  unsigned outputDim = projection.layout == WeightLayout::out_in ? 0 : 1;
  auto [offset, size] = *projection.outputSlice;
  return sliceAlong(builder, loc, projection.weight, outputDim, offset, size);
}

Value mlir::fmlp::getBiasOperand(OpBuilder &builder, Location loc,
                                 const Projection &projection) {
  if (!projection.bias || !projection.outputSlice)
    return projection.bias;
  auto [offset, size] = *projection.outputSlice;
  return sliceAlong(builder, loc, projection.bias, 0, offset, size);
}
