import { html, type Html } from './html';
import type { Page } from './page';

/**
 * The page shell: one stylesheet and one module script from this origin, nothing inline (the CSP
 * forbids it). `data-seq` is the newest commit the page shows; the client polls for later ones.
 */
export function layout(opts: { page: Page; pages: readonly Page[]; title: string; seq: bigint; body: Html }): Html {
  const current = 'under' in opts.page.nav ? opts.page.nav.under : opts.page.name;
  const nav = opts.pages.flatMap((p) => ('label' in p.nav ? [{ name: p.name, path: p.path, label: p.nav.label }] : []));
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${opts.title} · Beacon</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body data-page="${opts.page.name}" data-seq="${opts.seq}">
<header class="top">
<a class="brand" href="/">Beacon</a>
<nav>${nav.map(({ name, path, label }) => html`<a href="${path}"${name === current ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>
<span id="live" class="live" role="status" aria-live="polite"></span>
</header>
<main>
${opts.body}
</main>
<footer>Beacon dashboard · read-only · served on loopback · nothing here is loaded from another origin</footer>
</body>
</html>`;
}
