/**
 * The page shell every standalone page shares: the one stylesheet (its hash is what the
 * Content-Security-Policy allows; no script), the header with the navigation (outside a fleet the
 * inventory and the WAL browser; in one the fleet, and a chosen repository's two pages), who is
 * signed in, and the notices every page carries (discovery in progress, a first scan's progress).
 */
import { createHash } from 'node:crypto';
import { progressNote } from './glance-view.ts';
import { html, raw, type Raw } from './html.ts';
import { repositoryQuery, type PageContext } from './page-context.ts';

export const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{background:#1b1f24;color:#fff;padding:10px 20px;display:flex;gap:24px;align-items:baseline}
header h1{font-size:17px;margin:0}header a{color:#cfe3ff}main{padding:16px 20px;max-width:1200px}
section{background:#fff;border:1px solid #d6dae0;border-radius:6px;padding:12px 16px;margin:0 0 16px}
h2{font-size:16px;margin:0 0 8px}h3{font-size:14px;margin:14px 0 6px}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #eceef1;vertical-align:top}
th{background:#f0f2f5;font-weight:600}code{font:12px ui-monospace,monospace}
.state{font-weight:600;padding:1px 6px;border-radius:3px;border:1px solid}
.healthy{color:#145a32;border-color:#145a32}.warning{color:#7a4d00;border-color:#7a4d00}
.unhealthy{color:#8b0000;border-color:#8b0000}.unknown{color:#444;border-color:#888;border-style:dashed}
.retained{color:#5b6470;border-color:#9aa1ab;border-style:dotted;font-weight:400}.notice{border-color:#7a4d00;background:#fff8eb}
.muted{color:#5b6470}.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}
form{display:flex;flex-wrap:wrap;gap:10px;align-items:end}label{display:flex;flex-direction:column;font-size:12px}
.error{border-color:#8b0000}svg text{font:11px system-ui,sans-serif}
.lane{fill:#f0f2f5}.range{fill:#2f6f9f}.gap-confirmed{fill:url(#hatch);stroke:#8b0000}.gap-candidate{fill:#fff;stroke:#7a4d00;stroke-dasharray:3 2}
.gap-retention{fill:#e4e7eb;stroke:#5b6470;stroke-dasharray:1 2}
.backup{fill:#1b1f24}.fork{stroke:#555;stroke-dasharray:2 2}.frontier{stroke:#145a32;stroke-width:2}
.top{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:10px 0 14px;padding:10px 14px;background:#f3f7fb;border:1px solid #c5d3e2;border-radius:6px;font-size:14px}
.top dt{font-weight:600}.top dd{margin:0}.top ul{margin:2px 0 0;padding-left:18px}
.label{font-size:12px;background:#eef1f5;border:1px solid #d6dae0;border-radius:3px;padding:0 5px;white-space:nowrap}
td code,td time{white-space:nowrap}th.reason{min-width:14em}
header{flex-wrap:wrap;row-gap:4px}header h1 .name{font-weight:400;font-size:15px;margin-left:6px;overflow-wrap:anywhere}
h2 .name{font-weight:400;overflow-wrap:anywhere}.structural{color:#3d4550;font-size:13px}
ul.windows,ul.todo{margin:6px 0;padding-left:18px}ul.todo li{margin:2px 0}.recorded-error{margin-top:3px;color:#8b0000;overflow-wrap:anywhere}
code,.top dd,.facts span,p,li{overflow-wrap:anywhere}input,select{max-width:100%}.bytes{white-space:nowrap}
@media (max-width:600px){header{padding:8px 12px;gap:4px 14px}main{padding:10px 8px}section{padding:10px}
.facts,.top{grid-template-columns:1fr;gap:0 8px}.facts>span:nth-child(odd),.top dt{font-weight:600;margin-top:6px}
label{flex:1 1 100%}label input,label select{width:100%;box-sizing:border-box}.scroll>table{min-width:640px}}
.scroll:focus-visible{outline:2px solid #2f6f9f}
p.notice{border-left:3px solid #7a4d00;padding:6px 10px}p.notice.error{border-left-color:#8b0000;background:#fdf1f1}
.fleet td{white-space:nowrap}.scroll{overflow-x:auto}
.chain .dep{display:block}td code.id{white-space:normal}.broken{color:#8b0000}
`;
export const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

/** Outside a fleet the two pages; in one the fleet, and the repository's two pages once one is chosen. */
function nav(ctx: PageContext): Raw {
  if (ctx.repository === undefined) return html`<a href="/">Inventory</a> · <a href="/wals">WAL browser</a>`;
  const q = repositoryQuery(ctx);
  const chosen = ctx.repository === null
    ? ''
    : html` · <a href="/?${q}">Inventory of <code>${ctx.repository}</code></a> · <a href="/wals?${q}">WAL browser</a>`;
  return html`<a href="/">Fleet</a>${chosen}`;
}

const DISCOVERING = html`<p class="notice" role="status"><strong>Discovery in progress:</strong> the destination is being \
listed to find its server scopes (for at most 30 s); they appear on these pages once it ends.</p>`;

export function layout(title: string, ctx: PageContext, body: Raw): string {
  const name = ctx.name == null ? '' : html` <span class="name">${ctx.name}</span>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}${ctx.name == null ? '' : ` · ${ctx.name}`} · viewer</title><style>${raw(STYLE)}</style></head>
<body><header><h1>viewer${name}</h1><nav>${nav(ctx)}</nav>
<span>${ctx.demo ? 'embedded demo repository' : ''}</span>
<span class="muted">${ctx.identity === null ? '' : html`signed in as ${ctx.identity}`}</span></header>
<main>${ctx.destination?.discoveryPending === true ? DISCOVERING : ''}${progressNote(ctx)}${body}</main></body></html>
`.text;
}
