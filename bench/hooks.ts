/** beacon-hooks wall time per invocation: filled in with the hook adapter. */
export async function benchHooks(): Promise<Record<string, number>> {
  return {};
}
