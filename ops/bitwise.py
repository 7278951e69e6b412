"""Bitwise integer kernels: and, or, xor (``bitwise``) and not (``bitwise_not``).

Rank-2 tensors (R, C) of one dtype int8/int32/int64, any strides (stride 0 broadcasts); one
(4, 256) tile per program. Bit operations do not depend on signedness, so tl.ops runs uint8/
uint32/uint64 arrays through the int8/int32/int64 instances as views, and bool arrays (0/1 bytes:
logical_and/or/xor, bool bitwise ops) through the int8 instances.
Instances: ``bitwise__DT_<dt>__OP_<op>``, ``bitwise_not__DT_<dt>``.
"""
import tl


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=[dict(OP="and", DT=tl.int8), dict(OP="and", DT=tl.int32), dict(OP="and", DT=tl.int64),
                            dict(OP="or", DT=tl.int8), dict(OP="or", DT=tl.int32), dict(OP="or", DT=tl.int64),
                            dict(OP="xor", DT=tl.int8), dict(OP="xor", DT=tl.int32), dict(OP="xor", DT=tl.int64)])
def bitwise(x: tl.tensor(DT, 2), y: tl.tensor(DT, 2), out: tl.tensor(DT, 2), OP: tl.constexpr = "and",
            DT: tl.constexpr = tl.int32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = x OP y, bit by bit."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    a = tl.load(x + (r, c), (BM, BN))
    b = tl.load(y + (r, c), (BM, BN))
    if OP == "and":
        v = a & b
    elif OP == "or":
        v = a | b
    else:
        v = a ^ b
    tl.store(out + (r, c), v)


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=[dict(DT=tl.int8), dict(DT=tl.int32), dict(DT=tl.int64)])
def bitwise_not(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2), DT: tl.constexpr = tl.int32, BM: tl.constexpr = 4,
                BN: tl.constexpr = 256):
    """out = ~x (every bit flipped)."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    tl.store(out + (r, c), ~tl.load(x + (r, c), (BM, BN)))
