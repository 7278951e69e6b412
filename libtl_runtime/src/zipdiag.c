/* zipdiag.c - what a file that is not a complete ZIP archive looks like, for tl_package_open's
 * message (libarchive only says "Unrecognized archive format"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "internal.h"

#define TL_ZIP_MAX_WALK 65536

static uint32_t le16(const unsigned char* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const unsigned char* p) { return le16(p) | le16(p + 2) << 16; }

/* What a file libarchive refused looks like, for the message: not a ZIP at all (by its first
 * bytes), a ZIP cut short (walking the local headers from the start: the first entry that runs
 * past the end, or where the central directory begins), or a damaged end record. Writes "" when
 * there is nothing to add to libarchive's own message. */
void tl__describe_zip(const char* path, long long size, char* out, size_t cap) {
  out[0] = '\0';
  FILE* f = fopen(path, "rb");
  if (f == NULL) return;
  unsigned char h[30];
  size_t n = fread(h, 1, 4, f);
  if (n < 4 || (memcmp(h, "PK\3\4", 4) != 0 && memcmp(h, "PK\5\6", 4) != 0)) {
    if (n >= 4 && memcmp(h, "\177ELF", 4) == 0)
      snprintf(out, cap, "the file (%lld bytes) is an ELF file, not a ZIP archive (a bundle .so? open it with "
               "tl_package_open_bundle)", size);
    else if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
      snprintf(out, cap, "the file (%lld bytes) is gzip data, not a ZIP archive", size);
    else if (n < 4)
      snprintf(out, cap, "the file has only %lld bytes, too short for a ZIP archive", size);
    else
      snprintf(out, cap, "the file (%lld bytes) is not a ZIP archive: it starts with bytes %02x %02x %02x %02x, "
               "not a ZIP local file header (50 4b 03 04, \"PK\\3\\4\")", size, h[0], h[1], h[2], h[3]);
    fclose(f);
    return;
  }
  /* the end-of-central-directory record: 22 bytes and a comment of at most 65535 at the end */
  long long tail = size < 22 + 65535 ? size : 22 + 65535;
  unsigned char* buf = (unsigned char*)malloc((size_t)tail);
  long long eocd = -1;
  if (buf != NULL && fseeko(f, (off_t)(size - tail), SEEK_SET) == 0 && fread(buf, 1, (size_t)tail, f) == (size_t)tail)
    for (long long i = tail - 22; i >= 0 && eocd < 0; --i)
      if (memcmp(buf + i, "PK\5\6", 4) == 0) eocd = i;
  if (eocd >= 0) {
    uint32_t cd_size = le32(buf + eocd + 12), cd_off = le32(buf + eocd + 16);
    long long at = size - tail + eocd;
    if ((long long)cd_off + cd_size > at)
      snprintf(out, cap, "the file (%lld bytes) is damaged: its central directory (%u bytes at byte %u) does not fit "
               "before its end-of-central-directory record (at byte %lld)", size, cd_size, cd_off, at);
    free(buf);
    fclose(f);
    return;
  }
  free(buf);
  long long off = 0;
  for (int entries = 0; entries < TL_ZIP_MAX_WALK; ++entries) {
    if (fseeko(f, (off_t)off, SEEK_SET) != 0) break;
    n = fread(h, 1, sizeof h, f);
    if (n >= 4 && memcmp(h, "PK\1\2", 4) == 0) {
      snprintf(out, cap, "the file is truncated at %lld bytes: its central directory begins at byte %lld but the ZIP "
               "end-of-central-directory record is missing", size, off);
      break;
    }
    if (n >= 4 && n < sizeof h && memcmp(h, "PK\3\4", 4) == 0) {
      snprintf(out, cap, "the file is truncated at %lld bytes, inside the ZIP local header at byte %lld, and the ZIP "
               "end-of-central-directory record is missing", size, off);
      break;
    }
    if (n < sizeof h || memcmp(h, "PK\3\4", 4) != 0) {
      snprintf(out, cap, "the file (%lld bytes) is truncated or damaged: no ZIP record at byte %lld and no ZIP "
               "end-of-central-directory record", size, off);
      break;
    }
    uint32_t flags = le16(h + 6), csize = le32(h + 18), nlen = le16(h + 26), xlen = le16(h + 28);
    char name[128] = "";
    size_t got = fread(name, 1, nlen < sizeof name - 1 ? nlen : sizeof name - 1, f);
    name[got] = '\0';
    if ((flags & 8) != 0 || csize == 0xffffffffu) {   /* sizes after the data, or ZIP64: cannot walk on */
      snprintf(out, cap, "the file (%lld bytes) is truncated or damaged: the ZIP end-of-central-directory record is "
               "missing", size);
      break;
    }
    long long next = off + 30 + nlen + xlen + (long long)csize;
    if (next > size) {
      snprintf(out, cap, "the file is truncated at %lld bytes: entry '%s' (local header at byte %lld) needs %lld "
               "bytes, up to byte %lld, and the ZIP end-of-central-directory record is missing", size, name, off,
               next - off, next);
      break;
    }
    off = next;
  }
  fclose(f);
}

