/* tl/dlpack_compat.h - the DLPack 1.1 C ABI (https://dmlc.github.io/dlpack/latest/c_api.html),
 * written for libtl_runtime from the specification, for hosts that do not have <dlpack/dlpack.h>.
 *
 * Living next to a real DLPack header
 *   Upstream dlpack.h (0.x and 1.x) and the copies other projects ship (torch's ATen/dlpack.h,
 *   tvm-ffi's, pyarrow's arrow/c/dlpack_abi.h) all guard themselves with DLPACK_DLPACK_H_. The
 *   definitions below sit under that same guard, so whichever of the two is included first
 *   defines the DLPack types and the other adds nothing: both include orders compile, in C and C++.
 *   - Code that needs something newer than DLPack 1.1 (e.g. 1.2's kDLTrn or the DLPackExchangeAPI
 *     function tables) must include the real header before any tl/ header.
 *   - With a pre-1.0 header included first (0.6 .. 0.8: DLPACK_VERSION defined, no
 *     DLPACK_MAJOR_VERSION) DLManagedTensorVersioned does not exist; tl_value_from_dlpack (tl/runtime.h)
 *     is then declared but cannot be given a tensor. DLTensor itself has the same layout in every
 *     version since 0.6, so a plain DLTensor* works with any of them.
 *   - Nothing here is a function: including this header links nothing.
 *
 * What libtl_runtime accepts (tl_kernel_launch checks it; src/launch.c): a DLTensor on the package's
 * device (tl_package_device; for the CPU device.device_type kDLCPU, kDLCUDAHost or kDLROCMHost,
 * any device_id; for CUDA kDLCUDA or kDLCUDAManaged with the package's device_id), lanes == 1, strides in elements (NULL: C-contiguous),
 * byte_offset in bytes added to data, and per parameter dtype (tl_dtype_t of tl/bundle_abi.h):
 *     tl_dtype_t          DLDataType (code, bits)
 *     TL_DTYPE_BOOL       (kDLBool, 8) or (kDLUInt, 8)
 *     TL_DTYPE_INT8       (kDLInt, 8)
 *     TL_DTYPE_INT32      (kDLInt, 32)
 *     TL_DTYPE_INT64      (kDLInt, 64)
 *     TL_DTYPE_FLOAT16    (kDLFloat, 16)
 *     TL_DTYPE_BFLOAT16   (kDLBfloat, 16)
 *     TL_DTYPE_FLOAT32    (kDLFloat, 32)
 *   Any other (code, bits, lanes), e.g. the float8/6/4 codes below, is refused with
 *   TL_ERROR_INVALID_ARGUMENT naming the argument. */
#ifndef TL_DLPACK_COMPAT_H
#define TL_DLPACK_COMPAT_H

#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif

/* The DLPack version these definitions follow. A new major version changes the layout of
 * DLManagedTensorVersioned; a new minor version only adds enumerators. */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1

#ifdef _WIN32
#ifdef DLPACK_EXPORTS
#define DLPACK_DLL __declspec(dllexport)
#else
#define DLPACK_DLL __declspec(dllimport)
#endif
#else
#define DLPACK_DLL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version a producer wrote into a DLManagedTensorVersioned. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Where a tensor's memory lives. The values are fixed by the specification (5 and 6 unused). */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  kDLCPU = 1,          /* host memory */
  kDLCUDA = 2,         /* CUDA device memory */
  kDLCUDAHost = 3,     /* CUDA page-locked host memory */
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,          /* Verilog simulator buffers */
  kDLROCM = 10,        /* ROCm device memory */
  kDLROCMHost = 11,    /* ROCm page-locked host memory */
  kDLExtDev = 12,      /* reserved for extension devices */
  kDLCUDAManaged = 13, /* CUDA managed (unified) memory */
  kDLOneAPI = 14,      /* oneAPI unified shared memory */
  kDLWebGPU = 15,
  kDLHexagon = 16,     /* Qualcomm Hexagon DSP */
  kDLMAIA = 17         /* Microsoft MAIA */
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;   /* which device of that type; 0 for kDLCPU */
} DLDevice;

/* The kind of a scalar element; DLDataType.bits gives its width. */
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,            /* IEEE 754 binary16/32/64 */
  kDLOpaqueHandle = 3U,     /* pointer-sized opaque handles */
  kDLBfloat = 4U,           /* bfloat16 */
  kDLComplex = 5U,          /* bits is the size of the (real, imaginary) pair */
  kDLBool = 6U,             /* bits = 8 in practice: one byte per element */
  kDLFloat8_e3m4 = 7U,      /* 8-bit floats (bits = 8); the suffix names the exponent/mantissa split */
  kDLFloat8_e4m3 = 8U,
  kDLFloat8_e4m3b11fnuz = 9U,
  kDLFloat8_e4m3fn = 10U,
  kDLFloat8_e4m3fnuz = 11U,
  kDLFloat8_e5m2 = 12U,
  kDLFloat8_e5m2fnuz = 13U,
  kDLFloat8_e8m0fnu = 14U,
  kDLFloat6_e2m3fn = 15U,   /* 6-bit floats (bits = 6), packed */
  kDLFloat6_e3m2fn = 16U,
  kDLFloat4_e2m1fn = 17U    /* 4-bit float (bits = 4), packed */
} DLDataTypeCode;

/* One element type: code (a DLDataTypeCode value), bits per lane, lanes per element (1: scalar). */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/* A strided view of memory the tensor does not own. */
typedef struct {
  void* data;           /* base pointer (aligned to 256 bytes for device memory); byte_offset is added */
  DLDevice device;
  int32_t ndim;         /* number of dimensions, >= 0 */
  DLDataType dtype;
  int64_t* shape;       /* ndim extents; may be NULL when ndim == 0 */
  int64_t* strides;     /* ndim strides in elements (not bytes), or NULL for C-contiguous */
  uint64_t byte_offset; /* bytes from data to the first element */
} DLTensor;

/* The pre-1.0 exchange object (no version, no flags): the consumer calls deleter(self) once done. */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;                          /* the producer's context */
  void (*deleter)(struct DLManagedTensor* self); /* may be NULL; frees manager_ctx and self */
} DLManagedTensor;

/* DLManagedTensorVersioned.flags bits. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)  /* the consumer must not write the data */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)  /* the producer copied the data for this export */
/* sub-byte elements (bits < 8) are padded to one byte each instead of packed */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* The DLPack 1.x exchange object. A consumer first checks version.major (the only field whose
 * place never changes): when it is not the major version it knows, it must not read the other
 * fields and only calls deleter(self). */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self); /* may be NULL; frees manager_ctx and self */
  uint64_t flags;                                         /* DLPACK_FLAG_BITMASK_* */
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}
#endif
#endif /* DLPACK_DLPACK_H_ */
#endif /* TL_DLPACK_COMPAT_H */
