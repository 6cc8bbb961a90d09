/**
 * The redaction corpus: secret shapes agents meet (each with the exact secret parts that must never
 * be stored) and near misses that must be stored verbatim. Values are realistic: the right length
 * and alphabet for their format, high-entropy, generated from a fixed seed so runs are repeatable.
 */
let seed = 0x9e3779b9;
function rnd(len: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'): string {
  let out = '';
  for (let i = 0; i < len; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    out += alphabet[(seed >>> 0) % alphabet.length];
  }
  return out;
}
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URLSAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const HEX = '0123456789abcdef';

export interface SecretShape {
  name: string;
  text: string;
  /** every part that must not appear anywhere stored or printed */
  secrets: string[];
}

function shape(name: string, secret: string | string[], text: (s: string[]) => string): SecretShape {
  const secrets = Array.isArray(secret) ? secret : [secret];
  return { name, text: text(secrets), secrets };
}

const pemBody = (lines: number) => Array.from({ length: lines }, () => rnd(64, B64)).join('\n');
const jwt = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI${rnd(40, URLSAFE)}.${rnd(43, URLSAFE)}`;
const awsSecret = rnd(40, B64);
const rsaBody = pemBody(6);
const sshBody = pemBody(5);
const ecBody = pemBody(3);
const pgpBody = pemBody(4);
const gcpKey = pemBody(5);
const basic = Buffer.from(`deploy:${rnd(14)}`).toString('base64');

export const SECRET_SHAPES: SecretShape[] = [
  shape('aws access key id', `AKIA${rnd(16, UPPER_NUM)}`, ([s]) => `aws configure set aws_access_key_id ${s}`),
  shape('aws secret key, INI', awsSecret, ([s]) => `[default]\naws_secret_access_key = ${s}\nregion = eu-west-1`),
  shape('aws session key id', `ASIA${rnd(16, UPPER_NUM)}`, ([s]) => `export AWS_ACCESS_KEY_ID=${s}`),
  shape('aws session token env', rnd(120, B64), ([s]) => `AWS_SESSION_TOKEN=${s} aws s3 ls`),
  shape('github classic pat', `ghp_${rnd(36)}`, ([s]) => `git remote set-url origin https://${s}@github.com/acme/api.git`),
  shape('github oauth token', `gho_${rnd(36)}`, ([s]) => `gh auth login --with-token <<< ${s}`),
  shape('github app token', `ghs_${rnd(36)}`, ([s]) => `curl https://x-access-token:${s}@github.com/acme/api/archive/main.zip -o a.zip`),
  shape('github fine-grained pat', `github_pat_11${rnd(20, UPPER_NUM)}_${rnd(59)}`, ([s]) => `GH_TOKEN=${s} gh pr list`),
  shape('gitlab pat', `glpat-${rnd(20, URLSAFE)}`, ([s]) => `git clone https://oauth2:${s}@gitlab.com/acme/infra.git`),
  shape('slack bot token', `xoxb-${rnd(12, '0123456789')}-${rnd(13, '0123456789')}-${rnd(24)}`, ([s]) => `SLACK_BOT=${s}`),
  shape('slack webhook url', `T0${rnd(8, UPPER_NUM)}/B0${rnd(9, UPPER_NUM)}/${rnd(24)}`, ([s]) => `curl -X POST https://hooks.slack.com/services/${s} -d '{"text":"deployed"}'`),
  shape('openai project key', `sk-proj-${rnd(74, URLSAFE)}T3BlbkFJ${rnd(74, URLSAFE)}`, ([s]) => `client = OpenAI(api_key="${s}")`),
  shape('anthropic key', `sk-ant-api03-${rnd(93, URLSAFE)}AA`, ([s]) => `export ANTHROPIC_API_KEY=${s}`),
  shape('stripe live secret', `sk_live_${rnd(99)}`, ([s]) => `stripe.api_key = '${s}'`),
  shape('stripe restricted key', `rk_live_${rnd(48)}`, ([s]) => `Using ${s} for the webhook`),
  shape('google api key', `AIza${rnd(35, URLSAFE)}`, ([s]) => `fetch("https://maps.googleapis.com/maps/api/geocode/json?address=x&key=${s}")`),
  shape('bare jwt', jwt, ([s]) => `the session cookie was ${s} until it expired`),
  shape('npm token', `npm_${rnd(36)}`, ([s]) => `//registry.npmjs.org/:_authToken=${s}`),
  shape('hugging face token', `hf_${rnd(34, LETTERS)}`, ([s]) => `huggingface-cli login --token ${s}`),
  shape('sendgrid key', `SG.${rnd(22, URLSAFE)}.${rnd(43, URLSAFE)}`, ([s]) => `sg = SendGridAPIClient("${s}")`),
  shape('rsa private key', rsaBody, ([s]) => `cat > id_rsa <<EOF\n-----BEGIN RSA PRIVATE KEY-----\n${s}\n-----END RSA PRIVATE KEY-----\nEOF`),
  shape('openssh private key', sshBody, ([s]) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`),
  shape('ec private key', ecBody, ([s]) => `key.pem:\n-----BEGIN EC PRIVATE KEY-----\n${s}\n-----END EC PRIVATE KEY-----\n`),
  shape('pgp private key block', pgpBody, ([s]) => `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${s}\n-----END PGP PRIVATE KEY BLOCK-----`),
  shape('gcp service account json', [gcpKey.replace(/\n/g, '\\n'), `${rnd(40, HEX)}`], ([k, id]) => `{"type": "service_account", "project_id": "acme-prod", "private_key_id": "kid-1", "private_key": "-----BEGIN PRIVATE KEY-----\\n${k}\\n-----END PRIVATE KEY-----\\n", "client_secret": "${id}"}`),
  shape('authorization basic', basic, ([s]) => `curl -H "Authorization: Basic ${s}" https://ci.acme.dev/api`),
  shape('authorization bearer', `${rnd(32, URLSAFE)}.${rnd(20)}`, ([s]) => `Authorization: Bearer ${s}`),
  shape('authorization token scheme', rnd(40, HEX), ([s]) => `headers = {"Authorization": "token ${s}"}`),
  shape('password json', `Tr0ub4dor&${rnd(6)}`, ([s]) => `{"username": "admin", "password": "${s}"}`),
  shape('password yaml with spaces', `correct horse ${rnd(8, LETTERS)} staple`, ([s]) => `database:\n  user: app\n  password: ${s}\n  host: db`),
  shape('passwd yaml', `${rnd(12)}`, ([s]) => `passwd: ${s}`),
  shape('password .env', `${rnd(18)}`, ([s]) => `DB_HOST=db\nDB_PASSWORD=${s}\nDB_PORT=5432`),
  shape('export secret', `${rnd(32, HEX)}`, ([s]) => `export JWT_SECRET="${s}" && npm start`),
  shape('password cli flag', `${rnd(14)}!`, ([s]) => `psql --password ${s} -h db.internal`),
  shape('token cli flag =', `${rnd(30, URLSAFE)}`, ([s]) => `vault login --token=${s} -method=token`),
  shape('curl -u', `${rnd(16)}`, ([s]) => `curl -u deploy:${s} https://nexus.acme.dev/repository/`),
  shape('https userinfo', `${rnd(12)}`, ([s]) => `pip install --index-url https://builder:${s}@pypi.acme.dev/simple pkg`),
  shape('postgres url', `${rnd(20)}`, ([s]) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/app`),
  shape('mongodb srv url', `${rnd(16)}`, ([s]) => `mongosh "mongodb+srv://admin:${s}@cluster0.mongodb.net/test"`),
  shape('redis url', `${rnd(24)}`, ([s]) => `redis-cli -u redis://:${s}@cache:6379/0 ping`),
  shape('azure storage connection string', `${rnd(86, B64)}==`, ([s]) => `DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=${s};EndpointSuffix=core.windows.net`),
  shape('azure service bus connection string', `${rnd(43, B64)}=`, ([s]) => `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${s}`),
  shape('sql server connection string', `${rnd(12)}#9`, ([s]) => `Server=tcp:db,1433;Database=app;User Id=sa;Password=${s};Encrypt=true`),
  shape('docker auth json', Buffer.from(`ci:${rnd(20)}`).toString('base64'), ([s]) => `{"auths": {"registry.acme.dev": {"auth": "${s}"}}}`),
  shape('api key json camel', `${rnd(40, HEX)}`, ([s]) => `{"apiKey": "${s}", "region": "us"}`),
  shape('x-api-key header', `${rnd(32)}`, ([s]) => `curl -H 'X-Api-Key: ${s}' https://api.acme.dev/v1/items`),
  shape('client secret yaml', `${rnd(34, URLSAFE)}`, ([s]) => `oauth:\n  client_id: web\n  client_secret: ${s}`),
  shape('mysql -p', `${rnd(14)}`, ([s]) => `mysql -u root -p${s} -h db app < dump.sql`),
  shape('python settings', `${rnd(50, URLSAFE)}`, ([s]) => `SECRET_KEY = '${s}'\nDEBUG = False`),
  shape('toml token', `${rnd(40, HEX)}`, ([s]) => `[registry]\ntoken = "${s}"`),
  // issue 22 item 9: shapes that reached the log verbatim on all three paths
  shape('aws configure set secret', rnd(40, B64), ([s]) => `aws configure set aws_secret_access_key ${s}`),
  shape('bare aws secret key', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + rnd(10, B64), ([s]) => `the key is ${s} (rotate it)`),
  shape('PGPASSWORD env', `${rnd(14)}`, ([s]) => `PGPASSWORD=${s} psql -h db.internal -U app app`),
  shape('s3 presigned url', rnd(64, HEX), ([s]) => `curl "https://acme.s3.amazonaws.com/a.tgz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature=${s}"`),
  shape('.netrc password', `${rnd(20)}`, ([s]) => `machine api.acme.dev\n  login deploy\n  password ${s}\n`),
  shape('.netrc one line', `${rnd(18)}`, ([s]) => `machine git.acme.dev login ci password ${s}`),
  shape('postgres url, # in password', `Ab#${rnd(10)}`, ([s]) => `psql postgres://app:${s}@db:5432/prod`),
  shape('mongodb srv url, @ and % in password', `p@${rnd(6)}%2F${rnd(6)}`, ([s]) => `mongosh "mongodb+srv://admin:${s}@cluster0.mongodb.net/test"`),
  shape('https userinfo, ^ and # in password', `d^${rnd(8)}#${rnd(4)}`, ([s]) => `git clone https://deploy:${s}@git.acme.dev/acme/api.git`),
  // issue 29 item 9: shapes stored verbatim on every path (db, export, forwarded copies)
  shape('ssh-keygen -P and -N', [rnd(14), `new ${rnd(12)}`], ([o, n]) => `ssh-keygen -p -f ~/.ssh/id_ed25519 -P ${o} -N '${n}'`),
  shape('htpasswd -b', rnd(16), ([s]) => `sudo htpasswd -b /etc/nginx/.htpasswd alice ${s}`),
  shape('htpasswd -nbB', rnd(16), ([s]) => `htpasswd -nbB -C 12 admin "${s}" >> users.htpasswd`),
  shape('passphrase prompt transcript', `${rnd(10)} ${rnd(8)}`, ([s]) => `$ ssh-add ~/.ssh/id_ed25519\nEnter passphrase for key '/home/alice/.ssh/id_ed25519': ${s}\nIdentity added: /home/alice/.ssh/id_ed25519 (alice@laptop)`),
  shape('https userinfo, : and / in password', `${rnd(6)}:${rnd(6)}/${rnd(8)}`, ([s]) => `git clone https://deploy:${s}@git.acme.dev/acme/api.git`),
  shape('base64 password in userinfo', `${rnd(12, B64)}/${rnd(10, B64)}+${rnd(8, B64)}==`, ([s]) => `pip install --index-url https://ci:${s}@pypi.acme.dev/simple acme-tools`),
  shape('kubernetes env list json', rnd(24), ([s]) => `kubectl get deploy api -o json | jq .spec.template.spec.containers[0].env\n[{"name": "DB_HOST", "value": "db.local"}, {"name": "DB_PASSWORD", "value": "${s}"}]`),
  shape('kubernetes env list yaml', rnd(32, URLSAFE), ([s]) => `    env:\n      - name: PORT\n        value: "8080"\n      - name: API_TOKEN\n        value: ${s}`),
  shape('header list', rnd(40, HEX), ([s]) => `fetch(url, { headers: [["Accept", "application/json"], ["Authorization", "token ${s}"]] })`),
  shape('pw key', rnd(14), ([s]) => `{"user": "bob", "pw": "${s}"}`),
  shape('flag and value as argv items', rnd(18), ([s]) => `spawn: ["gpg", "--batch", "--passphrase", "${s}", "-d", "secrets.gpg"]`),
  shape('gcp private_key_id', rnd(40, HEX), ([s]) => `{"type": "service_account", "project_id": "acme-prod", "private_key_id": "${s}", "client_email": "ci@acme-prod.iam.gserviceaccount.com"}`),
  // issue 29's review: a URL ending a sentence or with an IPv6 host, joined short flags, the value before its name
  shape('https userinfo ending a sentence', rnd(14), ([s]) => `Cloning from https://u:${s}@git.example.com.`),
  shape('postgres url, host then a colon', rnd(16), ([s]) => `DSN is postgres://app:${s}@db.internal:`),
  shape('userinfo url with an IPv6 host', rnd(14), ([s]) => `curl http://u:${s}@[::1]:8080/health`),
  shape('ssh-keygen -qN, joined flags', rnd(14), ([s]) => `ssh-keygen -qN ${s} -t ed25519 -f ~/.ssh/ci`),
  shape('name/value entry, value first', rnd(20), ([s]) => `{"value":"${s}","name":"DB_PASSWORD"}`),
  // the prompts a transcript shows, kept redacted now that prose is not taken for one
  shape('sudo prompt transcript', rnd(12), ([s]) => `$ sudo systemctl restart api\n[sudo] password for alice: ${s}\nJob for api.service done.`),
  shape('PEM pass phrase prompt', rnd(14), ([s]) => `writing RSA key\nEnter PEM pass phrase: ${s}\nVerifying - Enter PEM pass phrase: ${s}`),
];

/**
 * Secrets in structured arguments (parsed JSON, as hooks and OTLP tool calls carry them): the
 * secret is where a structure puts it, not in a string's form (issue 22 item 9).
 */
export const STRUCTURED_SHAPES: { name: string; value: Record<string, unknown>; secrets: string[] }[] = [
  ((k) => ({ name: 'token as a JSON key', value: { [k]: { scopes: ['repo'] } }, secrets: [k] }))(`ghp_${rnd(36)}`),
  ((a, b) => ({ name: 'tokens array', value: { tokens: [a, b] }, secrets: [a, b] }))(rnd(24), rnd(24)),
  ((v) => ({ name: 'key named sig', value: { url: 'https://acme.blob.core.windows.net/c', sig: v }, secrets: [v] }))(rnd(43, B64)),
  ((v) => ({ name: 'key named private', value: { kty: 'OKP', private: v }, secrets: [v] }))(rnd(43, URLSAFE)),
  ((v) => ({ name: 'key named pin', value: { card: 'visa', pin: v }, secrets: [v] }))(rnd(6, '0123456789')),
  ((v) => ({ name: 'key named otp_code', value: { user: 'bob', otp_code: v }, secrets: [v] }))(rnd(8, '0123456789')),
  // issue 29 item 9: the name is a sibling's value, or the item before
  ((v) => ({ name: 'env list entry', value: { containerDefinitions: [{ environment: [{ name: 'DB_HOST', value: 'db.local' }, { name: 'DB_PASSWORD', value: v }] }] }, secrets: [v] }))(rnd(20)),
  ((v) => ({ name: 'header pairs', value: { headers: [['Accept', 'application/json'], ['Authorization', `token ${v}`]] }, secrets: [v] }))(rnd(40, HEX)),
  ((v) => ({ name: 'argv flag then value', value: { argv: ['gpg', '--batch', '--passphrase', v, '-d', 'secrets.gpg'] }, secrets: [v] }))(rnd(18)),
  ((v) => ({ name: 'key named pw', value: { user: 'bob', pw: v }, secrets: [v] }))(rnd(14)),
  ((v) => ({ name: 'gcp private_key_id', value: { type: 'service_account', private_key_id: v }, secrets: [v] }))(rnd(40, HEX)),
];

export interface NearMiss {
  name: string;
  text: string;
}

export const NEAR_MISSES: NearMiss[] = [
  { name: 'commit hash', text: 'git checkout 3f786850e387550fdab836ed7e6dc881de23001b' },
  { name: 'short commit', text: 'fixed in a1b2c3d, see 9fceb02' },
  { name: 'uuid', text: 'session 5f0c8a9e-3b1d-4c2a-9f6e-8d7b6a5c4e3f started' },
  { name: 'base64 image', text: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' },
  { name: 'token count', text: 'token_count: 42' },
  { name: 'max tokens', text: '{"max_tokens": 16000, "input_tokens": 12840}' },
  { name: 'password in prose', text: 'Please enter your password when prompted, then choose a new password.' },
  { name: 'bearer of bad news', text: 'I am the bearer of bad news: the build failed.' },
  { name: 'token in prose', text: 'The tokenizer splits each token into bytes.' },
  { name: 'secret in prose', text: 'The secret to fast tests is running them in parallel.' },
  { name: 'key in prose', text: 'Press any key to continue; the key point is speed.' },
  { name: 'sha256 digest', text: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b4b0b822cd15d6c15b0f00a08' },
  { name: 'password file flag', text: 'pg_dump --no-password -f backup.sql app' },
  { name: 'url without credentials', text: 'open https://github.com/block/goose/pull/1234' },
  { name: 'ssh url with user', text: 'git clone ssh://git@github.com/acme/api.git' },
  { name: 'email address', text: 'mail alice@example.com about the release' },
  { name: 'pwd is a directory', text: 'PWD=/home/alice/project make test' },
  { name: 'public key', text: '{"public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice"}' },
  { name: 'primary key', text: 'ALTER TABLE users ADD PRIMARY KEY (id); sort_key: created_at' },
  { name: 'semver and ports', text: 'node v20.20.2 listening on 127.0.0.1:4318' },
  { name: 'env without secret', text: 'NODE_ENV=production PORT=8080 npm start' },
  { name: 'random looking id', text: 'request id msg_01XFDUDYJgAACzvnptvVoYEL completed' },
  { name: 'auth in prose', text: 'The author fixed the auth flow yesterday.' },
  { name: 'keyboard shortcut json', text: '{"key": "ctrl+s", "command": "save"}' },
  { name: 'forty character path', text: 'cat src/components/Button/ButtonGroupItem.tsx' },
  { name: 'sha1 hex', text: 'blob da39a3ee5e6b4b0d3255bfef95601890afd80709 ok' },
  { name: 'aws configure region', text: 'aws configure set region eu-west-1' },
  { name: 'netrc-like prose', text: 'The machine asks for a login and a password at boot.' },
  { name: 'url with port and at-path', text: 'npm i https://registry.acme.dev:8443/pkg@1.2.3' },
  { name: 'max and input tokens counts', text: '{"tokens": 512, "max_tokens": 1024}' },
  { name: 'private flag', text: '{"name": "app", "private": true}' },
  // issue 29 item 9: look-alikes of the shapes above
  { name: 'ssh-keygen without -P or -N', text: 'ssh-keygen -t ed25519 -C alice@example.com -f ~/.ssh/id_ed25519' },
  { name: 'htpasswd without -b', text: 'htpasswd -c /etc/nginx/.htpasswd alice' },
  { name: 'url with @ in the path', text: 'curl -O https://unpkg.com/react@18.2.0/umd/react.production.min.js' },
  { name: 'url with port and @ in the path', text: 'open http://localhost:5173/@fs/home/alice/app/src/main.ts' },
  { name: 'name/value entry that is no secret', text: '{"name":"DB_HOST","value":"db.local"}' },
  { name: 'pw in prose', text: 'Reset the pw from the admin page; pw resets take a minute.' },
  { name: 'required fields list', text: '{"required": ["password", "username"]}' },
  { name: 'passphrase prompt, no answer', text: "Enter passphrase for key '/home/alice/.ssh/id_ed25519':\nIdentity added: /home/alice/.ssh/id_ed25519" },
  // issue 29's review: "password for X:" in prose is no prompt
  { name: 'password for someone, in prose', text: 'Reset the password for alice: see https://docs.example.com/reset' },
  { name: 'password for something, in a comment', text: '// hash the password for storage: bcrypt, cost 12' },
  { name: 'password for someone, in an error', text: "error: password for 'bob' expired: ask an admin to reset it" },
];

/** The first part of `secret` found in `haystack` (the whole, or any 12-character piece), if any. */
export function leakedPart(haystack: string, secret: string): string | undefined {
  if (haystack.includes(secret)) return secret;
  for (let i = 0; i + 12 <= secret.length; i++) {
    const part = secret.slice(i, i + 12);
    if (haystack.includes(part)) return part;
  }
  return undefined;
}

/** Every shape whose secret leaks into `haystack`, as "name: part" lines. */
export function leaks(haystack: string, shapes: readonly SecretShape[] = SECRET_SHAPES): string[] {
  const out: string[] = [];
  for (const s of shapes) for (const secret of s.secrets) {
    const part = leakedPart(haystack, secret);
    if (part) out.push(`${s.name}: ${part}`);
  }
  return out;
}
