/* fixture_bundle.h - the bundle table and tl_bundle_query of the hand-written test bundles
 * (fixture_bundle.c, scalar_bundle.c). Include it after the file's `kernels[]` table.
 * Overridable with -D: FIXTURE_ABI (the ABI version the bundle claims), FIXTURE_TARGET (its
 * variant name), FIXTURE_FEATURES (the CPU features it requires), FIXTURE_OLD_DESC (the file's
 * kernels[] use the descriptor layout before the shape contract fields were appended).
 */
#ifndef FIXTURE_ABI
#define FIXTURE_ABI TL_BUNDLE_ABI_VERSION
#endif
#ifndef FIXTURE_FEATURES
#define FIXTURE_FEATURES "sse2"
#endif
#ifndef FIXTURE_TARGET
#define FIXTURE_TARGET "x86_64-fixture"
#endif

#ifdef FIXTURE_OLD_DESC
#undef tl_kernel_desc_t
#endif

static const tl_bundle_t bundle = {
    FIXTURE_ABI,
    sizeof(tl_bundle_t),
    sizeof kernels[0], /* sizeof(tl_kernel_desc_t), or the older layout's with FIXTURE_OLD_DESC */
    sizeof(tl_param_t),
    sizeof(tl_tensor_t),
    sizeof kernels / sizeof kernels[0],
    (const tl_kernel_desc_t*)(const void*)kernels,
    FIXTURE_TARGET,
    FIXTURE_FEATURES,
};

__attribute__((visibility("default")))
const tl_bundle_t* tl_bundle_query(uint32_t max_abi_version, const tl_host_env_t* env) {
  if (env == 0 || max_abi_version < TL_BUNDLE_ABI_VERSION) return 0;
  return &bundle;
}
