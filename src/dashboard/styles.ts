/** The dashboard's one stylesheet, served as /assets/app.css (no inline style: the CSP forbids it). */
export const STYLES = `
:root{--fg:#1d2330;--muted:#5f6b7a;--line:#dde2ea;--bg:#f6f7f9;--card:#fff;--accent:#2456c7;--ok:#1f7a3d;--warn:#a35d00;--bad:#b3261e;
--in:#4a78d6;--out:#e08a2c;--cr:#7cb87c;--cw:#b58ad6;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:14px;color:var(--fg);background:var(--bg)}
*{box-sizing:border-box}body{margin:0}a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
header.top{display:flex;align-items:center;gap:24px;padding:10px 20px;background:#1d2330;color:#fff}
header.top a{color:#dfe6f3}.brand{font-weight:700;font-size:16px;color:#fff!important}
nav{display:flex;gap:16px}nav a[aria-current=page]{color:#fff;border-bottom:2px solid #7fa6ff;padding-bottom:2px}
.live{margin-left:auto;font-size:13px}.live button{font:inherit;background:#7fa6ff;color:#0d1526;border:0;border-radius:4px;padding:4px 10px;cursor:pointer}
main{padding:16px 20px;max-width:1500px}footer{padding:16px 20px;color:var(--muted);font-size:12px}
h1{font-size:20px;margin:4px 0 12px}h2{font-size:16px;margin:18px 0 8px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:12px 14px}
.card h2{margin-top:0}
table{border-collapse:collapse;width:100%;background:var(--card)}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);font-size:12px;white-space:nowrap}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:3px 12px}.kv dt{color:var(--muted)}.kv dd{margin:0;overflow-wrap:break-word}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:12px;background:#e8ecf3;color:var(--fg);margin:1px 2px 1px 0;white-space:nowrap}
.badge.ok{background:#dcf2e3;color:var(--ok)}.badge.warn{background:#fdebd0;color:var(--warn)}.badge.bad{background:#fbe0de;color:var(--bad)}
.badge.off{background:transparent;color:#aab3c0;border:1px dashed #c8cfda}
.muted{color:var(--muted)}.bad{color:var(--bad)}.warn{color:var(--warn)}.ok{color:var(--ok)}
form.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:end;margin:0 0 12px;background:var(--card);padding:10px;border:1px solid var(--line);border-radius:6px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted);gap:2px}
form.filters input,form.filters select{font:inherit;padding:4px 6px;border:1px solid #c8cfda;border-radius:4px;min-width:110px}
form.filters button{font:inherit;padding:5px 12px;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
.pager{display:flex;gap:16px;margin:10px 0;align-items:center}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;background:#f1f3f7;padding:6px 8px;border-radius:4px;max-height:480px;overflow:auto}
.timeline{list-style:none;margin:0;padding:0}.timeline>li{background:var(--card);border:1px solid var(--line);border-left:4px solid #c8cfda;border-radius:4px;margin:6px 0;padding:8px 12px}
.timeline>li.prompt{border-left-color:#2456c7}.timeline>li.model{border-left-color:#7c4dcc}.timeline>li.tool{border-left-color:#1f7a3d}
.timeline>li.tool.failed{border-left-color:var(--bad)}.timeline>li.tool.denied{border-left-color:var(--bad);background:#fff7f6}.timeline>li.gap{border:0;background:none;color:var(--muted);text-align:center;padding:2px}
.row-head{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}.row-head .what{font-weight:600}.row-head time{color:var(--muted);font-size:12px;font-variant-numeric:tabular-nums}
.seen{margin-left:auto}.note{margin:4px 0;padding:4px 8px;border-radius:4px;background:#fdebd0;color:#6b3d00}.note.bad{background:#fbe0de;color:var(--bad)}
.diff{background:#fbfcfd;border:1px solid var(--line);border-radius:4px;padding:4px 0;margin:4px 0;overflow:auto;max-height:520px}
.diff div{white-space:pre-wrap;word-break:break-word;padding:0 8px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
.diff .add{background:#e6f6ea;color:#135c2b}.diff .del{background:#fdeceb;color:#8c1d16}.diff .hunk{color:#5b3fb3;background:#f1edfb}.diff .meta{color:var(--muted)}
details>summary{cursor:pointer;color:var(--accent)}
svg.chart{width:100%;height:auto;background:var(--card);border:1px solid var(--line);border-radius:6px}
svg.chart text{font-size:11px;fill:var(--muted)}svg.chart .in{fill:var(--in)}svg.chart .out{fill:var(--out)}svg.chart .cr{fill:var(--cr)}svg.chart .cw{fill:var(--cw)}svg.chart line{stroke:var(--line)}svg.chart line.axis,svg.chart line.tick{stroke:#aab3c0}svg.chart text.empty{font-size:14px}
.legend{display:flex;gap:14px;font-size:12px;margin:6px 0}.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}
.legend .in{background:var(--in)}.legend .out{background:var(--out)}.legend .cr{background:var(--cr)}.legend .cw{background:var(--cw)}
.big{font-size:22px;font-weight:600}.sub{font-size:12px;color:var(--muted)}
#events td:first-child{white-space:nowrap}
#sessions{font-size:13px}#sessions th{white-space:normal}#sessions th,#sessions td{padding:5px 4px}#sessions code,#sessions .badge{white-space:normal;overflow-wrap:anywhere}#sessions td.n.failures{white-space:normal;padding-left:1px}#sessions th.reported,#sessions td.reported{width:1%;white-space:nowrap}#sessions td.n .sub{white-space:normal}
#sessions td.when span{white-space:nowrap}#sessions td.tools{min-width:118px}#sessions td.models{min-width:96px}#sessions td.n{white-space:nowrap}
.grid3{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}
.timeline>li.depth-1{margin-left:28px}.timeline>li.depth-2{margin-left:56px}.timeline>li.depth-3{margin-left:84px}.timeline>li.depth-4{margin-left:112px}.timeline>li.depth-5{margin-left:140px}.timeline>li.depth-6{margin-left:168px}
.took{display:inline-flex;align-items:center;gap:6px;font-size:12px;color:var(--muted);font-variant-numeric:tabular-nums}.took-bar{width:120px;height:8px;background:#eef1f6;border-radius:2px}.took-bar rect{fill:#7c4dcc}
svg.chart text.unit{font-weight:600}svg.chart line.grid{stroke:#eef1f6}
svg.waterfall text.wf-label{font-size:12px;fill:var(--fg)}svg.waterfall text.wf-took{font-size:11px}
svg .wf-model,.legend .wf-model{fill:#7c4dcc;background:#7c4dcc}svg .wf-tool,.legend .wf-tool{fill:#1f7a3d;background:#1f7a3d}svg .wf-step,.legend .wf-step{fill:#aab3c0;background:#aab3c0}svg .wf-failed,.legend .wf-failed{fill:var(--bad);background:var(--bad)}
svg.waterfall g.wf-row:hover rect{opacity:.8}svg.trend circle.latency{fill:#7c4dcc}svg.trend circle.cost{fill:var(--ok)}svg.trend path.cost{fill:none;stroke:var(--ok);stroke-width:2}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:12px}h3{font-size:14px;margin:12px 0 6px}
`;
