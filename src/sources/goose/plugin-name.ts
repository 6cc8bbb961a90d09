/**
 * The plugin name goose reports for Beacon's hooks (the installer's `.agents/plugins/<name>`). A
 * module of its own: setup's goose-paths.ts needs the name alone, not the span reader beside it
 * (hook-health.ts loads the event ids' node:crypto, ~10–18 ms before doctor's launcher starts).
 */
export const BEACON_GOOSE_PLUGIN = 'beacon-endpoint';
