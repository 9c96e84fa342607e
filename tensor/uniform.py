def uniform(name, shape):
    """stridelab's `from uniform` values (Go's tensor.Uniform): flat index i
    (row-major) of the input named name holds
    float32((i * 2654435761 + fnv1a32(name)) mod 2**32 / 2**32 * 2 - 1),
    computed in float64 and rounded once to float32."""
    seed = 2166136261  # FNV-1a, 32-bit, of the name's UTF-8 bytes
    for byte in name.encode("utf-8"):
        seed = ((seed ^ byte) * 16777619) & 0xFFFFFFFF
    n = 1
    for d in shape:
        n *= int(d)
    i = np.arange(n, dtype=np.uint64) & np.uint64(0xFFFFFFFF)
    h = (i * np.uint64(2654435761) + np.uint64(seed)) & np.uint64(0xFFFFFFFF)  # i * K < 2**64; adding seed may wrap, which keeps it mod 2**32
    return (h.astype(np.float64) / 2.0**32 * 2.0 - 1.0).astype(np.float32).reshape(tuple(int(d) for d in shape))
