/* tl/_fastcall.c - the CPython fast path of a kernel call (tl._runtime.Kernel.__call__).
 *
 * Kernel (tl/_runtime.py) subclasses KernelBase below, so `k(x, y, out)` runs tp_call here: the
 * NumPy arrays are read in place (no ctypes objects), DLTensors are built on the C stack and
 * tl_kernel_launch is called with the GIL released. Only the fully valid common case is taken
 * here; anything else (an argument that is not an exact ndarray of a known dtype, a read-only
 * array the kernel writes, a stride that is not a multiple of the itemsize, a scalar that is not
 * an int/float or an int outside its dtype's range, a closed package, a wrong argument count or
 * keyword...) goes to the Python implementation `_call_slow`, which raises the argument-naming
 * errors. Errors of the runtime itself (rank, aliasing, alignment...) are raised through
 * `runtime._error(status)`, exactly as the ctypes path does.
 *
 * No NumPy C API: ndarray fields are read through the struct NumPy guarantees to its inline
 * accessors (PyArrayObject_fields: data, nd, dimensions, strides, base, descr, flags), and dtypes
 * are matched by descr identity against the table `configure` receives. tl/_runtime.py checks
 * the field reads against NumPy's own values at import and does not use this module if they
 * disagree. The runtime library is not linked: `configure` receives the addresses of
 * tl_kernel_launch (from the ctypes CDLL), so $TL_RUNTIME_LIB keeps choosing the library.
 *
 * Life: the in-flight launch counter of a Package (enter/leave/close), mutated only with the GIL
 * held, so that Package.close() can release the package when the last running call returns.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include "tl/runtime.h"

#define MAX_PARAMS 32
#define MAX_DTYPES 32
#define NPY_WRITEABLE 0x0400

typedef tl_status_t (*launch_fn_t)(tl_kernel_t*, const tl_value_t*, uint32_t, const tl_launch_options_t*);

/* numpy/ndarraytypes.h PyArrayObject_fields, the leading members */
typedef struct {
  PyObject_HEAD
  char* data;
  int nd;
  Py_ssize_t* dimensions;
  Py_ssize_t* strides;
  PyObject* base;
  PyObject* descr;
  int flags;
} np_fields_t;

typedef struct {
  PyObject* descr;   /* a NumPy dtype object (borrowed from the table tuple kept in g_dtypes_keep) */
  uint8_t code, bits;
  int32_t itemsize;
  int is_uint16;
} dtype_entry_t;

static PyTypeObject* g_ndarray = NULL;
static launch_fn_t g_launch = NULL;
static dtype_entry_t g_dtypes[MAX_DTYPES];
static int g_ndtypes = 0;
static PyObject* g_dtypes_keep = NULL;

/* ------------------------------------------------------------------------------------------ Life */
typedef struct {
  PyObject_HEAD
  Py_ssize_t inflight;
  int closing;
} LifeObject;

static PyObject* life_enter(LifeObject* self, PyObject* Py_UNUSED(arg)) {
  if (self->closing) Py_RETURN_FALSE;
  self->inflight++;
  Py_RETURN_TRUE;
}

static PyObject* life_leave(LifeObject* self, PyObject* Py_UNUSED(arg)) {
  self->inflight--;
  if (self->closing && self->inflight == 0) Py_RETURN_TRUE;
  Py_RETURN_FALSE;
}

/* 0: already closing; 1: now closing, released by the last running call; 2: release now */
static PyObject* life_close(LifeObject* self, PyObject* Py_UNUSED(arg)) {
  if (self->closing) return PyLong_FromLong(0);
  self->closing = 1;
  return PyLong_FromLong(self->inflight == 0 ? 2 : 1);
}

static PyMethodDef life_methods[] = {
    {"enter", (PyCFunction)life_enter, METH_NOARGS, "enter() -> bool: counts a call in; False once closing."},
    {"leave", (PyCFunction)life_leave, METH_NOARGS, "leave() -> bool: counts a call out; True when the package "
                                                    "must now be released."},
    {"close", (PyCFunction)life_close, METH_NOARGS, "close() -> 0 (already closing), 1 (release deferred to the "
                                                    "last running call) or 2 (release now)."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef life_members[] = {
    {"inflight", T_PYSSIZET, offsetof(LifeObject, inflight), READONLY, "calls running now"},
    {"closing", T_INT, offsetof(LifeObject, closing), READONLY, "1 once close() was called"},
    {NULL, 0, 0, 0, NULL}};

static PyTypeObject LifeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tl._fastcall.Life",
    .tp_basicsize = sizeof(LifeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The in-flight call counter of a package (GIL-protected).",
    .tp_methods = life_methods,
    .tp_members = life_members,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------------------------ KernelBase */
typedef struct {
  uint8_t is_tensor, dtype, writes, rank;
} param_t;

typedef struct {
  PyObject_HEAD
  PyObject* dict;          /* instance __dict__ of the Python subclass */
  PyObject* weakrefs;
  PyObject* handle;        /* the ctypes c_void_p kernel handle, or None once the package is closed */
  void* kh;                /* its value (NULL when closed) */
  PyObject* package;       /* tl._runtime.Package */
  PyObject* runtime;       /* tl._runtime.Runtime (its _error makes the exception) */
  LifeObject* life;        /* the package's Life, or NULL: then every call takes the slow path */
  uint32_t nparams;
  param_t params[MAX_PARAMS];
} KernelObject;

static int kernel_traverse(KernelObject* self, visitproc visit, void* arg) {
  Py_VISIT(self->dict);
  Py_VISIT(self->handle);
  Py_VISIT(self->package);
  Py_VISIT(self->runtime);
  Py_VISIT((PyObject*)self->life);
  return 0;
}

static int kernel_clear(KernelObject* self) {
  Py_CLEAR(self->dict);
  Py_CLEAR(self->handle);
  Py_CLEAR(self->package);
  Py_CLEAR(self->runtime);
  Py_CLEAR(self->life);
  self->kh = NULL;
  return 0;
}

static void kernel_dealloc(KernelObject* self) {
  PyObject_GC_UnTrack(self);
  if (self->weakrefs != NULL) PyObject_ClearWeakRefs((PyObject*)self);
  kernel_clear(self);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static PyObject* kernel_get_handle(KernelObject* self, void* Py_UNUSED(c)) {
  if (self->handle == NULL) Py_RETURN_NONE;
  Py_INCREF(self->handle);
  return self->handle;
}

/* _handle = c_void_p(...) or None; the pointer value is cached for the fast path */
static int kernel_set_handle(KernelObject* self, PyObject* value, void* Py_UNUSED(c)) {
  void* kh = NULL;
  if (value != NULL && value != Py_None) {
    PyObject* v = PyObject_GetAttrString(value, "value");
    if (v == NULL) return -1;
    if (v != Py_None) kh = PyLong_AsVoidPtr(v);
    Py_DECREF(v);
    if (kh == NULL && PyErr_Occurred()) return -1;
  }
  PyObject* old = self->handle;
  if (value == NULL || value == Py_None) {
    self->handle = NULL;
  } else {
    Py_INCREF(value);
    self->handle = value;
  }
  Py_XDECREF(old);
  self->kh = kh;
  return 0;
}

static PyGetSetDef kernel_getset[] = {
    {"_handle", (getter)kernel_get_handle, (setter)kernel_set_handle, "the kernel handle (c_void_p) or None", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* _fast_init(package, runtime, life, plan): plan = ((is_tensor, dtype, writes, rank), ...) */
static PyObject* kernel_fast_init(KernelObject* self, PyObject* args) {
  PyObject *package, *runtime, *life, *plan;
  if (!PyArg_ParseTuple(args, "OOOO!", &package, &runtime, &life, &PyTuple_Type, &plan)) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(plan);
  Py_XSETREF(self->package, Py_NewRef(package));
  Py_XSETREF(self->runtime, Py_NewRef(runtime));
  Py_CLEAR(self->life);
  if (n > MAX_PARAMS || !PyObject_TypeCheck(life, &LifeType)) Py_RETURN_NONE;   /* slow path only */
  for (Py_ssize_t i = 0; i < n; ++i) {
    int is_tensor, dtype, writes, rank;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(plan, i), "pipi", &is_tensor, &dtype, &writes, &rank)) return NULL;
    self->params[i].is_tensor = (uint8_t)is_tensor;
    self->params[i].dtype = (uint8_t)dtype;
    self->params[i].writes = (uint8_t)writes;
    self->params[i].rank = (uint8_t)rank;
  }
  self->nparams = (uint32_t)n;
  self->life = (LifeObject*)Py_NewRef(life);
  Py_RETURN_NONE;
}


static PyObject* slow_call(KernelObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* meth = PyObject_GetAttrString((PyObject*)self, "_call_slow");
  if (meth == NULL) return NULL;
  PyObject* r = PyObject_Call(meth, args, kwargs);
  Py_DECREF(meth);
  return r;
}

static int read_grid(PyObject* grid, tl_launch_options_t* opts) {
  PyObject* items[TL_MAX_GRID];
  Py_ssize_t n;
  if (PyLong_CheckExact(grid)) {
    items[0] = grid;
    n = 1;
  } else if (PyTuple_CheckExact(grid)) {
    n = PyTuple_GET_SIZE(grid);
    if (n < 1 || n > TL_MAX_GRID) return -1;
    for (Py_ssize_t i = 0; i < n; ++i) items[i] = PyTuple_GET_ITEM(grid, i);
  } else {
    return -1;
  }
  opts->struct_size = (uint32_t)sizeof *opts;
  opts->has_grid = 1;
  for (int d = 0; d < TL_MAX_GRID; ++d) {
    if (d >= n) {
      opts->grid[d] = 1;
      continue;
    }
    if (!PyLong_CheckExact(items[d])) return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(items[d], &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return -1;
    }
    opts->grid[d] = v;
  }
  return 0;
}

/* The (rows, cols) view of an array, as tl.ops._to2d makes it without a copy: rank 0 -> (1, 1),
 * rank 1 -> (1, n), rank > 2 -> the leading axes merged when their strides allow it. Returns 0,
 * or -1 when the leading axes cannot be merged without a copy. */
static int view_2d(const np_fields_t* f, Py_ssize_t shape[2], Py_ssize_t strides[2]) {
  int nd = f->nd;
  if (nd == 0) {
    shape[0] = shape[1] = 1;
    strides[0] = strides[1] = 0;
    return 0;
  }
  shape[1] = f->dimensions[nd - 1];
  strides[1] = f->strides[nd - 1];
  if (nd == 2) {
    shape[0] = f->dimensions[0];
    strides[0] = f->strides[0];
    return 0;
  }
  Py_ssize_t rows = 1, rstride = 0;
  int last = -1;   /* the innermost leading axis of extent != 1 seen so far */
  for (int d = nd - 2; d >= 0; --d) {
    Py_ssize_t n = f->dimensions[d];
    rows *= n;
    if (n == 1) continue;
    if (last >= 0 && f->strides[d] != f->strides[last] * f->dimensions[last]) return -1;
    if (last < 0) rstride = f->strides[d];
    last = d;
  }
  if (rows == 0) rstride = 0;
  shape[0] = rows;
  strides[0] = rstride;
  return 0;
}

/* The element stride of an array whose C-order traversal is one arithmetic sequence (contiguous
 * or uniformly strided, any rank; axes of extent 1 ignored), in *stride; -1 otherwise (e.g. a
 * broadcast or a transposed view). */
static int flat_stride(const np_fields_t* f, Py_ssize_t* stride) {
  Py_ssize_t s = 0, span = 0;   /* stride and extent of the innermost axis of extent > 1 so far */
  int seen = 0;
  for (int d = f->nd - 1; d >= 0; --d) {
    Py_ssize_t n = f->dimensions[d];
    if (n == 1) continue;
    if (!seen) {
      s = f->strides[d];
      span = n;
      seen = 1;
    } else {
      if (f->strides[d] != s * span) return -1;
      span *= n;
    }
  }
  *stride = seen ? s : 0;
  return 0;
}

/* tl.ops._flat_shape: n elements split over the most rows of 8, 4, 2, 1 that divide it. */
static void flat_shape(Py_ssize_t n, Py_ssize_t shape[2]) {
  static const Py_ssize_t rows[] = {8, 4, 2};
  for (int i = 0; i < 3; ++i)
    if (n % rows[i] == 0 && n >= 256 * rows[i]) {
      shape[0] = rows[i];
      shape[1] = n / rows[i];
      return;
    }
  shape[0] = 1;
  shape[1] = n;
}

/* One call. as2d == 0: tp_call (args in signature order; declines to _call_slow). as2d == 1:
 * _call2d (each tensor viewed as (rows, cols); returns False instead of declining). */
static PyObject* do_call(KernelObject* self, PyObject* const* items, Py_ssize_t nargs, PyObject* args, PyObject* kwargs,
                         int as2d) {
  LifeObject* life = self->life;
#define DECLINE() return as2d ? Py_NewRef(Py_False) : slow_call(self, args, kwargs)
  if (life == NULL || self->kh == NULL || life->closing || nargs != (Py_ssize_t)self->nparams) DECLINE();
  tl_launch_options_t opts;
  tl_launch_options_t* optp = NULL;
  if (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0) {
    PyObject* grid = PyDict_GET_SIZE(kwargs) == 1 ? PyDict_GetItemString(kwargs, "grid") : NULL;
    if (grid == NULL) DECLINE();
    if (grid != Py_None) {
      if (read_grid(grid, &opts) != 0) DECLINE();
      optp = &opts;
    }
  }
  /* _call2d: every tensor as the flat (rows, cols) of tl.ops._ew_views when all of them allow
   * it (one element count, each a single-stride C-order sequence), else as view_2d's. */
  int flat = as2d;
  Py_ssize_t flat_n = -1;
  for (uint32_t i = 0; flat && i < self->nparams; ++i) {
    if (!self->params[i].is_tensor) continue;
    PyObject* a = items[i];
    if (Py_TYPE(a) != g_ndarray) DECLINE();
    const np_fields_t* f = (const np_fields_t*)a;
    if (f->nd < 0 || f->nd > TL_MAX_RANK) DECLINE();
    Py_ssize_t n = 1, st;
    for (int d = 0; d < f->nd; ++d) n *= f->dimensions[d];
    if ((flat_n >= 0 && n != flat_n) || flat_stride(f, &st) != 0) flat = 0;
    flat_n = n;
  }
  DLTensor tensors[MAX_PARAMS];
  int64_t dims[MAX_PARAMS][2 * TL_MAX_RANK];
  tl_value_t values[MAX_PARAMS];
  for (uint32_t i = 0; i < self->nparams; ++i) {
    const param_t* p = &self->params[i];
    PyObject* a = items[i];
    if (p->is_tensor) {
      if (Py_TYPE(a) != g_ndarray) DECLINE();
      const np_fields_t* f = (const np_fields_t*)a;
      const dtype_entry_t* dt = NULL;
      for (int j = 0; j < g_ndtypes; ++j)
        if (g_dtypes[j].descr == f->descr) {
          dt = &g_dtypes[j];
          break;
        }
      if (dt == NULL || f->nd > TL_MAX_RANK || f->nd < 0) DECLINE();
      if (p->writes && !(f->flags & NPY_WRITEABLE)) DECLINE();
      Py_ssize_t v2shape[2], v2strides[2];
      const Py_ssize_t *shape = f->dimensions, *strides = f->strides;
      int nd = f->nd;
      if (flat) {
        Py_ssize_t st;
        if (p->rank != 2) DECLINE();
        flat_stride(f, &st);
        flat_shape(flat_n, v2shape);
        v2strides[1] = st;
        v2strides[0] = st * v2shape[1];
        shape = v2shape;
        strides = v2strides;
        nd = 2;
      } else if (as2d) {
        if (p->rank != 2 || view_2d(f, v2shape, v2strides) != 0) DECLINE();
        shape = v2shape;
        strides = v2strides;
        nd = 2;
      }
      DLTensor* t = &tensors[i];
      t->data = f->data;
      t->device.device_type = kDLCPU;
      t->device.device_id = 0;
      t->ndim = nd;
      t->dtype.code = dt->code;
      t->dtype.bits = dt->bits;
      t->dtype.lanes = 1;
      if (p->dtype == TL_DTYPE_BFLOAT16 && dt->is_uint16) t->dtype.code = kDLBfloat;
      t->shape = dims[i];
      t->strides = dims[i] + TL_MAX_RANK;
      t->byte_offset = 0;
      for (int d = 0; d < nd; ++d) {
        Py_ssize_t n = shape[d], st = strides[d];
        if (st % dt->itemsize != 0 && n > 1) DECLINE();
        Py_ssize_t q = st / dt->itemsize;   /* floor division, as the Python path's s // itemsize */
        if (q * dt->itemsize != st && st < 0) q--;
        dims[i][d] = n;
        dims[i][TL_MAX_RANK + d] = q;
      }
      values[i].tensor = t;
    } else {
      values[i].tensor = NULL;
      if (p->dtype == TL_DTYPE_FLOAT32 || p->dtype == TL_DTYPE_FLOAT16 || p->dtype == TL_DTYPE_BFLOAT16) {
        if (PyFloat_CheckExact(a)) {
          values[i].f64 = PyFloat_AS_DOUBLE(a);
        } else if (PyLong_CheckExact(a)) {
          values[i].f64 = PyLong_AsDouble(a);
          if (values[i].f64 == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            DECLINE();
          }
        } else {
          DECLINE();
        }
      } else if (p->dtype == TL_DTYPE_BOOL) {
        if (a == Py_True || a == Py_False) values[i].i64 = a == Py_True;
        else if (PyLong_CheckExact(a) || PyFloat_CheckExact(a)) values[i].i64 = PyObject_IsTrue(a);
        else DECLINE();
      } else {
        if (!PyLong_CheckExact(a)) DECLINE();
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(a, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
          PyErr_Clear();
          DECLINE();   /* outside int64: the Python path raises tl.ScalarRangeError */
        }
        if ((p->dtype == TL_DTYPE_INT32 && (v < INT32_MIN || v > INT32_MAX)) ||
            (p->dtype == TL_DTYPE_INT8 && (v < INT8_MIN || v > INT8_MAX)))
          DECLINE();   /* outside the declared dtype: likewise, with the same message */
        values[i].i64 = v;
      }
    }
  }
  /* Converting the arguments may run Python code (__index__, __array_interface__, ...), which
   * lets another thread take the GIL and close the package: check again, with no Python code
   * between this check and the count, or the launch could use a released kernel. */
  if (self->kh == NULL || life->closing) DECLINE();
#undef DECLINE
  /* the arrays stay alive: the caller's argument tuple/vector holds them for the whole call */
  void* kh = self->kh;
  life->inflight++;
  tl_status_t st;
  Py_BEGIN_ALLOW_THREADS
  st = g_launch((tl_kernel_t*)kh, values, self->nparams, optp);
  Py_END_ALLOW_THREADS
  life->inflight--;
  if (life->closing && life->inflight == 0) {
    PyObject* r = PyObject_CallMethod(self->package, "_release", NULL);
    if (r == NULL) return NULL;
    Py_DECREF(r);
  }
  if (st != TL_OK) {
    PyObject* exc = PyObject_CallMethod(self->runtime, "_error", "i", (int)st);
    if (exc == NULL) return NULL;
    PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
  }
  if (as2d) Py_RETURN_TRUE;
  Py_RETURN_NONE;
}

static PyObject* kernel_call(KernelObject* self, PyObject* args, PyObject* kwargs) {
  return do_call(self, &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args), args, kwargs, 0);
}

static PyObject* kernel_call2d(KernelObject* self, PyObject* const* items, Py_ssize_t nargs) {
  return do_call(self, items, nargs, NULL, NULL, 1);
}

static PyMethodDef kernel_methods[] = {
    {"_fast_init", (PyCFunction)kernel_fast_init, METH_VARARGS, "_fast_init(package, runtime, life, plan)"},
    {"_call2d", (PyCFunction)(void (*)(void))kernel_call2d, METH_FASTCALL,
     "_call2d(*args) -> bool: the call with every tensor viewed as (rows, cols) like tl.ops._to2d (no copy); "
     "False, with nothing run, when the C path does not take these arguments as-is (then use the general path)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tl._fastcall.KernelBase",
    .tp_basicsize = sizeof(KernelObject),
    .tp_dealloc = (destructor)kernel_dealloc,
    .tp_call = (ternaryfunc)kernel_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "C fast path of tl._runtime.Kernel.__call__ (see tl/_fastcall.c).",
    .tp_traverse = (traverseproc)kernel_traverse,
    .tp_clear = (inquiry)kernel_clear,
    .tp_weaklistoffset = offsetof(KernelObject, weakrefs),
    .tp_methods = kernel_methods,
    .tp_getset = kernel_getset,
    .tp_dictoffset = offsetof(KernelObject, dict),
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------------------------- module */
/* configure(ndarray, launch_addr, dtypes): dtypes = ((dtype, code, bits, itemsize, is_uint16), ...) */
static PyObject* fc_configure(PyObject* Py_UNUSED(m), PyObject* args) {
  PyObject *nd, *launch, *dtypes;
  if (!PyArg_ParseTuple(args, "O!OO!", &PyType_Type, &nd, &launch, &PyTuple_Type, &dtypes)) return NULL;
  void* fn = PyLong_AsVoidPtr(launch);
  if (fn == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "configure: launch address is 0");
    return NULL;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(dtypes);
  if (n > MAX_DTYPES) {
    PyErr_SetString(PyExc_ValueError, "configure: too many dtypes");
    return NULL;
  }
  dtype_entry_t table[MAX_DTYPES];
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* descr;
    int code, bits, itemsize, is_uint16;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(dtypes, i), "Oiiip", &descr, &code, &bits, &itemsize, &is_uint16))
      return NULL;
    if (itemsize <= 0) {
      PyErr_SetString(PyExc_ValueError, "configure: itemsize must be positive");
      return NULL;
    }
    table[i] = (dtype_entry_t){descr, (uint8_t)code, (uint8_t)bits, itemsize, is_uint16};
  }
  Py_INCREF(nd);
  Py_XSETREF(g_ndarray, (PyTypeObject*)nd);
  Py_INCREF(dtypes);
  Py_XSETREF(g_dtypes_keep, dtypes);
  memcpy(g_dtypes, table, sizeof table[0] * (size_t)n);
  g_ndtypes = (int)n;
  g_launch = (launch_fn_t)fn;
  Py_RETURN_NONE;
}

/* array_fields(a) -> (data, nd, shape, strides, descr, writeable) as this module reads them */
static PyObject* fc_array_fields(PyObject* Py_UNUSED(m), PyObject* a) {
  if (g_ndarray == NULL || Py_TYPE(a) != g_ndarray) {
    PyErr_SetString(PyExc_TypeError, "array_fields: expected an exact ndarray (after configure)");
    return NULL;
  }
  const np_fields_t* f = (const np_fields_t*)a;
  if (f->nd < 0 || f->nd > 64) {
    PyErr_SetString(PyExc_ValueError, "array_fields: implausible ndim");
    return NULL;
  }
  PyObject* shape = PyTuple_New(f->nd);
  PyObject* strides = PyTuple_New(f->nd);
  if (shape == NULL || strides == NULL) {
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return NULL;
  }
  for (int d = 0; d < f->nd; ++d) {
    PyTuple_SET_ITEM(shape, d, PyLong_FromSsize_t(f->dimensions[d]));
    PyTuple_SET_ITEM(strides, d, PyLong_FromSsize_t(f->strides[d]));
  }
  return Py_BuildValue("(NiNNOO)", PyLong_FromVoidPtr(f->data), f->nd, shape, strides, f->descr,
                       (f->flags & NPY_WRITEABLE) ? Py_True : Py_False);
}

static PyMethodDef fc_methods[] = {
    {"configure", fc_configure, METH_VARARGS, "configure(ndarray, launch_addr, dtypes)"},
    {"array_fields", fc_array_fields, METH_O, "array_fields(a) -> (data, nd, shape, strides, descr, writeable)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef fc_module = {PyModuleDef_HEAD_INIT, "tl._fastcall",
                                       "C fast path of tl kernel calls (see tl/_fastcall.c).", -1, fc_methods,
                                       NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fastcall(void) {
  if (PyType_Ready(&LifeType) < 0 || PyType_Ready(&KernelType) < 0) return NULL;
  PyObject* m = PyModule_Create(&fc_module);
  if (m == NULL) return NULL;
  if (PyModule_AddObjectRef(m, "Life", (PyObject*)&LifeType) < 0 ||
      PyModule_AddObjectRef(m, "KernelBase", (PyObject*)&KernelType) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
