// tl/runtime.hpp - header-only C++17 interface over tl/runtime.h (libtl_runtime).
//
//   tl::Runtime rt;                                   // throws tl::Error on failure
//   tl::Package pkg = rt.open("build/ops.tlpkg");     // keeps rt's runtime alive
//   tl::Kernel softmax = pkg.kernel("softmax__DT_float32");   // keeps the package alive
//   std::vector<float> x(8 * 16), y(8 * 16);
//   softmax.launch(tl::TensorView::of(x, {8, 16}), tl::TensorView::of(y, {8, 16}));
//
// Ownership: Runtime, Package and Kernel are shared handles (copies share one underlying object);
// a Package holds its runtime and a Kernel its package, so they may be destroyed in any order and
// each C handle is released exactly once, after the last C++ handle that needs it. A moved-from
// handle is empty: using it throws tl::Error (TL_ERROR_INVALID_ARGUMENT).
//
// Errors: every failure throws tl::Error (status() is the tl_status_t, what() the runtime's
// message). The try_* functions never throw tl::Error: they return tl::Status / tl::Result<T>.
//
// Tensors: tl::TensorView is a non-owning strided view (data pointer, dtype, shape, strides in
// elements) that hands the runtime a DLTensor; built from a std::vector, a std::array, a C array
// or a tl::Span (a pointer and an element count), it checks that every element it can address
// lies inside that memory. A view of const data is refused for a parameter the kernel writes. Kernel::launch
// checks the number of arguments and which are tensors or scalars against the kernel's
// descriptor; the runtime checks dtypes, ranks, strides and aliasing.
#ifndef TL_RUNTIME_HPP
#define TL_RUNTIME_HPP
#if __cplusplus < 201703L
#error "tl/runtime.hpp needs C++17 (use tl/runtime.h from older C++)"
#else

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tl/runtime.h"

namespace tl {

// ----------------------------------------------------------------------------- errors

// A failed libtl_runtime call: the status code and the runtime's message.
class Error : public std::runtime_error {
 public:
  Error(tl_status_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  tl_status_t status() const noexcept { return status_; }

 private:
  tl_status_t status_;
};

// The outcome of a try_* call: ok() or a status code with its message.
class Status {
 public:
  Status() = default;
  Status(tl_status_t code, std::string message) : code_(code), message_(std::move(message)) {}
  bool ok() const noexcept { return code_ == TL_OK; }
  explicit operator bool() const noexcept { return ok(); }
  tl_status_t code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  // Throws tl::Error unless ok().
  void check() const {
    if (!ok()) throw Error(code_, message_);
  }

 private:
  tl_status_t code_ = TL_OK;
  std::string message_;
};

// A value or the Status of why there is none (a small std::expected).
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, like std::expected
  Result(Status status) : status_(std::move(status)) {
    if (status_.ok()) status_ = Status(TL_ERROR_INTERNAL, "tl::Result made from an ok Status without a value");
  }
  bool ok() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  const Status& status() const noexcept { return status_; }
  // The value; throws tl::Error with the status when there is none.
  T& value() & {
    status_.check();
    return *value_;
  }
  const T& value() const& {
    status_.check();
    return *value_;
  }
  T&& value() && {
    status_.check();
    return std::move(*value_);
  }

 private:
  std::optional<T> value_;
  Status status_;
};

namespace detail {
inline std::string message_of(const tl_runtime_t* rt, const char* fallback) {
  const char* m = tl_runtime_last_error(rt);
  return (m != nullptr && m[0] != '\0') ? std::string(m) : std::string(fallback);
}
inline Status status_of(tl_status_t st, const tl_runtime_t* rt, const char* fallback) {
  return st == TL_OK ? Status() : Status(st, message_of(rt, fallback));
}
inline Status invalid(std::string message) { return Status(TL_ERROR_INVALID_ARGUMENT, std::move(message)); }
}  // namespace detail

// ----------------------------------------------------------------------------- tensors

// Storage types for the 16-bit floats (the bits as stored; no arithmetic).
struct float16_t {
  uint16_t bits;
};
struct bfloat16_t {
  uint16_t bits;
};

// The DLPack dtype of an element type: bool, float16_t, bfloat16_t, any integer or floating
// type (kernels take bool, int8_t, int32_t, int64_t, float16_t, bfloat16_t and float; the
// runtime refuses any other dtype for a kernel's tensor).
template <class T>
inline constexpr bool unsupported_dtype = false;
template <class T>
constexpr DLDataType dtype_of() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) return DLDataType{kDLBool, 8, 1};
  else if constexpr (std::is_same_v<U, float16_t>) return DLDataType{kDLFloat, 16, 1};
  else if constexpr (std::is_same_v<U, bfloat16_t>) return DLDataType{kDLBfloat, 16, 1};
  else if constexpr (std::is_floating_point_v<U>) return DLDataType{kDLFloat, uint8_t(8 * sizeof(U)), 1};
  else if constexpr (std::is_integral_v<U>)
    return DLDataType{std::is_signed_v<U> ? uint8_t(kDLInt) : uint8_t(kDLUInt), uint8_t(8 * sizeof(U)), 1};
  else static_assert(unsupported_dtype<U>, "tl::TensorView: no DLPack dtype for this element type");
}

// A pointer and an element count (C++17 has no std::span), for memory that is not a container:
// TensorView::of(tl::Span<float>(p, n), {rows, cols}) checks the view against those n elements.
template <class T>
class Span {
 public:
  Span(T* data, size_t size) noexcept : data_(data), size_(size) {}
  T* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }

 private:
  T* data_;
  size_t size_;
};

// Up to TL_MAX_RANK extents or strides: Dims{8, 16}, or from a std::vector<int64_t>.
class Dims {
 public:
  Dims() = default;
  Dims(std::initializer_list<int64_t> values) { assign(values.begin(), values.size()); }
  Dims(const std::vector<int64_t>& values) { assign(values.data(), values.size()); }  // NOLINT
  template <size_t N>
  Dims(const std::array<int64_t, N>& values) {  // NOLINT
    assign(values.data(), N);
  }
  size_t size() const noexcept { return size_; }
  int64_t operator[](size_t i) const noexcept { return v_[i]; }
  const int64_t* data() const noexcept { return v_.data(); }

 private:
  void assign(const int64_t* p, size_t n) {
    if (n > TL_MAX_RANK)
      throw Error(TL_ERROR_INVALID_ARGUMENT, "tl::Dims: " + std::to_string(n) + " values, at most " +
                                                 std::to_string(TL_MAX_RANK) + " (TL_MAX_RANK)");
    for (size_t i = 0; i < n; ++i) v_[i] = p[i];
    size_ = n;
  }
  std::array<int64_t, TL_MAX_RANK> v_{};
  size_t size_ = 0;
};

// A non-owning strided view of CPU memory. Copyable; dl() points into the view itself, so it is
// valid while this view lives unchanged.
class TensorView {
 public:
  // A view of `data` with `shape` and `strides` (in elements; empty: contiguous, row-major).
  // No bounds check: the caller vouches for the memory (prefer the overload below).
  template <class T>
  static TensorView of(T* data, const Dims& shape, const Dims& strides = {}) {
    return TensorView(const_cast<std::remove_const_t<T>*>(data), dtype_of<T>(),
                      shape, strides, std::is_const_v<T>, false, 0);
  }
  // A view of the elements of `memory` (a std::vector, std::array, C array, tl::Span: anything
  // with std::data and std::size); throws tl::Error (TL_ERROR_INVALID_ARGUMENT) when the shape
  // and strides reach outside it. A const container gives a read-only view.
  template <class C, class E = std::remove_pointer_t<decltype(std::data(std::declval<C&>()))>>
  static TensorView of(C&& memory, const Dims& shape, const Dims& strides = {}) {
    E* data = std::data(memory);
    const size_t count = static_cast<size_t>(std::size(memory));
    return TensorView(const_cast<std::remove_const_t<E>*>(data), dtype_of<E>(), shape, strides, std::is_const_v<E>,
                      true, count);
  }

  TensorView(const TensorView& o) noexcept { *this = o; }
  TensorView& operator=(const TensorView& o) noexcept {
    shape_ = o.shape_;
    strides_ = o.strides_;
    read_only_ = o.read_only_;
    dl_ = o.dl_;
    dl_.shape = shape_.data();
    dl_.strides = strides_.data();
    return *this;
  }

  const DLTensor* dl() const noexcept { return &dl_; }
  int32_t ndim() const noexcept { return dl_.ndim; }
  int64_t shape(size_t i) const noexcept { return shape_[i]; }
  int64_t stride(size_t i) const noexcept { return strides_[i]; }
  void* data() const noexcept { return dl_.data; }
  // Made from const data: refused for parameters the kernel writes.
  bool read_only() const noexcept { return read_only_; }

 private:
  TensorView(void* data, DLDataType dtype, const Dims& shape, const Dims& strides, bool read_only, bool bounded,
             size_t count)
      : read_only_(read_only) {
    const size_t n = shape.size();
    if (strides.size() != 0 && strides.size() != n)
      throw Error(TL_ERROR_INVALID_ARGUMENT, "tl::TensorView: " + std::to_string(strides.size()) +
                                                 " strides for a shape of rank " + std::to_string(n));
    int64_t step = 1;
    for (size_t i = n; i-- > 0;) {
      if (shape[i] < 0)
        throw Error(TL_ERROR_INVALID_ARGUMENT,
                    "tl::TensorView: shape[" + std::to_string(i) + "] is negative (" + std::to_string(shape[i]) + ")");
      shape_[i] = shape[i];
      strides_[i] = strides.size() != 0 ? strides[i] : step;
      if (__builtin_mul_overflow(step, shape[i], &step) && strides.size() == 0)
        throw Error(TL_ERROR_INVALID_ARGUMENT, "tl::TensorView: the shape's element count overflows int64");
    }
    if (bounded) check_bounds(count);
    dl_.data = data;
    dl_.device = DLDevice{kDLCPU, 0};
    dl_.ndim = static_cast<int32_t>(n);
    dl_.dtype = dtype;
    dl_.shape = shape_.data();
    dl_.strides = strides_.data();
    dl_.byte_offset = 0;
  }

  // Every addressable element offset lies in [0, count) (an empty view addresses none).
  void check_bounds(size_t count) const {
    int64_t lo = 0, hi = 0;
    bool overflow = false;
    for (size_t i = 0; i < TL_MAX_RANK; ++i) {
      if (shape_[i] == 0) return;
      int64_t reach = 0;
      overflow |= __builtin_mul_overflow(shape_[i] - 1, strides_[i], &reach);
      overflow |= reach < 0 ? __builtin_add_overflow(lo, reach, &lo) : __builtin_add_overflow(hi, reach, &hi);
    }
    if (overflow || lo < 0 || static_cast<uint64_t>(hi) >= count)
      throw Error(TL_ERROR_INVALID_ARGUMENT,
                  "tl::TensorView: the shape and strides address elements outside the " + std::to_string(count) +
                      " elements of the memory given (offsets " + (overflow ? std::string("overflow int64") :
                      std::to_string(lo) + " .. " + std::to_string(hi)) + ")");
  }

  std::array<int64_t, TL_MAX_RANK> shape_{1, 1, 1, 1, 1, 1, 1, 1};
  std::array<int64_t, TL_MAX_RANK> strides_{};
  bool read_only_ = false;
  DLTensor dl_{};
};

// ----------------------------------------------------------------------------- handles

class Package;
class Kernel;

// A libtl_runtime runtime (thread pool, allocator, per-thread error messages).
class Runtime {
 public:
  // num_threads: 0 = one per online CPU. Throws tl::Error.
  explicit Runtime(int32_t num_threads = 0) { *this = try_create(num_threads).value(); }
  explicit Runtime(const tl_runtime_options_t& options) { *this = try_create(options).value(); }

  static Result<Runtime> try_create(int32_t num_threads = 0) noexcept {
    tl_runtime_options_t o;
    tl_runtime_options_initialize(&o);
    o.num_threads = num_threads;
    return try_create(o);
  }
  static Result<Runtime> try_create(const tl_runtime_options_t& options) noexcept {
    try {
      tl_runtime_t* rt = nullptr;
      const tl_status_t st = tl_runtime_create(&options, &rt);
      if (st != TL_OK) return Status(st, detail::message_of(nullptr, "tl_runtime_create failed"));
      return Runtime(std::shared_ptr<tl_runtime_t>(rt, tl_runtime_release));  // releases rt if it throws
    } catch (const std::bad_alloc&) {
      return Status(TL_ERROR_OUT_OF_MEMORY, "out of memory");
    }
  }

  inline Package open(const std::string& path) const;
  inline Result<Package> try_open(const std::string& path) const noexcept;
  // With open options (the device to run on...), as tl_package_open_ex.
  inline Package open(const std::string& path, const tl_package_open_options_t& options) const;
  inline Result<Package> try_open(const std::string& path, const tl_package_open_options_t& options) const noexcept;

  int32_t num_threads() const { return tl_runtime_num_threads(get_checked()); }
  void set_num_threads(int32_t n) const {
    detail::status_of(tl_runtime_set_num_threads(get_checked(), n), get(), "tl_runtime_set_num_threads failed")
        .check();
  }
  std::string cpu_features() const { return tl_runtime_cpu_features(get_checked()); }
  static std::string version() { return tl_runtime_version(); }
  // The last error message of this thread on this runtime ("" when none).
  std::string last_error() const { return tl_runtime_last_error(get_checked()); }
  tl_runtime_t* get() const noexcept { return rt_.get(); }
  explicit operator bool() const noexcept { return rt_ != nullptr; }

 private:
  friend class Package;
  explicit Runtime(std::shared_ptr<tl_runtime_t> rt) noexcept : rt_(std::move(rt)) {}
  tl_runtime_t* get_checked() const {
    if (!rt_) throw Error(TL_ERROR_INVALID_ARGUMENT, "tl::Runtime is empty (moved from)");
    return rt_.get();
  }
  std::shared_ptr<tl_runtime_t> rt_;
};

namespace detail {
// One opened package and the runtime it needs: released before the runtime.
struct PackageState {
  std::shared_ptr<tl_runtime_t> runtime;
  tl_package_t* package = nullptr;
  PackageState(std::shared_ptr<tl_runtime_t> rt, tl_package_t* p) noexcept : runtime(std::move(rt)), package(p) {}
  PackageState(const PackageState&) = delete;
  PackageState& operator=(const PackageState&) = delete;
  ~PackageState() { tl_package_release(package); }
};
}  // namespace detail

// One kernel of a package; holds the package (and so the runtime) alive.
class Kernel {
 public:
  const tl_kernel_desc_t& desc() const { return *checked().second; }
  std::string name() const { return desc().name; }
  uint32_t num_params() const { return desc().num_params; }
  const tl_param_t& param(uint32_t i) const {
    const tl_kernel_desc_t& d = desc();
    if (i >= d.num_params)
      throw Error(TL_ERROR_INVALID_ARGUMENT, std::string("kernel ") + d.name + ": no parameter #" + std::to_string(i));
    return d.params[i];
  }
  Kernel() = default;  // empty: launching it throws
  Kernel(const Kernel&) = default;
  Kernel& operator=(const Kernel&) = default;
  Kernel(Kernel&& o) noexcept : pkg_(std::move(o.pkg_)), kernel_(std::exchange(o.kernel_, nullptr)) {}
  Kernel& operator=(Kernel&& o) noexcept {
    pkg_ = std::move(o.pkg_);
    kernel_ = std::exchange(o.kernel_, nullptr);
    return *this;
  }
  // The C handle, e.g. for a generated package header's typed wrappers.
  tl_kernel_t* get() const noexcept { return kernel_; }
  // Throws tl::Error with this kernel's runtime's message unless st is TL_OK, e.g.
  //   k.check(ops_softmax__DT_float32(k.get(), x.dl(), y.dl()));
  void check(tl_status_t st) const {
    if (st != TL_OK) throw Error(st, detail::message_of(pkg_ ? pkg_->runtime.get() : nullptr, "kernel launch failed"));
  }
  explicit operator bool() const noexcept { return kernel_ != nullptr; }

  // Runs the kernel (grid from its rule) with one argument per runtime parameter, in order:
  // a TensorView for a tensor parameter, an arithmetic value for a scalar (integers for
  // integer/bool parameters, integers or floating point for float ones). Throws tl::Error.
  template <class... Args>
  void launch(const Args&... args) const {
    try_launch(args...).check();
  }
  // launch with an explicit grid (up to TL_MAX_GRID sizes; missing ones are 1).
  template <class... Args>
  void launch_grid(const Dims& grid, const Args&... args) const {
    try_launch_grid(grid, args...).check();
  }
  // Asynchronous launch on a stream (tl_kernel_launch_ex): on CUDA `stream` is the CUstream to
  // enqueue on (nullptr: the legacy default stream; per DLPack, the stream the caller's tensors are
  // used on); returns once enqueued, Package::synchronize waits. The CPU ignores the stream and
  // runs the kernel before returning.
  template <class... Args>
  void launch_on(void* stream, const Args&... args) const {
    try_launch_on(stream, args...).check();
  }
  template <class... Args>
  void launch_grid_on(const Dims& grid, void* stream, const Args&... args) const {
    try_launch_grid_on(grid, stream, args...).check();
  }
  template <class... Args>
  Status try_launch_on(void* stream, const Args&... args) const noexcept {
    tl_launch_ex_options_t ex;
    tl_launch_ex_options_initialize(&ex);
    ex.stream = stream;
    return run(nullptr, &ex, args...);
  }
  template <class... Args>
  Status try_launch_grid_on(const Dims& grid, void* stream, const Args&... args) const noexcept {
    tl_launch_options_t o;
    Status st = grid_options(grid, &o);
    if (!st.ok()) return st;
    tl_launch_ex_options_t ex;
    tl_launch_ex_options_initialize(&ex);
    ex.stream = stream;
    return run(&o, &ex, args...);
  }
  template <class... Args>
  Status try_launch(const Args&... args) const noexcept {
    return run(nullptr, nullptr, args...);
  }
  template <class... Args>
  Status try_launch_grid(const Dims& grid, const Args&... args) const noexcept {
    tl_launch_options_t o;
    Status st = grid_options(grid, &o);
    if (!st.ok()) return st;
    return run(&o, nullptr, args...);
  }

 private:
  Status grid_options(const Dims& grid, tl_launch_options_t* o) const noexcept {
    if (grid.size() > TL_MAX_GRID)
      return detail::invalid("kernel " + safe_name() + ": a grid of " + std::to_string(grid.size()) +
                             " sizes, at most " + std::to_string(TL_MAX_GRID));
    tl_launch_options_initialize(o);
    o->has_grid = 1;
    for (size_t i = 0; i < TL_MAX_GRID; ++i) o->grid[i] = i < grid.size() ? grid[i] : 1;
    return Status();
  }
  friend class Package;
  Kernel(std::shared_ptr<detail::PackageState> pkg, tl_kernel_t* k) noexcept : pkg_(std::move(pkg)), kernel_(k) {}

  std::pair<tl_kernel_t*, const tl_kernel_desc_t*> checked() const {
    if (kernel_ == nullptr || !pkg_) throw Error(TL_ERROR_INVALID_ARGUMENT, "tl::Kernel is empty (moved from)");
    const tl_kernel_desc_t* d = tl_kernel_desc(kernel_);
    if (d == nullptr) released().check();
    return {kernel_, d};
  }
  std::string safe_name() const {
    if (kernel_ == nullptr) return "(empty)";
    const tl_kernel_desc_t* d = tl_kernel_desc(kernel_);
    return d != nullptr ? d->name : "(released)";
  }
  // The package was released behind the handle's back (tl_package_release on Package::get()):
  // the runtime refused tl_kernel_desc and says why.
  Status released() const {
    return detail::status_of(TL_ERROR_INVALID_ARGUMENT, pkg_->runtime.get(), "the kernel's package was released");
  }

  static Status bad_arg(const tl_kernel_desc_t* d, uint32_t i, const char* what) {
    return detail::invalid(std::string("kernel ") + d->name + ": argument '" + d->params[i].name + "' (#" +
                           std::to_string(i) + ") " + what);
  }
  static Status put(const tl_kernel_desc_t* d, uint32_t i, const TensorView& t, tl_value_t* v) {
    const tl_param_t& p = d->params[i];
    if (p.kind != TL_PARAM_TENSOR) return bad_arg(d, i, "is a scalar, got a TensorView");
    if (t.read_only() && (p.access & TL_ACCESS_WRITE) != 0)
      return bad_arg(d, i, "is written by the kernel, got a view of const data");
    v->tensor = t.dl();
    return Status();
  }
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  static Status put(const tl_kernel_desc_t* d, uint32_t i, T value, tl_value_t* v) {
    const tl_param_t& p = d->params[i];
    if (p.kind != TL_PARAM_SCALAR) return bad_arg(d, i, "is a tensor, got a scalar");
    const bool floating = p.dtype == TL_DTYPE_FLOAT16 || p.dtype == TL_DTYPE_BFLOAT16 || p.dtype == TL_DTYPE_FLOAT32;
    if (floating) {
      v->f64 = static_cast<double>(value);
    } else if constexpr (std::is_floating_point_v<T>) {
      return bad_arg(d, i, "is an integer scalar, got a floating-point value");
    } else {
      if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
        if (value > static_cast<T>(INT64_MAX)) return bad_arg(d, i, "does not fit in int64_t");
      }
      v->i64 = static_cast<int64_t>(value);
    }
    return Status();
  }
  template <class T>
  static Status put(const tl_kernel_desc_t*, uint32_t, const T&, tl_value_t*,
                    std::enable_if_t<!std::is_arithmetic_v<T> && !std::is_convertible_v<T, const TensorView&>, int> = 0) {
    static_assert(unsupported_dtype<T>, "tl::Kernel::launch: pass a tl::TensorView for a tensor, an arithmetic value "
                                        "for a scalar");
    return Status();
  }

  template <class... Args>
  Status run(const tl_launch_options_t* options, const tl_launch_ex_options_t* ex, const Args&... args) const noexcept {
    try {
      if (kernel_ == nullptr || !pkg_) return detail::invalid("tl::Kernel is empty (moved from)");
      const tl_kernel_desc_t* d = tl_kernel_desc(kernel_);
      if (d == nullptr) return released();
      constexpr size_t n = sizeof...(Args);
      if (n != d->num_params)
        return detail::invalid(std::string("kernel ") + d->name + " takes " + std::to_string(d->num_params) +
                               " arguments, got " + std::to_string(n));
      std::array<tl_value_t, n == 0 ? 1 : n> values{};
      Status st;
      uint32_t i = 0;
      auto one = [&](const auto& a) {
        if (st.ok()) st = put(d, i, a, &values[i]);
        ++i;
      };
      (one(args), ...);
      (void)one;
      if (!st.ok()) return st;
      if (ex != nullptr) {
        const tl_status_t rc = tl_kernel_launch_ex(kernel_, values.data(), static_cast<uint32_t>(n),
                                                   options != nullptr ? options->grid : nullptr, ex);
        return detail::status_of(rc, pkg_->runtime.get(), "tl_kernel_launch_ex failed");
      }
      const tl_status_t rc = tl_kernel_launch(kernel_, values.data(), static_cast<uint32_t>(n), options);
      return detail::status_of(rc, pkg_->runtime.get(), "tl_kernel_launch failed");
    } catch (const std::bad_alloc&) {
      return Status(TL_ERROR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
      return Status(TL_ERROR_INTERNAL, e.what());
    }
  }

  std::shared_ptr<detail::PackageState> pkg_;
  tl_kernel_t* kernel_ = nullptr;
};

// An opened .tlpkg (or bundle); holds its runtime alive.
class Package {
 public:
  Package() = default;  // empty: using it throws
  // Opens `path` on `runtime`; throws tl::Error.
  Package(const Runtime& runtime, const std::string& path) { *this = try_open(runtime, path).value(); }

  // With open options (the device to run on...), as tl_package_open_ex; throws tl::Error.
  Package(const Runtime& runtime, const std::string& path, const tl_package_open_options_t& options) {
    *this = try_open(runtime, path, options).value();
  }

  static Result<Package> try_open(const Runtime& runtime, const std::string& path) noexcept {
    return open_with(runtime, path, tl_package_open);
  }
  static Result<Package> try_open(const Runtime& runtime, const std::string& path,
                                  const tl_package_open_options_t& options) noexcept {
    return open_with(runtime, path, [&options](tl_runtime_t* rt, const char* p, tl_package_t** out) {
      return tl_package_open_ex(rt, p, &options, out);
    });
  }
  // A single bundle .so (no manifest, no hash check), as tl_package_open_bundle.
  static Result<Package> try_open_bundle(const Runtime& runtime, const std::string& path) noexcept {
    return open_with(runtime, path, tl_package_open_bundle);
  }

  // The kernel `name`; throws tl::Error (TL_ERROR_NOT_FOUND) when the package has none.
  Kernel kernel(const std::string& name) const { return try_kernel(name).value(); }
  Result<Kernel> try_kernel(const std::string& name) const noexcept {
    if (!state_) return detail::invalid("tl::Package is empty (moved from)");
    tl_kernel_t* k = nullptr;
    const tl_status_t st = tl_package_kernel(state_->package, name.c_str(), &k);
    if (st != TL_OK) return detail::status_of(st, state_->runtime.get(), "tl_package_kernel failed");
    return Kernel(state_, k);
  }
  std::vector<std::string> kernel_names() const {
    std::vector<std::string> out;
    tl_package_t* p = checked();
    for (uint32_t i = 0, n = tl_package_kernel_count(p); i < n; ++i) out.emplace_back(tl_package_kernel_name(p, i));
    return out;
  }
  std::string target() const { return tl_package_target(checked()); }
  // The chosen bundle's device, e.g. {kDLCPU, 0}, and its manifest name ("cpu").
  DLDevice device() const { return tl_package_device(checked()); }
  std::string device_name() const { return tl_package_device_name(checked()); }
  // Waits for the device (tl_package_synchronize): the work on `stream`, or with nullptr all of the
  // device's; at once on the CPU. Throws tl::Error (an earlier asynchronous launch's failure too).
  void synchronize(void* stream = nullptr) const { try_synchronize(stream).check(); }
  Status try_synchronize(void* stream = nullptr) const noexcept {
    if (!state_) return detail::invalid("tl::Package is empty (moved from)");
    return detail::status_of(tl_package_synchronize(state_->package, stream), state_->runtime.get(),
                             "tl_package_synchronize failed");
  }
  tl_package_t* get() const noexcept { return state_ ? state_->package : nullptr; }
  explicit operator bool() const noexcept { return state_ != nullptr; }

 private:
  explicit Package(std::shared_ptr<detail::PackageState> s) noexcept : state_(std::move(s)) {}
  tl_package_t* checked() const {
    if (!state_) throw Error(TL_ERROR_INVALID_ARGUMENT, "tl::Package is empty (moved from)");
    return state_->package;
  }
  // open: tl_status_t(tl_runtime_t*, const char*, tl_package_t**), noexcept
  template <class Open>
  static Result<Package> open_with(const Runtime& runtime, const std::string& path, Open open) noexcept {
    try {
      if (!runtime.rt_) return detail::invalid("tl::Runtime is empty (moved from)");
      tl_package_t* p = nullptr;
      const tl_status_t st = open(runtime.rt_.get(), path.c_str(), &p);
      if (st != TL_OK) return detail::status_of(st, runtime.rt_.get(), "opening the package failed");
      std::shared_ptr<detail::PackageState> s;
      try {
        s = std::make_shared<detail::PackageState>(runtime.rt_, p);
      } catch (...) {
        tl_package_release(p);
        throw;
      }
      return Package(std::move(s));
    } catch (const std::bad_alloc&) {
      return Status(TL_ERROR_OUT_OF_MEMORY, "out of memory");
    }
  }

  std::shared_ptr<detail::PackageState> state_;
};

inline Package Runtime::open(const std::string& path) const { return Package(*this, path); }
inline Result<Package> Runtime::try_open(const std::string& path) const noexcept {
  return Package::try_open(*this, path);
}
inline Package Runtime::open(const std::string& path, const tl_package_open_options_t& options) const {
  return Package(*this, path, options);
}
inline Result<Package> Runtime::try_open(const std::string& path,
                                         const tl_package_open_options_t& options) const noexcept {
  return Package::try_open(*this, path, options);
}

}  // namespace tl
#endif  // C++17
#endif  // TL_RUNTIME_HPP
