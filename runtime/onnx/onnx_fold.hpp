#pragma once
// Shape inference that also folds shape arithmetic (protobuf; private to ipusim::onnx).
// torch.onnx.export writes a reshape whose target depends on a symbolic dim as a chain
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape; onnx 1.12's data propagation stops at a
// Gather whose index is a Constant node, so the Reshape's output shape stays unknown. Once
// --input-shape has fixed every input dim, those chains are constants: they are evaluated here.
#include <onnx/onnx_pb.h>

namespace ipusim::onnx_import {

/// A copy of `model` (every graph input's shape fixed) with its value_info inferred: onnx's
/// shape inference (with data propagation), alternated with folding every node that computes
/// small integer tensors from known values or shapes (Shape, Gather, Concat, Unsqueeze, Slice,
/// Cast, integer arithmetic, ...) into a Constant, until nothing more folds. The copy's nodes
/// are only for inference: names of tensors are kept, so the caller reads value_info from the
/// copy and nodes from the original. Throws std::exception from onnx's inference.
onnx::ModelProto infer_shapes_folding(const onnx::ModelProto& model);

}  // namespace ipusim::onnx_import
