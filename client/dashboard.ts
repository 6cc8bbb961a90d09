/// <reference lib="dom" />
/**
 * The dashboard's one client module (bundled by esbuild into dist/src/dashboard/client.js). Pages
 * are complete without it; it adds live updates: every few seconds it asks the collector how many
 * events were committed after the page's newest one and offers to show them, without reflowing the
 * page under the reader. It writes text only (textContent), never markup.
 */
const POLL_MS = 3000;

function start(): void {
  const body = document.body;
  const live = document.getElementById('live');
  if (!live || body.dataset.seq === undefined) return;
  const since = body.dataset.seq;
  let timer: number | undefined;
  let failures = 0;

  const poll = async () => {
    timer = undefined;
    try {
      const r = await fetch(`/api/changes?since=${encodeURIComponent(since)}`, { cache: 'no-store', credentials: 'same-origin' });
      if (!r.ok) throw new Error(String(r.status));
      const c = (await r.json()) as { seq: string; newEvents: number };
      failures = 0;
      show(live, c.newEvents);
    } catch {
      failures++;
      live.textContent = failures > 2 ? 'collector not reachable' : '';
    }
    schedule();
  };
  const schedule = () => {
    if (timer === undefined && document.visibilityState === 'visible') timer = window.setTimeout(poll, POLL_MS);
  };
  document.addEventListener('visibilitychange', schedule);
  schedule();
  live.dataset.polling = 'on';
}

function show(live: HTMLElement, n: number): void {
  if (n <= 0) {
    live.textContent = '';
    return;
  }
  let button = live.querySelector('button');
  if (!button) {
    button = document.createElement('button');
    button.type = 'button';
    button.addEventListener('click', () => location.reload());
    live.replaceChildren(button);
  }
  button.textContent = `${n.toLocaleString('en-US')} new event${n === 1 ? '' : 's'} — show`;
}

/** Each UTC time also in the reader's own zone, on hover. */
function localTimes(): void {
  for (const t of Array.from(document.querySelectorAll('time[datetime]'))) {
    const d = new Date(t.getAttribute('datetime')!);
    if (!Number.isNaN(d.getTime())) t.setAttribute('title', d.toLocaleString());
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => (start(), localTimes()));
else (start(), localTimes());
