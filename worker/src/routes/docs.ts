import { Hono } from "hono";
import type { AppEnv } from "../env.ts";

// A self-contained API reference: it renders /openapi.json in the browser with no CDN, so the
// page works on an offline machine too.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ecf-edge API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fafafa}
header{background:#0b3d91;color:#fff;padding:16px 24px}main{max-width:980px;margin:0 auto;padding:16px 24px}
.op{background:#fff;border:1px solid #ddd;border-radius:6px;margin:10px 0;padding:10px 14px}
.m{display:inline-block;min-width:64px;font-weight:700;text-transform:uppercase}
.get{color:#0a7d32}.post{color:#0b3d91}.put{color:#8a5a00}.delete{color:#b00020}
code{background:#f0f0f0;padding:1px 4px;border-radius:3px}pre{background:#f4f4f4;padding:8px;overflow:auto;font-size:12px}
h2{margin-top:28px;border-bottom:1px solid #ddd}
</style></head>
<body><header><h1 id="title">ecf-edge API reference</h1><div id="desc"></div></header>
<main><p>Machine-readable document: <a href="/openapi.json">/openapi.json</a>. Every error is
<code>application/problem+json</code> (RFC 9457) with a stable <code>code</code> and a <code>requestId</code>.</p>
<div id="ops">Loading…</div></main>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{
  document.getElementById('title').textContent=doc.info.title+' '+doc.info.version;
  document.getElementById('desc').textContent=doc.info.description||'';
  const byTag={};
  for(const [path,item] of Object.entries(doc.paths||{}))for(const [method,op] of Object.entries(item)){
    const tag=(op.tags&&op.tags[0])||'Other';(byTag[tag]=byTag[tag]||[]).push({path,method,op});}
  const esc=s=>String(s).replace(/[&<>]/g,ch=>({'&':'&amp;','<':'&lt;','>':'&gt;'}[ch]));
  const html=[];
  for(const [tag,ops] of Object.entries(byTag)){html.push('<h2>'+esc(tag)+'</h2>');
    for(const {path,method,op} of ops){
      const body=op.requestBody&&op.requestBody.content?Object.keys(op.requestBody.content).join(', '):'';
      html.push('<div class="op"><span class="m '+method+'">'+method+'</span> <code>'+esc(path)+'</code> '+esc(op.summary||'')+
        (op.description?'<p>'+esc(op.description)+'</p>':'')+(body?'<div>Body: '+esc(body)+'</div>':'')+
        '<div>Responses: '+Object.keys(op.responses||{}).map(esc).join(', ')+'</div></div>');}}
  document.getElementById('ops').innerHTML=html.join('')||'No operations.';
}).catch(e=>{document.getElementById('ops').textContent='Could not load /openapi.json: '+e});
</script></body></html>`;

export const docsRoutes = new Hono<AppEnv>().get("/docs", (c) => c.html(PAGE));
