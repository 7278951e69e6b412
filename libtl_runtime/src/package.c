/* package.c - opening .tlpkg archives (libarchive + jansson + SHA-256): the manifest's checks,
 * then the chosen bundle (select.c) loaded by its device (device.h) into a package. */
#ifndef TL_NO_PACKAGE_READER
#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>
#include <openssl/evp.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "select.h"

#ifndef TL_NO_PACKAGE_READER
#define TL_MAX_ENTRY_BYTES ((int64_t)1 << 30)
#define TL_MAX_ENTRIES 65536

static const char* const dtype_names[TL_DTYPE_COUNT] = {"bool",    "int8",     "int32",  "int64",
                                                        "float16", "bfloat16", "float32"};

/* ------------------------------------------------------------------------------------------ */
/* archive reading */

typedef struct {
  char* name;
  unsigned char* data;                 /* the bytes, for the entries the runtime reads (entry_kept); else NULL */
  size_t size;
  char sha256[65];                     /* lowercase hex, computed while reading ("" if the digest failed) */
} tl_entry_t;

/* The manifest and the bundles are read from memory after the archive is closed; every other
 * entry (generated sources, IR, headers: most of a package's bytes) is only hashed as it streams
 * past, so opening a package does not hold all of it in memory. */
static int entry_kept(const char* name) {
  return strcmp(name, "manifest.json") == 0 || strncmp(name, "bundles/", 8) == 0;
}

static void hex32(const unsigned char* md, char out[65]) {
  static const char hex[] = "0123456789abcdef";
  for (unsigned i = 0; i < 32; ++i) {
    out[2 * i] = hex[md[i] >> 4];
    out[2 * i + 1] = hex[md[i] & 15];
  }
  out[64] = '\0';
}

typedef struct {
  tl_entry_t* items;
  size_t count;
  size_t cap;
} tl_entries_t;

static void entries_free(const tl_runtime_t* rt, tl_entries_t* e) {
  for (size_t i = 0; i < e->count; ++i) {
    tl__free(rt, e->items[i].name);
    tl__free(rt, e->items[i].data);
  }
  tl__free(rt, e->items);
  memset(e, 0, sizeof *e);
}

static const tl_entry_t* entries_find(const tl_entries_t* e, const char* name) {
  for (size_t i = 0; i < e->count; ++i)
    if (strcmp(e->items[i].name, name) == 0) return &e->items[i];
  return NULL;
}

/* Relative, '/'-separated, no empty/"."/".." components, no backslash, no NUL. */
static int entry_name_ok(const char* name) {
  if (name == NULL || name[0] == '\0' || name[0] == '/' || strchr(name, '\\') != NULL) return 0;
  if (strlen(name) >= 2 && name[1] == ':') return 0; /* drive letter */
  const char* p = name;
  while (*p) {
    size_t len = strcspn(p, "/");
    if (len == 0 && p[len] == '/') return 0;                  /* "a//b" */
    if (len == 2 && p[0] == '.' && p[1] == '.') return 0;
    if (len == 1 && p[0] == '.') return 0;
    p += len;
    if (*p == '/') ++p;
  }
  return 1;
}

/* libarchive's message, with what the file looks like when it is not a complete ZIP */
static tl_status_t archive_failure(tl_runtime_t* rt, const char* path, struct archive* a, const char* fallback) {
  struct stat sb;
  char what[512] = "";
  long long size = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
  if (size >= 0) tl__describe_zip(path, size, what, sizeof what);
  const char* la = archive_error_string(a) ? archive_error_string(a) : fallback;
  if (what[0] != '\0')
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: not a valid .tlpkg (zip) archive: %s (libarchive: %s)", path,
                         what, la);
  return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: not a valid .tlpkg (zip) archive (%lld bytes): %s", path, size,
                       la);
}

static tl_status_t read_archive(tl_runtime_t* rt, const char* path, tl_entries_t* out) {
  struct archive* a = archive_read_new();
  if (a == NULL) return tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "out of memory opening %s", path);
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  if (md == NULL) {
    archive_read_free(a);
    return tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "out of memory opening %s", path);
  }
  tl_status_t st = TL_OK;
  archive_read_support_format_zip_seekable(a);
  if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
    st = archive_failure(rt, path, a, "unreadable");
    goto done;
  }
  for (;;) {
    struct archive_entry* ent = NULL;
    int r = archive_read_next_header(a, &ent);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
      st = archive_failure(rt, path, a, "bad header");
      goto done;
    }
    const char* name = archive_entry_pathname(ent);
    if (name == NULL) name = "";
    if (archive_entry_filetype(ent) == AE_IFDIR) {
      if (!entry_name_ok(name)) {
        st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: unsafe entry name '%s' (absolute or containing '..')", path, name);
        goto done;
      }
      continue;
    }
    if (!entry_name_ok(name)) {
      st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: unsafe entry name '%s' (absolute or containing '..')", path, name);
      goto done;
    }
    if (archive_entry_filetype(ent) != AE_IFREG) {
      st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: entry '%s' is not a regular file", path, name);
      goto done;
    }
    if (entries_find(out, name) != NULL) {
      st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: duplicate entry '%s'", path, name);
      goto done;
    }
    if (out->count >= TL_MAX_ENTRIES) {
      st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: too many entries (more than %d)", path, TL_MAX_ENTRIES);
      goto done;
    }
    int64_t declared = archive_entry_size_is_set(ent) ? archive_entry_size(ent) : -1;
    if (declared > TL_MAX_ENTRY_BYTES) {
      st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: entry '%s' is too large (%lld bytes, limit %lld)", path,
                         name, (long long)declared, (long long)TL_MAX_ENTRY_BYTES);
      goto done;
    }
    if (out->count == out->cap) {
      size_t cap = out->cap ? out->cap * 2 : 16;
      tl_entry_t* items = (tl_entry_t*)tl__realloc(rt, out->items, out->cap * sizeof *items, cap * sizeof *items);
      if (items == NULL) {
        st = tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        goto done;
      }
      out->items = items;
      out->cap = cap;
    }
    tl_entry_t* e = &out->items[out->count];
    memset(e, 0, sizeof *e);
    e->name = tl__strdup(rt, name);
    const int kept = entry_kept(name);
    /* the declared size is only a hint: a lying header must not make us reserve a gigabyte up front */
    size_t cap = declared > 0 ? (size_t)(declared < ((int64_t)1 << 24) ? declared : ((int64_t)1 << 24)) : 4096;
    if (!kept) cap = (size_t)1 << 16;   /* a scratch buffer the streamed entry passes through */
    e->data = e->name ? (unsigned char*)tl__alloc(rt, cap ? cap : 1, 16) : NULL;
    if (e->name == NULL || e->data == NULL) {
      tl__free(rt, e->name);
      tl__free(rt, e->data);
      st = tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "%s: out of memory reading '%s'", path, name);
      goto done;
    }
    out->count++;
    if (EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
      st = tl__set_error(rt, TL_ERROR_INTERNAL, "%s: cannot start a SHA-256 digest", path);
      goto done;
    }
    size_t fill = 0;                    /* bytes of e->data in use (the scratch buffer: this chunk) */
    for (;;) {
      if (!kept && fill == cap) fill = 0;
      if (kept && e->size == cap) {
        if ((int64_t)cap >= TL_MAX_ENTRY_BYTES) {
          st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: entry '%s' is too large (limit %lld bytes)", path, name,
                             (long long)TL_MAX_ENTRY_BYTES);
          goto done;
        }
        size_t ncap = cap * 2;
        if ((int64_t)ncap > TL_MAX_ENTRY_BYTES + 1) ncap = (size_t)TL_MAX_ENTRY_BYTES + 1;
        unsigned char* nd = (unsigned char*)tl__realloc(rt, e->data, e->size, ncap);
        if (nd == NULL) {
          st = tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "%s: out of memory reading '%s'", path, name);
          goto done;
        }
        e->data = nd;
        cap = ncap;
      }
      unsigned char* at = kept ? e->data + e->size : e->data + fill;
      la_ssize_t n = archive_read_data(a, at, cap - (kept ? e->size : fill));
      if (n == 0) break;
      if (n < 0) {
        if (n == ARCHIVE_WARN) break; /* e.g. CRC mismatch: the SHA-256 check reports it precisely */
        st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: entry '%s' is corrupt or truncated: %s", path, name,
                           archive_error_string(a) ? archive_error_string(a) : "read error");
        goto done;
      }
      if (!kept && e->size + (size_t)n > (size_t)TL_MAX_ENTRY_BYTES) {
        st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: entry '%s' is too large (limit %lld bytes)", path, name,
                           (long long)TL_MAX_ENTRY_BYTES);
        goto done;
      }
      EVP_DigestUpdate(md, at, (size_t)n);
      e->size += (size_t)n;
      fill += (size_t)n;
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    if (EVP_DigestFinal_ex(md, digest, &dlen) == 1 && dlen == 32) hex32(digest, e->sha256);
    if (!kept) {
      tl__free(rt, e->data);
      e->data = NULL;
    }
    if (declared >= 0 && (int64_t)e->size != declared) {
      st = tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: entry '%s' is truncated (%zu of %lld bytes)", path, name,
                         e->size, (long long)declared);
      goto done;
    }
  }
done:
  EVP_MD_CTX_free(md);
  archive_read_free(a);
  return st;
}

/* ------------------------------------------------------------------------------------------ */
/* manifest checks */

/* Reads a JSON array of small non-negative integers into v (missing entries 0). */
static int json_version(json_t* arr, int n, long long* v) {
  if (!json_is_array(arr) || json_array_size(arr) < 2 || json_array_size(arr) > (size_t)n) return 0;
  for (int i = 0; i < n; ++i) v[i] = 0;
  for (size_t i = 0; i < json_array_size(arr); ++i) {
    json_t* x = json_array_get(arr, i);
    if (!json_is_integer(x) || json_integer_value(x) < 0) return 0;
    v[i] = json_integer_value(x);
  }
  return 1;
}

static tl_status_t verify_payload(tl_runtime_t* rt, const char* pkg, const tl_entries_t* entries, json_t* item,
                                  const char* list, const tl_entry_t** out_entry) {
  json_t* jpath = json_object_get(item, "path");
  json_t* jsize = json_object_get(item, "size");
  json_t* jsha = json_object_get(item, "sha256");
  if (!json_is_string(jpath) || !json_is_integer(jsize) || !json_is_string(jsha))
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                         "%s: manifest '%s' entry needs string 'path', integer 'size' and string 'sha256'", pkg, list);
  const char* path = json_string_value(jpath);
  const tl_entry_t* e = entries_find(entries, path);
  if (e == NULL)
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: manifest lists '%s' but the archive has no such entry", pkg,
                         path);
  if ((json_int_t)e->size != json_integer_value(jsize))
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: entry '%s' has %zu bytes but the manifest says %lld", pkg, path,
                         e->size, (long long)json_integer_value(jsize));
  const char* hex = e->sha256;
  if (hex[0] == '\0' || strcasecmp(hex, json_string_value(jsha)) != 0)
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                         "%s: entry '%s' is corrupt: sha256 mismatch (manifest %.64s, actual %s)", pkg, path,
                         json_string_value(jsha), hex[0] ? hex : "(digest failed)");
  if (out_entry) *out_entry = e;
  return TL_OK;
}

/* The kernels of the manifest must be exactly the bundle's, with the same parameters. */
static tl_status_t check_kernels(tl_runtime_t* rt, const char* pkg, json_t* kernels, const tl_bundle_t* b) {
  if (!json_is_array(kernels))
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: manifest 'kernels' must be an array", pkg);
  if (json_array_size(kernels) != b->num_kernels)
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: manifest lists %zu kernels but bundle '%s' has %u", pkg,
                         json_array_size(kernels), b->target ? b->target : "?", b->num_kernels);
  for (size_t i = 0; i < json_array_size(kernels); ++i) {
    json_t* k = json_array_get(kernels, i);
    json_t* jname = json_object_get(k, "name");
    if (!json_is_string(jname))
      return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: manifest kernel %zu has no 'name'", pkg, i);
    const char* name = json_string_value(jname);
    const tl_kernel_desc_t* d = NULL;
    for (uint32_t j = 0; j < b->num_kernels; ++j)
      if (strcmp(tl__bundle_kernel(b, j)->name, name) == 0) d = tl__bundle_kernel(b, j);
    if (d == NULL)
      return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: manifest kernel '%s' is missing from bundle '%s'", pkg, name,
                           b->target ? b->target : "?");
    json_t* params = json_object_get(k, "params");
    if (params == NULL) continue;
    if (!json_is_array(params) || json_array_size(params) != d->num_params)
      return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                           "%s: kernel '%s': manifest has %zu params but the bundle has %u", pkg, name,
                           json_is_array(params) ? json_array_size(params) : (size_t)0, d->num_params);
    for (uint32_t p = 0; p < d->num_params; ++p) {
      json_t* jp = json_array_get(params, p);
      json_t* pn = json_object_get(jp, "name");
      json_t* pd = json_object_get(jp, "dtype");
      json_t* pr = json_object_get(jp, "rank");
      const tl_param_t* bp = &d->params[p];
      if ((pn && (!json_is_string(pn) || strcmp(json_string_value(pn), bp->name) != 0)) ||
          (pd && (!json_is_string(pd) || strcmp(json_string_value(pd), dtype_names[bp->dtype]) != 0)) ||
          (pr && (!json_is_integer(pr) || json_integer_value(pr) != (json_int_t)bp->rank)))
        return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                             "%s: kernel '%s' param %u: manifest and bundle disagree (bundle: %s %s rank %u)", pkg,
                             name, p, bp->name, dtype_names[bp->dtype], bp->rank);
    }
  }
  return TL_OK;
}

#endif /* TL_NO_PACKAGE_READER */

/* ------------------------------------------------------------------------------------------ */
/* bundle tables */

static tl_status_t check_bundle_table(tl_runtime_t* rt, const char* what, const tl_bundle_t* b, int host_entry) {
  if (b == NULL)
    return tl__set_error(rt, TL_ERROR_VERSION, "%s: tl_bundle_query refused ABI version %u (bundle built for another ABI)",
                         what, TL_BUNDLE_ABI_VERSION);
  if (b->abi_version != TL_BUNDLE_ABI_VERSION)
    return tl__set_error(rt, TL_ERROR_VERSION, "%s: bundle ABI version %u, this runtime needs %u", what,
                         b->abi_version, TL_BUNDLE_ABI_VERSION);
  /* every layout the fields were appended through: a bundle built against an older header opens */
  if ((b->struct_size != sizeof(tl_bundle_t) && b->struct_size != TL_BUNDLE_SIZE_V0) ||
      (b->kernel_desc_size != sizeof(tl_kernel_desc_t) && b->kernel_desc_size != TL_KERNEL_DESC_SIZE_V1 &&
       b->kernel_desc_size != TL_KERNEL_DESC_SIZE_V0) ||
      b->param_size != sizeof(tl_param_t) || b->tensor_size != sizeof(tl_tensor_t))
    return tl__set_error(rt, TL_ERROR_VERSION,
                         "%s: bundle struct sizes (bundle %u, kernel %u, param %u, tensor %u) differ from the runtime's "
                         "(%zu or %zu, %zu or %zu or %zu, %zu, %zu)",
                         what, b->struct_size, b->kernel_desc_size, b->param_size, b->tensor_size, sizeof(tl_bundle_t),
                         (size_t)TL_BUNDLE_SIZE_V0, sizeof(tl_kernel_desc_t), (size_t)TL_KERNEL_DESC_SIZE_V1,
                         (size_t)TL_KERNEL_DESC_SIZE_V0, sizeof(tl_param_t), sizeof(tl_tensor_t));
  if (b->num_kernels > 0 && b->kernels == NULL)
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: bundle has %u kernels but no kernel table", what, b->num_kernels);
  for (uint32_t i = 0; i < b->num_kernels; ++i) {
    const tl_kernel_desc_t* d = tl__bundle_kernel(b, i);
    if (d->name == NULL || (host_entry && d->entry == NULL) || (d->num_params > 0 && d->params == NULL))
      return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: bundle kernel %u is incomplete (name, entry or params NULL)",
                           what, i);
    for (uint32_t j = 0; j < i; ++j)
      if (strcmp(tl__bundle_kernel(b, j)->name, d->name) == 0)
        return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: bundle has two kernels named '%s'", what, d->name);
    uint32_t axes = 0;
    for (uint32_t p = 0; p < d->num_params; ++p) {
      const tl_param_t* prm = &d->params[p];
      if (prm->name == NULL || prm->kind > TL_PARAM_SCALAR || prm->dtype >= TL_DTYPE_COUNT ||
          prm->rank > TL_MAX_RANK || prm->access > TL_ACCESS_READWRITE ||
          (prm->kind == TL_PARAM_SCALAR && prm->rank != 0))
        return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: kernel '%s' param %u has an invalid descriptor", what,
                             d->name, p);
      if (prm->kind == TL_PARAM_TENSOR) axes += prm->rank;
    }
    if (b->kernel_desc_size < TL_KERNEL_DESC_SIZE_V1 || d->dims == NULL) continue;
    int bad = d->num_dim_names > TL_MAX_DIM_SYMBOLS || (d->num_dim_names > 0 && d->dim_names == NULL);
    for (uint32_t s = 0; !bad && s < d->num_dim_names; ++s) bad = d->dim_names[s] == NULL;
    for (uint32_t a = 0; !bad && a < axes; ++a) bad = d->dims[a] >= (int32_t)d->num_dim_names;
    if (bad)
      return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: kernel '%s' has an invalid shape contract (dims, dim_names)",
                           what, d->name);
  }
  return TL_OK;
}

/* The compares of the kernel's shape contract (its descriptor was checked by check_bundle_table):
 * every axis of a symbol against the first axis of that symbol, every fixed axis against its
 * extent. Sets k->checks (NULL when there is nothing to compare); 0, or -1 out of memory. */
static int plan_dim_checks(tl_runtime_t* rt, tl_kernel_t* k) {
  const tl_kernel_desc_t* d = k->desc;
  k->checks = NULL;
  k->num_checks = 0;
  if (d->dims == NULL) return 0;
  uint32_t axes = 0;
  for (uint32_t p = 0; p < d->num_params; ++p)
    if (d->params[p].kind == TL_PARAM_TENSOR) axes += d->params[p].rank;
  if (axes == 0) return 0;
  tl_dim_check_t* c = (tl_dim_check_t*)tl__calloc(rt, axes, sizeof *c);
  int32_t first[TL_MAX_DIM_SYMBOLS]; /* index into the axes of the symbol's first axis, or -1 */
  uint32_t at_tensor[TL_MAX_DIM_SYMBOLS], at_param[TL_MAX_DIM_SYMBOLS];
  uint8_t at_axis[TL_MAX_DIM_SYMBOLS];
  if (c == NULL) return -1;
  for (uint32_t s = 0; s < TL_MAX_DIM_SYMBOLS; ++s) first[s] = -1;
  uint32_t n = 0, a = 0, t = 0;
  for (uint32_t p = 0; p < d->num_params; ++p) {
    if (d->params[p].kind != TL_PARAM_TENSOR) continue;
    for (uint32_t ax = 0; ax < d->params[p].rank; ++ax, ++a) {
      int32_t e = d->dims[a];
      if (e == TL_DIM_NONE) continue;
      if (e >= 0 && first[e] < 0) {
        first[e] = (int32_t)a;
        at_tensor[e] = t;
        at_param[e] = p;
        at_axis[e] = (uint8_t)ax;
        continue;
      }
      tl_dim_check_t* x = &c[n++];
      x->tensor = t;
      x->param = p;
      x->axis = (uint8_t)ax;
      x->sym = e >= 0 ? e : -1;
      x->fixed = e >= 0 ? 0 : -2 - (int64_t)e;
      if (e >= 0) {
        x->ref_tensor = at_tensor[e];
        x->ref_param = at_param[e];
        x->ref_axis = at_axis[e];
      }
    }
    t++;
  }
  if (n == 0) {
    tl__free(rt, c);
    return 0;
  }
  k->checks = c;
  k->num_checks = n;
  return 0;
}

/* Takes ownership of payload (released through dev on failure). The caller has entered rt. */
tl_status_t tl__package_from_payload(tl_runtime_t* rt, const tl_device_t* dev, int32_t device_id, tl_payload_t* payload,
                                     const char* what, tl_package_t** out) {
  tl_package_t* pkg = (tl_package_t*)tl__shell_new(TL_SHELL_PACKAGE);
  if (pkg == NULL) {
    dev->release_payload(rt, payload);
    return tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
  }
  atomic_init(&pkg->life, TL_LIFE_USER);
  tl__life_hold(&rt->life);
  pkg->runtime = rt;
  pkg->device = dev;
  pkg->payload = *payload;
  pkg->accepted_mask = dev->accepted_mask;
  pkg->device_id = dev->check_device_id ? device_id : 0;
  pkg->check_device_id = dev->check_device_id;
  pkg->fast_device_type = dev->check_device_id ? -1 : dev->dl_device_type;
  const tl_bundle_t* b = payload->bundle;
  tl_status_t st = check_bundle_table(rt, what, b, dev->host_entry);
  if (st != TL_OK) {
    tl__package_free(pkg);
    return st;
  }
  char missing[64];
  if (!tl__features_subset(b->features, rt->cpu_features, missing, sizeof missing)) {
    /* the message reads the bundle's strings: set it before dlclose */
    st = tl__set_error(rt, TL_ERROR_UNSUPPORTED, "%s: bundle '%s' needs CPU feature '%s' which this CPU lacks (has: %s)",
                       what, b->target ? b->target : "?", missing, rt->cpu_features);
    tl__package_free(pkg);
    return st;
  }
  pkg->bundle = b;
  pkg->target = tl__strdup(rt, b->target ? b->target : "");
  pkg->kernels = (tl_kernel_t**)tl__calloc(rt, b->num_kernels ? b->num_kernels : 1, sizeof(tl_kernel_t*));
  if (pkg->target == NULL || pkg->kernels == NULL) {
    tl__package_free(pkg);
    return tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
  }
  for (uint32_t i = 0; i < b->num_kernels; ++i) {
    tl_kernel_t* k = (tl_kernel_t*)tl__shell_new(TL_SHELL_KERNEL);
    if (k == NULL) {
      tl__package_free(pkg);
      return tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    }
    pkg->kernels[i] = k;
    pkg->num_kernels = i + 1;
    memset(&k->desc_copy, 0, sizeof k->desc_copy);
    memcpy(&k->desc_copy, tl__bundle_kernel(b, i), b->kernel_desc_size);
    k->desc = &k->desc_copy;
    k->package = pkg;
    k->index = i;
    if (plan_dim_checks(rt, k) != 0) {
      tl__package_free(pkg);
      return tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    }
    snprintf(k->name, sizeof k->name, "%s", k->desc->name);
    atomic_store_explicit(&k->shell.magic, TL_MAGIC_KERNEL, memory_order_release);
  }
  atomic_store_explicit(&pkg->shell.magic, TL_MAGIC_PACKAGE, memory_order_release);
  *out = pkg;
  tl__clear_error(rt);
  return TL_OK;
}

#ifndef TL_NO_PACKAGE_READER
/* ------------------------------------------------------------------------------------------ */

static tl_status_t package_open(tl_runtime_t* runtime, const char* path, const tl_package_open_options_t* opts,
                                tl_package_t** out_package);

static tl_status_t package_open(tl_runtime_t* runtime, const char* path, const tl_package_open_options_t* opts,
                                tl_package_t** out_package) {
  if (path == NULL) return tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT, "tl_package_open: path is NULL");
  struct stat sb;
  if (stat(path, &sb) != 0)
    return tl__set_error(runtime, TL_ERROR_NOT_FOUND, "%s: cannot open package: %s", path, strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT, "%s: is a directory, not a .tlpkg file", path);
  if (!S_ISREG(sb.st_mode))
    return tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT, "%s: not a regular file", path);
  if (sb.st_size == 0) return tl__set_error(runtime, TL_ERROR_BAD_PACKAGE, "%s: empty file, not a .tlpkg archive", path);

  tl_entries_t entries = {NULL, 0, 0};
  json_t* root = NULL;
  tl_status_t st = read_archive(runtime, path, &entries);
  if (st != TL_OK) goto done;

  const tl_entry_t* me = entries_find(&entries, "manifest.json");
  if (me == NULL) {
    st = tl__set_error(runtime, TL_ERROR_BAD_PACKAGE, "%s: no manifest.json in the archive", path);
    goto done;
  }
  json_error_t jerr;
  root = json_loadb((const char*)me->data, me->size, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL || !json_is_object(root)) {
    st = tl__set_error(runtime, TL_ERROR_BAD_PACKAGE, "%s: manifest.json is not valid JSON: %s (line %d)", path,
                       root ? "not an object" : jerr.text, root ? 0 : jerr.line);
    goto done;
  }
  json_t* fmt = json_object_get(root, "format");
  if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "tlpkg") != 0) {
    st = tl__set_error(runtime, TL_ERROR_BAD_PACKAGE, "%s: manifest 'format' must be \"tlpkg\"", path);
    goto done;
  }
  long long fv[2], rv[3];
  if (!json_version(json_object_get(root, "format_version"), 2, fv)) {
    st = tl__set_error(runtime, TL_ERROR_BAD_PACKAGE, "%s: manifest 'format_version' must be [major, minor]", path);
    goto done;
  }
  if (fv[0] != TL_PACKAGE_FORMAT_MAJOR) {
    st = tl__set_error(runtime, TL_ERROR_VERSION,
                       "%s: package format version %lld.%lld is not supported by this runtime (format %d.%d, runtime %s)",
                       path, fv[0], fv[1], TL_PACKAGE_FORMAT_MAJOR, TL_PACKAGE_FORMAT_MINOR, tl_runtime_version());
    goto done;
  }
  json_t* jrv = json_object_get(root, "min_runtime_version");
  if (jrv != NULL) {
    if (!json_version(jrv, 3, rv)) {
      st = tl__set_error(runtime, TL_ERROR_BAD_PACKAGE, "%s: manifest 'min_runtime_version' must be [major, minor, patch]",
                         path);
      goto done;
    }
    long long have[3] = {TL_RUNTIME_VERSION_MAJOR, TL_RUNTIME_VERSION_MINOR, TL_RUNTIME_VERSION_PATCH};
    int cmp = 0;
    for (int i = 0; i < 3 && cmp == 0; ++i) cmp = (rv[i] > have[i]) - (rv[i] < have[i]);
    if (cmp > 0) {
      st = tl__set_error(runtime, TL_ERROR_VERSION, "%s: package needs runtime version >= %lld.%lld.%lld, this runtime is %s",
                         path, rv[0], rv[1], rv[2], tl_runtime_version());
      goto done;
    }
  }
  json_t* bundles = json_object_get(root, "bundles");
  json_t* files = json_object_get(root, "files");
  if (!json_is_array(bundles) || json_array_size(bundles) == 0) {
    st = tl__set_error(runtime, TL_ERROR_BAD_PACKAGE, "%s: manifest 'bundles' must be a non-empty array", path);
    goto done;
  }
  if (files != NULL && !json_is_array(files)) {
    st = tl__set_error(runtime, TL_ERROR_BAD_PACKAGE, "%s: manifest 'files' must be an array", path);
    goto done;
  }
  for (size_t i = 0; files && i < json_array_size(files); ++i) {
    st = verify_payload(runtime, path, &entries, json_array_get(files, i), "files", NULL);
    if (st != TL_OK) goto done;
  }
  tl_selection_t sel;
  tl__selection_init(&sel, opts->device_type, opts->device_id);
  for (size_t i = 0; i < json_array_size(bundles); ++i) {
    st = verify_payload(runtime, path, &entries, json_array_get(bundles, i), "bundles", NULL);
    if (st != TL_OK) goto done;
    st = tl__selection_consider(runtime, path, i, json_array_get(bundles, i), &sel);
    if (st != TL_OK) goto done;
  }
  if (!sel.found) {
    st = tl__selection_refuse(runtime, path, &sel);
    goto done;
  }
  const tl_entry_t* best =
      entries_find(&entries, json_string_value(json_object_get(json_array_get(bundles, sel.index), "path")));
  tl_payload_t payload;
  st = sel.device->load_payload(runtime, path, sel.variant, sel.format, opts->device_id, best->data, best->size,
                                &payload);
  if (st != TL_OK) goto done;
  tl_package_t* pkg = NULL;
  st = tl__package_from_payload(runtime, sel.device, opts->device_id, &payload, path, &pkg);
  if (st != TL_OK) goto done;
  st = check_kernels(runtime, path, json_object_get(root, "kernels"), pkg->bundle);
  if (st != TL_OK) {
    tl__package_free(pkg);
    goto done;
  }
  *out_package = pkg;
  tl__clear_error(runtime);
done:
  json_decref(root);
  entries_free(runtime, &entries);
  return st;
}
#else /* TL_NO_PACKAGE_READER: a runtime built without libarchive/jansson/libcrypto */
static tl_status_t package_open(tl_runtime_t* runtime, const char* path, const tl_package_open_options_t* opts,
                                tl_package_t** out_package) {
  (void)opts;
  (void)out_package;
  return tl__set_error(runtime, TL_ERROR_UNSUPPORTED,
                       "%s: this libtl_runtime was built without the package reader (PACKAGE_READER=0); "
                       "extract the bundle and use tl_package_open_bundle", path ? path : "(null)");
}
#endif

TL_API void tl_package_open_options_initialize(tl_package_open_options_t* options) {
  if (options == NULL) return;
  memset(options, 0, sizeof *options);
  options->struct_size = (uint32_t)sizeof *options;
  options->device_type = kDLCPU;
}

static tl_status_t open_checked(tl_runtime_t* runtime, const char* path, const tl_package_open_options_t* options,
                                tl_package_t** out_package, const char* fn) {
  tl_package_open_options_t opts;
  tl_package_open_options_initialize(&opts);
  if (out_package == NULL) return tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT, "%s: out_package is NULL", fn);
  if (options != NULL) {
    if (options->struct_size != sizeof opts)
      return tl__set_error(runtime, TL_ERROR_VERSION,
                           "%s: tl_package_open_options_t.struct_size is %u, but runtime %s takes %zu (call "
                           "tl_package_open_options_initialize)", fn, options->struct_size, tl_runtime_version(),
                           sizeof opts);
    opts = *options;
    if (opts.device_type != 0 && tl__device_by_type(opts.device_type) == NULL) {
      char buf[32];
      return tl__set_error(runtime, TL_ERROR_UNSUPPORTED, "%s: this runtime has no driver for DLPack device %s", fn,
                           tl__dl_device_name(opts.device_type, buf, sizeof buf));
    }
  }
  return package_open(runtime, path, &opts, out_package);
}

/* The entry of tl_package_open and tl_package_open_ex (fn names it in messages). */
static tl_status_t open_entry(tl_runtime_t* runtime, const char* path, const tl_package_open_options_t* options,
                              tl_package_t** out_package, const char* fn) {
  if (out_package != NULL) *out_package = NULL;
  tl_status_t st = tl__runtime_enter(runtime, fn);
  if (st != TL_OK) return st;
  st = open_checked(runtime, path, options, out_package, fn);
  tl__runtime_leave(runtime);
  return st;
}

TL_API tl_status_t tl_package_open(tl_runtime_t* runtime, const char* path, tl_package_t** out_package) {
  return open_entry(runtime, path, NULL, out_package, "tl_package_open");
}

TL_API tl_status_t tl_package_open_ex(tl_runtime_t* runtime, const char* path, const tl_package_open_options_t* options,
                                      tl_package_t** out_package) {
  return open_entry(runtime, path, options, out_package, "tl_package_open_ex");
}

static tl_status_t package_open_bundle(tl_runtime_t* runtime, const char* path, tl_package_t** out_package);

TL_API tl_status_t tl_package_open_bundle(tl_runtime_t* runtime, const char* path, tl_package_t** out_package) {
  if (out_package != NULL) *out_package = NULL;
  tl_status_t st = tl__runtime_enter(runtime, "tl_package_open_bundle");
  if (st != TL_OK) return st;
  st = out_package == NULL
           ? tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT, "tl_package_open_bundle: out_package is NULL")
           : package_open_bundle(runtime, path, out_package);
  tl__runtime_leave(runtime);
  return st;
}

static tl_status_t package_open_bundle(tl_runtime_t* runtime, const char* path, tl_package_t** out_package) {
  if (path == NULL) return tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT, "bundle path is NULL");
  struct stat sb;
  if (stat(path, &sb) != 0)
    return tl__set_error(runtime, TL_ERROR_NOT_FOUND, "%s: cannot open bundle: %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode))
    return tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT, "%s: not a regular file", path);
  tl_payload_t payload;
  tl_status_t st = tl__device_cpu.load_file(runtime, path, &payload);
  if (st != TL_OK) return st;
  return tl__package_from_payload(runtime, &tl__device_cpu, 0, &payload, path, out_package);
}

