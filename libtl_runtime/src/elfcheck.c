/* elfcheck.c - validates a bundle's ELF image before dlopen sees it.
 *
 * The dynamic loader trusts its input: a truncated image whose segments reach past the end of the
 * file is mapped anyway and faults (SIGBUS) when touched, and an image for another machine gets
 * an unhelpful message. So before dlopen the runtime checks the header (64-bit, this byte order,
 * ET_DYN, this machine) and that the program header table and every PT_LOAD/PT_DYNAMIC segment
 * lie inside the image. */
#include <elf.h>
#include <string.h>
#include "internal.h"

#if defined(__x86_64__)
#define TL_HOST_EM EM_X86_64
#elif defined(__aarch64__)
#define TL_HOST_EM EM_AARCH64
#elif defined(__riscv)
#define TL_HOST_EM EM_RISCV
#else
#define TL_HOST_EM EM_NONE
#endif

static const char* machine_name(unsigned m) {
  switch (m) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_RISCV: return "riscv";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390";
    default: return "unknown";
  }
}

static int inside(uint64_t off, uint64_t len, size_t size) { return off <= size && len <= size - off; }

tl_status_t tl__check_elf(const tl_runtime_t* rt, const char* what, const char* variant, const unsigned char* data,
                          size_t size) {
  Elf64_Ehdr eh;
  if (size < sizeof eh || memcmp(data, ELFMAG, SELFMAG) != 0)
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: bundle '%s' is not an ELF shared object (%zu bytes)", what,
                         variant, size);
  memcpy(&eh, data, sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64)
    return tl__set_error(rt, TL_ERROR_UNSUPPORTED, "%s: bundle '%s' is a 32-bit ELF; this runtime loads 64-bit bundles",
                         what, variant);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const unsigned char host_data = ELFDATA2LSB;
#else
  const unsigned char host_data = ELFDATA2MSB;
#endif
  if (eh.e_ident[EI_DATA] != host_data)
    return tl__set_error(rt, TL_ERROR_UNSUPPORTED, "%s: bundle '%s' has the wrong byte order for this machine", what,
                         variant);
  if (eh.e_machine != TL_HOST_EM)
    return tl__set_error(rt, TL_ERROR_UNSUPPORTED,
                         "%s: bundle '%s' is for machine %s (ELF e_machine %u), this machine is %s (e_machine %u)", what,
                         variant, machine_name(eh.e_machine), eh.e_machine, machine_name(TL_HOST_EM), TL_HOST_EM);
  if (eh.e_type != ET_DYN)
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: bundle '%s' is not a shared object (ELF type %u)", what,
                         variant, eh.e_type);
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
      !inside(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), size))
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                         "%s: bundle '%s' is truncated or corrupt: program headers (%u at offset %llu) outside its %zu bytes",
                         what, variant, eh.e_phnum, (unsigned long long)eh.e_phoff, size);
  int loads = 0;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    memcpy(&ph, data + eh.e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_LOAD && ph.p_type != PT_DYNAMIC) continue;
    loads += ph.p_type == PT_LOAD;
    if (!inside(ph.p_offset, ph.p_filesz, size) || ph.p_filesz > ph.p_memsz)
      return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                           "%s: bundle '%s' is truncated or corrupt: segment %u (offset %llu, %llu bytes) outside its %zu bytes",
                           what, variant, i, (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz, size);
  }
  if (loads == 0)
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: bundle '%s' has no loadable segment", what, variant);
  return TL_OK;
}
