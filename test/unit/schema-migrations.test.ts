import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { MIGRATIONS, STORE_SCHEMA_VERSION } from '../../src/store/log/schema';

/**
 * A shipped migration never changes: a log that already ran it will not run it again, so a change
 * (v5's SQL is built from the usage sums: a new long-context threshold would change it) would leave
 * existing logs without it and every query of the new columns failing. Change the schema with a new
 * migration instead, and add its hash here.
 */
const SHIPPED: Record<number, string> = {
  2: '37af175b3df1e2fc',
  3: '89abca7a6ff932cc',
  4: '2403a84f7b8427d5',
  5: '5baa704d35ecb380',
  6: '5ffd43429f774b6d',
  7: 'f83cd9e0a46670ef',
  8: '36e7be4d0196e506',
};

describe('event log migrations', () => {
  it('every shipped migration is exactly as it shipped, and every version has one', () => {
    assert.equal(MIGRATIONS.length, STORE_SCHEMA_VERSION - 1);
    for (const [v, hash] of Object.entries(SHIPPED)) {
      const sql = MIGRATIONS[Number(v) - 2]!;
      assert.equal(createHash('sha256').update(sql).digest('hex').slice(0, 16), hash, `migration ${v} changed after it shipped: write migration ${STORE_SCHEMA_VERSION + 1} instead`);
    }
  });
});
