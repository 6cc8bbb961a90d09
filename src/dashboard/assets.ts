import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STYLES } from './styles';

/**
 * The two static files. The client module is built by esbuild next to this file (npm run build:
 * `client/dashboard.ts` → `dist/src/dashboard/client.js`); read once, served from memory.
 */
let client: string | undefined;
export function clientScript(): string {
  if (client === undefined) {
    try {
      client = readFileSync(join(__dirname, 'client.js'), 'utf8');
    } catch {
      client = '/* the dashboard client was not built: run npm run build */';
    }
  }
  return client;
}

export const stylesheet = (): string => STYLES;
