/**
 * Secrets whose name is data beside them rather than their key (issue 29 item 9): a
 * `{"name": "DB_PASSWORD", "value": …}` entry (Kubernetes and ECS environment lists, HAR headers,
 * AWS tags as Key/Value), a `["Authorization", "token …"]` header pair, and a secret flag followed
 * by its value as the next argv item (`["gpg", "--passphrase", …]`). The forms detector finds them
 * in text (forms.ts); these find them in parsed JSON (sanitize.ts).
 */
import { judgeName, secretValue, type NameVerdict } from './names';

/** The keys of a name/value entry, compared lower-case. */
const NAME_KEYS = new Set(['name', 'key']);
const VALUE_KEY = 'value';
/** An argv flag, with the name it gives its value. */
const ARGV_FLAG = /^--?([A-Za-z][\w-]{1,40})$/;
/** Flags that are switches far more often than they take a secret (`gh repo create --private`, `--pin`). */
const SWITCH_WORDS = /(?:^|[-_])(?:private|pin|sig|signature)$/i;
/**
 * A two-item list `[name, value]` is also how a schema lists required fields (`["password",
 * "username"]`) or code pairs a name with a label (`t("password", "Password")`): a value spelled
 * like a field name (letters only, as words) is taken for one.
 */
const FIELD_NAME = /^[A-Za-z]+(?:[_-][A-Za-z]+)*$/;

/** The verdict on a flag's name (`--passphrase` → secret), plain for switches and `--no-…`. */
export function judgeFlag(name: string): NameVerdict {
  if (/^no-/i.test(name) || SWITCH_WORDS.test(name)) return 'plain';
  return judgeName(name);
}

/** True when the second item of a `[name, value]` pair may be the secret its name says. */
export function pairValue(verdict: NameVerdict, value: string): boolean {
  return secretValue(verdict, value) && !FIELD_NAME.test(value);
}

/** The key of `node` that holds a secret because a sibling names it (`{"name": "API_TOKEN", "value": …}`), if any. */
export function namedValueKey(node: Record<string, unknown>): string | undefined {
  let name: unknown;
  let valueKey: string | undefined;
  for (const k of Object.keys(node)) {
    // every key of every object passes here: only one as long as `key`, `name` or `value` is lowered
    if (k.length < 3 || k.length > 5) continue;
    const lower = k.toLowerCase();
    if (NAME_KEYS.has(lower)) name = node[k];
    else if (lower === VALUE_KEY) valueKey = k;
  }
  if (valueKey === undefined || typeof name !== 'string') return undefined;
  const v = node[valueKey];
  const verdict = judgeName(name);
  if (typeof v === 'number') return verdict === 'secret' ? valueKey : undefined;
  return typeof v === 'string' && secretValue(verdict, v) ? valueKey : undefined;
}

/** The indexes of a list's items that are secrets by their place: a header pair's value, a secret flag's argument. */
export function secretItems(list: readonly unknown[]): number[] {
  const out: number[] = [];
  if (list.length === 2 && typeof list[0] === 'string' && typeof list[1] === 'string') {
    const verdict = judgeName(list[0]);
    if (verdict !== 'plain' && pairValue(verdict, list[1])) return [1];
  }
  for (let i = 0; i + 1 < list.length; i++) {
    const flag = list[i];
    const next = list[i + 1];
    if (typeof flag !== 'string' || typeof next !== 'string' || next === '' || next.startsWith('-')) continue;
    const m = ARGV_FLAG.exec(flag);
    if (!m) continue;
    const verdict = judgeFlag(m[1]!);
    if (verdict !== 'plain' && secretValue(verdict, next)) out.push(++i);
  }
  return out;
}
