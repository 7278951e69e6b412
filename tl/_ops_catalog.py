"""The operator registry: one :class:`OpInfo` per tl.ops operator.

Each entry declares the op's signature (its tl.ops function), category, ONNX and ATen names,
dtypes, a float64 NumPy reference where one is a one-liner (``ref``), the tolerance per dtype
(the defaults of docs/testing.md#tolerances unless stated), its TL kernels (instance base names
in ops/*.py, or "composed" of other ops) and targets. ``docs/operators.md`` is generated from it by
``python -m tl.ops_docs``.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

F = ("float32", "float16", "bfloat16")
I = ("int32", "int64")
TOL = {"float32": (1.3e-6, 1e-5), "float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2)}
TRANSCENDENTAL_F32 = (1e-5, 1e-6)   # stated bound for vector-math ops (a few ulp)


@dataclass(frozen=True)
class OpInfo:
    name: str
    category: str
    onnx: str = ""
    aten: str = ""
    dtypes: tuple = F
    kernels: tuple = ()
    ref: object = None
    tol: dict = field(default_factory=lambda: dict(TOL))
    targets: tuple = ("host (x86_64 avx512/avx2/baseline)",)

    @property
    def signature(self) -> str:
        import tl.ops as T
        return f"{self.name}{inspect.signature(getattr(T, self.name))}"


def _erf(x):
    import math
    return np.vectorize(math.erf)(x)


def _tr(op, onnx, aten, ref=None, kern=None, dtypes=F, tol=None):
    t = dict(TOL)
    t["float32"] = TRANSCENDENTAL_F32
    return OpInfo(op, "activation/math", onnx, aten, dtypes, (kern or f"unary[OP={op}]",), ref, tol or t)


_SP = lambda x: np.logaddexp(0, x)  # noqa: E731
_BITS = ("int8", "uint8", "int32", "uint32", "int64", "uint64", "bool")
_ONNX_TRIG = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh")
_MATH_UNARY = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
               "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh,
               "atanh": np.arctanh, "expm1": np.expm1, "log1p": np.log1p, "exp2": np.exp2, "log2": np.log2,
               "log10": np.log10, "trunc": np.trunc, "logit": lambda x: np.log(x / (1 - x))}
_MATH_BINARY = {"atan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign, "logaddexp": np.logaddexp,
                "xlogy": lambda x, y: np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log(y)),
                "heaviside": np.heaviside, "fmax": np.fmax, "fmin": np.fmin}
OPS_LIST = [
    # elementwise binary
    OpInfo("add", "elementwise", "Add", "aten::add", F, ("add",), np.add),
    OpInfo("sub", "elementwise", "Sub", "aten::sub", F, ("sub",), np.subtract),
    OpInfo("mul", "elementwise", "Mul", "aten::mul", F, ("mul",), np.multiply),
    OpInfo("div", "elementwise", "Div", "aten::div", F, ("div",), np.divide),
    OpInfo("pow", "elementwise", "Pow", "aten::pow", F, ("binary[OP=pow]",), np.power,
           {**TOL, "float32": TRANSCENDENTAL_F32}),
    OpInfo("maximum", "elementwise", "Max", "aten::maximum", F + I, ("binary[OP=maximum]",), np.maximum),
    OpInfo("minimum", "elementwise", "Min", "aten::minimum", F + I, ("binary[OP=minimum]",), np.minimum),
    OpInfo("floor_divide", "elementwise", "", "aten::floor_divide", F + I, ("binary[OP=floor_divide]",), np.floor_divide),
    OpInfo("remainder", "elementwise", "Mod", "aten::remainder", F + I, ("binary[OP=remainder]",), np.remainder),
    OpInfo("fmod", "elementwise", "Mod(fmod=1)", "aten::fmod", F + I, ("binary[OP=fmod]",), np.fmod),
    OpInfo("trunc_divide", "elementwise", "Div (ints)", "aten::div(rounding_mode='trunc')", F + I,
           ("binary[OP=trunc_divide]",), lambda a, b: np.trunc(a / b)),
    OpInfo("binary_int", "elementwise", "Add/Sub/Mul (ints)", "aten::add (ints)", I, ("binary",)),
    OpInfo("less", "comparison", "Less", "aten::lt", F + I + ("bool",), ("compare[OP=lt]",), np.less),
    OpInfo("less_equal", "comparison", "LessOrEqual", "aten::le", F + I + ("bool",), ("compare[OP=le]",), np.less_equal),
    OpInfo("greater", "comparison", "Greater", "aten::gt", F + I + ("bool",), ("compare[OP=gt]",), np.greater),
    OpInfo("greater_equal", "comparison", "GreaterOrEqual", "aten::ge", F + I + ("bool",), ("compare[OP=ge]",), np.greater_equal),
    OpInfo("equal", "comparison", "Equal", "aten::eq", F + I + ("bool",), ("compare[OP=eq]",), np.equal),
    OpInfo("not_equal", "comparison", "", "aten::ne", F + I + ("bool",), ("compare[OP=ne]",), np.not_equal),
    OpInfo("isnan", "comparison", "IsNaN", "aten::isnan", F, ("compare[OP=ne]",), np.isnan),
    OpInfo("isinf", "comparison", "IsInf", "aten::isinf", F, ("compare[OP=eq]", "bitwise[OP=or]"), np.isinf),
    OpInfo("logical_and", "logical", "And", "aten::logical_and", ("bool",), ("bitwise[OP=and]",), np.logical_and),
    OpInfo("logical_or", "logical", "Or", "aten::logical_or", ("bool",), ("bitwise[OP=or]",), np.logical_or),
    OpInfo("logical_xor", "logical", "Xor", "aten::logical_xor", ("bool",), ("bitwise[OP=xor]",), np.logical_xor),
    OpInfo("logical_not", "logical", "Not", "aten::logical_not", ("bool",), ("logical_not",), np.logical_not),
    OpInfo("where", "elementwise", "Where", "aten::where", F + I + ("int8", "bool"), ("where",), np.where),
    OpInfo("cast", "elementwise", "Cast", "aten::_to_copy", F + I + ("int8", "bool"), ("cast",)),
    OpInfo("clamp", "elementwise", "Clip", "aten::clamp", F + I, ("unary[OP=clamp]",), np.clip),
    # unary math / activations
    _tr("neg", "Neg", "aten::neg", np.negative, tol=TOL), _tr("abs", "Abs", "aten::abs", np.abs, tol=TOL),
    _tr("sqrt", "Sqrt", "aten::sqrt", np.sqrt), _tr("rsqrt", "", "aten::rsqrt", lambda x: 1 / np.sqrt(x)),
    _tr("log", "Log", "aten::log", np.log), _tr("erf", "Erf", "aten::erf", _erf),
    _tr("exp", "Exp", "aten::exp", np.exp, "exp"), _tr("tanh", "Tanh", "aten::tanh", np.tanh, "tanh"),
    _tr("sigmoid", "Sigmoid", "aten::sigmoid", lambda x: 1 / (1 + np.exp(-x)), "sigmoid"),
    _tr("floor", "Floor", "aten::floor", np.floor, tol=TOL), _tr("ceil", "Ceil", "aten::ceil", np.ceil, tol=TOL),
    _tr("round", "Round", "aten::round", np.round, tol=TOL),
    _tr("reciprocal", "Reciprocal", "aten::reciprocal", np.reciprocal, tol=TOL),
    _tr("sign", "Sign", "aten::sign", np.sign, tol=TOL),
    _tr("relu", "Relu", "aten::relu", lambda x: np.maximum(x, 0), "relu", tol=TOL),
    _tr("gelu", "Gelu", "aten::gelu", lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), "gelu, gelu_tanh"),
    _tr("silu", "", "aten::silu", lambda x: x / (1 + np.exp(-x)), "silu"),
    _tr("softsign", "Softsign", "aten::softsign", lambda x: x / (1 + np.abs(x))),
    _tr("softplus", "Softplus", "aten::softplus", _SP),
    _tr("hardswish", "HardSwish", "aten::hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6),
    _tr("hardsigmoid", "HardSigmoid", "aten::hardsigmoid", lambda x: np.clip(0.2 * x + 0.5, 0, 1)),
    _tr("leaky_relu", "LeakyRelu", "aten::leaky_relu", lambda x: np.where(x >= 0, x, 0.01 * x)),
    _tr("elu", "Elu", "aten::elu", lambda x: np.where(x > 0, x, np.expm1(x))),
    _tr("selu", "Selu", "aten::selu", lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))),
    _tr("celu", "Celu", "aten::celu", lambda x: np.maximum(x, 0) + np.minimum(np.expm1(x), 0)),
    _tr("mish", "Mish", "aten::mish", lambda x: x * np.tanh(_SP(x))),
    _tr("thresholded_relu", "ThresholdedRelu", "", lambda x: np.where(x > 1.0, x, 0)),
    OpInfo("swiglu", "activation/math", "SwiGLU", "silu(gate) * up", F, ("silu", "mul")),
    OpInfo("dropout", "activation/math", "Dropout", "aten::dropout", F, ("dropout",)),
    # softmax / attention / loss
    OpInfo("softmax", "softmax/attention", "Softmax", "aten::softmax", F, ("softmax",)),
    OpInfo("log_softmax", "softmax/attention", "LogSoftmax", "aten::log_softmax", F, ("log_softmax",)),
    OpInfo("scaled_dot_product_attention", "softmax/attention", "Attention",
           "aten::scaled_dot_product_attention", F, ("flash_attention", "matmul", "softmax0", "where", "mul")),
    OpInfo("cross_entropy", "softmax/attention", "SoftmaxCrossEntropyLoss", "aten::cross_entropy_loss", F,
           ("log_softmax", "take_cols", "mul", "row_sum")),
    OpInfo("nll_loss", "softmax/attention", "NegativeLogLikelihoodLoss", "aten::nll_loss_nd", F,
           ("take_cols", "mul", "row_sum")),
    # matmul family
    OpInfo("matmul", "matmul", "MatMul", "aten::matmul", F, ("matmul",), np.matmul),
    OpInfo("mm", "matmul", "MatMul", "aten::mm", F, ("matmul", "cast"), np.matmul),
    OpInfo("linear", "matmul", "Gemm(transB=1)", "aten::linear", F, ("matmul", "add")),
    OpInfo("gemm", "matmul", "Gemm", "aten::addmm", F, ("matmul", "mul", "add")),
    OpInfo("bmm", "matmul", "MatMul", "aten::bmm", F, ("matmul",), np.matmul),
    OpInfo("baddbmm", "matmul", "", "aten::baddbmm", F, ("matmul", "mul", "add")),
    # convolution / pooling
    OpInfo("conv2d", "convolution", "Conv", "aten::conv2d", F,
           ("conv2d_nchw", "conv2d_phase2", "conv2d_taps", "conv2d_dw_taps", "conv2d_nhwc", "copy6 (im2col)",
            "matmul", "add")),
    OpInfo("conv_transpose2d", "convolution", "ConvTranspose", "aten::conv_transpose2d", F,
           ("copy6", "matmul", "add")),
    OpInfo("max_pool2d", "pooling", "MaxPool", "aten::max_pool2d", F, ("copy6", "binary[OP=maximum]", "row_max")),
    OpInfo("avg_pool2d", "pooling", "AveragePool", "aten::avg_pool2d", F, ("copy6", "row_sum", "div")),
    OpInfo("adaptive_avg_pool2d", "pooling", "", "aten::adaptive_avg_pool2d", F, ("row_sum",)),
    OpInfo("global_avg_pool2d", "pooling", "GlobalAveragePool", "aten::mean.dim", F, ("row_sum",)),
    OpInfo("global_max_pool2d", "pooling", "GlobalMaxPool", "aten::amax", F, ("row_max",)),
    # normalization
    OpInfo("batch_norm", "normalization", "BatchNormalization", "aten::batch_norm", F,
           ("channel_affine", "row_var", "mul", "add")),
    OpInfo("layer_norm", "normalization", "LayerNormalization", "aten::layer_norm", F, ("layer_norm",)),
    OpInfo("layer_norm_axis", "normalization", "LayerNormalization", "aten::native_layer_norm", F,
           ("layer_norm", "row_var")),
    OpInfo("rms_norm", "normalization", "RMSNormalization", "aten::rms_norm", F, ("rms_norm",)),
    OpInfo("rms_norm_axis", "normalization", "RMSNormalization", "aten::rms_norm", F, ("rms_norm",)),
    OpInfo("add_rms_norm", "normalization", "", "add + rms_norm", F, ("add", "rms_norm")),
    OpInfo("add_layer_norm", "normalization", "", "add + layer_norm", F, ("add", "layer_norm")),
    # reductions
    OpInfo("sum", "reduction", "ReduceSum", "aten::sum", F, ("row_sum",)),
    OpInfo("reduce_sum", "reduction", "ReduceSum", "aten::sum.dim_IntList", F, ("row_sum",), np.sum),
    OpInfo("mean", "reduction", "ReduceMean", "aten::mean", F, ("row_sum", "div"), np.mean),
    OpInfo("max", "reduction", "ReduceMax", "aten::max.dim", F + ("int32",), ("row_max",)),
    OpInfo("amax", "reduction", "ReduceMax", "aten::amax", F + ("int32",), ("row_max",), np.max),
    OpInfo("min", "reduction", "ReduceMin", "aten::min.dim", F + I, ("row_min",)),
    OpInfo("amin", "reduction", "ReduceMin", "aten::amin", F + I, ("row_min",), np.min),
    OpInfo("prod", "reduction", "ReduceProd", "aten::prod", F, ("row_prod",), np.prod),
    OpInfo("argmax", "reduction", "ArgMax", "aten::argmax", F + ("int32",), ("row_argmax",)),
    OpInfo("argmax_axis", "reduction", "ArgMax", "aten::argmax", F + ("int32",), ("row_argmax",)),
    OpInfo("argmin", "reduction", "ArgMin", "aten::argmin", F + I, ("row_argmin",)),
    OpInfo("var", "reduction", "", "aten::var", F, ("row_var",), np.var),
    OpInfo("var_mean", "reduction", "", "aten::var_mean", F, ("row_var",)),
    OpInfo("cumsum", "reduction", "CumSum", "aten::cumsum", F + I, ("row_cumsum",), np.cumsum),
    OpInfo("sort", "reduction", "", "aten::sort(stable=True)", F + I, ("merge_pass", "sort_rank", "scatter_cols", "take_cols")),
    OpInfo("argsort", "reduction", "", "aten::argsort(stable=True)", F + I, ("merge_pass", "sort_rank", "scatter_cols")),
    OpInfo("topk", "reduction", "TopK", "aten::topk", F + I, ("merge_pass", "sort_rank", "scatter_cols", "take_cols")),
    # data movement and indexing
    OpInfo("contiguous", "data movement", "Identity", "aten::contiguous", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("transpose", "data movement", "Transpose", "aten::t", F, ("transpose",)),
    OpInfo("permute", "data movement", "Transpose", "aten::permute", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("cat", "data movement", "Concat", "aten::cat", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("stack", "data movement", "", "aten::stack", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("split", "data movement", "Split", "aten::split", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("slice", "data movement", "Slice", "aten::slice", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("expand", "data movement", "Expand", "aten::expand", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("tile", "data movement", "Tile", "aten::repeat", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("pad", "data movement", "Pad", "aten::pad", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("flip", "data movement", "", "aten::flip", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("reshape", "data movement", "Reshape", "aten::reshape", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("gather", "indexing", "Gather", "aten::index_select", F + I + ("int8", "bool"), ("take_rows", "take_cols")),
    OpInfo("index_select", "indexing", "Gather", "aten::index_select", F + I + ("int8", "bool"), ("take_rows", "take_cols")),
    OpInfo("embedding", "indexing", "Gather", "aten::embedding", F + I, ("take_rows", "take_cols")),
    OpInfo("gather_elements", "indexing", "GatherElements", "aten::gather", F + I + ("int8", "bool"), ("take_cols",)),
    OpInfo("scatter_elements", "indexing", "ScatterElements", "aten::scatter", F + I + ("int8", "bool"),
           ("scatter_cols",)),
    OpInfo("scatter_add", "indexing", "ScatterElements(add)", "aten::scatter_add", ("float32", "int64"),
           ("scatter_cols[REDUCE=add]",)),
    OpInfo("one_hot", "indexing", "OneHot", "aten::one_hot", F + I, ("compare", "where")),
    OpInfo("triu", "indexing", "Trilu", "aten::triu", F + I + ("int8", "bool"), ("tri",), np.triu),
    OpInfo("tril", "indexing", "Trilu(upper=0)", "aten::tril", F + I + ("int8", "bool"), ("tri",), np.tril),
    OpInfo("arange", "creation", "Range", "aten::arange", ("float32", "int32", "int64"), ("arange_f32", "arange_i64")),
    OpInfo("full", "creation", "ConstantOfShape", "aten::full", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("eye", "creation", "EyeLike", "aten::eye", F + I + ("int8", "bool"), ("copy6", "tri")),
    OpInfo("depth_to_space", "data movement", "DepthToSpace", "aten::pixel_shuffle (CRD)", F + I + ("int8", "bool"),
           ("copy6",)),
    OpInfo("space_to_depth", "data movement", "SpaceToDepth", "aten::pixel_unshuffle (CRD)", F + I + ("int8", "bool"),
           ("copy6",)),
    # composed reductions / normalisations / activations
    OpInfo("reduce_l1", "reduction", "ReduceL1", "aten::linalg_vector_norm(ord=1)", F, ("unary[OP=abs]", "row_sum")),
    OpInfo("reduce_l2", "reduction", "ReduceL2", "aten::linalg_vector_norm", F, ("mul", "row_sum", "unary[OP=sqrt]")),
    OpInfo("reduce_sum_square", "reduction", "ReduceSumSquare", "", F, ("mul", "row_sum")),
    OpInfo("reduce_log_sum", "reduction", "ReduceLogSum", "", F, ("row_sum", "unary[OP=log]")),
    OpInfo("logsumexp", "reduction", "ReduceLogSumExp", "aten::logsumexp", F, ("row_max", "exp", "row_sum", "unary[OP=log]")),
    OpInfo("instance_norm", "normalization", "InstanceNormalization", "aten::instance_norm", F, ("layer_norm", "mul", "add")),
    OpInfo("group_norm", "normalization", "GroupNormalization", "aten::group_norm", F, ("layer_norm", "mul", "add")),
    OpInfo("lp_normalize", "normalization", "LpNormalization", "aten::normalize (eps=0)", F,
           ("mul", "row_sum", "unary[OP=sqrt]", "div", "where")),
    OpInfo("mean_variance_normalization", "normalization", "MeanVarianceNormalization", "", F, ("copy6", "layer_norm")),
    OpInfo("prelu", "activation/math", "PRelu", "aten::prelu", F, ("compare[OP=gt]", "mul", "where")),
    OpInfo("shrink", "activation/math", "Shrink", "aten::hardshrink / softshrink", F, ("compare", "sub", "add", "where")),
    OpInfo("hardmax", "activation/math", "Hardmax", "", F, ("row_argmax", "compare", "where")),
    # torch.nn.functional-style compositions (tl/_ops_*_ext.py, _ops_loss.py)
    OpInfo("relu6", "activation/math", "", "aten::relu6", F, ("unary[OP=clamp]",)),
    OpInfo("hardtanh", "activation/math", "", "aten::hardtanh", F, ("unary[OP=clamp]",)),
    OpInfo("log_sigmoid", "activation/math", "", "aten::log_sigmoid", F, ("unary[OP=softplus]", "unary[OP=neg]")),
    OpInfo("tanhshrink", "activation/math", "", "aten::tanhshrink", F, ("tanh", "sub")),
    OpInfo("softshrink", "activation/math", "Shrink(bias=lambd)", "aten::softshrink", F, ("compare", "sub", "add", "where")),
    OpInfo("hardshrink", "activation/math", "Shrink(bias=0)", "aten::hardshrink", F, ("compare", "where")),
    OpInfo("glu", "activation/math", "", "aten::glu", F, ("copy6", "sigmoid", "mul")),
    OpInfo("softmin", "softmax/attention", "", "aten::softmin", F, ("unary[OP=neg]", "softmax")),
    OpInfo("square", "elementwise", "", "aten::square", F, ("mul",)),
    OpInfo("lerp", "elementwise", "", "aten::lerp", F, ("sub", "mul", "add", "where")),
    OpInfo("addcmul", "elementwise", "", "aten::addcmul", F, ("mul", "add")),
    OpInfo("addcdiv", "elementwise", "", "aten::addcdiv", F, ("div", "mul", "add")),
    OpInfo("nan_to_num", "elementwise", "", "aten::nan_to_num", F, ("compare", "where")),
    OpInfo("isfinite", "comparison", "", "aten::isfinite", F, ("compare", "bitwise", "logical_not")),
    OpInfo("masked_fill", "indexing", "", "aten::masked_fill", F + I + ("int8", "bool"), ("where",)),
    OpInfo("std", "reduction", "", "aten::std (here correction=0 by default)", F, ("var_mean", "unary[OP=sqrt]")),
    OpInfo("std_mean", "reduction", "", "aten::std_mean (correction=0 by default)", F, ("var_mean", "unary[OP=sqrt]")),
    OpInfo("count_nonzero", "reduction", "", "aten::count_nonzero", F + I + ("int8", "bool"), ("compare", "cast", "row_sum")),
    OpInfo("reduce_all", "reduction", "", "aten::all", F + I + ("int8", "bool"), ("compare", "cast", "row_min")),
    OpInfo("reduce_any", "reduction", "", "aten::any", F + I + ("int8", "bool"), ("compare", "cast", "row_max")),
    OpInfo("outer", "matmul", "", "aten::outer", F, ("mul",)),
    OpInfo("dot", "matmul", "", "aten::dot", F, ("matmul_rows",)),
    OpInfo("mv", "matmul", "", "aten::mv", F, ("matmul_rows",)),
    OpInfo("addmm", "matmul", "Gemm", "aten::addmm", F, ("matmul", "mul", "add")),
    OpInfo("diagonal", "data movement", "", "aten::diagonal (copy)", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("trace", "reduction", "", "aten::trace", F, ("copy6", "row_sum")),
    OpInfo("mse_loss", "loss", "", "aten::mse_loss", F, ("sub", "mul", "row_sum")),
    OpInfo("l1_loss", "loss", "", "aten::l1_loss", F, ("sub", "unary[OP=abs]", "row_sum")),
    OpInfo("smooth_l1_loss", "loss", "", "aten::smooth_l1_loss", F, ("sub", "mul", "where", "row_sum")),
    OpInfo("huber_loss", "loss", "", "aten::huber_loss", F, ("sub", "mul", "where", "row_sum")),
    OpInfo("binary_cross_entropy", "loss", "", "aten::binary_cross_entropy", F, ("unary[OP=log]", "mul", "row_sum")),
    OpInfo("binary_cross_entropy_with_logits", "loss", "", "aten::binary_cross_entropy_with_logits", F,
           ("unary[OP=softplus]", "mul", "row_sum")),
    OpInfo("kl_div", "loss", "", "aten::kl_div", F, ("unary[OP=log]", "mul", "where", "row_sum")),
    OpInfo("flatten", "data movement", "Flatten", "aten::flatten", F + I + ("int8", "bool"), ()),
    OpInfo("squeeze", "data movement", "Squeeze", "aten::squeeze", F + I + ("int8", "bool"), ()),
    OpInfo("unsqueeze", "data movement", "Unsqueeze", "aten::unsqueeze", F + I + ("int8", "bool"), ()),
    OpInfo("movedim", "data movement", "Transpose", "aten::movedim (copy)", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("narrow", "data movement", "Slice", "aten::narrow (copy)", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("chunk", "data movement", "Split", "aten::chunk", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("pixel_shuffle", "data movement", "DepthToSpace(CRD)", "aten::pixel_shuffle", F + I + ("int8", "bool"), ("copy6",)),
    OpInfo("pixel_unshuffle", "data movement", "SpaceToDepth(CRD)", "aten::pixel_unshuffle", F + I + ("int8", "bool"),
           ("copy6",)),
    OpInfo("repeat_interleave", "data movement", "", "aten::repeat_interleave", F + I, ("take_rows",)),
    OpInfo("max_pool1d", "pooling", "MaxPool (1-D)", "aten::max_pool1d", F, ("max_pool2d",)),
    OpInfo("avg_pool1d", "pooling", "AveragePool (1-D)", "aten::avg_pool1d", F, ("avg_pool2d",)),
    OpInfo("normalize", "normalization", "", "aten::normalize", F, ("mul", "row_sum", "unary[OP=sqrt]", "div")),
    OpInfo("cosine_similarity", "normalization", "", "aten::cosine_similarity", F, ("mul", "row_sum", "div")),
    OpInfo("pairwise_distance", "normalization", "", "aten::pairwise_distance", F, ("sub", "mul", "row_sum")),
    # position
    OpInfo("rotary_embedding", "position", "RotaryEmbedding", "(rotary embedding)", F, ("mul", "sub", "add", "copy6")),
    # elementary math (ops/math_ext.py umath / bmath; tl/_ops_math_ext.py)
    # sin/cos/tan: the kernel for |x| <= 8192, tl.ops recomputes larger |x| in float64 on the host
    *[_tr(n, n.capitalize() if n in _ONNX_TRIG else "", f"aten::{n}", r,
          f"umath[OP={n}]" + (" (abs(x) <= 8192; host float64 above)" if n in ("sin", "cos", "tan") else ""),
          tol=TOL if n == "trunc" else None) for n, r in _MATH_UNARY.items()],
    *[OpInfo(n, "elementwise", "", f"aten::{n}", F, (f"bmath[OP={n}]",), r) for n, r in _MATH_BINARY.items()],
    *[OpInfo(f"bitwise_{n}", "bitwise", f"Bitwise{n.capitalize()}", f"aten::bitwise_{n}", _BITS, (k,), r)
      for n, k, r in (("and", "bitwise[OP=and]", np.bitwise_and), ("or", "bitwise[OP=or]", np.bitwise_or),
                      ("xor", "bitwise[OP=xor]", np.bitwise_xor), ("not", "bitwise_not", np.invert))],
    OpInfo("shape", "data movement", "Shape", "aten::sym_size (x.shape)", F + I + ("int8", "bool"), ("metadata, no kernel",)),
    OpInfo("size", "data movement", "Size", "aten::numel", F + I + ("int8", "bool"), ("metadata, no kernel",)),
    OpInfo("reverse_sequence", "data movement", "ReverseSequence", "-", F + I + ("int8", "bool"), ("take_cols",)),
    OpInfo("gather_nd", "indexing", "GatherND", "-", F + I + ("int8", "bool"), ("take_rows", "take_cols")),
    OpInfo("scatter_nd", "indexing", "ScatterND", "-", F + I + ("int8", "bool"), ("scatter_cols",)),
]
OPS = {o.name: o for o in OPS_LIST}
