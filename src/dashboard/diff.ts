import { html, type Html } from './html';

const COLLAPSE_ABOVE = 40;

/**
 * A stored unified diff as lines with +/− classes; long diffs open collapsed, and the raw text is
 * one click away. Every line is escaped: a diff is file content, and file content is hostile.
 */
export function renderDiff(diff: string): Html {
  const lines = diff.replace(/\n$/, '').split('\n');
  const body = lines.map((l) => {
    const cls = l.startsWith('+++') || l.startsWith('---') ? 'meta' : l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('\\') ? 'meta' : 'ctx';
    return html`<div class="${cls}">${l === '' ? ' ' : l}</div>`;
  });
  const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
  const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
  const rendered = html`<div class="diff" data-diff>${body}</div>`;
  const summary = html`<span class="ok">+${added}</span> <span class="bad">−${removed}</span>`;
  return html`<details class="diffbox"${lines.length <= COLLAPSE_ABOVE ? html` open` : ''}><summary>diff ${summary} (${lines.length} lines)</summary>${rendered}
<details class="raw"><summary>raw</summary><pre>${diff}</pre></details></details>`;
}
