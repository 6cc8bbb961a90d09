/**
 * The Node.js options the collector daemon runs with, wherever it is started for the user: the
 * systemd unit and the launchd plist (their templates spell them out; a test holds them to this
 * list) and `beacon collector --detach`. Measured with `npm run bench -- footprint` and `-- collector`
 * (docs/ARCHITECTURE.md, "The idle footprint's floor is the stack's"):
 * - a 1 MB young generation: the main thread's otherwise grows to 16 MB per semi-space under load
 *   and stays resident (−4.5 MB idle, −10 MB after work);
 * - old-generation growth of 1.5× per major GC instead of V8's up-to-4× for small heaps: peak RSS at
 *   saturation 155–175 → 121–130 MB, for 0.84–1.04× the saturation throughput in two runs (`npm run bench --
 *   node-flags`, alternated rounds: more major GCs). Kept: memory is what an always-on daemon costs a
 *   laptop all day, while saturation (~14k spans/s here) is two orders above the heaviest agent's traffic.
 * Both are V8 options, which must be on the command line: `v8.setFlagsFromString` after start-up
 * does not resize the heap's spaces.
 */
export const COLLECTOR_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--heap-growing-percent=50'];
