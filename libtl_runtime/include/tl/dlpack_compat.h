/* tl/dlpack_compat.h - the DLTensor layout of the DLPack specification
 * (https://dmlc.github.io/dlpack/latest/c_api.html, ABI of DLPack v0.8/v1.x).
 * If <dlpack/dlpack.h> is already included, its definitions are used instead. */
#ifndef TL_DLPACK_COMPAT_H
#define TL_DLPACK_COMPAT_H
#include <stdint.h>
#ifndef DLPACK_VERSION
typedef enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 } DLDeviceType;
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 } DLDataTypeCode;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void* data;           /* data pointer; byte_offset is added to it */
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;       /* ndim extents */
  int64_t* strides;     /* ndim strides in elements, or NULL for C-contiguous */
  uint64_t byte_offset;
} DLTensor;
#endif
#endif
