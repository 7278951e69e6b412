/* select.c - bundle selection: a manifest bundle fits this host when this runtime drives its
 * device ("device", default "cpu"), that device loads its format ("format", default
 * "elf-shared-object"; both absent in format 1.0 packages), it is the device asked for, its arch
 * is the host's, the CPU has every feature it lists, and its device is present (probe). The fit
 * with the highest priority wins (the first of equals). */
#ifndef TL_NO_PACKAGE_READER
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "select.h"

void tl__selection_init(tl_selection_t* sel, int32_t want_type, int32_t want_id) {
  memset(sel, 0, sizeof *sel);
  sel->want_type = want_type;
  sel->want_id = want_id;
}

/* Appends sep (when out is not empty) and the formatted text, truncating at cap. */
__attribute__((format(printf, 4, 5))) static void append(char* out, size_t cap, const char* sep, const char* fmt, ...) {
  size_t len = strlen(out);
  if (len > 0 && len + 1 < cap) len += (size_t)snprintf(out + len, cap - len, "%s", sep);
  if (len + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out + len, cap - len, fmt, ap);
  va_end(ap);
}

tl_status_t tl__selection_consider(tl_runtime_t* rt, const char* path, size_t i, json_t* b, tl_selection_t* sel) {
  json_t* jvar = json_object_get(b, "variant");
  json_t* jarch = json_object_get(b, "arch");
  json_t* jfeat = json_object_get(b, "features");
  json_t* jprio = json_object_get(b, "priority");
  json_t* jdev = json_object_get(b, "device");
  json_t* jfmt = json_object_get(b, "format");
  json_t* jsm = json_object_get(b, "sm");
  if (!json_is_string(jvar) || !json_is_string(jarch) || (jfeat && !json_is_array(jfeat)) ||
      (jprio && !json_is_integer(jprio)))
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                         "%s: manifest bundle %zu needs string 'variant' and 'arch', array 'features', integer 'priority'",
                         path, i);
  if ((jdev && !json_is_string(jdev)) || (jfmt && !json_is_string(jfmt)))
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: manifest bundle %zu: 'device' and 'format' must be strings",
                         path, i);
  if (jsm && !json_is_string(jsm))
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: manifest bundle %zu: 'sm' must be a string", path, i);
  const char* variant = json_string_value(jvar);
  const char* device = jdev ? json_string_value(jdev) : TL_DEFAULT_DEVICE;
  const char* format = jfmt ? json_string_value(jfmt) : TL_FORMAT_ELF;
  append(sel->available, sizeof sel->available, ", ", "%s", variant);
  const tl_device_t* dev = tl__device_by_name(device);
  if (dev == NULL) {
    append(sel->skipped, sizeof sel->skipped, "; ", "bundle '%s' needs device '%s' which this runtime has no driver for",
           variant, device);
    return TL_OK;
  }
  if (sel->want_type != 0 && dev->dl_device_type != sel->want_type) {
    char buf[32];
    append(sel->skipped, sizeof sel->skipped, "; ", "bundle '%s' runs on device '%s', not the requested %s", variant,
           device, tl__dl_device_name(sel->want_type, buf, sizeof buf));
    return TL_OK;
  }
  if (!tl__device_loads_format(dev, format)) {
    char formats[128];
    tl__device_formats(dev, formats, sizeof formats);
    append(sel->skipped, sizeof sel->skipped, "; ", "bundle '%s' is format '%s' which device '%s' does not load (it loads: %s)",
           variant, format, device, formats);
    return TL_OK;
  }
  if (strcmp(json_string_value(jarch), tl__host_arch()) != 0) return TL_OK;
  for (size_t f = 0; jfeat && f < json_array_size(jfeat); ++f) {
    json_t* jf = json_array_get(jfeat, f);
    if (!json_is_string(jf) || !tl__has_feature(rt->cpu_features, json_string_value(jf))) return TL_OK;
  }
  long long prio = jprio ? json_integer_value(jprio) : 0;
  if (sel->found && prio <= sel->priority) return TL_OK;
  char why[256];
  if (!tl__device_available(dev, why, sizeof why)) {
    append(sel->skipped, sizeof sel->skipped, "; ", "bundle '%s' needs device '%s' which is not present on this host: %s",
           variant, device, why);
    return TL_OK;
  }
  if (dev->fits != NULL && !dev->fits(sel->want_id, jsm ? json_string_value(jsm) : NULL, why, sizeof why)) {
    append(sel->skipped, sizeof sel->skipped, "; ", "bundle '%s' does not run on %s device %d: %s", variant, device,
           (int)sel->want_id, why);
    return TL_OK;
  }
  sel->found = 1;
  sel->index = i;
  sel->variant = variant;
  sel->format = format;
  sel->device = dev;
  sel->priority = prio;
  return TL_OK;
}

tl_status_t tl__selection_refuse(tl_runtime_t* rt, const char* path, const tl_selection_t* sel) {
  return tl__set_error(rt, TL_ERROR_UNSUPPORTED,
                       "%s: no bundle for this machine (arch %s, CPU features %s); package has: %s%s%s", path,
                       tl__host_arch(), rt->cpu_features, sel->available, sel->skipped[0] ? "; " : "", sel->skipped);
}
#endif
