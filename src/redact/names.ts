/**
 * Redaction by structure: does a key, variable or flag name say its value is a secret?
 * Names are split into words (separators `_ - . space`, camelCase) and judged by their last word,
 * so `db_password`, `apiKey`, `X-Api-Key`, `aws_secret_access_key` and `GITHUB_TOKEN` are secret and
 * `token_count`, `max_tokens`, `password_file`, `key` and `public_key` are not.
 */
/**
 * `secret-unless-path` is `pwd`: a password in a connection string, the working directory in a shell.
 * `secret-unless-count` is a plural (`tokens`, `passwords`): a list of secrets, or a count of them.
 */
export type NameVerdict = 'plain' | 'secret' | 'secret-unless-path' | 'secret-unless-count';

/** Last words that make a name secret on their own. */
const SECRET_WORDS = new Set([
  'password', 'passwd', 'passphrase', 'pass', 'secret', 'secrets', 'token', 'credential', 'credentials', 'creds',
  'apikey', 'auth', 'authorization', 'privatekey', 'accesskey', 'secretkey', 'clientsecret', 'authtoken', 'accesstoken',
  'sessiontoken', 'apitoken', 'refreshtoken', 'cookie', 'sharedaccesssignature', 'accountkey', 'sharedaccesskey',
  // request signatures (S3's X-Amz-Signature, Azure SAS `sig`), one-time codes and PINs (issue 22 item 9)
  'sig', 'otp', 'totp', 'passcode', 'pin',
  // `{"pw": …}`, `plink -pw …`, `admin_pw=…` (issue 29 item 9)
  'pw',
]);
/** `signature` is secret alone or after one of these (`X-Amz-Signature`), not in `function_signature`. */
const SIGNATURE_QUALIFIERS = new Set(['amz', 'aws', 'request', 'hmac', 'webhook', 'url', 'sas', 'hub', 'x', 'auth']);
/** Words that are secret only as a whole name (`{"private": "…"}`, a JWK's private part), not as a last word. */
const SECRET_ALONE = new Set(['private']);
/** `code` is secret after one of these (`otp_code`, `mfaCode`, `recovery-code`). */
const CODE_QUALIFIERS = new Set(['otp', 'totp', 'mfa', '2fa', 'verification', 'recovery', 'backup', 'auth', 'security', 'sms']);
/** Plurals holding secrets, alone or qualified (`tokens`, `access_tokens`); a number under them is a count. */
const SECRET_PLURALS = new Set(['tokens', 'passwords', 'apikeys', 'keys']);
/** `key` is secret after one of these (`api_key`, `access_key`, `private_key`, `accountKey`…). */
const KEY_QUALIFIERS = new Set([
  'api', 'access', 'secret', 'private', 'client', 'app', 'application', 'account', 'auth', 'signing', 'encryption',
  'master', 'license', 'ssh', 'shared', 'session', 'admin', 'consumer', 'subscription', 'storage', 'webhook', 'deploy',
  'gpg', 'pgp', 'hmac', 'jwt', 'service', 'server', 'root', 'live', 'write', 'read', 'sas',
]);
/** Environment-style names (`DB_PASS`) ending in one of these are secret. */
const ENV_SUFFIX = /(?:_(?:KEY|TOKEN|SECRET|PASS|PWD|PW)|PASSWORD|PASSWD|PASSPHRASE)$/;
/** One lower-case word ending like this is a joined password name (`pgpassword`, `adminpasswd`). */
const JOINED_PASSWORD = /(?:password|passwd|passphrase)$/;
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

const cache = new Map<string, NameVerdict>();

export function judgeName(name: string): NameVerdict {
  let v = cache.get(name);
  if (v === undefined) {
    v = judge(name);
    if (cache.size < 10_000) cache.set(name, v);
  }
  return v;
}

function judge(name: string): NameVerdict {
  // two letters: `pw` is the one secret name that short (`id`, `ok`, `to` are not)
  if (name.length < 2 || name.length > 100) return 'plain';
  if (ENV_NAME.test(name) && ENV_SUFFIX.test(name)) return 'secret';
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const last = words[words.length - 1];
  if (last === undefined) return 'plain';
  if (SECRET_WORDS.has(last) || JOINED_PASSWORD.test(last)) return 'secret';
  const prev = words[words.length - 2];
  if (last === 'key' && prev !== undefined && KEY_QUALIFIERS.has(prev)) return 'secret';
  if (last === 'code' && prev !== undefined && CODE_QUALIFIERS.has(prev)) return 'secret';
  // a GCP service account's `private_key_id` names its key: redacted with the key (issue 29 item 9)
  if (last === 'id' && prev === 'key' && words[words.length - 3] === 'private') return 'secret';
  if (last === 'signature' && (prev === undefined || SIGNATURE_QUALIFIERS.has(prev))) return 'secret';
  if (words.length === 1 && SECRET_ALONE.has(last)) return 'secret';
  if (SECRET_PLURALS.has(last) && (last === 'passwords' || (last !== 'keys' && words.length === 1) || (prev !== undefined && KEY_QUALIFIERS.has(prev)))) return 'secret-unless-count';
  if (last === 'pwd') return words.length === 1 ? 'secret-unless-path' : 'secret';
  // joined spellings (`apikey`, `secretkey`, `authtoken`…)
  if (words.length > 1 && SECRET_WORDS.has(words.slice(-2).join(''))) return 'secret';
  return 'plain';
}

/** True when `value` may be redacted under a name with this verdict. */
export function secretValue(verdict: NameVerdict, value: string): boolean {
  if (verdict === 'plain') return false;
  if (verdict === 'secret-unless-path' && /^[/~.$]/.test(value)) return false;
  if (verdict === 'secret-unless-count' && /^\d+$/.test(value)) return false;
  return true;
}
