/** A deterministic generator for generated test inputs (no flaky seeds): xorshift32, values in [0, 1). */
export function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
